"""Gmail Takeout: the thread is Gmail's conversation (``X-GM-THRID``), as the Gmail user
saw it, not the root of ``References`` (``importers.email.record.gmail_thread``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.email.record import gmail_thread
from convo.importers.registry import detect

FIXTURE = (
    Path(__file__).resolve().parent.parent / "fixtures" / "email" / "gmail-takeout-threads.mbox"
)


def test_takeout_threads_are_gmail_s_conversations():
    source = Source(FIXTURE)
    rejects, warnings = [], []
    ctx = ImportContext(
        source, ImportOptions(), on_reject=rejects.append, on_warning=warnings.append
    )
    msgs = list(detect(source).read(source, ctx))
    assert not rejects and not warnings
    dinner = f"gmail:{1781234567890000001:x}"
    # a reply, and a message without References Gmail put in the conversation
    assert [m.thread for m in msgs[:3]] == [dinner] * 3
    # References reach the dinner mails, but Gmail shows a new subject on its own
    assert msgs[3].thread == f"gmail:{1781234567890000004:x}" == "gmail:18b83766f0bad884"
    assert msgs[3].reply_to == "<CAgmail-2@mail.gmail.com>"
    assert msgs[1].tags == ["Sent", "Opened"]


@pytest.mark.parametrize(
    ("value", "thread"),
    [
        ("1654835874621973951", "gmail:16f72875d46a65bf"),
        ("<1654835874621973951>", "gmail:16f72875d46a65bf"),  # IMAP backup tools' spelling
        ("0", None),
        ("18446744073709551616", None),  # over 64 bits
        ("abc", None),
        (None, None),
    ],
)
def test_gmail_thread_values(value, thread):
    h = {} if value is None else {"x-gm-thrid": [value]}
    assert gmail_thread(h) == thread


def test_without_gmail_s_thread_references_decide(tmp_path):
    p = tmp_path / "a.mbox"
    p.write_text(
        "From a@x.org Mon Jan  6 10:00:00 2020\nFrom: a@x.org\nMessage-ID: <2@x>\n"
        "References: <1@x> <1b@x>\nDate: Mon, 6 Jan 2020 10:00:00 +0000\n\nhi\n"
    )
    source = Source(p)
    ctx = ImportContext(source, ImportOptions())
    (msg,) = detect(source).read(source, ctx)
    assert msg.thread == "<1@x>" and msg.reply_to == "<1b@x>"


def test_takeout_s_envelope_names_nobody(tmp_path):
    """Takeout's ``From <message id>@xxx`` line is no sender: a message without From (a
    chat saved under the Chat label) has no speaker rather than ``1434640893@xxx``."""
    p = tmp_path / "chats.mbox"
    p.write_text(
        "From 1434640893123456789@xxx Wed Jun 05 12:37:24 +0000 2013\n"
        "X-GM-THRID: 1434640893123456789\nX-Gmail-Labels: Chat\n\nhello\n"
    )
    source = Source(p)
    warnings = []
    ctx = ImportContext(source, ImportOptions(), on_warning=warnings.append)
    (msg,) = detect(source).read(source, ctx)
    assert msg.speaker is None and msg.timestamp == "2013-06-05T12:37:24Z"
    assert any("speaker unknown" in str(w) for w in warnings)
