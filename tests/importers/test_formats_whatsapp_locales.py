"""WhatsApp chat .txt exports in other languages (``convo.importers.apps.whatsapp_header``).

The fixtures under ``fixtures/formats/whatsapp/locales`` are written here after the
shapes users report: the day period before the time in Korean and Chinese exports
(``2024. 1. 2. 오후 3:04 - ``, ``[2024/1/2 下午3:06:45] ``, the markers ChatLab's
WhatsApp parser lists), Arabic exports with Arabic-Indic digits, U+200F marks and the
Arabic comma (mtln/chat-export's Arabic support), a Persian Android export
(``۲۰۲۱/۵/۳۰، ۱۸:۴۴ - ``, rwhatsapp issue 28), iOS group events written under the
group's name (``[..] Book Club: \\u200eAnn Lee added you``), and a German iOS group
(``ios-de-events``) as real exports write it: events under the member they are about
(``[..] Ali: \\u200eLeon hat Ali hinzugefügt.``), and U+200E before the header of each
attachment, whose marker is translated (``Bild weggelassen``, ``Stundenplan.pdf •
\\u200e2 Seiten \\u200eDokument weggelassen``) or follows a caption.
"""

from __future__ import annotations

from datetime import UTC

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import whatsapp, whatsapp_media
from convo.importers.apps.whatsapp_header import header, rest, when
from convo.importers.registry import registry

DIR = FIXTURES / "whatsapp" / "locales"
CASES = [
    ("WhatsApp Chat with 준호.txt", "locales-korean-android.jsonl"),
    ("chinese-ios.txt", "locales-chinese-ios.jsonl"),
    ("arabic-android.txt", "locales-arabic-android.jsonl"),
    ("persian-android.txt", "locales-persian-android.jsonl"),
    ("ios-group/_chat.txt", "locales-ios-group.jsonl"),
    ("ios-1to1/_chat.txt", "locales-ios-1to1.jsonl"),
    ("ios-de-events/_chat.txt", "locales-ios-de-events.jsonl"),
    ("ios-nl/_chat.txt", "locales-ios-nl.jsonl"),
]


@pytest.mark.parametrize(("name", "golden"), CASES)
def test_golden(name, golden):
    path = DIR / name
    assert registry.detect(Source(path)).name == "whatsapp"
    recs, rejects, warnings = run(whatsapp.read_whatsapp, path)
    assert not rejects and not warnings
    assert_golden(f"formats/whatsapp/{golden}", recs)


def test_day_period_before_or_after_the_time():
    """오후/下午/م are PM wherever they stand; 오전/上午/ص are AM (12 is midnight)."""
    stamps = {
        "2024. 1. 2. 오후 3:04 - A: x": "2024-01-02T15:04:00Z",
        "2024. 1. 3. 오전 12:15 - A: x": "2024-01-03T00:15:00Z",
        "[2024/1/2 下午3:06:45] A: x": "2024-01-02T15:06:45Z",
        "02/01/2024 03:04 下午 - A: x": "2024-01-02T15:04:00Z",
        "[2024/01/02 오후 03:06] A: x": "2024-01-02T15:06:00Z",
        "15/8/2023، 9:12 م - A: x": "2023-08-15T21:12:00Z",
        "15/8/2023، 9:12 ص - A: x": "2023-08-15T09:12:00Z",
    }
    for line, stamp in stamps.items():
        m = header(line)
        assert m is not None, line
        order = "YMD" if len(m["a"]) == 4 else "DM"
        assert when(m, order, UTC) == stamp, line


def test_arabic_digits_read_in_the_header_kept_in_the_text():
    line = "١٥\u200f/٨\u200f/٢٠٢٣، ٩:١٢ م - سارة: الساعة ١٠"
    m = header(line)
    assert m is not None and (m["a"], m["b"], m["c"], m["h"]) == ("15", "8", "2023", "9")
    assert rest(m, line) == "سارة: الساعة ١٠"


def test_a_word_before_the_time_is_not_a_day_period():
    """Finnish ``klo`` stays a word between date and time; a Korean period is not one."""
    assert header("13.6.2018 klo 21.25.15 - Ann: hi")["pre"] is None  # type: ignore[index]
    assert header("2024. 1. 2. 오후 3:04 - A: x")["pre"] == "오후"  # type: ignore[index]


