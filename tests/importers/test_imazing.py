"""iMazing's CSV exports (``convo.importers.apps.imazing``): the header variants its
importers in public repositories test (Messages with and without ``Delivered Date``,
``Read Date``, ``Edited Date`` and ``Reactions``; WhatsApp with ``Sent Date``,
``Forwarded``, ``Attachment info``), ``;`` for a spreadsheet in another language, a
BOM, a cell holding a line break."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import imazing
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

MESSAGES = FIXTURES / "imazing" / "Messages - Bob McRoy.csv"
WHATSAPP = FIXTURES / "imazing" / "WhatsApp - Seed club.csv"


def test_detected():
    assert registry.detect(Source(MESSAGES)).name == "imazing"
    assert registry.detect(Source(WHATSAPP)).name == "imazing"


def test_messages_csv():
    recs, rejects, warnings = run(imazing.read, MESSAGES)
    assert not rejects
    got = [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["textChunks"]) for r in recs]
    assert got == [
        ("Bob McRoy", ["Me"], ["Hello"]),
        ("Me", ["Bob McRoy"], ["Hi Bob, seeds arrived?\nTomatoes first"]),
        ("Bob McRoy", ["Me"], ["yes!", "[attachment] IMG_0042.HEIC"]),
    ]
    assert {r["format"] for r in recs} == {"imessage"}
    assert {r["thread"] for r in recs} == {"Bob McRoy"}
    assert recs[2]["subject"] == "Garden"
    assert recs[2]["extra"]["quote"] == "Hi Bob, seeds arrived?"
    assert recs[1]["extra"]["read"] == "2020-01-01 12:03:00"
    assert (
        len(warnings) == 1 and "skipped empty messages (no text, no media): 1" in warnings[0]
    )  # the row of nothing


def test_whatsapp_csv_with_semicolons_in_tz():
    recs, rejects, _ = run(imazing.read, WHATSAPP, ImportOptions(tz=get_zone("Europe/Madrid")))
    assert not rejects
    got = [(r["metadata"]["speaker"], r["textChunks"], r["tags"]) for r in recs]
    assert got == [
        (
            None,
            ["Messages to this chat and calls are now secured with end-to-end encryption"],
            ["system"],
        ),
        ("Me", ["Hola, ¿semillas?"], []),
        ("Carmen", ["Sí; las tengo"], []),
        ("Ana", ["[attachment] 00000012-PHOTO-2023-12-03.jpg"], []),
    ]
    assert {r["format"] for r in recs} == {"whatsapp"}
    assert recs[1]["timestamp"] == "2023-12-03T11:34:00Z"
    assert recs[2]["extra"]["reactions"] == "👍 Ana" and recs[2]["extra"]["forwarded"] == "Yes"
    assert recs[2]["metadata"]["listeners"] == []  # a group of three


def test_other_csv_is_not_claimed(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("Chat Session Notes,Date\nx,y\n", encoding="utf-8")
    assert imazing.sniff(Source(path)) == 0
