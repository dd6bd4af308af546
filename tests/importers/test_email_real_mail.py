"""Mail as it really is (issue 14): one synthetic fixture per defect class seen on real
archives, under tests/fixtures/email/."""

from __future__ import annotations

from pathlib import Path

import pytest

from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import detect, get_format

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "email"


def _read(path: Path, fmt: str | None = None):
    source = Source(path)
    rejects, warnings = [], []
    f = detect(source) if fmt is None else get_format(fmt)
    ctx = ImportContext(
        source, ImportOptions(), on_reject=rejects.append, on_warning=warnings.append
    )
    msgs = list(f.read(source, ctx))
    assert not rejects
    return msgs, warnings


def _one(name: str):
    msgs, warnings = _read(FIXTURES / name)
    assert len(msgs) == 1
    return msgs[0], warnings


# --------------------------------------------------------------------------- 1. empty text


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("empty-plain-beside-html.eml", "The HTML part has the words."),
        ("unterminated-boundary.eml", "Only the HTML part reads."),
        ("multipart-without-boundary.eml", "The sender's program forgot the boundary"),
        ("pgp-encrypted.eml", "[encrypted: application/pgp-encrypted]"),
    ],
)
def test_readable_text_is_found(name, text):
    msg, _ = _one(name)
    assert msg.text_chunks[0].startswith(text)


def test_blank_plain_part_in_mixed_falls_back_to_html(tmp_path):
    p = tmp_path / "m.eml"
    p.write_text(
        "From: a@x.org\nDate: Mon, 4 Mar 2024 10:00:00 +0000\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n  \n'
        "--b\nContent-Type: text/html\n\n<p>words</p>\n--b--\n"
    )
    msg, _ = _one_at(p)
    assert msg.text_chunks == ["words"]


def _one_at(path: Path):
    msgs, warnings = _read(path)
    assert len(msgs) == 1
    return msgs[0], warnings


# --------------------------------------------------------------------------- 2. time


@pytest.mark.parametrize(
    ("name", "timestamp", "source", "said"),
    [
        ("date-bad-hour-received.eml", "2010-12-16T02:59:10Z", "received", "Received"),
        ("date-garbled-resent.eml", "2007-10-29T20:20:00Z", "resent-date", "Resent-Date"),
        ("date-missing-arrival-time.eml", "2008-06-12T10:03:14Z", "x-originalarrivaltime", ""),
        ("date-from-envelope.mbox", "2001-02-03T08:09:10Z", "envelope", "mbox From line"),
    ],
)
def test_time_falls_back_in_order(name, timestamp, source, said):
    msg, warnings = _one(name)
    assert msg.timestamp == timestamp
    assert msg.extra["time_source"] == source
    assert any("Date header; time taken from" in w and said in w for w in warnings)


def test_unreadable_date_is_kept():
    msg, _ = _one("date-bad-hour-received.eml")
    assert msg.extra["date"] == "Wed, 15 Dec 2010    59:10 -0500"


def test_date_without_year_never_takes_the_current_year():
    msg, warnings = _one("date-without-year.eml")
    assert msg.timestamp in (None, "1970-01-01T00:00:00Z")
    assert "time_source" not in (msg.extra or {})
    assert any("time left unknown" in w for w in warnings)


def test_maildir_file_name_gives_the_time(tmp_path):
    for sub in ("cur", "new", "tmp"):
        (tmp_path / "Maildir" / sub).mkdir(parents=True)
    (tmp_path / "Maildir" / "cur" / "1709719200.M1P2.host:2,S").write_text(
        "From: a@x.org\nSubject: no date\n\nbody\n"
    )
    msgs, warnings = _read(tmp_path / "Maildir")
    assert msgs[0].timestamp == "2024-03-06T10:00:00Z"
    assert msgs[0].extra["time_source"] == "maildir"
    assert any("Maildir file name" in w for w in warnings)


# --------------------------------------------------------------------------- 3. addresses


def test_pipermail_obfuscated_addresses():
    msgs, _ = _read(FIXTURES / "pipermail.mbox")
    assert [m.speaker for m in msgs] == [
        "Andy Grunwald <andy@example.com>",
        "Martin <martin.example@example.org>",
    ]


