"""Outlook .msg (``convo.importers.email.msg``).

The fixtures are written by ``tests/importers/msg_writer.py`` (MS-CFB and MS-OXMSG):
``quarterly.msg`` is ``quarterly.eml`` as Outlook keeps a received message (the headers
it arrived with in 0x007D, the plain body, the recipients and the attachment as
properties); ``draft.msg`` a message never sent (no headers: only properties).
``python tests/importers/test_formats_msg.py`` writes them again. (Checked once by hand
with an independent reader, extract-msg 0.57: subject, sender, To/Cc, date, Message-ID,
body and the attachment's name read back as written.)
"""

from __future__ import annotations

import contextlib
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, detect_name, files_taken, fresh_registry, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msg_writer import Node, Props, compound_file, message

from conftest import assert_golden
from convo.cli.app import app
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.email import eml, msg
from convo.importers.registry import registry

DIR = FIXTURES / "msg"
EML = DIR / "quarterly.eml"
MSG = DIR / "quarterly.msg"
DRAFT = DIR / "draft.msg"
BODY = "Hi Bob,\r\n\r\nHere is the Q1 report \u2014 the numbers are attached. #finance\r\n\r\nAlice\r\n"
CSV = b"quarter,revenue\nQ1,1200\n"


def _recipients() -> list[Props]:
    who = (("Bob Stone", "bob@example.org", 1), ("Carol", "carol@example.org", 1),
           ("Dan", "dan@example.org", 2), ("Eve", "eve@example.org", 3))  # fmt: skip
    return [Props(strings={0x3001: n, 0x3003: a, 0x39FE: a}, longs={0x0C15: t}) for n, a, t in who]


def quarterly() -> bytes:
    head = EML.read_bytes().split(b"\r\n\r\n", 1)[0].decode("ascii") + "\r\n\r\n"
    props = Props(
        strings={
            0x001A: "IPM.Note",
            0x0037: "Q1 report \u2014 numbers attached",
            0x0C1A: "Alice Martin",
            0x5D01: "alice@example.org",
            0x007D: head,
            0x1035: "<q1-report@example.org>",
            0x1000: BODY,
        },
        times={0x0039: datetime(2024, 3, 6, 10, 2, 30, tzinfo=UTC)},
    )
    csv = Props(strings={0x3707: "q1.csv", 0x370E: "text/csv"}, binaries={0x3701: CSV},
                longs={0x3705: 1})  # fmt: skip
    return message(props, _recipients(), [csv])


def draft() -> bytes:
    props = Props(
        strings={
            0x001A: "IPM.Note",
            0x0037: "R\u00e9union de lundi",
            0x0C1A: "Alice Martin",
            0x5D01: "alice@example.org",
            0x1035: "<draft-1@example.org>",
            0x1042: "<q1-report@example.org>",
            0x1039: "<q1-start@example.org> <q1-report@example.org>",
            0x1000: "Lundi \u00e0 10h ?\r\n",
        },
        times={0x0E06: datetime(2024, 3, 8, 16, 45, tzinfo=UTC)},
    )
    return message(props, _recipients()[::3])  # Bob (To) and Eve (Bcc)


def _plain(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in ("source_id", "format")}


def test_golden():
    for path in (MSG, DRAFT):
        recs, rejects, _ = run(msg.read, path)
        assert not rejects
        assert_golden(f"formats/msg/{path.stem}.jsonl", recs)


def test_the_fixtures_are_the_writers():
    assert MSG.read_bytes() == quarterly() and DRAFT.read_bytes() == draft()


def test_an_msg_gives_the_record_of_its_eml():
    (from_msg,), _, _ = run(msg.read, MSG)
    (from_eml,), _, _ = run(eml.read, EML)
    assert _plain(from_msg) == _plain(from_eml)
    assert from_msg["format"] == "msg" and from_msg["source_id"] == "quarterly.msg#msg-1"
    assert from_msg["extra"]["attachments"] == [
        {"name": "q1.csv", "type": "text/csv", "size": len(CSV), "disposition": "attachment"}
    ]


