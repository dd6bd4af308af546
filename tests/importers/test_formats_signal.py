"""Signal exports (``convo.importers.apps.signal`` and ``signal_json``).

The fixtures follow the exporters' source: signal-export (``sigexport``) writes
``<chat>/chat.md`` with ``Message.to_md`` (``[%Y-%m-%d %H:%M:%S] sender: quote body``, a
blank line after each message, ``(- name: emoji -)`` reactions, ``(( label ))`` stickers,
``![name](./path)`` attachments) and ``data.json`` with ``Message.dict_str`` (one JSON
object a line); sigtop writes ``-f text`` (``textWriteMessage``: ``From:``/``Type:``/
``Sent:``/``Received:``/``Attachment:``/``Reaction:`` fields, ``>`` quotes, ``|`` edit
history), ``-f text-short`` (``2006-01-02 15:04 Name: text``) and ``-f json`` (Signal
Desktop's message objects in an array).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import signal
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry

DIR = FIXTURES / "signal"
CASES = {
    "chat-md": DIR / "Aya" / "chat.md",
    "data-json": DIR / "Aya" / "data.json",
    "sigtop-text": DIR / "sigtop-bob.txt",
    "sigtop-short": DIR / "sigtop-short.txt",
    "sigtop-json": DIR / "sigtop-bob.json",
}


def _run(path: Path, **kw):
    source = Source(path, name=str(path.relative_to(FIXTURES)))
    rejects: list = []
    warnings: list[str] = []
    ctx = ImportContext(
        source, kw.get("options"), on_reject=rejects.append, on_warning=warnings.append
    )
    return [m.serialize() for m in signal.read(source, ctx)], rejects, warnings


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case):
    recs, _, _ = _run(CASES[case])
    assert recs and all(r["format"] == "signal" for r in recs)
    assert_golden(f"formats/signal/{case}.jsonl", recs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_detected_by_content(case, tmp_path):
    renamed = tmp_path / "noname"
    shutil.copyfile(CASES[case], renamed)
    assert registry.detect(Source(CASES[case])).name == "signal"
    assert registry.detect(Source(renamed)).name == "signal"


def test_chat_md_mapping():
    recs, rejects, warnings = _run(CASES["chat-md"])
    assert not rejects
    hello, great, reply, pdf, deleted, damaged, sticker = recs
    assert hello["metadata"] == {"speaker": "Me", "listeners": ["Aya"]}
    assert hello["thread"] == "Aya"  # the chat's folder
    assert hello["timestamp"] == "2019-05-29T15:04:33Z"
    assert great["textChunks"] == ["We're great!\nSecond line."]
    assert great["extra"]["reactions"] == [
        {"actor": "Me", "reaction": "👍"},
        {"actor": "Jim", "reaction": "❤️"},
    ]
    assert reply["textChunks"] == ["Glad to hear it", "[attachment] IMG_0001.jpg"]
    assert reply["extra"]["quote"] == "We're great!\nSecond line."
    assert pdf["extra"]["attachments"] == [{"name": "notes.pdf", "path": "./media/notes.pdf"}]
    assert deleted["extra"]["deleted"] is True
    assert sticker["textChunks"] == ["[sticker] 🐱"]
    # A damaged header is its own message, never glued to the deleted one before it.
    assert damaged["textChunks"] == ["a damaged header line"]
    assert damaged["extra"]["damaged_header"] is True
    assert deleted["textChunks"] == ["(This message was deleted)"]
    assert warnings == [
        "signal/Aya/chat.md:18: damaged message header; read as its own message, time unknown"
    ]


def test_md_and_json_of_one_chat_agree():
    md, _, _ = _run(CASES["chat-md"])
    js, rejects, _ = _run(CASES["data-json"])
    assert [r["id"] for r in js[:3]] == [r["id"] for r in md[:3]]
    assert js[2]["extra"]["quote"] == md[2]["extra"]["quote"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("signal/Aya/data.json#line-6", "not a Signal message (no date/sender/body or sent_at)")
    ]
    assert js[3]["tags"] == ["system"] and js[3]["extra"]["missed_call"] is True


def test_data_json_as_signal_export_writes_it(tmp_path):
    """signal-export appends two spaces to every body (``create.py``: ``body += "  "``, a
    Markdown line break) in ``data.json`` too: the text and so the ids are the ones of
    the same chat's ``chat.md`` (issue 36); a deleted message reads as its md line."""
    import orjson

    rows = [orjson.loads(x) for x in CASES["data-json"].read_bytes().splitlines()]
    out = tmp_path / "Aya"
    out.mkdir()
    real = []
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("body"), str):
            row = {**row, "body": row["body"] + "  "}
        real.append(orjson.dumps(row))
    real.append(orjson.dumps({"date": "2019-05-30T08:00:00", "sender": "Me", "body": "  ",
                              "quote": "", "sticker": None, "reactions": [],
                              "attachments": [], "deleted": True, "call": False,
                              "missed": False}))  # fmt: skip
    (out / "data.json").write_bytes(b"\n".join(real) + b"\n")
    plain, _, _ = _run(CASES["data-json"])
    source = Source(out / "data.json", name="signal/Aya/data.json")
    got = [m.serialize() for m in signal.read(source, ImportContext(source))]
    assert [r["id"] for r in got[:-1]] == [r["id"] for r in plain]
    assert [r["textChunks"] for r in got[:-1]] == [r["textChunks"] for r in plain]
    assert got[-1]["textChunks"] == ["(This message was deleted)"]


