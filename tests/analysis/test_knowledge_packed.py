"""The first pass's packed chat and mail messages (``packed``) give the lines the spooled records
give (``Lines.line`` over ``extract.replay_batches``), byte for byte."""

from __future__ import annotations

import copy
import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import packed
from convo.analysis.knowledge.extract import Conversation, replay_batches
from convo.analysis.knowledge.lines import Lines

NAMES = ["Alice Smith", "alice smith", "Bob", "BOB", "user", "Assistant", "Zoë Ødegaard",
         'quote " name', "Carol <carol@x.org>", "none", "", "carol@x.org", "Straße", "STRASSE", "Alice Smith <alice@x.org>", "Email <e@x.org>", "email", "<bob@y.org>",
         "Bob <bob@y.org>", "bob@y.org"]  # fmt: skip
WORDS = ["deploy", "pipeline", "budget", "review", "alice", "smith", "the", "and", "why?",
         "@bob", "https://x.org/a", "carol@x.org", "#ops", "\n", "Ünïcode", "release",
         "Paris", "notes.md", "fixed", "Bob", "wrote", "[tool]", "release notes draft"]  # fmt: skip

TEXT = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
record = st.fixed_dictionaries(
    {
        "textChunks": st.lists(TEXT, max_size=2),
        "metadata": st.fixed_dictionaries(
            {
                "speaker": st.one_of(st.none(), st.sampled_from(NAMES)),
                "listeners": st.lists(st.sampled_from(NAMES), max_size=3),
            }
        ),
        "format": st.sampled_from(["slack", "mbox", "discord"]),
        "id": st.one_of(st.none(), st.sampled_from(["m0", "m1", "m2"])),
        "source_id": st.one_of(st.none(), st.just("src#1"), st.just("")),
    },
    optional={
        "tags": st.lists(st.sampled_from(["ops", "Ops", "budget review", "bot", 7])),
        "subject": st.sampled_from(["Re: budget", "deploy pipeline", "", None]),
        "replyTo": st.sampled_from(["m0", "m1", "", None]),
        "reply_to": st.sampled_from(["m2", ""]),
        "role": st.sampled_from(["user", "tool"]),
        "extra": st.fixed_dictionaries(
            {},
            optional={k: st.lists(st.sampled_from(NAMES), max_size=3) for k in ("to", "cc", "bcc")},
        ),
    },
)


def plain_lines(records: list[dict]) -> bytes:
    """The lines as the records spooled whole give them (the path before ``packed``)."""
    conv = Conversation()
    lines = Lines(conv)
    return b"".join(
        b"".join(map(lines.line, batch, analyses))
        for batch, analyses in replay_batches(iter(records), conv, keep_text=False, own=True)
    )


def packed_lines(records: list[dict]) -> bytes:
    return b"".join(packed.lines(iter(records), Conversation(), 1 << 20))


@settings(max_examples=300, deadline=None)
@given(st.lists(record, max_size=12))
def test_packed_lines_are_the_spooled_records_lines(records):
    assert packed_lines(copy.deepcopy(records)) == plain_lines(copy.deepcopy(records))


def test_a_batch_past_the_spool_batch_and_on_disk():
    records = [
        {"textChunks": [f"deploy pipeline review {i % 7}"], "format": "slack", "id": f"m{i}",
         "metadata": {"speaker": f"P{i % 5}", "listeners": [f"P{(i + 1) % 5}"]},
         "replyTo": "m3" if i == 600 else None}
        for i in range(700)
    ]  # fmt: skip
    got = b"".join(packed.lines(iter(copy.deepcopy(records)), Conversation(), 1 << 10))
    assert got == plain_lines(copy.deepcopy(records))


def test_the_common_chat_and_mail_messages_are_packed_and_the_others_are_not():
    conv = Conversation()
    records = [
        {"textChunks": ["deploy the pipeline"], "format": "slack", "id": "a",
         "metadata": {"speaker": "Ann", "listeners": ["Bo"]}, "tags": ["ops"]},
        {"textChunks": ["ask @bo"], "format": "slack", "id": "b",
         "metadata": {"speaker": "Ann", "listeners": ["Bo"]}},
        {"textChunks": ["hi"], "format": "slack", "metadata": {"speaker": "Ann", "listeners": ["ANN"]}},
        {"textChunks": ["hi"], "format": "mbox", "metadata": {"speaker": "Ann", "listeners": []}},
        {"textChunks": ["hi"], "format": "mbox", "replyTo": "a",
         "metadata": {"speaker": "Ann", "listeners": []}},
        {"textChunks": ["hi"], "format": "mbox",
         "metadata": {"speaker": "Ann <ann@x.org>", "listeners": ["ANN@x.org"]}},
    ]  # fmt: skip
    people = [(r["metadata"]["speaker"], r["metadata"]["listeners"]) for r in records]
    items, dumps = packed.pack(records, people, conv.observe_records(records))
    assert [type(x) for x in items] == [tuple, dict, dict, tuple, dict, dict]
    assert items[0][1:] == ("Ann", ["Bo"], ["ops"], "a", "slack")
    assert dumps[0] == ["deploy", "pipeline"]


def test_a_value_marshal_cannot_write_goes_as_json_would():
    when = datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC)
    records = [
        {"textChunks": ["deploy pipeline"], "format": "slack", "id": "a", "tags": ["ops", when],
         "metadata": {"speaker": "Ann", "listeners": ["Bo"]}},
        {"textChunks": ["deploy pipeline"], "format": "mbox", "id": "b", "at": when,
         "metadata": {"speaker": "Ann", "listeners": ["Bo"]}},
    ]  # fmt: skip
    assert packed_lines(copy.deepcopy(records)) == plain_lines(copy.deepcopy(records))
