"""Mail shapes found by reading real archives against convo's output (audit round 6):
one fixture of our own per shape, under tests/fixtures/email/, with goldens.

- ``leading-blank-lines.mbox``: blank lines before the first ``From `` line (the shape of
  Mail::MboxParser's ``t/testbox``); was sniffed as one ``.eml`` message, the rest lost.
- ``apple-mail.emlx``: Apple Mail's byte count line, the message, its property list;
  the list was read into the text, the count line warned as a garbled header.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_golden, records
from convo.cli.app import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def in_fixtures(monkeypatch):
    """Relative paths, so golden source_ids do not depend on the checkout."""
    monkeypatch.chdir(FIXTURES)


def _ingest(runner, path: str, *args: str):
    result = runner.invoke(app, ["ingest", path, "-o", "-", *args])
    return result, records(result.stdout)


def test_blank_lines_before_the_first_from_line(runner, in_fixtures):
    result, recs = _ingest(runner, "email/leading-blank-lines.mbox")
    assert result.exit_code == 0, result.output
    assert [r["format"] for r in recs] == ["mbox"] * 3
    assert [r["textChunks"][0][:12] for r in recs] == [
        "An archive w", "Still two me", "Three, and t",
    ]  # fmt: skip
    assert "ignored" not in result.stderr  # blank lines are no content lost
    assert_golden("email/leading-blank-lines.jsonl", recs)


def test_blank_lines_count_in_the_line_of_a_warning(runner, tmp_path):
    path = tmp_path / "m.mbox"
    path.write_bytes(b"\n\nFrom a@b.org Mon Jan  1 00:00:00 2024\nFrom: a@b.org\n\nhi\n")
    result, recs = _ingest(runner, str(path))
    assert len(recs) == 1
    assert f"{path}:3: no Date header" in result.stderr


def test_text_before_the_first_from_line_is_still_told(runner, tmp_path):
    path = tmp_path / "m.mbox"
    path.write_bytes(b"junk\nFrom a@b.org Mon Jan  1 00:00:00 2024\nFrom: a@b.org\n\nhi\n")
    result, recs = _ingest(runner, str(path), "--from", "mbox")
    assert len(recs) == 1
    assert "5 bytes before the first 'From ' line ignored" in result.stderr


def test_a_bom_before_the_first_from_line(runner, tmp_path):
    """A mailbox saved by a Windows editor starts with a UTF-8 BOM (MimeKit's
    ``unmunged.mbox``): its first message was skipped as bytes before the first
    ``From `` line; an unescaped ``From Russia`` body line stays text."""
    path = tmp_path / "m.mbox"
    path.write_bytes(
        b"\xef\xbb\xbfFrom -\nFrom: a@b.org\nSubject: one\n\nFilms:\n\nFrom Paris with care\n\n"
        b"From -\nFrom: c@d.org\nSubject: two\n\nsecond\n"
    )
    result, recs = _ingest(runner, str(path))
    assert [r["subject"] for r in recs] == ["one", "two"]
    assert "From Paris with care" in recs[0]["textChunks"][0]
    assert "ignored" not in result.stderr


def test_a_header_folded_without_leading_space(runner, tmp_path):
    """A long header value an Exchange server folded without the continuation's white
    space (MimeKit's issue358.txt): the stray line ended the headers, so the
    multipart's Content-Type and every header after it were read as the text."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: Ann <ann@example.org>\r\nTo: bob@example.org\r\nSubject: Minutes\r\n"
        b"Date: Wed, 15 Nov 2017 14:16:14 +0000\r\n"
        b"x-diagnostics: 1;AM4PR01;6:1Y77VdiYZvwhWtdzFszn6F8yBYOr9DiSFIBUW\r\n"
        b"P8FxVksOO2tmFWl+LxT0Acgv7RaCFBKFmzA31fwJabrvuEaFINDvMVgEV9Cc41b\r\n"
        b"x-antispam: SSOS;\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/alternative; boundary="b1"\r\n\r\n'
        b"--b1\r\nContent-Type: text/plain\r\n\r\nThe minutes are attached.\r\n"
        b"--b1\r\nContent-Type: text/html\r\n\r\n<p>The minutes are attached.</p>\r\n--b1--\r\n"
    )
    result, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == ["The minutes are attached."]
    assert "folded without leading space" in result.stderr


