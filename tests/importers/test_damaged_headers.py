"""Nothing glued to another speaker: in every line-oriented chat reader, a line whose
header is damaged is its own message (with a warning) or a counted rejection, never text
appended to the previous speaker's message."""

from __future__ import annotations

from chat_exports_helpers import ingest


def _speakers_and_text(recs):
    return [(r["metadata"]["speaker"], r["textChunks"]) for r in recs]


def test_zoom_chat(tmp_path):
    p = tmp_path / "meeting_saved_chat.txt"
    p.write_text("00:01:05\tAnn:\thello\n00:0x:10\tBob:\tdamaged one\n00:02:00\tAnn:\tok\n\tmore\n")
    recs, rejects, warnings = ingest(p)
    assert not rejects
    assert _speakers_and_text(recs) == [
        ("Ann", ["hello"]),
        ("Bob", ["damaged one"]),
        ("Ann", ["ok\nmore"]),  # a tab-indented line still continues its message
    ]
    assert recs[1]["extra"] == {"damaged_header": True}
    assert warnings == [f"{p}:2: damaged chat line time; read as its own message, time unknown"]


def test_whatsapp_android_and_ios(tmp_path):
    for text in (
        "1/22/23, 3:20 AM - Ann: first\n1/23/23, 3:22_AM - Bob: damaged\nmore\n",
        "[1/22/23, 3:20:00 AM] Ann: first\n[1/23/23, 3:22:0x AM] Bob: damaged\nmore\n",
    ):
        p = tmp_path / "chat.txt"
        p.write_text(text)
        recs, rejects, warnings = ingest(p)
        assert _speakers_and_text(recs) == [("Ann", ["first"]), ("Bob", ["damaged\nmore"])]
        assert not rejects and len(warnings) == 1


def test_irc_rejects_what_it_cannot_read(tmp_path):
    p = tmp_path / "#tea.log"
    p.write_text(
        "--- Log opened Tue Mar 01 10:00:00 2022\n10:00 <ann> hello\n10:0x <bob> damaged\n"
        + "".join(f"10:0{i} <ann> ok {i}\n" for i in range(2, 8))
    )
    recs, rejects, _ = ingest(p)
    assert _speakers_and_text(recs)[:2] == [("ann", ["hello"]), ("ann", ["ok 2"])]
    assert len(recs) == 7 and [r.where for r in rejects] == [f"{p}:3"]


def test_discord_text(tmp_path):
    p = tmp_path / "discord.txt"
    p.write_text(
        "Ann — 01/22/2023 3:20 PM\nfirst\n"
        "Bob — 01/23/2023 3:22_PM\ndamaged one\nmore\n"
        "Ann — 01/23/2023 3:25 PM\nok\n"
    )
    recs, rejects, warnings = ingest(p)
    assert not rejects
    assert _speakers_and_text(recs) == [
        ("Ann", ["first"]),
        ("Bob", ["damaged one\nmore"]),
        ("Ann", ["ok"]),
    ]
    assert recs[1]["timestamp"] == "1970-01-01T00:00:00Z"
    assert warnings == [f"{p}:3: damaged message header; read as its own message, time unknown"]