def test_a_draft_is_read_from_its_properties():
    (rec,), rejects, warnings = run(msg.read, DRAFT)
    assert not rejects and not warnings
    assert rec["metadata"] == {"speaker": "Alice Martin <alice@example.org>",
                               "listeners": ["Bob Stone <bob@example.org>"]}  # fmt: skip
    assert rec["subject"] == "R\u00e9union de lundi"
    assert rec["textChunks"] == ["Lundi \u00e0 10h ?"]
    assert rec["timestamp"] == "2024-03-08T16:45:00Z"
    assert (rec["id"], rec["replyTo"], rec["thread"]) == (
        "<draft-1@example.org>", "<q1-report@example.org>", "<q1-start@example.org>",
    )  # fmt: skip


def test_a_draft_without_a_sent_time_takes_its_creation_time(tmp_path):
    """A message never sent nor delivered (TeamMsgExtractor/msg-extractor's
    ``example-msg-files/strangeDate.msg``: its only times 0x3007 and 0x3008, no sender)
    had no time (epoch): the .msg's creation time is the last resort, said."""
    props = Props(
        strings={0x001A: "IPM.Note", 0x0037: "Seed order", 0x1000: "Two packets of beans.\r\n"},
        times={
            0x3007: datetime(2016, 2, 23, 14, 57, 50, tzinfo=UTC),
            0x3008: datetime(2016, 2, 24, 9, 0, tzinfo=UTC),
        },
    )
    path = tmp_path / "unsent.msg"
    path.write_bytes(message(props, _recipients()[:1]))
    (rec,), rejects, warnings = run(msg.read, path)
    assert not rejects
    assert rec["timestamp"] == "2016-02-23T14:57:50Z"
    assert rec["extra"]["time_source"] == "msg-created"
    assert any("time taken from the .msg's creation time" in w for w in warnings)


def test_an_attached_outlook_item_and_a_bounce_report(tmp_path):
    """An Outlook item attached to an .msg (a mail forwarded as an attachment: the
    ``__substg1.0_3701000D`` storage, as in Aspose.Email's ``Examples/Data/Email/failed.msg``
    and ``Outlook/WithEmbeddedMsg.msg``) was an empty, unnamed attachment, its text lost;
    a ``message/delivery-status`` attachment (the bounce's report) stopped the whole
    import with an internal error. The attached item's own headers property there is a
    cut piece of the original (a body after it, no header first): its properties are
    read instead."""
    returned = Props(
        strings={
            0x001A: "IPM.Note",
            0x0037: "Seed order",
            0x0C1A: "Ann Lee",
            0x5D01: "ann@example.org",
            0x007D: 'ipart/alternative; boundary="b1"\r\nReturn-Path: ann@example.org\r\n\r\n--b1\r\n',
            0x1035: "<order-1@example.org>",
            0x1000: "Two packets of beans, please.\r\n",
        },
        times={0x0039: datetime(2024, 3, 6, 9, 0, tzinfo=UTC)},
    )
    report = Props(
        strings={0x3707: "details.txt", 0x370E: "message/delivery-status"},
        binaries={0x3701: b"Reporting-MTA: dns;mail.example.org\r\n\r\nAction: failed\r\n"},
    )
    item = Props(strings={0x3001: "Seed order (1 KB)"}, longs={0x3705: 5},
                 embedded=(returned, _recipients()[:1], []))  # fmt: skip
    props = Props(
        strings={
            0x001A: "REPORT.IPM.Note.NDR",
            0x0037: "Undeliverable: Seed order",
            0x0C1A: "Mail Delivery System",
            0x5D01: "postmaster@example.org",
            0x1000: "Delivery has failed to these recipients: bob@example.org\r\n",
        },
        times={0x0E06: datetime(2024, 3, 6, 9, 1, tzinfo=UTC)},
    )
    path = tmp_path / "bounce.msg"
    path.write_bytes(message(props, _recipients()[:1], [report, item]))
    (rec,), rejects, _ = run(msg.read, path)
    assert not rejects
    text = rec["textChunks"][0]
    assert text.startswith("Delivery has failed to these recipients: bob@example.org")
    assert "From: Ann Lee <ann@example.org>" in text and text.endswith(
        "Two packets of beans, please."
    )
    assert "ipart/alternative" not in text
    attached = rec["extra"]["attachments"]
    assert [(a["name"], a["type"]) for a in attached] == [
        ("details.txt", "text/plain"),
        ("Seed order (1 KB)", "message/rfc822"),
    ]
    assert attached[1]["subject"] == "Seed order"


