"""WhatsApp "Export chat" .zip (``convo.importers.apps.whatsapp``, ``importers.archives``).

The layouts follow WhatsApp's exports as users describe them: iOS zips ``_chat.txt``
(``[15/08/2023, 09:12:33] Name: text``, media as ``<attached: 00000003-PHOTO-....jpg>``,
U+200E marks) with the media beside it, in ``WhatsApp Chat - <chat>.zip``; Android zips
``WhatsApp Chat with <chat>.txt`` (``15/08/2023, 09:12 - Name: text``, media as
``IMG-20230815-WA0001.jpg (file attached)``). The zips are built here from the fixture
folders, so no binary fixture is committed.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, run

from conftest import assert_golden
from convo.cli.app import app
from convo.core.io import Source
from convo.importers.apps import whatsapp
from convo.importers.registry import registry

DIR = FIXTURES / "whatsapp"


def _zip(folder: Path, target: Path, **extra: bytes) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.iterdir()):
            zf.write(p, p.name)
        for name, data in extra.items():
            zf.writestr(name, data)
    return target


@pytest.fixture
def ios(tmp_path):
    return _zip(DIR / "ios", tmp_path / "WhatsApp Chat - Tea Party.zip")


@pytest.fixture
def android(tmp_path):
    return _zip(DIR / "android", tmp_path / "export.zip")


def test_golden_ios(ios):
    recs, rejects, warnings = run(whatsapp.read_zip, ios)
    assert not rejects
    assert_golden("formats/whatsapp/ios-zip.jsonl", recs)
    assert warnings == [
        "WhatsApp Chat - Tea Party.zip#_chat.txt:7: damaged message header; read as its own "
        "message, time unknown",
        "WhatsApp Chat - Tea Party.zip: 1 file in the zip is not named by any message",
    ]


def test_golden_android(android):
    recs, rejects, _ = run(whatsapp.read_zip, android)
    assert not rejects
    assert_golden("formats/whatsapp/android-zip.jsonl", recs)


def test_mapping(ios, android):
    recs, _, _ = run(whatsapp.read_zip, ios)
    notice, morning, photo, lovely, audio, damaged, omitted = recs
    assert notice["tags"] == ["system"] and notice["metadata"]["speaker"] is None
    assert morning["thread"] == "Tea Party"  # from the zip's name
    assert morning["source_id"] == "WhatsApp Chat - Tea Party.zip#_chat.txt:2"
    assert photo["extra"]["attachment"] == {
        "name": "00000003-PHOTO-2023-08-15-09-12-40.jpg",
        "size": 14,
    }
    # Listed in the chat, not in the zip (exported without that file).
    assert audio["extra"]["attachment"]["missing"] is True
    assert lovely["textChunks"] == ["Lovely\nthe second one especially"]
    # The damaged header is its own message, not glued to Ben's audio message.
    assert damaged["metadata"]["speaker"] == "Ann Lee"
    assert damaged["extra"]["damaged_header"] is True
    assert audio["textChunks"] == ["<attached: 00000005-AUDIO-2023-08-15-09-14-00.opus>"]
    assert omitted["extra"]["media"] == "image"
    arecs, _, _ = run(whatsapp.read_zip, android)
    assert arecs[0]["thread"] == "Ben Ode"  # from "WhatsApp Chat with Ben Ode.txt"
    captioned = arecs[2]
    assert captioned["extra"]["file"] == "IMG-20230815-WA0001.jpg"
    assert captioned["extra"]["attachment"] == {"name": "IMG-20230815-WA0001.jpg", "size": 14}
    assert captioned["textChunks"] == [
        "IMG-20230815-WA0001.jpg (file attached)\nthe view from the pier"
    ]


def test_detected_and_read_through_the_registry(ios, android, tmp_path):
    assert registry.detect(Source(ios)).name == "whatsapp-zip"
    assert registry.detect(Source(android)).name == "whatsapp-zip"
    # A localised Android name: found by its first line, not its name.
    other = tmp_path / "o.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("IMG-1.jpg", b"x" * 70000)  # the chat is not in the head
        zf.writestr("WhatsApp-Chat mit Ben.txt", "15/08/2023, 09:12 - Ann: Hallo\n")
    assert registry.detect(Source(other)).name == "whatsapp-zip"
    recs, _, _ = run(registry.get("whatsapp").read, other)  # --from whatsapp reads a zip
    assert [r["textChunks"] for r in recs] == [["Hallo"]]


def test_slack_zip_is_not_whatsapp():
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    slack = corpus / "chat" / "slack-export-slackdump.zip"
    if not slack.exists():
        pytest.skip("corpus not present")
    assert registry.detect(Source(slack)).name == "slack-file"


def test_hostile_members_are_rejected(tmp_path):
    p = tmp_path / "bomb.zip"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_chat.txt", "[15/08/2023, 09:12:33] Ann: hi\n")
        zf.writestr("../evil.jpg", b"x")
        zf.writestr("zeros.bin", b"\0" * (8 << 20))  # ratio far above 200:1
    recs, rejects, _ = run(whatsapp.read_zip, p)
    assert [r["textChunks"] for r in recs] == [["hi"]]
    reasons = sorted(r.reason for r in rejects)
    assert reasons == [
        "zip member too large or too highly compressed",
        "zip member with a parent-directory path '../evil.jpg'",
    ]


def test_bad_zips_are_one_clear_line(tmp_path, runner):
    empty = tmp_path / "nochat.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("_chat.txt/", b"")  # a folder, not the chat
        zf.writestr("photo.jpg", b"x")
    r = runner.invoke(app, ["ingest", "--from", "whatsapp", str(empty), "-o", "-"])
    assert r.exit_code == 2 and "no WhatsApp chat .txt in this zip" in r.output
    broken = tmp_path / "WhatsApp Chat - X.zip"
    broken.write_bytes(b"PK\x03\x04" + b"\0" * 26 + b"_chat.txt" + b"garbage")
    r = runner.invoke(app, ["ingest", "--from", "whatsapp-zip", str(broken), "-o", "-"])
    assert r.exit_code == 2 and "not a readable zip file" in r.output
    assert "Traceback" not in r.output


# Exports made in another language: the chat file's name and the media markers are
# translated (``WhatsApp Chat mit <chat>.txt``, ``FILE (Datei angehängt)``, ``<Medien
# ausgeschlossen>``, iOS ``<Anhang: FILE>``). A translated attachment is known by its file
# (WhatsApp's media names, or a file of the zip), never by the words around it.


def test_android_export_in_german(tmp_path):
    path = _zip(DIR / "android-de", tmp_path / "WhatsApp Chat mit Mira Lang.zip")
    assert registry.detect(Source(path)).name == "whatsapp-zip"
    recs, rejects, warnings = run(whatsapp.read_zip, path)
    assert not rejects and warnings == []
    assert {r["thread"] for r in recs} == {"Mira Lang"}
    notice, question, photo, omitted, pdf, voice = recs
    assert question["metadata"] == {"speaker": "Jonas Weber", "listeners": ["Mira Lang"]}
    assert notice["tags"] == ["system"]
    assert photo["textChunks"] == ["IMG-20230903-WA0004.jpg (Datei angehängt)\nAm See"]
    assert photo["extra"]["attachment"] == {"name": "IMG-20230903-WA0004.jpg", "size": 8}
    assert omitted["extra"]["media"] == "media"
    assert "media" not in pdf.get("extra", {})  # words in brackets, no file of the export
    assert voice["extra"]["attachment"] == {"name": "PTT-20230904-WA0007.opus", "missing": True}
    assert voice["timestamp"] == "2023-09-04T08:15:00Z"  # D.M.YY


def test_ios_export_in_german(tmp_path):
    path = _zip(DIR / "ios-de", tmp_path / "WhatsApp Chat - Mira Lang.zip")
    recs, _, warnings = run(whatsapp.read_zip, path)
    assert warnings == []  # the photo is named by its message
    photo = recs[1]
    assert photo["extra"]["attachment"] == {
        "name": "00000012-PHOTO-2023-09-03-18-07-40.jpg",
        "size": 8,
    }


def test_a_translated_chat_file_name_names_the_thread(tmp_path):
    for name, chat in [
        ("Chat de WhatsApp con Ana Ruiz.txt", "Ana Ruiz"),
        ("Conversa do WhatsApp com Rui.txt", "Rui"),
        ("WhatsApp_Chat_with_Ben_Ode.txt", "Ben Ode"),
    ]:
        path = tmp_path / name
        path.write_text("12/01/2024, 10:00 - Ana: hola\n12/01/2024, 10:01 - Rui: olá\n")
        recs, _, _ = run(whatsapp.read_whatsapp, path)
        assert {r["thread"] for r in recs} == {chat}, name
