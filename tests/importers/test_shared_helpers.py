"""Helpers the importer families share: ``StreamedDoc.expect`` (a streamed export whose
array is missing) and the listeners of a chat line (``apps.common``)."""

from __future__ import annotations

import pytest

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.apps.common import mentioned_or_other, other_party
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc
from convo.importers.registry import registry


def test_expect_gives_the_members_and_keeps_the_array(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text('{"channel": {"name": "general"}, "messages": [{"id": 1}, {"id": 2}]}')
    doc = StreamedDoc(Source(path), ("messages",))
    assert doc.expect("no messages", ("channel",)) == {"channel": {"name": "general"}}
    assert [item for item, _ in doc.items()] == [{"id": 1}, {"id": 2}]


def test_expect_names_what_is_missing_and_closes(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text('{"channel": {"name": "general"}}')
    doc = StreamedDoc(Source(path, name="doc.json"), ("messages",))
    with pytest.raises(InputError) as e:
        doc.expect("not an export (no messages list)")
    assert (e.value.what, e.value.where) == ("not an export (no messages list)", "doc.json")
    doc.close()  # already closed: a no-op


@pytest.mark.parametrize(
    ("fmt", "text", "what"),
    [
        ("discord", '{"guild": {}}', "not a DiscordChatExporter export (no messages list)"),
        ("matrix", '{"room_name": "Tea"}', "not an Element JSON export (no messages list)"),
        ("google-chat", '{"x": 1}', "not a Google Chat messages.json (no messages list)"),
        ("mastodon", '{"type": "x"}', "not a Mastodon outbox.json (no orderedItems)"),
        ("chatgpt", '"conversations"', "not a ChatGPT conversations.json (expected a list)"),
        ("claude-ai", '"x"', "not a claude.ai conversations.json (expected a list)"),
    ],
)
def test_streamed_readers_refuse_a_document_without_their_array(tmp_path, fmt, text, what):
    path = tmp_path / "in.json"
    path.write_text(text)
    source = Source(path, name="in.json")
    with pytest.raises(InputError) as e:
        list(registry.get(fmt).read(source, ImportContext(source)))
    assert (e.value.what, e.value.where) == (what, "in.json")


def test_other_party_is_the_listener_of_two_only():
    assert other_party(["Ann", "Bo"], "Ann") == ["Bo"]
    assert other_party(["Ann", "Bo"], None) == ["Ann", "Bo"]
    assert other_party(["Ann", "Bo", "Cy"], "Ann") == []
    assert other_party(["Ann"], "Ann") == []


def test_mentions_come_before_the_other_party():
    group = ["Ann", "Bo", "Cy"]
    assert mentioned_or_other(group, "Ann", "hi @Cy and @Ann") == ["Cy"]
    assert mentioned_or_other(group, "Ann", "hi all") == []
    assert mentioned_or_other(["Ann", "Bo"], "Ann", "hi") == ["Bo"]
    assert mentioned_or_other(["Ann", "Bo"], "Ann", "hi @Bo") == ["Bo"]


def test_format_takes_seven_fields_in_order_and_the_rest_by_keyword():
    from convo.importers.registry import Format

    def sniff(source):
        return 0

    def read(source, ctx):
        return iter(())

    fmt = Format("x", "chat", "about x", ("*.x",), sniff, read, "x: hi", directory=True)
    assert (fmt.name, fmt.family, fmt.description, fmt.patterns, fmt.example) == (
        "x", "chat", "about x", ("*.x",), "x: hi"
    )  # fmt: skip
    assert fmt.sniff is sniff and fmt.read is read and fmt.directory
    with pytest.raises(TypeError):
        Format("x", "chat", "about x", ("*.x",), sniff, read, "x: hi", True)  # type: ignore[misc]


def test_skipped_messages_are_warned_with_where_the_first_ones_are(tmp_path):
    """Every record not imported is reported with its place: the count, and the first
    three locations (then ``...``)."""
    from convo.importers.apps.common import EmptyCounter

    (tmp_path / "chat.json").write_text("[]")

    class Ctx:
        source = Source(tmp_path / "chat.json")
        warnings: list[tuple[str, str]] = []

        def warn(self, where: str, text: str) -> None:
            self.warnings.append((where, text))

    ctx = Ctx()
    empty = EmptyCounter()
    empty.report(ctx)
    assert ctx.warnings == []
    for n in (3, 9, 12, 40):
        empty.skip(f"chat.json:{n}")
    empty.report(ctx, "deleted messages")
    assert ctx.warnings == [
        (
            str(tmp_path / "chat.json"),
            "skipped deleted messages: 4 (at chat.json:3, chat.json:9, chat.json:12, ...)",
        )
    ]
