"""Messenger and Instagram chats from Meta's download in HTML
(``convo.importers.apps.messenger_html``): the two page layouts readers of real
downloads pick apart by class (2018-2021: ``_2pio`` sender, ``_2let`` content, ``_2lem``
date, ``_tqp`` reactions, ``_2lek`` participants; since 2022: ``_2pim`` sender in an
``<h2>``, ``_a6-p`` content, ``_a6-o`` date), newest first on the page."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import messenger_html
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

HTML = FIXTURES / "messenger" / "html"
NEW = HTML / "inbox" / "hikingcrew_8f2k" / "message_1.html"
OLD = HTML / "old" / "annabrown_1234" / "message_1.html"


def test_detected():
    assert registry.detect(Source(NEW)).name == "messenger-html"
    assert registry.detect(Source(OLD)).name == "messenger-html"


def test_the_layout_since_2022():
    recs, rejects, warnings = run(messenger_html.read, NEW)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"]) for r in recs]
    assert got == [
        ("María López", ["Trail on Sunday? 🌲\nBring water"]),
        ("Ines Berg", ["[photo] messages/inbox/hikingcrew_8f2k/photos/4567.jpg"]),
        ("Tom Reed", ["https://example.org/trail"]),
    ]
    assert recs[0]["thread"] == "Hiking crew" and recs[0]["metadata"]["listeners"] == []
    assert recs[0]["timestamp"] == "2021-11-07T13:38:30Z"
    assert recs[0]["extra"]["reactions"] == ["❤Tom Reed", "👍Ines Berg"]


def test_the_layout_of_2018_to_2021_in_tz():
    opts = ImportOptions(tz=get_zone("Europe/Berlin"))
    recs, rejects, warnings = run(messenger_html.read, OLD, opts)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"], r["metadata"]["listeners"]) for r in recs]
    assert got == [
        ("Anna Brown", ["Hallö 😊"], ["Jörg Müller"]),
        ("Jörg Müller", ["see you then"], ["Anna Brown"]),
    ]
    assert recs[0]["timestamp"] == "2019-01-01T09:00:00Z"
    assert recs[0]["extra"]["reactions"] == ["😍Jörg Müller"]


def test_dates_as_the_download_writes_them():
    assert str(messenger_html.stamp("Jan 01, 2023 10:00:00 am")) == "2023-01-01 10:00:00"
    assert str(messenger_html.stamp("Jan 1, 2019, 1:05 PM")) == "2019-01-01 13:05:00"
    assert str(messenger_html.stamp("1 Jan 2019, 10:00")) == "2019-01-01 10:00:00"
    assert str(messenger_html.stamp("01.02.2019, 10:00")) == "2019-02-01 10:00:00"
    assert messenger_html.stamp("2019년 1월 1일 오전 10:00") is None


def test_the_downloads_other_pages_are_no_chats(tmp_path):
    """A page of posts has the same dated blocks, but no participants and another name."""
    page = tmp_path / "your_posts_1.html"
    page.write_text(
        '<html><body><div class="pam _3-95 _2ph- _a6-g uiBoxWhite noborder">'
        '<div class="_3-95 _2pim _a6-h _a6-i">A post</div><div class="_3-95 _a6-p">text</div>'
        '<div class="_3-94 _a6-o">Jan 01, 2023 10:00:00 am</div></div></body></html>',
        encoding="utf-8",
    )
    assert messenger_html.sniff(Source(page)) == 0
    renamed = page.rename(tmp_path / "message_1.html")
    assert messenger_html.sniff(Source(renamed)) == 85