def test_an_html_part_names_its_charset_in_a_meta_tag(runner, tmp_path):
    """An HTML part whose Content-Type names no charset declares it in the page (as in
    enmime's non-mime-missing-charset.raw): ``<meta charset="windows-1250">`` is read,
    not guessed (and warned about as a part without a charset)."""
    html = (
        '<html><head><meta charset="windows-1250"/></head><body>Cena: 5 €, žluťoučký</body></html>'
    )
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: ann@example.org\nDate: Sun, 14 Oct 2012 16:09:01 -0700\nSubject: t\n"
        b"Content-Type: text/html\n\n" + html.encode("cp1250") + b"\n"
    )
    result, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == ["Cena: 5 €, žluťoučký"]
    assert "without a charset" not in result.stderr  # declared, not guessed


def test_a_content_type_parameter_without_its_semicolon(runner, tmp_path):
    """``Content-Type: application/pdf name="x.pdf"`` (a booking site's mail, in enmime's
    tests): the attachment's type was the whole value, name and all."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: ann@example.org\nDate: Sun, 14 Oct 2012 16:09:01 -0700\nSubject: t\n"
        b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain\n\nYour invoice.\n"
        b'--b\nContent-Type: application/pdf name="inv 7.pdf"\nContent-Transfer-Encoding: base64\n\n'
        b"JVBERi0xLjIK\n--b--\n"
    )
    _, recs = _ingest(runner, str(path))
    assert [(a["name"], a["type"]) for a in recs[0]["extra"]["attachments"]] == [
        ("inv 7.pdf", "application/pdf")
    ]


def test_a_parts_parameter_on_a_line_of_its_own(runner, tmp_path):
    """A part's Content-Type whose next parameter starts a line without indent (enmime's
    bad-header-wrap.raw): the stray line ended the part's headers, so its
    Content-Disposition (and the attachment's name) was lost."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: ann@example.org\nDate: Sun, 14 Oct 2012 16:09:01 -0700\nSubject: t\n"
        b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain\n\nThe archive.\n"
        b'--b\nContent-Type: application/zip; x-unix-mode=0600;\nname="logs.zip"\n'
        b'Content-Disposition: attachment; filename="logs.zip"\n'
        b"Content-Transfer-Encoding: base64\n\nUEsDBA==\n--b--\n"
    )
    result, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == ["The archive."]
    assert [(a["name"], a.get("disposition")) for a in recs[0]["extra"]["attachments"]] == [
        ("logs.zip", "attachment")
    ]
    assert "folded without leading space" in result.stderr


@pytest.mark.parametrize(
    "envelope", [b">From - Fri Dec 13 15:01:21 1996", b"From bob@x Fri Dec 13"]
)
def test_a_forwarded_message_saved_with_its_envelope_line(runner, tmp_path, envelope):
    """Netscape forwarded a stored message with its mailbox's envelope line first
    (MimeKit's content-length.mbox, 1997): the forwarded From, Date and Subject were
    read as its text; they are its headers."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: jay@example.org\nDate: Fri, 07 Mar 1997 02:50:39 -0800\nSubject: fwd\n"
        b'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain\n\nsee below\n"
        b'--b\nContent-Type: message/rfc822; name="old.msg"\n\n' + envelope + b"\n"
        b"Date: Fri, 13 Dec 1996 15:09:42 -0800\nFrom: Bob <bob@example.org>\n"
        b"Subject: the plan\n\nThe plan is on.\n--b--\n"
    )
    _, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"][0] == (
        "see below\n\n---------- Forwarded message ----------\nFrom: Bob <bob@example.org>\n"
        "Date: Fri, 13 Dec 1996 15:09:42 -0800\nSubject: the plan\n\nThe plan is on."
    )


@pytest.mark.parametrize(
    ("ctype", "body", "text"),
    [
        (
            b"text/enriched",
            b"Hi,\n\n<bold>the config</bold> is:\n\n<fontfamily><param>Courier New</param>"
            b'<<Server\nport="8007"></fontfamily>\n',
            'Hi,\nthe config is:\n<Server port="8007">',
        ),
        (
            b"text/richtext",
            b"<bigger>\n Nathaniel,\n<nl>\n<nl>\nthe size is\ntwice <lt>fs><comment>x</comment>.\n",
            "Nathaniel,\n\nthe size is twice <fs>.",
        ),
    ],
)
def test_enriched_and_richtext_mail(runner, tmp_path, ctype, body, text):
    """text/enriched (Eudora, 2001: a ponymail corpus message) and text/richtext
    (NeXTMail, 1992: MimeKit's content-length.mbox) read as text, their formatting
    commands (``<bigger>``, ``<fontfamily><param>...``, ``<nl>``) were text."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b"From: ann@example.org\nDate: Fri, 25 Sep 1992 14:13:02 -0700\nSubject: t\n"
        b"MIME-Version: 1.0\nContent-Type: " + ctype + b"\n\n" + body
    )
    _, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == [text]


