"""Telegram Desktop's HTML export (``convo.importers.apps.telegram_html``).

The fixture reproduces the page tdesktop's ``export_output_html.cpp`` writes: the page
header with the chat's name, day separators and service messages, default and joined
messages, a ``via @bot`` detail, a reply link, a forwarded message, a photo and a file
left out of the export, an old time without its offset, and a message div whose id is
damaged.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, TEXT, WORD, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import telegram_html
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

PAGE = FIXTURES / "telegram_html" / "messages.html"


def test_golden_and_detection():
    recs, _, _ = run(telegram_html.read_telegram_html, PAGE)
    assert_golden("formats/telegram_html/messages.jsonl", recs)
    assert registry.detect(Source(PAGE)).name == "telegram-html"


def test_messages_joined_senders_replies_and_media():
    recs, rejects, warnings = run(telegram_html.read_telegram_html, PAGE)
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs]
    assert got == [
        (None, "Marta created group «Seed Swap Club»", "2024-03-05T00:00:00Z"),
        (
            "Marta",
            "Welcome! Bring your tomato seeds.\nSwap on Sunday & here.",
            "2024-03-05T09:15:30Z",
        ),
        ("Marta", "photos/photo_1@05-03-2024_10-16-02.jpg", "2024-03-05T09:16:02Z"),
        ("Jonas", "Count me in.", "2024-03-05T10:02:00Z"),
        ("Jonas", "Spring planting guide is out.", "2024-03-05T10:03:10Z"),
        ("Marta", "seed-list.pdf", "2024-03-05T11:00:00Z"),
        (None, 'Jonas pinned "Welcome!"', "2024-03-05T11:00:00Z"),
    ]
    assert [r["id"] for r in recs][:2] == [
        "telegram-html:seed-swap-club:101",
        "telegram-html:seed-swap-club:102",
    ]
    assert recs[3]["replyTo"] == "telegram-html:seed-swap-club:102"
    assert recs[4]["extra"] == {"forwarded_from": "Garden News"}
    assert recs[5]["extra"]["media"]["description"].startswith("Not included")
    assert recs[0]["tags"] == ["system"] and recs[6]["tags"] == ["system"]
    assert {r["thread"] for r in recs} == {"Seed Swap Club"}
    assert {r["format"] for r in recs} == {"telegram"}
    assert recs[1]["metadata"]["listeners"] == ["Jonas"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.html:221", "Telegram message without a numeric id")
    ]
    assert not warnings


def _page(messages: list[str], chat: str = "Club") -> str:
    return (
        '<html><head><meta charset="utf-8"/><title>Exported Data</title></head><body>'
        f'<div class="page_header"><div class="content"><div class="text bold">{chat}</div>'
        '</div></div><div class="page_body chat_page"><div class="history">'
        + "".join(messages)
        + "</div></div></body></html>"
    )


def _msg(n: int, name: str | None, title: str, text: str) -> str:
    sender = f'<div class="from_name">{name}</div>' if name else ""
    joined = "" if name else " joined"
    return (
        f'<div class="message default clearfix{joined}" id="message{n}"><div class="body">'
        f'<div class="pull_right date details" title="{title}">00:00</div>{sender}'
        f'<div class="text">{text}</div></div></div>'
    )


def test_a_reply_is_heard_by_the_sender_replied_to(tmp_path):
    """A group's reply names its listener, the sender of the message it answers, as the
    JSON export of the same chat does (``telegram``); the HTML gave none (a real 2017
    supergroup page: 406 of its 458 replies)."""
    reply = _msg(13, "Cy", "06.03.2024 09:02:00", "here").replace(
        '<div class="text">',
        '<div class="reply_to details">In reply to <a href="#go_to_message11">this</a></div>'
        '<div class="text">',
    )
    path = tmp_path / "messages.html"
    path.write_text(
        _page([_msg(11, "Ann", "06.03.2024 09:00:00", "seeds?"),
               _msg(12, "Bo", "06.03.2024 09:01:00", "soon"), reply,
               _msg(14, "Ann", "06.03.2024 09:03:00", "thanks")]),
        encoding="utf-8",
    )  # fmt: skip
    recs, _, _ = run(telegram_html.read_telegram_html, path)
    assert [(r["metadata"]["speaker"], r["metadata"]["listeners"]) for r in recs] == [
        ("Ann", []), ("Bo", []), ("Cy", ["Ann"]), ("Ann", []),
    ]  # fmt: skip
    assert recs[2]["replyTo"] == recs[0]["id"]


def _service(n: int, text: str) -> str:
    return (
        f'<div class="message service" id="message{n}"><div class="body details">{text}</div></div>'
    )


def test_a_service_message_takes_its_day_separators_day(tmp_path):
    """A service message has no time of its own and took the previous message's: the
    group's creation, first of its export, was dated 1970-01-01 unsaid, and a service
    message after a new day's separator had the day before's time. Now the separator's
    day (tdesktop writes it ``4 March 2024`` in English) at the previous offset."""
    path = tmp_path / "messages.html"
    path.write_text(
        _page([_service(-1, "4 March 2024"), _service(1, "Ann created group «Club»"),
               _msg(2, "Ann", "04.03.2024 10:15:30 UTC+01:00", "hi"),
               _service(3, "Ann pinned «hi»"), _service(-2, "6 March 2024"),
               _service(4, "Bo joined group by link")]),
        encoding="utf-8",
    )  # fmt: skip
    recs, _, warnings = run(telegram_html.read_telegram_html, path)
    assert not warnings
    assert [(r["timestamp"], (r.get("extra") or {}).get("time_source")) for r in recs] == [
        ("2024-03-04T00:00:00Z", "day"), ("2024-03-04T09:15:30Z", None),
        ("2024-03-04T09:15:30Z", None), ("2024-03-05T23:00:00Z", "day"),
    ]  # fmt: skip
    path.write_text(_page([_service(1, "Ann created group «Club»")]), encoding="utf-8")
    recs, _, warnings = run(telegram_html.read_telegram_html, path)
    assert warnings == ["messages.html: 1 service message before any date; its time is unknown"]


def test_a_page_opening_with_a_joined_message(tmp_path):
    path = tmp_path / "messages2.html"
    path.write_text(_page([_msg(1001, None, "06.03.2024 09:00:00", "still me"),
                           _msg(1002, "Ann", "06.03.2024 09:01:00", "hi")]))  # fmt: skip
    opts = ImportOptions(tz=get_zone("Europe/Berlin"))
    recs, _, warnings = run(telegram_html.read_telegram_html, path, opts)
    assert [(r["metadata"]["speaker"], r["timestamp"]) for r in recs] == [
        (None, "2024-03-06T08:00:00Z"),
        ("Ann", "2024-03-06T08:01:00Z"),
    ]
    assert warnings == [
        "messages2.html: 1 message continues a sender from the export's previous page; "
        "its speaker is unknown"
    ]


def test_a_joined_message_continues_the_previous_pages_last_sender(tmp_path):
    """Telegram splits a chat into pages of 1,000 messages; a page may open with a joined
    message, whose sender is the last one of the page before, read from beside it."""
    (tmp_path / "messages.html").write_text(
        _page(
            [
                _msg(998, "Ann", "06.03.2024 08:58:00", "hi"),
                _msg(999, "Ben", "06.03.2024 08:59:00", "hello"),
                '<div class="message default clearfix" id="message1000"><div class="body">'
                '<div class="forwarded body"><div class="from_name">Cara</div></div>'
                '<div class="text">forwarded</div></div></div>',
            ]
        )
    )
    (tmp_path / "messages2.html").write_text(
        _page([_msg(1001, None, "06.03.2024 09:00:00", "still Ben")])
    )
    (tmp_path / "messages3.html").write_text(
        _page([_msg(2001, None, "06.03.2024 09:05:00", "Ben again")])
    )
    for name, said in (("messages2.html", "still Ben"), ("messages3.html", "Ben again")):
        recs, _, warnings = run(telegram_html.read_telegram_html, tmp_path / name)
        assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [("Ben", said)]
        assert not warnings


def test_a_page_without_messages_warns(tmp_path):
    path = tmp_path / "messages.html"
    path.write_text(_page([]))
    recs, _, warnings = run(telegram_html.read_telegram_html, path)
    assert recs == [] and warnings == [
        "messages.html: no Telegram messages in this page; nothing imported"
    ]


def test_no_other_file_is_read_as_telegram_html():
    assert files_taken({"telegram-html"}, {"telegram_html"}) == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), WORD), st.integers(0, 86399), TEXT),
                min_size=1, max_size=8))  # fmt: skip
def test_any_page_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("tg") / "messages.html"
    body = []
    for k, (name, s, text) in enumerate(msgs, 1):
        title = f"01.02.2024 {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d} UTC+00:00"
        body.append(_msg(k, name, title, text))
    path.write_text(_page(body))
    recs, rejects, _ = run(telegram_html.read_telegram_html, path)
    assert not rejects
    speakers, last = [], None
    for name, _, _ in msgs:
        last = name or last
        speakers.append(last)
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:19]) for r in recs
    ] == [
        (sp, text, f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}")
        for sp, (_, s, text) in zip(speakers, msgs, strict=True)
    ]
    assert len({r["id"] for r in recs}) == len(recs)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=500))
def test_hostile_input_never_crashes(tmp_path_factory, noise):
    path = tmp_path_factory.mktemp("hostile") / "messages.html"
    path.write_bytes(
        _page(['<div class="message default clearfix" id="message1">']).encode() + noise
    )
    recs, rejects, _ = run(telegram_html.read_telegram_html, path)
    for r in recs:
        assert isinstance(r["textChunks"][0], str)
    assert recs or rejects  # the open message is read or rejected, never lost


def test_a_cut_page_rejects_its_open_message(tmp_path):
    path = tmp_path / "messages.html"
    whole = _page([_msg(1, "Ann", "01.02.2024 10:00:00", "done"), _msg(2, "Ben", "x", "cut")])
    path.write_text(whole[: whole.index("cut") + 3])
    recs, rejects, _ = run(telegram_html.read_telegram_html, path)
    assert [r["textChunks"][0] for r in recs] == ["done"]
    assert [r.reason for r in rejects] == ["Telegram message not finished (the page is cut short)"]


def _parsed_senders(path) -> list[str]:
    """The plain twin of ``_senders``: the parser's senders, first three distinct."""
    seen: dict[str, None] = {}
    for _, got in telegram_html._parsed(Source(path)):
        if isinstance(got, telegram_html.Parsed) and got.sender:
            seen.setdefault(got.sender)
    return list(seen)[:3]


_NAMEISH = st.text(st.sampled_from("ab &;<>\"'é"), min_size=1, max_size=6)


_VIA_SPAN = '<span class="details"> via @bot</span>'
_FORWARD = (
    '<div class="forwarded body"><div class="from_name">Orig</div><div class="text">f</div></div>'
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.one_of(st.none(), WORD, _NAMEISH), st.booleans(), st.booleans()),
             min_size=1, max_size=8),
)  # fmt: skip
def test_the_senders_pass_equals_the_parser(tmp_path_factory, msgs):
    import html as h

    body = []
    for k, (name, forwarded, via) in enumerate(msgs, 1):
        detail = _VIA_SPAN if via else ""
        sender = f'<div class="from_name">\n{h.escape(name)}{detail}\n</div>' if name else ""
        fwd = _FORWARD if forwarded else ""
        body.append(
            f'<div class="message default clearfix" id="message{k}"><div class="body">'
            '<div class="pull_right date details" title="01.02.2024 10:00:00">10:00</div>'
            f'{sender}{fwd}<div class="text">t</div></div></div>'
        )
    path = tmp_path_factory.mktemp("senders") / "messages.html"
    path.write_text(_page(body))
    assert telegram_html._senders(Source(path)) == _parsed_senders(path)