def test_query_finds_the_deobfuscated_address(runner):
    from convo.cli.app import app

    result = runner.invoke(
        app, ["query", str(FIXTURES / "pipermail.mbox"), "-s", "andy@example.com"]
    )
    assert result.exit_code == 0, result.output
    assert "Hello list." in result.output and "Hi Andy." not in result.output


@pytest.mark.parametrize(
    ("name", "speaker", "subject"),
    [
        ("raw-big5-declared.eml", "王小明 <wang@example.tw>", "會議通知"),
        ("raw-koi8r-declared.eml", "Андрей Петров <andrei@example.ru>", "Приглашение на встречу"),
        ("raw-shift-jis-undeclared.eml", "山田太郎 <yamada@example.jp>", "会議のお知らせ"),
    ],
)
def test_raw_8bit_headers_are_decoded(name, speaker, subject):
    msg, _ = _one(name)
    assert msg.speaker == speaker
    assert msg.subject == subject


def test_raw_header_in_the_charset_of_an_encoded_word(tmp_path):
    p = tmp_path / "m.eml"
    p.write_bytes(
        b"From: =?Windows-1252?Q?Forma=E7=E3o?= <info@example.pt>\n"
        b"Subject: Forma\xe7\xe3o de Ver\xe3o\nDate: Mon, 4 Mar 2024 10:00:00 +0000\n\nx\n"
    )
    msg, _ = _one_at(p)
    assert msg.subject == "Formação de Verão"


# --------------------------------------------------------------------------- 4. mboxo / mboxrd


def test_mboxrd_unescapes_one_level():
    msg, _ = _one("escaped.mboxrd")
    assert msg.text_chunks == ["From the start, one level.\n>From quoted, two levels."]


def test_mboxo_keeps_lines_as_written():
    msg, _ = _one("escaped-mboxo.mbox")
    assert msg.text_chunks == [">From the start, as the writer left it."]


def test_mboxrd_by_name_alone(tmp_path):
    p = tmp_path / "x.mboxrd"
    p.write_bytes((FIXTURES / "escaped-mboxo.mbox").read_bytes())
    msg, _ = _one_at(p)
    assert msg.text_chunks == ["From the start, as the writer left it."]


def test_mboxrd_by_its_envelope_line():
    """public-inbox (lore.kernel.org's ``t.mbox.gz``) and b4 write mboxrd with the envelope
    ``From mboxrd@z Thu Jan  1 00:00:00 1970`` (b4's ``test_headers_are_not_escaped``):
    a body's ``From now on`` was read as written, ``>From now on``."""
    msgs, _ = _read(FIXTURES / "lore-mboxrd.mbox")
    assert msgs[0].text_chunks[0].startswith("From now on the packets go in the tin.\n")
    assert msgs[1].text_chunks[0].splitlines()[2] == ">From now on the packets go in the tin."
    assert msgs[1].metadata.recipients == [
        "Ann Lee <ann@example.org>",
        "garden-devel@lists.example.org",
    ]


def test_mboxo_double_escape_past_the_head_stays(tmp_path):
    """A '>>From' line after the first 64 KiB does not make a file mboxrd: decided first."""
    filler = "".join(
        f"From a@x.org Mon Mar  4 10:00:00 2024\nFrom: a@x.org\nSubject: {i}\n\n{'x' * 900}\n\n"
        for i in range(80)
    )
    p = tmp_path / "x.mbox"
    p.write_text(filler + "From a@x.org Mon Mar  4 10:00:00 2024\nFrom: a@x.org\n\n>>From me\n")
    msgs, _ = _read(p)
    assert msgs[-1].text_chunks == [">>From me"]


# --------------------------------------------------------------------------- 5. attachments


@pytest.mark.parametrize("name", ["smime-opaque-signed.eml", "smime-opaque-signed-ber.eml"])
def test_opaque_signed_smime_is_read(name):
    """An opaque-signed S/MIME message (``smime.p7m`` of ``smime-type=signed-data``, as
    Outlook sends with clear-text signing off; DER, and BER as ``openssl cms -stream``
    writes it) read ``[encrypted: ...]``: its text, in the CMS SignedData in the clear,
    was lost. Now the signed entity is the body; the part is listed."""
    msg, _ = _one(name)
    assert msg.text_chunks == ["The packets are dry. \u2713\nSee you Sunday."]
    (part,) = msg.extra["attachments"]
    assert part["name"] == "smime.p7m" and part["type"].endswith("pkcs7-mime")