def test_translated_encryption_notice_is_system(tmp_path):
    p = tmp_path / "_chat.txt"
    p.write_text(
        "[03.09.23, 18:05:11] Jonas: \u200eNachrichten und Anrufe sind "
        "Ende-zu-Ende-verschlüsselt. Nur Personen in diesem Chat können sie lesen.\n"
        "[03.09.23, 18:07:40] Jonas: Hallo\n",
        encoding="utf-8",
    )
    recs, _, _ = run(whatsapp.read_whatsapp, p)
    assert [r["tags"] for r in recs] == [["system"], []]
    assert recs[1]["metadata"]["speaker"] == "Jonas"


def test_group_events_need_every_line_marked():
    """A name whose lines are not all U+200E-marked events is a person, even when the
    encryption notice is written under it (iOS one-to-one chats)."""
    recs, _, _ = run(whatsapp.read_whatsapp, DIR / "ios-1to1" / "_chat.txt")
    assert [r["metadata"]["speaker"] for r in recs] == [None, "Ann Lee", "Ben Ode"]
    recs, _, _ = run(whatsapp.read_whatsapp, DIR / "ios-group" / "_chat.txt")
    assert {r["metadata"]["speaker"] for r in recs} == {None, "Ann Lee", "Ben Ode"}
    assert all(r["metadata"]["listeners"] for r in recs if r["metadata"]["speaker"])


def test_ios_member_events_are_system_lines():
    """An event iOS writes under the member it is about has no speaker, as Android
    writes the same event without a name; a deleted message keeps its sender."""
    recs, _, _ = run(whatsapp.read_whatsapp, DIR / "ios-de-events" / "_chat.txt")
    by_text = {r["textChunks"][0]: r for r in recs}
    for text in (
        "Leon hat die Gruppe erstellt.",
        "Leon hat Ali hinzugefügt.",
        "~\u202fNico hat die Gruppe verlassen.",
    ):
        assert by_text[text]["metadata"]["speaker"] is None, text
        assert by_text[text]["tags"] == ["system"], text
        assert "chat_name" not in by_text[text].get("extra", {}), text
    deleted = by_text["Diese Nachricht wurde gelöscht."]
    assert deleted["metadata"]["speaker"] == "Ali" and deleted["tags"] == []
    speakers = {r["metadata"]["speaker"] for r in recs}
    assert speakers == {None, "Leon", "Ali", "~Nico"}  # as mentioned: @~Nico


def test_ios_attachments_in_any_language():
    """U+200E before the header marks an attachment: the translated phrase's noun is its
    kind, a document's name its file, a caption stays text and is no file."""
    recs, _, _ = run(whatsapp.read_whatsapp, DIR / "ios-de-events" / "_chat.txt")
    media = [
        (r["metadata"]["speaker"], r["extra"]["media"], r["extra"].get("file"))
        for r in recs
        if "media" in r.get("extra", {})
    ]
    assert media == [
        ("Ali", "image", None),
        ("Leon", "document", "Stundenplan.pdf"),
        ("Ali", "image", None),  # "Das ist der Raum\nzweiter Stock \u200eBild weggelassen"
        ("~Nico", "file", "00000034-PHOTO-2023-09-27-09-30-40.jpg"),
        ("Leon", "sticker", None),
    ]


def test_ios_notice_and_edited_note_in_any_language():
    """An iOS export's first line, U+200E before its text, is the encryption notice in
    whatever language, so its name is the chat's and its events are system lines; the
    edited note is taken off in Dutch, Portuguese and German (with its full stop)."""
    recs, _, _ = run(whatsapp.read_whatsapp, DIR / "ios-nl" / "_chat.txt")
    assert [(r["metadata"]["speaker"], r["tags"]) for r in recs] == [
        (None, ["system"]), (None, ["system"]), (None, ["system"]),
        ("~Martine", []), ("Robin", []), ("Robin", []),
    ]  # fmt: skip
    assert recs[2]["extra"] == {"chat_name": "Familiedag"}
    assert recs[3]["textChunks"] == ["Lieve familie,\nZondag zien we elkaar!"]
    assert recs[3]["extra"] == {"edited": True}
    assert recs[3]["metadata"]["listeners"] == ["Robin"]
    assert recs[5]["extra"] == {"media": "image"}
    for note in ("Diese Nachricht wurde bearbeitet.", "Mensagem editada"):
        assert whatsapp._EDITED.search(f"ok \u200e<{note}>".replace("\u200e", ""))


