"""DiscordChatExporter's HTML export (``convo.importers.apps.discord_html``).

The fixture reproduces ``MessageGroupTemplate.cshtml``'s markup: a group of two messages
(the second without its header, pinned, edited, with an image attachment), a mention,
a line break and a custom emoji in the text, reactions, a reply to the first message
with a forwarded message, a system notification, a bot's embed (a mention inside it)
and sticker, a container whose id is not a snowflake, the preamble and postamble. Its
ids are snowflakes of the times its titles show (UTC+1).
"""

from __future__ import annotations

import html

from formats_helpers import FIXTURES, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import discord_html
from convo.importers.registry import registry

PAGE = (
    FIXTURES / "discord_html" / "Garden club - Text Channels - general [1012224565567721552].html"
)


def test_golden_and_detection():
    recs, _, _ = run(discord_html.read, PAGE)
    assert_golden("formats/discord_html/garden-general.jsonl", recs)
    assert registry.detect(Source(PAGE)).name == "discord-html"


def test_messages_groups_replies_and_sections():
    recs, rejects, warnings = run(discord_html.read, PAGE)
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs] == [
        ("Ann <3", "Morning @Bob, seeds arrived?\nSecond line 🌱", "2024-03-01T08:15:00Z"),
        ("Ann <3", "Same author, later.", "2024-03-01T08:16:00Z"),  # the group's author
        ("Bob", "Yes, all of them.", "2024-03-01T12:05:00Z"),
        ("Carl", "joined the server.", "2024-03-01T13:00:00Z"),
        ("GardenBot", "example/garden\nA planner for plots, by @Ann", "2024-03-01T13:01:00Z"),
    ]
    assert [r["id"] for r in recs][:3] == [
        "discord:1213036756992000000",
        "discord:1213037008650240000",
        "discord:1213094638387200000",
    ]
    assert recs[2]["replyTo"] == recs[0]["id"]
    assert recs[2]["metadata"]["listeners"] == ["Ann <3"]  # the replied-to author
    assert recs[0]["metadata"]["listeners"] == ["Bob"]  # mentioned
    assert recs[0]["extra"] == {"reactions": [{"emoji": "👍", "count": 2}]}
    assert recs[1]["extra"]["pinned"] is recs[1]["extra"]["edited"] is True
    assert (
        recs[1]["textChunks"][1]
        == "[attachment] https://cdn.discordapp.com/attachments/1/2/seeds.jpg"
    )
    assert recs[2]["textChunks"][1] == "[forwarded] the original words"
    assert recs[3]["tags"] == ["system"]
    assert recs[4]["extra"]["bot"] is True and recs[4]["extra"]["stickers"] == ["Sprout"]
    assert {r["thread"] for r in recs} == {"general"} and {r["format"] for r in recs} == {"discord"}
    assert [(r.where.rsplit(":", 1)[1], r.reason) for r in rejects] == [
        ("149", "message id 'x12' is not a Discord snowflake")
    ]
    assert not warnings  # six containers, as the postamble says


OLD_PAGE = (
    FIXTURES
    / "discord_html"
    / "Allotment society - Archived - seed-swap [1012224565567721999].html"
)


def test_the_2019_to_2022_layout():
    """DiscordChatExporter 2.15 to 2.3x: ``div.chatlog__message`` in a group whose header
    (author, bot tag, the replied-to message) comes before its messages (every message was
    lost, without a word: the 2021 page of a real export read as none)."""
    recs, rejects, warnings = run(discord_html.read, OLD_PAGE)
    assert registry.detect(Source(OLD_PAGE)).name == "discord-html"
    assert not rejects and not warnings  # the postamble's four
    assert [(r["metadata"]["speaker"], r["textChunks"], r["timestamp"]) for r in recs] == [
        ("Dana", ["@everyone the swap opens at noon.\nBring labels."], "2021-04-10T14:00:05Z"),
        (
            "Dana",
            [
                "@Eli can you bring the squash seeds?",
                "[attachment] seed-swap.html_Files/squash.jpg",
            ],
            "2021-04-10T14:02:30Z",
        ),
        ("Eli", ["Noted, I will be there 🌱"], "2021-04-10T14:05:00Z"),
        ("SeedBot", ["Swap reminder\nNoon at the shed."], "2021-04-10T14:09:10Z"),
    ]
    assert recs[0]["metadata"]["listeners"] == []  # @everyone is the channel
    assert recs[0]["extra"] == {"reactions": [{"emoji": "👍", "count": 3}]}
    assert recs[1]["metadata"]["listeners"] == ["Eli"]
    assert recs[1]["extra"]["pinned"] is recs[1]["extra"]["edited"] is True
    assert recs[2]["replyTo"] == recs[0]["id"] and recs[2]["metadata"]["listeners"] == ["Dana"]
    assert "replyTo" not in recs[3] and recs[3]["extra"]["bot"] is True
    assert {r["thread"] for r in recs} == {"seed-swap"}


def test_a_page_of_groups_without_messages_is_warned(tmp_path):
    """Pages from before July 2019 have no element a message (no ids): said, not silent."""
    path = tmp_path / "p.html"
    path.write_text(
        '<!DOCTYPE html><html><body><div class="chatlog"><div class="chatlog__message-group">'
        '<div class="chatlog__messages"><span class="chatlog__author-name" title="a#1">a</span>'
        '<div class="chatlog__content"><span class="markdown">hi</span></div></div></div>'
        "</div></body></html>",
        encoding="utf-8",
    )
    recs, _, warnings = run(discord_html.read, path)
    assert recs == []
    assert warnings == ["p.html: message groups but no messages in a layout this reader knows"]