def test_exchange_addresses_and_an_address_with_its_name(tmp_path):
    """An item sent inside an Exchange organisation names its sender by an Exchange
    address (``/o=.../cn=Recipients/cn=...``, address type ``EX``, no SMTP address:
    Aspose.Email's ``Meeting with Recurring Occurrences.msg``): it was the speaker's
    address, ``Kashif Iqbal </o=Aspose/...>``. Another writer's address property holds
    ``Name <address>`` (``appointment-draft.msg``): the speaker began with a quote."""
    dn = "/o=Garden/ou=Exchange Administrative Group (FYDIBOHF23SPDLT)/cn=Recipients/cn=Ann Lee"
    props = Props(
        strings={0x001A: "IPM.Schedule.Meeting.Request", 0x0037: "Seed swap", 0x0C1A: "Ann Lee",
                 0x0C1F: dn, 0x0C1E: "EX", 0x1000: "Sunday at ten.\r\n"},
        times={0x0039: datetime(2024, 3, 6, 9, 0, tzinfo=UTC)},
    )  # fmt: skip
    bob = Props(strings={0x3001: "Bob Ray", 0x3003: "/o=Garden/ou=First/cn=Recipients/cn=bob"},
                longs={0x0C15: 1})  # fmt: skip
    cat = Props(strings={0x3001: "cat@example.org <cat@example.org>",
                         0x3003: "cat@example.org <cat@example.org>"}, longs={0x0C15: 2})  # fmt: skip
    path = tmp_path / "meeting.msg"
    path.write_bytes(message(props, [bob, cat]))
    (rec,), _, _ = run(msg.read, path)
    assert rec["metadata"] == {"speaker": "Ann Lee", "listeners": ["Bob Ray", "cat@example.org"]}


@pytest.mark.parametrize("kind", ["IPM.Contact", "IPM.DistList"])
def test_a_contact_card_is_no_message(tmp_path, kind):
    """Outlook saves contact cards and groups as .msg too (Aspose.Email's
    ``Outlook/Contact.msg``, ``NewGroup.msg``, ``Gmail/contact.msg``): each was a record
    of empty text (or the card's notes) spoken by its owner; now nothing, said."""
    props = Props(strings={0x001A: kind, 0x0037: "Ann Lee", 0x0C1A: "Bob Ray", 0x1000: "Notes"})
    path = tmp_path / "card.msg"
    path.write_bytes(message(props))
    recs, rejects, warnings = run(msg.read, path)
    assert recs == [] and not rejects
    assert warnings == [
        "card.msg: an Outlook contact card or contact group, not a message: nothing imported"
    ]


def test_bcc_is_not_a_listener():
    (rec,), _, _ = run(msg.read, DRAFT)
    assert "Eve" not in str(rec)  # not in the headers a sent message carries either


def test_detection(tmp_path):
    reg = fresh_registry(msg)
    for path in (MSG, DRAFT):
        assert detect_name(reg, path) == "msg"
        assert registry.detect(Source(path)).name == "msg"
    assert files_taken({"msg"}, {"msg"}) == {}
    other = tmp_path / "report.doc"  # an OLE file that is not a message (Word's)
    other.write_bytes(compound_file(Node("Root Entry", kids=[Node("WordDocument", b"x" * 700)])))
    assert msg.sniff(Source(other)) == 0


def test_cli(runner, tmp_path):
    out = tmp_path / "o.jsonl"
    r = runner.invoke(app, ["ingest", str(MSG), str(EML), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "imported 2" in r.stderr
    data = MSG.read_bytes()
    r = runner.invoke(app, ["ingest", "-", "--from", "msg", "-o", str(out)], input=data)
    assert r.exit_code == 0 and "imported 1" in r.stderr, r.output


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],
        lambda b: b[:512] + b"\xff" * (len(b) - 512),
        lambda b: bytes.fromhex("D0CF11E0A1B11AE1") + b"garbage" * 20,
    ],
    ids=["truncated", "overwritten", "garbage"],
)
def test_a_damaged_msg_is_one_line(runner, tmp_path, damage):
    bad = tmp_path / "bad.msg"
    bad.write_bytes(damage(MSG.read_bytes()))
    r = runner.invoke(app, ["ingest", "--from", "msg", str(bad), "-o", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert str(bad) in r.stderr


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.integers(0, 20000), st.binary(min_size=1, max_size=16)), max_size=4))
def test_any_damage_reads_or_is_an_input_error(tmp_path, hits):
    data = bytearray(MSG.read_bytes())
    for at, junk in hits:
        at %= len(data)
        data[at : at + len(junk)] = junk[: len(data) - at]
    path = tmp_path / "hit.msg"
    path.write_bytes(bytes(data))
    with contextlib.suppress(InputError):
        run(msg.read, path)