def test_enveloped_smime_and_damaged_signed_data_stay_encrypted(tmp_path):
    from convo.importers.email.smime import signed_content

    raw = (FIXTURES / "smime-opaque-signed.eml").read_bytes()
    head, _, blob = raw.partition(b"\n\n")
    cut = head + b"\n\n" + blob[: len(blob) // 2]  # a truncated blob: no content to read
    p = tmp_path / "cut.eml"
    p.write_bytes(cut)
    msg, _ = _one_at(p)
    assert msg.text_chunks == ["[encrypted: application/x-pkcs7-mime]"]
    assert signed_content(b"\x30\x80" * 40) is None  # nested without end: no crash
    assert signed_content(b"") is None


def test_a_message_sent_whole_in_tnef_is_read():
    """Exchange sends some mail whole in TNEF (``Content-Type: application/ms-tnef``,
    Aspose.Email's ``Examples/Data/Email/tnefWithMsgInside.eml``): the text, in
    ``attMsgProps``' ``PidTagHtml``, was lost (``[attachment winmail.dat, ...]``) and the
    attachments inside were not listed."""
    msg, _ = _one("tnef-whole-message.eml")
    assert msg.text_chunks == ["The seed packets are in the shed.\n\nAnn"]
    assert msg.extra["attachments"] == [
        {"name": "winmail.dat", "type": "application/ms-tnef", "size": 516},
        {"name": "planting-plan.csv", "type": "text/csv", "size": 18, "in": "winmail.dat"},
    ]


def test_tnef_beside_a_text_part_adds_no_text(tmp_path):
    """The usual shape (a text part and ``winmail.dat``): the text part is the text."""
    raw = (FIXTURES / "tnef-whole-message.eml").read_text()
    head, _, b64 = raw.partition("\n\n")
    head = head.replace(
        'Content-Type: application/ms-tnef; name="winmail.dat"\nContent-Transfer-Encoding: base64\n',
        "",
    )
    p = tmp_path / "mixed.eml"
    p.write_text(
        head + '\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\n'
        "Packets in the shed.\n--b\nContent-Type: application/ms-tnef; name=winmail.dat\n"
        "Content-Transfer-Encoding: base64\n\n" + b64 + "--b--\n"
    )
    msg, _ = _one_at(p)
    assert msg.text_chunks == ["Packets in the shed."]
    assert [a["name"] for a in msg.extra["attachments"]] == ["winmail.dat", "planting-plan.csv"]


def test_a_damaged_tnef_part_is_warned(tmp_path):
    """A winmail.dat cut short gave what came before the cut, silently: the files after
    it were not listed and nothing said so. Now a warning names the part."""
    import base64

    raw = (FIXTURES / "tnef-whole-message.eml").read_text()
    head, _, b64 = raw.partition("\n\n")
    data = base64.b64decode(b64)
    p = tmp_path / "cut.eml"
    p.write_text(head + "\n\n" + base64.encodebytes(data[: len(data) - 40]).decode())
    _, warnings = _one_at(p)
    assert any("TNEF part winmail.dat is damaged" in w for w in warnings)
    _, warned = _one("tnef-whole-message.eml")
    assert not any("TNEF" in w for w in warned)


def test_damaged_tnef_is_no_crash():
    from convo.importers.email.tnef import read_tnef

    raw = (FIXTURES / "tnef-whole-message.eml").read_text().partition("\n\n")[2]
    import base64

    data = base64.b64decode(raw)
    for cut in range(0, len(data), 7):
        got = read_tnef(data[:cut])
        assert got is None or isinstance(got.attachments, list)
    assert read_tnef(b"not tnef") is None


def test_attached_text_only_says_so():
    msg, _ = _one("only-attached-text.eml")
    assert msg.text_chunks == ["[attachment notes.txt, text/plain]"]
    assert msg.extra["attachments"] == [
        {"name": "notes.txt", "type": "text/plain", "size": 35, "disposition": "attachment"}
    ]


def test_every_named_part_is_listed_containers_never():
    msg, _ = _one("named-parts.eml")
    assert msg.text_chunks == ["The body text.\n\nInline notes."]
    names = [a["name"] for a in msg.extra["attachments"]]
    assert names == ["inline-notes.txt", "logo.png"]


def test_an_attached_message_sent_base64_is_read():
    """Swift Mailer encodes a forwarded message/rfc822 part base64: its text was the
    base64 lines (144 kB of them on a real message); now the message they hold."""
    msg, _ = _one("attached-message-base64.eml")
    assert msg.text_chunks == [
        "See below.\n\n---------- Forwarded message ----------\n"
        "From: Rosa Lind <rosa@example.org>\nDate: Sat, 25 May 2019 07:48:22 +0000\n"
        "Subject: Greenhouse keys\n\nThe keys are under the pot, été."
    ]
    att = msg.extra["attachments"]
    assert [(a["name"], a.get("from")) for a in att] == [
        ("keys.eml", "Rosa Lind <rosa@example.org>"),
        ("map.txt", None),
    ]


# --------------------------------------------------------------------------- 6. speaker


@pytest.mark.parametrize(
    ("name", "speaker", "source"),
    [
        ("no-from-sender.eml", "List Robot <robot@lists.example.org>", "sender"),
        ("no-from-reply-to.eml", "Help Desk <help@example.org>", "reply-to"),
        ("no-from-envelope.mbox", "bounce@example.org", "envelope"),
    ],
)
def test_speaker_stands_in_with_a_warning(name, speaker, source):
    msg, warnings = _one(name)
    assert msg.speaker == speaker
    assert msg.extra["speaker_source"] == source
    assert any("no From header; speaker taken from" in w for w in warnings)


def test_no_sender_anywhere_is_warned(tmp_path):
    p = tmp_path / "m.eml"
    p.write_text("To: b@x.org\nSubject: s\nDate: Mon, 4 Mar 2024 10:00:00 +0000\n\nbody\n")
    msg, warnings = _one_at(p)
    assert msg.speaker is None
    assert any("speaker unknown" in w for w in warnings)


def test_nested_ber_pieces_are_walked_once():
    """A BER SignedData whose content is an OCTET STRING cut into many pieces, nested
    twenty constructed strings deep: every level walked the whole content again (a
    900 KB blob took 7 s, a 10 MB mail minutes). Each element is now looked at a bounded
    number of times, however deep the nesting."""
    import sys

    from convo.importers.email import smime

    def tlv(tag: int, content: bytes) -> bytes:
        return bytes([tag, 0x82]) + len(content).to_bytes(2, "big") + content

    def indefinite(tag: int, content: bytes) -> bytes:
        return bytes([tag, 0x80]) + content + b"\0\0"

    pieces = 3000
    inner = b"\x04\x01A" * pieces
    for _ in range(20):
        inner = indefinite(0x24, inner)
    encap = indefinite(0x30, tlv(0x06, smime._DATA) + indefinite(0xA0, inner))
    signed = indefinite(0x30, tlv(0x02, b"\x01") + tlv(0x31, b"") + encap)
    blob = indefinite(0x30, tlv(0x06, smime._SIGNED_DATA) + indefinite(0xA0, signed))
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event == "call" and frame.f_code.co_filename == smime.__file__:
            calls += 1

    sys.setprofile(count)
    try:
        got = smime.signed_content(blob)
    finally:
        sys.setprofile(None)
    assert got == b"A" * pieces
    assert calls < 10 * pieces, calls  # six calls an element (were 28)


def test_a_raw_byte_in_a_q_encoded_word_reads_in_the_word_s_charset():
    """Eudora 4.2 and Netscape 4.7 left 8-bit bytes unquoted inside a Q-encoded word
    (hunnysoft's MIME samples, as zbateson/mail-mime-parser's tests/_data/emails/m2004
    to m2014 keep them): the subject held a lone surrogate ``\\udcf6``."""
    msg, _ = _one("raw-byte-in-q-word.eml")
    assert msg.subject == "Die Hasen und die Frösche"


def test_a_boundary_folded_inside_its_quotes_splits_the_body():
    """Outlook 2000 folded the boundary parameter inside its quotes (hunnysoft's m0021):
    the whole MIME body, base64 and delimiters, was the message's text."""
    msg, _ = _one("folded-boundary.eml")
    assert msg.text_chunks == ["The Hare and the Tortoise"]
    assert [a["name"] for a in msg.extra["attachments"]] == ["redball.png"]