def test_no_other_file_is_read_as_discord_html():
    assert files_taken({"discord-html"}, {"discord_html"}) == {}


_WORD = st.text(st.characters(whitelist_categories=("L", "Nd", "P")), min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=2).map(" ".join)
_TEXT = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)


def _page(msgs: list[tuple[str, list[str]]], exported: int) -> str:
    out = ['<!DOCTYPE html><html><head><title>G - c</title><style>.chatlog__x{}</style></head><body>',
           '<div class="preamble__entry">G</div><div class="preamble__entry">Cat / c</div>']  # fmt: skip
    for k, (name, lines) in enumerate(msgs):
        ident = (1_000_000_000_000 + k * 1000) << 22
        text = "<br>".join(html.escape(x) for x in lines)
        out.append(
            f'<div class="chatlog__message-group"><div class="chatlog__message-container" '
            f'data-message-id="{ident}"><div class="chatlog__header"><span class="chatlog__author" '
            f'title="u">{html.escape(name)}</span></div><div class="chatlog__content chatlog__markdown">'
            f'<span class="chatlog__markdown-preserve">{text}</span></div></div></div>\n'
        )
    out.append(
        f'<div class="postamble"><div class="postamble__entry">Exported {exported} message(s)</div></div>'
    )
    return "".join(out) + "</body></html>"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_NAME, st.lists(_TEXT, min_size=1, max_size=3)), min_size=1, max_size=8))
def test_any_page_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("dce") / "p.html"
    path.write_text(_page(msgs, len(msgs)), encoding="utf-8")
    recs, rejects, warnings = run(discord_html.read, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        (name.strip(), "\n".join(lines).strip()) for name, lines in msgs
    ]
    assert len({r["id"] for r in recs}) == len(recs)


def test_a_count_that_differs_is_warned(tmp_path):
    path = tmp_path / "p.html"
    path.write_text(_page([("a", ["hi"])], 3), encoding="utf-8")
    _, _, warnings = run(discord_html.read, path)
    assert warnings == ["p.html: the export says 3 messages; 1 read"]


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=600), st.integers(0, 400))
def test_hostile_input_never_crashes(tmp_path_factory, noise, cut):
    path = tmp_path_factory.mktemp("hostile") / "h.html"
    page = _page([("a", ["hi"]), ("b", ["there"])], 2).encode()
    path.write_bytes(page[: len(page) - cut] + noise)
    recs, _, _ = run(discord_html.read, path)
    assert len({r["id"] for r in recs}) == len(recs)


def test_counts_too_long_to_be_counts_are_no_error(tmp_path):
    """The export's count and a reaction's, as digits ``int`` refuses (4,300 or more):
    a ValueError escaped as an internal error; now no count is claimed (a reaction: 1)."""
    src = (
        FIXTURES
        / "discord_html"
        / "Garden club - Text Channels - general [1012224565567721552].html"
    )
    text = src.read_text(encoding="utf-8")
    text = text.replace("Exported 6 message(s)", f"Exported {'9' * 5000} message(s)")
    text = text.replace('reaction-count">2<', f'reaction-count">{"9" * 5000}<')
    path = tmp_path / "g.html"
    path.write_text(text, encoding="utf-8")
    recs, rejects, warnings = run(discord_html.read, path)
    plain, plain_rejects, _ = run(discord_html.read, src)
    assert len(recs) == len(plain) and len(rejects) == len(plain_rejects) and not warnings
    counts = [x["count"] for r in recs for x in (r.get("extra") or {}).get("reactions", [])]
    assert 1 in counts


def test_an_author_cut_by_a_read_keeps_its_whole_name(tmp_path, monkeypatch):
    """The page is fed 64 KiB at a time and the parser hands text over at a feed's end:
    an author's name cut there was its last piece alone (``Da`` + ``na`` read ``na``)."""
    for page in (PAGE, OLD_PAGE):
        text = page.read_bytes()  # (``_CHUNK`` counts bytes)
        whole, _, _ = run(discord_html.read, page)
        for name in {r["metadata"]["speaker"] for r in whole if r["metadata"]["speaker"]}:
            at = text.index(f">{html.escape(name, quote=False)}<".encode()) + 2  # a letter in
            monkeypatch.setattr(discord_html, "_CHUNK", at)
            cut, _, _ = run(discord_html.read, page)
            monkeypatch.undo()
            assert cut == whole, (page.name, name)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3000))
def test_any_read_size_gives_the_records_of_one_read(size):
    """The page read ``size`` bytes at a time reads as it does in one read (the fast
    path, 64 KiB feeds, against its plain twin): whatever a feed's end cuts."""
    import unittest.mock

    for page in (PAGE, OLD_PAGE):
        with unittest.mock.patch.object(discord_html, "_CHUNK", 1 << 30):
            whole = run(discord_html.read, page)
        with unittest.mock.patch.object(discord_html, "_CHUNK", size):
            assert run(discord_html.read, page) == whole, page.name