def test_a_marked_line_that_does_not_name_its_member_keeps_the_speaker(tmp_path):
    """Only the member's own name makes a U+200E text an event: a call or a poll stays
    the sender's, and a name without letters or digits never matches."""
    p = tmp_path / "_chat.txt"
    p.write_text(
        "[21/11/25, 9:33:35] Ann: \u200eVoice call, \u200eNo answer\n"
        "[21/11/25, 9:34:00] .: \u200eThis message was deleted.\n"
        "[21/11/25, 9:35:00] Ben: \u200ePOLL:\nLunch?\n\u200eOPTION: yes (1 vote)\n",
        encoding="utf-8",
    )
    recs, _, _ = run(whatsapp.read_whatsapp, p)
    assert [r["metadata"]["speaker"] for r in recs] == ["Ann", ".", "Ben"]
    assert all(not r["tags"] for r in recs)


def test_a_member_not_in_contacts_is_named_as_mentioned(tmp_path):
    """iOS writes a member the exporter has not saved as ``~\u202fName`` and mentions
    them as ``@\u2068~Name\u2069``: the speaker is ``~Name`` (no invisible space), the
    mention finds them, a contact of the same name stays another person, and an event
    under them that names them is a system line (real class and family chats)."""
    p = tmp_path / "_chat.txt"
    p.write_text(
        "[02.10.23, 08:00:00] Ina: Who brings the ball?\n"
        "[02.10.23, 08:01:00] ~\u202fIna: I do, @\u2068Ina\u2069\n"
        "[02.10.23, 08:02:00] Ina: thanks @\u2068~Ina\u2069 and @\u2068~Ola Berg\u2069\n"
        "[02.10.23, 08:03:00] ~\u202fOla Berg: \u200eIna hat ~\u202fOla Berg hinzugefügt.\n"
        "[02.10.23, 08:04:00] ~\u202fOla Berg: hallo\n",
        encoding="utf-8",
    )
    recs, _, _ = run(whatsapp.read_whatsapp, p)
    assert [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["tags"]) for r in recs] == [
        ("Ina", [], []),
        ("~Ina", ["Ina"], []),
        ("Ina", ["~Ina", "~Ola Berg"], []),
        (None, [], ["system"]),
        ("~Ola Berg", [], []),
    ]


_PHRASES = {
    "Bild weggelassen": "image", "imagen omitida": "image", "afbeelding weggelaten": "image",
    "audio omitido": "audio", "Sticker weggelassen": "sticker", "GIF omitido": "gif",
    "Video weggelassen": "video", "Kontaktkarte ausgelassen": "contact card",
}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    caption=st.text(st.characters(blacklist_characters="<>\u200e\n", codec="utf-8"), max_size=30),
    phrase=st.sampled_from(sorted(_PHRASES)),
)
def test_ios_attachment_phrase_after_any_caption(caption, phrase):
    """The phrase after the last U+200E gives the kind whatever caption comes first
    (dots and bullets too); a caption is never taken for a document's name."""
    kind, file = whatsapp_media.ios_attachment(f"{caption} \u200e{phrase}", None)
    assert kind == _PHRASES[phrase]
    assert file is None


_PERIODS = {"": None, " AM": False, " PM": True, " 오후": True, " 오전": False, " 下午": True}


@settings(max_examples=60, deadline=None)
@given(
    day=st.integers(13, 28),
    month=st.integers(1, 12),
    hour=st.integers(1, 12),
    minute=st.integers(0, 59),
    period=st.sampled_from(sorted(_PERIODS)),
    before=st.booleans(),
    arabic=st.booleans(),
    text=st.text(min_size=1, max_size=20).filter(lambda t: t.strip() == t and "\n" not in t),
)
def test_header_property(day, month, hour, minute, period, before, arabic, text):
    """Any day period before or after the time, in ASCII or Arabic-Indic digits: the
    header gives the time it says, and the text after it is the line's own."""
    clock = f"{hour}:{minute:02d}"
    word = period.strip()
    if word and before and not word.isascii():
        clock = f"{word} {clock}"
    elif word:
        clock = f"{clock} {word}"
    line = f"{day}/{month}/2023, {clock} - Ann: {text}"
    if arabic:
        line = line.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
        text = text.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    m = header(line)
    assert m is not None
    assert rest(m, line) == f"Ann: {text}"
    pm = _PERIODS[period]
    h = hour if pm is None else hour % 12 + (12 if pm else 0)
    assert when(m, "DM", UTC) == f"2023-{month:02d}-{day:02d}T{h:02d}:{minute:02d}:00Z"