def test_an_attachment_signal_export_could_not_include(tmp_path):
    """``(media not exported)`` (``Attachment.missing_kind``, ``models.py``) is an
    attachment in both layouts, never text; md and json give one record (one id)."""
    import orjson

    chat = tmp_path / "Bo"
    chat.mkdir()
    (chat / "chat.md").write_text(
        "[2024-05-01 09:05:00] Me: photo  (media not exported)  \n\n"
        "[2024-05-01 09:06:00] Bo:   (attachment not exported)  \n"
    )
    rows = [("2024-05-01T09:05:00", "Me", "photo  ", "media"),
            ("2024-05-01T09:06:00", "Bo", "  ", "attachment")]  # fmt: skip
    (chat / "data.json").write_bytes(
        b"\n".join(
            orjson.dumps({"date": d, "sender": who, "body": body, "quote": "", "sticker": None,
                          "reactions": [], "deleted": False, "call": False, "missed": False,
                          "attachments": [{"name": "", "path": "", "missing_kind": kind}]})
            for d, who, body, kind in rows
        )
    )  # fmt: skip

    def read(name):
        source = Source(chat / name, name=f"signal/Bo/{name}")  # the chat is the folder
        return [m.serialize() for m in signal.read(source, ImportContext(source))]

    md, js = read("chat.md"), read("data.json")
    assert [r["textChunks"] for r in md] == [
        ["photo", "[attachment] (media not exported)"],
        ["[attachment] (attachment not exported)"],
    ]
    assert [r["textChunks"] for r in js] == [r["textChunks"] for r in md]
    assert [r["id"] for r in js] == [r["id"] for r in md]
    assert md[0]["extra"]["attachments"] == [{"name": "", "path": "", "missing": "media"}]


def test_tz_applies_to_naive_times():
    opts = ImportOptions(tz=get_zone("Europe/Amsterdam"))
    recs, _, _ = _run(CASES["chat-md"], options=opts)
    assert recs[0]["timestamp"] == "2019-05-29T13:04:33Z"


def test_sigtop_text_mapping():
    recs, rejects, _ = _run(CASES["sigtop-text"])
    assert not rejects
    photo, lovely, edited, change = recs
    assert photo["metadata"] == {"speaker": "Bob Stone", "listeners": ["You"]}
    assert photo["thread"] == "Bob Stone"
    assert photo["timestamp"] == "2023-07-04T07:15:02Z"  # +0200 honoured
    # A body line that looks like a field stays text.
    assert photo["textChunks"] == [
        "Look at the harbour this morning\nFrom: the pier, not the beach",
        "[attachment] harbour.jpg",
    ]
    assert photo["extra"]["contact"] == "+31612345678"
    assert photo["extra"]["attachments"] == [
        {"name": "harbour.jpg", "type": "image/jpeg", "size": 20480}
    ]
    assert photo["extra"]["reactions"] == [{"actor": "You", "reaction": "👍"}]
    assert lovely["textChunks"] == ["Lovely!"]
    assert lovely["extra"]["quote"] == "Look at the harbour this morning"
    assert edited["textChunks"] == ["See you at ten"]
    assert change["tags"] == ["system"] and change["metadata"]["listeners"] == []