def test_white_space_before_the_first_header(runner, tmp_path):
    """A message whose first header line is indented (enmime's bad-header-start.raw):
    that header (its From) was lost as a continuation of nothing."""
    path = tmp_path / "m.eml"
    path.write_bytes(
        b" From: Ann <ann@example.org>\nSubject: plain\nDate: Thu, 18 Oct 2012 22:48:39 -0700\n"
        b"To: bob@example.org\n\nhello\n"
    )
    result, recs = _ingest(runner, str(path))
    assert recs[0]["metadata"] == {
        "speaker": "Ann <ann@example.org>",
        "listeners": ["bob@example.org"],
    }
    assert "white space before the first header line ignored" in result.stderr


@pytest.mark.parametrize("name", ["apple-mail.emlx", "apple-mail-bad-count.emlx"])
def test_apple_mail_emlx(runner, in_fixtures, name):
    result, recs = _ingest(runner, f"email/{name}")
    assert result.exit_code == 0, result.output
    assert "garbled" not in result.stderr
    (rec,) = recs
    assert rec["textChunks"] == ["Grüße from Mail.app.\n\n> Dan wrote:\n> See you then."]
    if name == "apple-mail.emlx":
        assert_golden("email/apple-mail-emlx.jsonl", recs)


def test_emlx_is_detected_by_its_name_in_a_folder(runner, tmp_path):
    folder = tmp_path / "Messages"
    folder.mkdir()
    (folder / "12345.emlx").write_bytes((FIXTURES / "email" / "apple-mail.emlx").read_bytes())
    result, recs = _ingest(runner, str(folder))
    assert result.exit_code == 0, result.output
    assert [r["format"] for r in recs] == ["eml"]


def test_latin1_labelled_utf8_and_spelled_out_8bit_address(runner, in_fixtures):
    """pipermail's ``lucía at example.org (=?UTF-8?Q?Luc=eda?=)`` (perceval's
    ``mbox_iso8859_encoding.mbox`` shape): the name's bytes, labelled UTF-8, hold no
    UTF-8 sequence, so they are Latin-1 (cp1252), and so is a body sent the same way;
    a UTF-8 body with one damaged byte stays UTF-8."""
    result, recs = _ingest(runner, "email/pipermail-latin1.mbox")
    assert result.exit_code == 0, result.output
    assert [r["metadata"]["speaker"] for r in recs] == [
        "Lucía García <lucía@example.org>",
        "Bob <bob@example.org>",
    ]
    assert recs[0]["subject"] == "[dev] Olá"
    assert recs[0]["textChunks"] == ["Olá, está tudo bem? A reunião é amanhã."]
    assert recs[1]["textChunks"] == ["Sí, até amanhã — one damaged byte: \ufffd stays UTF-8."]
    assert_golden("email/pipermail-latin1.jsonl", recs)


def test_multipart_whose_body_uses_another_boundary(runner, in_fixtures):
    """The declared boundary never appears; the body's own delimiter lines split it
    (SpamScope mail-parser's ``mail_malformed_3`` shape), so base64 is not the text."""
    result, recs = _ingest(runner, "email/boundary-mismatch.eml")
    assert result.exit_code == 0, result.output
    assert recs[0]["textChunks"] == [
        "Olá! The declared boundary is never used.\nThe parts are still read."
    ]
    assert_golden("email/boundary-mismatch.jsonl", recs)


