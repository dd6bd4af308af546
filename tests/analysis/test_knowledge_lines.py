"""``Lines`` joins cached JSON pieces for the common message; the bytes must be those of
``knowledge_line`` over ``extract_plain`` for every message, common or not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.lines import Lines, knowledge_line

NAMES = ["Alice Smith", "alice smith", "Bob", "BOB", "user", "Assistant", "Zoë Ødegaard",
         'quote " name', "back\\slash", "Carol <carol@x.org>", "none", ""]  # fmt: skip
WORDS = ["deploy", "pipeline", "budget", "review", "alice", "smith", "the", "and", "why?",
         "@bob", "https://x.org/a", "carol@x.org", "#ops", "\n", "Ünïcode", "release"]  # fmt: skip

TEXT = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
record = st.fixed_dictionaries(
    {
        "textChunks": st.lists(TEXT, max_size=2),
        "metadata": st.fixed_dictionaries(
            {"speaker": st.sampled_from(NAMES), "listeners": st.lists(st.sampled_from(NAMES))}
        ),
        "format": st.sampled_from(["slack", "mbox", "discord"]),
        "id": st.one_of(st.none(), st.sampled_from(["m0", "m1", "m2"])),
        "source_id": st.one_of(st.none(), st.just("src#1"), st.just("")),
    },
    optional={
        "tags": st.lists(st.sampled_from(["ops", "Ops", "budget review", 7])),
        "subject": st.sampled_from(["Re: budget", "deploy pipeline", ""]),
        "replyTo": st.sampled_from(["m0", "m1", "", None]),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(record, max_size=8))
def test_lines_are_the_plain_knowledge_lines(records):
    conv = Conversation()
    analyses = [conv.observe_record(r) for r in records]
    lines = Lines(conv)
    for r, a in zip(records, analyses, strict=True):
        assert lines.line(r, a) == knowledge_line(r, conv.extract_plain(r, a))


def test_the_common_message_is_joined_from_pieces():
    conv = Conversation()
    r = {"textChunks": ["deploy the pipeline"], "metadata": {"speaker": "Ann",
         "listeners": ["Bo", 'Cé "x"']}, "id": "a", "format": "slack"}  # fmt: skip
    a = conv.observe_record(r)
    assert Lines(conv).line(r, a) == knowledge_line(r, conv.extract_plain(r, a))