def test_sigtop_short_and_json():
    short, _, _ = _run(CASES["sigtop-short"])
    assert short[0]["textChunks"] == ["Look at the harbour this morning"]
    assert short[0]["extra"]["details"] == ["1 attachment"]
    assert short[2]["textChunks"] == ["See you at ten\nand bring a coat"]
    assert short[3]["tags"] == ["system"]
    js, rejects, _ = _run(CASES["sigtop-json"])
    assert js[0]["id"] == "signal:6a1f2b3c-0000-4000-8000-000000000001"
    assert js[0]["thread"] == "c0ffee00-0000-4000-8000-00000000000b"
    assert js[1]["metadata"]["speaker"] == "You"
    assert js[2]["extra"]["edits"] == 2
    assert js[3]["tags"] == ["system"]
    assert len(rejects) == 1 and rejects[0].where.endswith("#item-5")


def test_whatsapp_keeps_its_files_and_signal_md_is_not_whatsapp(tmp_path):
    """signal-export's ``[YYYY-MM-DD HH:MM:SS] Name:`` once read as WhatsApp; a WhatsApp
    export with ISO dates (no blank line between messages) stays WhatsApp."""
    wa = tmp_path / "wa.txt"
    wa.write_text("[2023-08-15 09:12:33] Ann: hi\n[2023-08-15 09:13:00] Ben: yo\n")
    assert registry.detect(Source(wa)).name == "whatsapp"
    assert registry.detect(Source(CASES["chat-md"])).name == "signal"
    for sample in ("sample_data/chat/whatsapp.txt",):
        path = Path(__file__).resolve().parents[2] / sample
        assert registry.detect(Source(path)).name == "whatsapp"


def test_text_before_first_header_is_rejected(tmp_path):
    p = tmp_path / "chat.md"
    p.write_text("stray\n[2019-05-29 15:04:33] Me: hi\n\n[2019-05-29 15:05:00] Aya: yo\n\n")
    recs, rejects, _ = run(signal.read, p)
    assert len(recs) == 2 and [r.where for r in rejects] == ["chat.md:1"]


_LINE = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    st.builds(
        lambda n, t: f"[2020-01-0{n} 10:00:00] {t}: hi",
        st.integers(1, 9),
        st.sampled_from(["A", "B"]),
    ),
    st.sampled_from(["", "> q", "(- A: x -)", "(( s ))", "[2020-13-40 99:99] A: bad", "![a](./b)"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_LINE, max_size=12))
