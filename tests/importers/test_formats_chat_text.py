"""iMessage (imessage-exporter ``-f txt``) and LINE chat history text
(``convo.importers.apps.imessage``, ``convo.importers.apps.line``).

The iMessage fixture reproduces the blocks imessage-exporter's txt exporter and its
tests write (time line with the double space of ``%l``, read receipts, tapbacks, a
threaded reply indented under its message and repeated in place, an edit history, an
effect, a deleted message, an announcement, the exporter's ``Unable to format
announcement!``). The LINE fixtures reproduce the English (BOM, CRLF, quoted multi-line
message, 12-hour times, an event without a sender) and Japanese exports.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, NAME, TEXT, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import imessage, line
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

IMESSAGE = FIXTURES / "imessage" / "Lena Whitford.txt"
LINE_EN = FIXTURES / "line" / "[LINE] Chat history with Marta.txt"
LINE_JA = FIXTURES / "line" / "ja.txt"


@pytest.mark.parametrize(
    ("read", "path", "golden", "name"),
    [
        (imessage.read_imessage, IMESSAGE, "imessage/lena-whitford", "imessage"),
        (line.read_line, LINE_EN, "line/chat-history-with-marta", "line"),
        (line.read_line, LINE_JA, "line/ja", "line"),
        (line.read_line, FIXTURES / "line" / "zh-tw.txt", "line/zh-tw", "line"),
    ],
)
def test_golden_and_detection(read, path, golden, name):
    recs, _, _ = run(read, path)
    assert_golden(f"formats/{golden}.jsonl", recs)
    assert registry.detect(Source(path)).name == name


def test_imessage_blocks_replies_and_exporter_lines():
    recs, rejects, warnings = run(imessage.read_imessage, IMESSAGE)
    assert not rejects
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs]
    assert got == [
        ("Me", "Can you send the seed list?", "2022-05-17T17:29:42Z"),
        ("Lena Whitford", "Sent! Check your email.\nIt has the tomatoes too.", "2022-05-17T18:02:10Z"),
        ("Me", "Thanks, got it.\nTwo lines here.", "2022-05-17T18:03:00Z"),
        ("Lena Whitford", "Lena Whitford named the conversation Seed swap", "2022-05-17T18:10:00Z"),
        ("Me", "Meet at 7?", "2022-05-17T19:00:01Z"),
        ("Lena Whitford", "/Users/me/Library/Messages/Attachments/ab/11/IMG_0042.HEIC",
         "2022-05-18T00:15:00Z"),
        ("Me", "Did you see this?", "2022-05-18T09:00:00Z"),
    ]  # fmt: skip
    assert recs[0]["extra"] == {"read": {"by": "them", "after": "1 hour, 49 seconds"}}
    assert recs[1]["extra"] == {"reactions": [{"reaction": "Loved", "by": "Me"}]}
    assert recs[2]["replyTo"] == recs[1]["id"]
    assert recs[3]["tags"] == ["system"]
    assert recs[4]["extra"] == {"edits": ["Meet at 6?"], "effect": "Confetti"}
    assert recs[5]["extra"] == {"deleted": True}
    assert recs[6]["extra"] == {"reply": True}
    assert {r["thread"] for r in recs} == {"Lena Whitford"}
    assert recs[0]["metadata"]["listeners"] == ["Lena Whitford"]
    assert len({r["id"] for r in recs}) == len(recs)
    assert warnings == [
        "Lena Whitford.txt: 1 threaded reply printed twice (under the message they answer "
        "and in place); read once",
        "Lena Whitford.txt: skipped 'Unable to format announcement!' lines (nothing else "
        "written): 1 (at Lena Whitford.txt:30)",
    ]


def test_imessage_times_are_read_in_tz():
    opts = ImportOptions(tz=get_zone("America/Los_Angeles"))
    recs, _, _ = run(imessage.read_imessage, IMESSAGE, opts)
    assert recs[0]["timestamp"] == "2022-05-18T00:29:42Z"


def test_imessage_text_before_the_first_time_is_rejected(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("garbage\n\nMay 17, 2022  5:29:42 PM\nMe\nhi\n\n")
    recs, rejects, _ = run(imessage.read_imessage, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("chat.txt:1", "text before the first imessage-exporter time line")
    ]
    assert [r["textChunks"][0] for r in recs] == ["hi"]


def test_line_messages_quotes_events_and_media():
    recs, rejects, warnings = run(line.read_line, LINE_EN)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs]
    assert got == [
        ("Marta", "Good morning! Seeds arrived?", "2024-03-01T09:15:00Z"),
        ("Jonas", 'Yes, all of them.\nThe tomatoes look "great".', "2024-03-01T09:16:00Z"),
        ("Marta", "[Sticker]", "2024-03-01T12:40:00Z"),
        ("Marta", "[Photo]", "2024-03-01T12:41:00Z"),
        ("Jonas", "Call me when you are free", "2024-03-02T20:05:00Z"),
        (None, "Marta unsent a message.", "2024-03-02T20:30:00Z"),
    ]
    assert {r["thread"] for r in recs} == {"Marta"}
    assert recs[0]["metadata"]["listeners"] == ["Jonas"]
    assert recs[2]["extra"] == {"media": "sticker"}
    assert recs[5]["tags"] == ["system"] and recs[5]["metadata"]["listeners"] == []


def test_line_japanese_clock():
    recs, _, _ = run(line.read_line, LINE_JA)
    assert [(r["metadata"]["speaker"], r["timestamp"]) for r in recs] == [
        ("Jonas", "2024-03-01T09:15:00Z"),
        ("Marta", "2024-03-01T13:05:00Z"),
    ]
    assert recs[0]["thread"] == "Jonas"


def test_line_taiwan_spelling_and_date_lines():
    """Taiwan's exports spell the header ``與NAME的聊天紀錄`` (紀, not 記) and may write the
    weekday after the date without brackets (``2024/1/4週四``): the thread was the whole
    header and every message was rejected as before any date line."""
    recs, rejects, warnings = run(line.read_line, FIXTURES / "line" / "zh-tw.txt")
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["timestamp"]) for r in recs] == [
        ("王大明", "2024-01-04T10:00:00Z"), ("王小華", "2024-01-04T10:02:00Z"),
        ("王大明", "2024-01-05T13:05:00Z"), ("王小華", "2024-01-05T13:06:00Z"),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"王小華"}
    assert recs[0]["metadata"]["listeners"] == ["王小華"]
    assert recs[2]["textChunks"] == ["還好，\n明天再說"]


def test_line_message_before_a_date_is_rejected(tmp_path):
    path = tmp_path / "l.txt"
    path.write_text("09:15\tMarta\thi\n2024/03/01(Fri)\n09:16\tMarta\tthere\n")
    recs, rejects, _ = run(line.read_line, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("l.txt:1", "LINE message before any date line")
    ]
    assert [r["textChunks"][0] for r in recs] == ["there"]


def test_line_japanese_era_dates(tmp_path):
    """A phone set to the Japanese calendar dates its lines ``R7/02/09(日)`` (Reiwa 7,
    2025): every message of such an export was rejected as before any date line."""
    path = tmp_path / "era.txt"
    path.write_text(
        "[LINE] 園芸部のトーク履歴\n保存日時：R8/04/11 20:01\n\n"
        "R7/02/09(日)\n15:18\t佐藤\t[写真]\n15:20\t鈴木\tきれい\n\n"
        "R7/02/11(火)\n09:05\t佐藤\tおはよう\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(line.read_line, path)
    assert not rejects
    assert [(r["timestamp"], r["metadata"]["speaker"]) for r in recs] == [
        ("2025-02-09T15:18:00Z", "佐藤"), ("2025-02-09T15:20:00Z", "鈴木"),
        ("2025-02-11T09:05:00Z", "佐藤"),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"園芸部"}


def test_line_english_dates_in_the_phones_order(tmp_path):
    """``Www, a/b/yyyy`` is month first in the US and day first elsewhere: the file's
    date lines say which (``Sun, 26/04/2026`` was no date line, all its messages
    rejected); an ambiguous first date is read in the order a later one shows."""
    path = tmp_path / "dmy.txt"
    path.write_text(
        "[LINE] Chat history with Plot 9\nSaved on: 26/04/2026, 04:36PM\n\n"
        "Fri, 03/04/2026\n9:00AM\tAlex\tcompost day\n"
        "Sun, 26/04/2026\n04:35PM\tAlex\tramen?\n04:36PM\tMaya\t[Sticker]\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(line.read_line, path)
    assert not rejects
    assert [r["timestamp"] for r in recs] == [
        "2026-04-03T09:00:00Z", "2026-04-26T16:35:00Z", "2026-04-26T16:36:00Z",
    ]  # fmt: skip
    us = tmp_path / "mdy.txt"
    us.write_text("[LINE] Chat history with Ann\n\nTue, 03/04/2026\n9:00AM\tAnn\thi\n")
    assert run(line.read_line, us)[0][0]["timestamp"] == "2026-03-04T09:00:00Z"


def test_line_thai_header_names_the_chat(tmp_path):
    path = tmp_path / "th.txt"
    path.write_text(
        "[LINE] ประวัติการแชทกับ ชมรมสวน\nบันทึกวันที่ 2024/01/15 10:30\n\n"
        "2024/01/15 จันทร์\n10:30\tก้อย\tสวัสดี\n",
        encoding="utf-8",
    )
    recs, _, _ = run(line.read_line, path)
    assert [(r["thread"], r["metadata"]["speaker"]) for r in recs] == [("ชมรมสวน", "ก้อย")]


def test_line_sender_named_like_a_clock_half(tmp_path):
    """The clock's ``AM``/``PM`` follows the time after a space or nothing, never a tab:
    ``00:00<TAB>PM<TAB>0`` is a message of a sender named PM (it was read as 12:00 from
    a sender named 0, with no text)."""
    path = tmp_path / "l.txt"
    path.write_text(
        "[LINE] Chat history in Club\n\n2024/03/01(Fri)\n00:00\tPM\t0\n"
        "09:15 PM\tAM\thi\n09:16PM\tMarta\tyo\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(line.read_line, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs] == [
        ("PM", "0", "2024-03-01T00:00:00Z"), ("AM", "hi", "2024-03-01T21:15:00Z"),
        ("Marta", "yo", "2024-03-01T21:16:00Z"),
    ]  # fmt: skip


def test_line_clock_past_midnight_and_times_that_do_not_read(tmp_path):
    """``24:53`` under a day's date line (a LINE parser's tests read it) was a message
    at 1970-01-01, unsaid: it is 00:53 of the next day; a time that does not read
    (``25:10``) rejects its message and the lines continuing it."""
    path = tmp_path / "l.txt"
    path.write_text(
        "2018/04/19(Thu)\n23:59\tKai\tlate\n24:53\tKai\tstill up\n"
        "25:10\tKai\tbroken\nsecond line\n05:06\tMio\tmorning\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(line.read_line, path)
    assert [(r["textChunks"][0], r["timestamp"]) for r in recs] == [
        ("late", "2018-04-19T23:59:00Z"), ("still up", "2018-04-20T00:53:00Z"),
        ("morning", "2018-04-19T05:06:00Z"),
    ]  # fmt: skip
    assert [(r.where, r.reason) for r in rejects] == [
        ("l.txt:4", "LINE message time is not a time of day"),
        ("l.txt:5", "continues a rejected LINE message"),
    ]


def test_line_english_header_without_its_tag_and_bare_media_words(tmp_path):
    """LINE parsers (ChatLab's ``line-native-txt``) read an English header without its
    ``[LINE]`` and bare ``Photos``/``Stickers`` texts: the header and its saved-date line
    were rejected as text before any message and the chat named by its file."""
    path = tmp_path / "export.txt"
    path.write_text(
        "Chat history with Ann\nSaved on: 2024/03/02 21:15\n\nFri, 03/01/2024\n"
        "09:15\tAnn\tPhotos\n09:16\tMe\tStickers\n09:17\tMe\t[Notes] list\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(line.read_line, path)
    assert not rejects
    assert {r["thread"] for r in recs} == {"Ann"}
    assert [r["extra"]["media"] for r in recs] == ["photo", "sticker", "note"]
    assert registry.detect(Source(path)).name == "line"
    other = tmp_path / "notes.txt"
    other.write_text("Chat history with Ann\n(Last 3 messages):\n\nhi\n", encoding="utf-8")
    assert line.sniff_line(Source(other)) == 0


@pytest.mark.parametrize(
    ("text", "day"),
    [("2024/03/01(Fri)", (2024, 3, 1)), ("2024.03.01 Friday", (2024, 3, 1)),
     ("Fri, 03/01/2024", (2024, 3, 1)), ("2024/3/1周五", (2024, 3, 1)),
     ("2024/3/1週五", (2024, 3, 1)), ("R7/02/09(日)", (2025, 2, 9)), ("H30/12/31(月)", (2018, 12, 31)),
     ("Sun, 26/04/2026", (2026, 4, 26)),
     ("2024/13/01(Fri)", None), ("09:15\tMarta\thi", None)],
)  # fmt: skip
def test_line_day(text, day):
    got = line.line_day(text)
    assert (got and (got.year, got.month, got.day)) == day or got is day


MINE = {"imessage", "line"}


def test_no_other_file_is_read_as_these_chats():
    assert files_taken(MINE, MINE) == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, st.integers(0, 86399), st.lists(TEXT, min_size=1, max_size=3)),
                min_size=1, max_size=8))  # fmt: skip
def test_any_imessage_export_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("im") / "chat.txt"
    out = []
    for name, secs, lines in msgs:
        h, rest = divmod(secs, 3600)
        ampm = "PM" if h >= 12 else "AM"
        h12 = h % 12 or 12
        out.append(f"Mar 05, 2023 {h12:2d}:{rest // 60:02d}:{rest % 60:02d} {ampm}\n{name}\n"
                   + "\n".join(lines) + "\n\n")  # fmt: skip
    path.write_text("".join(out))
    recs, rejects, warnings = run(imessage.read_imessage, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:19]) for r in recs
    ] == [
        (name, "\n".join(lines), f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}")
        for name, s, lines in msgs
    ]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, st.integers(0, 1439), st.lists(TEXT, min_size=1, max_size=3)),
                min_size=1, max_size=8))  # fmt: skip
def test_any_line_export_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("line") / "l.txt"
    out = ["[LINE] Chat history in Club\nSaved on: 2024/03/02 21:15\n\n2024/03/01(Fri)\n"]
    for name, mins, lines in msgs:
        body = lines[0] if len(lines) == 1 else '"' + "\n".join(lines) + '"'
        out.append(f"{mins // 60:02d}:{mins % 60:02d}\t{name}\t{body}\n")
    path.write_text("".join(out))
    recs, rejects, warnings = run(line.read_line, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:16]) for r in recs
    ] == [(name, "\n".join(lines), f"{m // 60:02d}:{m % 60:02d}") for name, m, lines in msgs]


@settings(max_examples=60, deadline=None)
@given(
    st.binary(max_size=400),
    st.sampled_from(
        ["May 17, 2022  5:29:42 PM\n", "[LINE] Chat history with A\n\n2024/03/01(Fri)\n"]
    ),
)
def test_hostile_input_never_crashes(tmp_path_factory, noise, head):
    base = tmp_path_factory.mktemp("hostile")
    for read in (imessage.read_imessage, line.read_line):
        path = base / "h.txt"
        path.write_bytes(head.encode() + noise)
        recs, _, _ = run(read, path)
        assert len({r["id"] for r in recs}) == len(recs)