@settings(max_examples=20, deadline=None)
@given(
    st.text(min_size=1, max_size=40).filter(lambda s: "\0" not in s),
    st.text(min_size=1, max_size=200).filter(lambda s: "\0" not in s),
)
def test_any_subject_and_body_read_back(subject, body):
    props = Props(strings={0x001A: "IPM.Note", 0x0037: subject, 0x1000: body,
                           0x0C1A: "Ann", 0x5D01: "ann@example.org"})  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "x.msg"
    path.write_bytes(message(props))
    (rec,), _, _ = run(msg.read, path)
    assert rec["metadata"]["speaker"] == "Ann <ann@example.org>"
    assert (rec.get("subject") or "").split() == subject.split()


if __name__ == "__main__":
    MSG.write_bytes(quarterly())
    DRAFT.write_bytes(draft())


def test_a_line_break_in_a_property_makes_no_header():
    """A message without the headers it was sent with has them made from its properties:
    a subject or a name holding a line break stays one header (it forged the message's
    id and sender)."""
    props = Props(strings={0x001A: "IPM.Note", 0x1000: "body", 0x5D01: "ann@example.org",
                           0x0037: "hi\r\nFrom: Mallory <m@evil.example>\r\nMessage-ID: <forged@x>",
                           0x0C1A: "Ann\r\nTo: x@y"})  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "x.msg"
    path.write_bytes(message(props))
    (rec,), _, _ = run(msg.read, path)
    assert rec["metadata"] == {"speaker": '"Ann To: x@y" <ann@example.org>', "listeners": []}
    assert rec["id"] != "<forged@x>"
    assert rec["subject"] == "hi From: Mallory <m@evil.example> Message-ID: <forged@x>"


def test_many_attached_items_list_the_file_once(tmp_path, monkeypatch):
    """Each attached Outlook item listed the whole compound file twice (its recipients,
    its attachments): n items took n² steps (250 items: 4 s, 1,000 a minute). The
    storages are found in the directory tree instead."""
    import olefile

    listed = 0
    real = olefile.OleFileIO.listdir

    def counted(self, *args, **kw):
        nonlocal listed
        listed += 1
        return real(self, *args, **kw)

    monkeypatch.setattr(olefile.OleFileIO, "listdir", counted)
    inner = Props(strings={0x001A: "IPM.Note", 0x1000: "hi", 0x5D01: "ann@example.org"})
    items = [Props(strings={0x3001: f"item {i}"}, longs={0x3705: 5}, embedded=(inner, [], []))
             for i in range(60)]  # fmt: skip
    top = Props(strings={0x001A: "IPM.Note", 0x1000: "body", 0x5D01: "bob@example.org"})
    path = tmp_path / "many.msg"
    path.write_bytes(message(top, [], items))
    (rec,), _, _ = run(msg.read, path)
    assert len(rec["extra"]["attachments"]) == 60
    assert rec["extra"]["attachments"][59]["name"] == "item 59"
    assert listed <= 2


def test_a_directory_chained_too_deep_for_olefile_is_one_line(tmp_path):
    """olefile walks a storage's children recursively: a directory written as one chain
    of right siblings (this writer's way, not Outlook's balanced tree) 1,200 long
    exceeded Python's recursion limit, an internal error even in detection. Now the file
    is not recognised, or with --from msg one InputError line."""
    items = [Props(strings={0x3707: f"a{i}.txt", 0x370E: "text/plain"}, binaries={0x3701: b"x"})
             for i in range(1200)]  # fmt: skip
    top = Props(strings={0x001A: "IPM.Note", 0x1000: "body", 0x5D01: "bob@example.org"})
    path = tmp_path / "chained.msg"
    path.write_bytes(message(top, [], items))
    assert msg.sniff(Source(path)) == 0
    with pytest.raises(InputError, match=r"not a readable Outlook \.msg file"):
        run(msg.read, path)