def test_reader_never_crashes_and_loses_nothing(tmp_path, lines):
    p = tmp_path / "chat.md"
    p.write_text("[2020-01-01 10:00:00] A: start\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    recs, rejects, _ = run(signal.read, p)
    text = "\n".join(c for r in recs for c in r["textChunks"])
    assert recs and not rejects
    for line in lines:  # every header line is a message of its own
        if line.startswith("[2020-01-0") and line.endswith(": hi"):
            assert "hi" in text


def test_an_application_log_is_not_a_signal_chat(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("2024-01-01 10:00:00 INFO: server started\n2024-01-01 10:00:01 INFO: up\n")
    assert signal.sniff(Source(log)) == 0


def test_chat_md_exported_sticker_and_image_after_a_bang(tmp_path):
    """signal-export's ``Message.to_md`` (carderne/signal-export ``sigexport/models.py``)
    writes a sticker whose file it exported as a link into ``exported_stickers/``, and
    an image as ``!`` right after the body (``yes!`` + ``![menu.jpg](...)``)."""
    folder = tmp_path / "Ren"
    folder.mkdir()
    (folder / "chat.md").write_text(
        "[2024-05-01 09:16:40] Me: > coffee?\nyes!![menu.jpg](./media/2024-05-01_menu.jpg)  \n\n"
        "[2024-05-01 09:17:00] Ren: [🎉](../exported_stickers/9f3c/12.webp)  \n\n"
        "[2024-05-01 09:19:00] Ren: (attachment not exported)  \n\n"
    )
    recs, rejects, _ = run(signal.read, folder / "chat.md")
    assert not rejects
    photo, sticker, missing = recs
    assert photo["textChunks"] == ["yes!", "[attachment] menu.jpg"]
    assert photo["extra"]["quote"] == "coffee?"
    assert sticker["textChunks"] == ["[sticker] 🎉"]
    assert sticker["extra"] == {
        "sticker": "🎉",
        "sticker_path": "../exported_stickers/9f3c/12.webp",
    }
    assert missing["textChunks"] == ["[attachment] (attachment not exported)"]


def test_a_sigtop_attachment_size_too_long_to_be_a_size(tmp_path):
    """``(image/jpeg, 99...9 bytes)`` with 5,000 digits was ``int``'s ValueError, an
    internal error; the size is then unknown."""
    path = tmp_path / "sigtop-bob.txt"
    path.write_text((DIR / "sigtop-bob.txt").read_text(encoding="utf-8").replace(
        "20480 bytes", "9" * 5000 + " bytes"), encoding="utf-8")  # fmt: skip
    recs, rejects, _ = run(signal.read, path)
    assert not rejects
    assert recs[0]["extra"]["attachments"] == [
        {"name": "harbour.jpg", "type": "image/jpeg", "size": None}
    ]


# signalbackup-tools' --exporttxt (bepaald/signalbackup-tools signalbackup/exporttxt.cc,
# TXTaddReactions in signalbackup/signalbackup.h): an Android backup's chats.

BACKUP_TXT = DIR / "Aya Tanaka (_id7).txt"


def test_signalbackup_tools_txt():
    assert registry.detect(Source(BACKUP_TXT)).name == "signal"
    recs, rejects, warnings = run(signal.read, BACKUP_TXT)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        (None, "Aya Tanaka is on Signal!", ["system"]),
        ("Aya Tanaka", "the seeds arrived (finally: two weeks)", []),
        ("Me", "great, which ones?\ntomatoes first", []),
        ("Aya Tanaka", "[attachment] IMG_20190529_150610.jpg", []),
        ("Aya Tanaka", "[attachment] of type audio/aac", []),
        ("Me", "[poll] Sow on Saturday?: Yes (1), No (0)", []),
        (None, "Missed voice call", ["system"]),
        ("Aya Tanaka", "@Me see you then", []),
    ]
    assert {r["thread"] for r in recs} == {"Aya Tanaka"}
    assert recs[1]["metadata"]["listeners"] == ["Me"] and recs[0]["metadata"]["listeners"] == []
    assert recs[1]["timestamp"] == "2019-05-29T15:05:02Z"
    assert recs[2]["extra"]["reactions"] == [
        {"actor": "Aya Tanaka", "reaction": "👍"},
        {"actor": "Me", "reaction": "❤️"},
    ]
    assert recs[3]["extra"]["attachments"] == [{"name": "IMG_20190529_150610.jpg", "type": None}]
    assert recs[4]["extra"]["reactions"] == [{"actor": "Me", "reaction": "😂"}]
    assert recs[5]["extra"]["poll"]["options"] == [
        {"text": "Yes", "votes": 1},
        {"text": "No", "votes": 0},
    ]


def test_signalbackup_tools_txt_local_times_and_stray_text(tmp_path):
    recs, _, _ = run(signal.read, BACKUP_TXT, ImportOptions(tz=get_zone("Europe/Berlin")))
    assert recs[1]["timestamp"] == "2019-05-29T13:05:02Z"
    path = tmp_path / "Bo (_id3).txt"
    path.write_text("notes\n" + BACKUP_TXT.read_text(encoding="utf-8"), encoding="utf-8")
    recs, rejects, _ = run(signal.read, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("Bo (_id3).txt:1", "text before the first signalbackup-tools line")
    ]
    assert len(recs) == 8
