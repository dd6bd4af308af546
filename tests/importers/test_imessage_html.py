"""iMessage chats exported by imessage-exporter ``-f html``
(``convo.importers.apps.imessage_html``).

The fixture reproduces the page ReagentX/imessage-exporter writes
(``imessage-exporter/src/exporters/html.rs``, its ``resources/example.html``): the head
with its style, ``<div class="message">`` with ``sent iMessage``/``sent SMS``/
``received``, the timestamp (a ``Reveal in Messages app`` link, the read receipt), sender,
subject, bubbles, a link preview (``app``), tapbacks, a threaded reply inside
``replies`` and again in place with ``reply_context``, an edit history's table, an
expressive, a deleted message with a video, an audio tag the exporter leaves unclosed and
an attachment it could not find, announcements (``class ="announcement"``, and ``Unable to
format announcement!``).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import imessage_html
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

PAGE = FIXTURES / "imessage" / "Lena Whitford.html"


def test_detected_as_imessage_html():
    assert imessage_html.sniff(Source(PAGE)) == 85
    assert registry.detect(Source(PAGE)).name == "imessage-html"


def test_messages_replies_and_exporter_parts():
    recs, rejects, warnings = run(imessage_html.read, PAGE)
    assert not rejects
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        ("Me", "Garden plans\nDid you see the seed catalogue? It came & it's huge", []),
        ("Me", "https://example.org/seeds\nSeed Catalogue\nSpring seeds 2022", []),
        ("Me", "You named the conversation Garden 🌱", ["system"]),
        ("+15558675309", "Yes! Tomatoes first?\nOr beans?", []),
        ("Me", "Tomatoes, they need the longest\nattachments/12/tomato.jpeg", []),
        ("+15558675309", "See you on Saturday", []),
        (
            "Me",
            "attachments/13/beans.mov\nattachments/13/note.caf\n"
            "Unable to locate attachment: IMG_0042.HEIC",
            [],
        ),
    ]
    assert {r["format"] for r in recs} == {"imessage"}
    assert {r["thread"] for r in recs} == {"Lena Whitford"}
    assert recs[0]["metadata"]["listeners"] == ["+15558675309"]
    assert recs[0]["timestamp"] == "2022-07-17T17:04:04Z"
    assert recs[0]["extra"]["reactions"] == [{"reaction": "Questioned", "by": "+15558675309"}]
    assert recs[3]["extra"]["read"] == {"by": "you", "after": "5 seconds"}
    assert recs[4]["replyTo"] == recs[3]["id"]
    assert recs[4]["extra"]["reactions"] == [{"reaction": "Loved", "by": "+15558675309"}]
    assert recs[5]["extra"]["edits"] == ["See you on Saturdy"]
    assert recs[5]["extra"]["effect"] == "Confetti"
    assert recs[6]["extra"]["deleted"] is True
    assert recs[6]["timestamp"] == "2022-07-18T10:01:00Z"
    assert warnings == [
        f"{PAGE.name}: 1 threaded reply printed twice (under the message they answer and "
        "in place); read once",
        f"{PAGE.name}: skipped 'Unable to format announcement!' notes (nothing else "
        f"written): 1 (at {PAGE.name}:138)",
    ]


def test_times_are_read_in_tz():
    recs, _, _ = run(imessage_html.read, PAGE, ImportOptions(tz=get_zone("America/New_York")))
    assert recs[0]["timestamp"] == "2022-07-17T21:04:04Z"


def test_a_page_of_another_tool_is_not_claimed(tmp_path):
    page = tmp_path / "chat.html"
    page.write_text('<html><body><div class="message"><p>hi</p></div></body></html>')
    assert imessage_html.sniff(Source(page)) == 0