def test_a_delimiter_like_line_inside_text_is_text(runner, tmp_path):
    path = tmp_path / "m.eml"
    path.write_text(
        "From: a@x.org\nDate: Mon, 4 Mar 2024 10:00:00 +0000\n"
        'Content-Type: multipart/mixed; boundary="b"\n\nHello,\n--note\nNote: one line only.\n'
    )
    _, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == ["Hello,\n--note\nNote: one line only."]


def test_a_named_text_part_without_disposition_is_read(runner, in_fixtures):
    """``Content-Type: text/plain; name="msg.txt"`` and no Content-Disposition (VM's
    parts, CPython's ``Lib/test/test_email/data/msg_44.txt``) is inline text: it was
    only listed, and the message had no text of its own."""
    result, recs = _ingest(runner, "email/named-text-no-disposition.eml")
    assert result.exit_code == 0, result.output
    assert recs[0]["textChunks"] == [
        "The whole message is in this named part,\nas the VM mailer writes it."
    ]
    assert [a["name"] for a in recs[0]["extra"]["attachments"]] == [
        "msg.txt", "log.txt", "logo.png",
    ]  # fmt: skip
    assert_golden("email/named-text-no-disposition.jsonl", recs)


def test_blank_lines_of_whitespace_around_the_text_are_dropped(runner, tmp_path):
    """An Outlook body that opens with tab-only lines (SpamScope ``mail_test_2``)."""
    path = tmp_path / "m.eml"
    path.write_text(
        "From: a@x.org\nDate: Mon, 4 Mar 2024 10:00:00 +0000\nMessage-ID: <ws@x.org>\n\n"
        "\t\n\n\t\n\t\tIndented first line\nsecond line  \n \t\n\n"
    )
    _, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == ["\t\tIndented first line\nsecond line"]


def test_date_zones_and_unreadable_months(runner, in_fixtures):
    """``GMT+0800`` is east of Greenwich (dateutil reads it the POSIX way round), and a
    Date whose month is unreadable falls back to Received rather than to a month and
    day dateutil took from the day of the import."""
    result, recs = _ingest(runner, "email/date-zones.mbox")
    assert result.exit_code == 0, result.output
    assert [r["timestamp"] for r in recs] == [
        "2024-01-02T01:15:00Z", "2024-01-02T15:00:00Z", "2024-01-02T08:16:00Z",
    ]  # fmt: skip
    assert recs[2]["extra"]["time_source"] == "received"
    assert "date-zones.mbox:20: unreadable Date header; time taken from the top Received" in (
        result.stderr
    )
    assert_golden("email/date-zones.jsonl", recs)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Tue, 02 Jan 2024 09:15:00 GMT+0800", "2024-01-02T01:15:00Z"),
        ("Tue, 02 Jan 2024 09:15:00 GMT-0330", "2024-01-02T12:45:00Z"),
        ("Tue, 2 Jan 2024 09:15:00 UTC+8", "2024-01-02T01:15:00Z"),
        ("Tue, 2 Jan 2024 09:15:00 +0000 (GMT+00:00)", "2024-01-02T09:15:00Z"),
        ("Tuesday, January 2, 2024 9:15 AM", "2024-01-02T09:15:00Z"),
        ("2 janv. 2024 09:15:00 +0100", None),
        ("Tue 2024 09:15:00 +0100", None),
    ],
)
def test_mail_date_never_completes_from_today(value, expected):
    from convo.core.maildates import mail_date
    from convo.core.timestamps import format_timestamp_utc

    dt = mail_date(value)
    assert (format_timestamp_utc(dt) if dt else None) == expected


def test_html_mail_divs_are_lines(runner, tmp_path):
    """Gmail and Apple Mail write a line a ``<div>`` and a blank line ``<div><br></div>``
    (mikez/emlx ``tests/richtext.emlx``): lines are not spaced apart by blank ones."""
    path = tmp_path / "m.eml"
    path.write_text(
        "From: a@x.org\nDate: Mon, 4 Mar 2024 10:00:00 +0000\nMessage-ID: <div@x.org>\n"
        "Content-Type: text/html; charset=utf-8\n\n"
        '<div dir="ltr"><div>Hi Bob,</div><div><br></div><div>&gt; Bob wrote:</div>'
        "<div>&gt;</div><div>&gt; Thanks!</div><div>line a</div><div>line b</div>"
        "<p>a paragraph</p></div>\n"
    )
    _, recs = _ingest(runner, str(path))
    assert recs[0]["textChunks"] == [
        "Hi Bob,\n\n> Bob wrote:\n>\n> Thanks!\nline a\nline b\n\na paragraph"
    ]


def test_divs_stay_paragraphs_outside_mail():
    from convo.core.text.html import html_to_text

    assert html_to_text("<div>a</div><div>b</div>") == "a\n\nb"
    assert html_to_text("<div>a</div><div>b</div>", div_lines=True) == "a\nb"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            "Bob Dunite <bob@extern> Bobby Dunite <bobby@extern>",
            ["Bob Dunite <bob@extern>", "Bobby Dunite <bobby@extern>"],
        ),
        ("<a@x.org> <b@y.org>", ["a@x.org", "b@y.org"]),
        ('"Doe, J <j@x>" <j@x.org>', ['"Doe, J <j@x>" <j@x.org>']),
        ("Alice <alice@x.org>", ["Alice <alice@x.org>"]),
    ],
)
def test_addresses_without_the_comma_between(value, expected):
    from convo.importers.email.addresses import addresses

    assert addresses([value]) == expected


def test_pipermail_scrubbed_attachment_notes_leave_the_text(runner, in_fixtures):
    """Mailman 2's Scrubber notes (``-------------- next part --------------`` then
    ``An HTML attachment was scrubbed...``, ``A non-text attachment ...``) are attachments,
    not text; a text part after the line stays, and so does a note with words after it."""
    result, recs = _ingest(runner, "email/pipermail-scrubbed.mbox")
    assert result.exit_code == 0, result.output
    texts = [r["textChunks"][0] for r in recs]
    assert texts[0] == "Hello all, the release is Friday."
    assert texts[1].endswith("The second text part: kept, it is what Bob wrote.")
    assert "next part" not in texts[1]
    assert texts[2] == "[attachment attachment.html, text/html]"
    assert texts[3].startswith("Forwarding the minutes.\n\nAn HTML attachment was scrubbed")
    names = [[a["name"] for a in r["extra"]["attachments"]] for r in recs]
    assert names == [
        ["attachment.html"], ["build.log", "signature.asc"], ["attachment.html"],
        ["attachment.eml"],
    ]  # fmt: skip
    assert recs[1]["extra"]["attachments"][1]["size"] == 833
    assert_golden("email/pipermail-scrubbed.jsonl", recs)


def test_thunderbird_expunged_messages_are_marked_deleted(runner, in_fixtures):
    """Thunderbird keeps a deleted message (a moved one's old copy, an old draft) in the
    mbox until the folder is compacted, its ``X-Mozilla-Status`` flags holding 0x0008:
    read, but tagged ``deleted`` (``extra.deleted``); the ids stay unique."""
    result, recs = _ingest(runner, "email/thunderbird-expunged.mbox")
    assert result.exit_code == 0, result.output
    assert [r["textChunks"][0] for r in recs] == ["First draft.", "Second draft, the kept one."]
    assert [r["tags"] for r in recs] == [["deleted"], ["Important", "urgent"]]
    assert [(r.get("extra") or {}).get("deleted") for r in recs] == [True, None]
    assert len({r["id"] for r in recs}) == 2


def test_apple_mail_partial_emlx_lists_the_attachment_stored_apart(runner, in_fixtures):
    """Apple Mail's ``.partial.emlx``: the attachment's part keeps its headers, its
    content moved to ``Attachments/``, ``X-Apple-Content-Length`` its length: listed as
    stored apart, not as a file of 0 bytes."""
    result, recs = _ingest(runner, "email/apple-mail.partial.emlx")
    assert result.exit_code == 0, result.output
    assert recs[0]["textChunks"] == ["See the report."]
    assert recs[0]["extra"]["attachments"] == [
        {"name": "report.pdf", "type": "application/pdf", "size": None,
         "disposition": "attachment", "stored_apart": True, "apple_content_length": 48211},
    ]  # fmt: skip
