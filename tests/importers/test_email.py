"""The email importers: mbox splitting, headers, bodies, charsets, Maildir, CLI."""

from __future__ import annotations

import gzip
import mailbox
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import SAMPLE_DATA, assert_golden, records
from convo.cli.app import app
from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.email.addresses import addresses
from convo.importers.email.charsets import decode_bytes, decode_words
from convo.importers.email.quotes import strip_quotes
from convo.importers.registry import detect, get_format
from convo.pipeline.ingest import read_messages

TEAM = SAMPLE_DATA / "email" / "team.mbox"


def _read(path, fmt=None, **opts):
    rejects, warnings = [], []
    source = Source(path)
    f = detect(source) if fmt is None else get_format(fmt)
    ctx = ImportContext(
        source, ImportOptions(**opts), on_reject=rejects.append, on_warning=warnings.append
    )
    return list(f.read(source, ctx)), rejects, warnings


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


# --------------------------------------------------------------------------- sample and golden


@pytest.fixture
def rel_team(monkeypatch):
    """The sample as a relative path, so golden source_ids do not depend on the checkout."""
    monkeypatch.chdir(SAMPLE_DATA.parent)
    return "sample_data/email/team.mbox"


def test_team_mbox_golden(rel_team):
    msgs = list(read_messages(rel_team))
    assert len(msgs) == len(mailbox.mbox(str(TEAM), create=False)) == 5
    assert_golden("email/team.jsonl", [m.serialize() for m in msgs])


def test_team_mbox_strip_quotes_golden(rel_team):
    msgs = list(read_messages(rel_team, options=ImportOptions(strip_quotes=True)))
    assert msgs[1].text == "I agree. Let's use JWT tokens instead of sessions."
    assert_golden("email/team-strip-quotes.jsonl", [m.serialize() for m in msgs])


def test_team_fields():
    m = list(read_messages(TEAM))
    assert m[0].speaker == "Alice Smith <alice@example.org>"
    assert m[0].tags == ["Inbox", "urgent", "Projects, Auth", "security"]
    assert "\nFrom the logs" in m[0].text  # mboxrd >From unescaped
    assert ">From the logs" in m[1].text  # >>From -> >From (a quoted line)
    assert m[1].thread == "<auth-1@example.org>" and m[1].reply_to == "<auth-1@example.org>"
    assert m[1].timestamp == "2024-03-06T10:02:30Z"  # +0100 converted
    assert m[2].subject == "Re: Auth refactor \u2014 revocation"  # RFC 2047
    assert m[2].thread == "<auth-1@example.org>" and m[2].reply_to == "<auth-2@example.org>"
    assert "café" in m[2].text and "stateless" not in m[2].text
    assert m[2].extra["attachments"][0] == {
        "name": "jwt-notes.txt", "type": "text/plain", "size": 58, "disposition": "attachment"
    }  # fmt: skip
    assert m[3].text.startswith("The 2.4 release is planned for Tuesday.")  # HTML only
    assert "color" not in m[3].text
    assert m[4].text == "Tuesday works. I'll write the changelog."  # plain alternative
    assert m[4].listeners == ["Alice Smith <alice@example.org>", "Carol Diaz <carol@example.org>"]
    assert m[4].extra["cc"] == ["Carol Diaz <carol@example.org>", "Alice Smith <alice@example.org>"]


def test_gzipped_mbox(tmp_path):
    gz = _write(tmp_path, "team.mbox.gz", gzip.compress(TEAM.read_bytes()))
    msgs, rejects, _ = _read(gz)
    assert len(msgs) == 5 and not rejects


# --------------------------------------------------------------------------- CLI: done-when


@pytest.mark.parametrize(
    "who", ["bob@example.org", "Bob Jones", "Bob", "bob", "jones", "BOB@EXAMPLE.ORG"]
)
def test_ingest_pipe_query_by_speaker(runner, who):
    out = runner.invoke(app, ["ingest", str(TEAM), "-o", "-"])
    assert out.exit_code == 0, out.output
    q = runner.invoke(app, ["query", "--speaker", who, "-f", "jsonl"], input=out.stdout)
    assert q.exit_code == 0, q.output
    got = records(q.stdout)
    assert [r["id"] for r in got] == ["<auth-2@example.org>", "<release-2@example.org>"]


def test_query_speaker_not_a_prefix(runner):
    out = runner.invoke(app, ["ingest", str(TEAM), "-o", "-"])
    q = runner.invoke(app, ["query", "--speaker", "Bo", "-f", "jsonl"], input=out.stdout)
    assert records(q.stdout) == []


def test_ingest_stdin_detects_mbox(runner):
    out = runner.invoke(app, ["ingest", "-o", "-"], input=TEAM.read_bytes())
    assert out.exit_code == 0, out.output
    assert len(records(out.stdout)) == 5


# --------------------------------------------------------------------------- mbox splitting

MBOX = """From a@x.org Mon Jan  1 10:00:00 2024
From: A <a@x.org>
Date: Mon, 1 Jan 2024 10:00:00 +0000

From time to time
From here on it is body.
>From escaped once
>>From escaped twice
>From: a quoted header line

From - Tue Oct 02 00:26:47 2007
From: B <b@x.org>
Date: Tue, 2 Oct 2007 00:26:47 +0000
Subject: thunderbird

two
From MAILER-DAEMON Sun Aug  7 11:40:37 2022
Subject: no blank line before me, no Date

three
"""


def test_mbox_split_and_unescape(tmp_path):
    msgs, rejects, _ = _read(_write(tmp_path, "x.mbox", MBOX))
    assert not rejects
    assert len(msgs) == 3
    assert msgs[0].text == (
        "From time to time\nFrom here on it is body.\nFrom escaped once\n"
        ">From escaped twice\n>From: a quoted header line"
    )
    assert msgs[1].subject == "thunderbird" and msgs[1].text == "two"
    assert msgs[2].timestamp == "2022-08-07T11:40:37Z"  # the envelope's date
    assert msgs[2].extra["envelope"].startswith("From MAILER-DAEMON")


def test_mbox_crlf(tmp_path):
    msgs, rejects, _ = _read(_write(tmp_path, "x.mbox", MBOX.replace("\n", "\r\n")))
    assert not rejects and len(msgs) == 3 and msgs[1].text == "two"


def test_mbox_broken_message_rejected_rest_kept(tmp_path):
    text = "From a@x Mon Jan  1 10:00:00 2024\nnot a header at all\n\nFrom b@x Mon Jan  1 10:00:00 2024\nFrom: b@x\n\nok\n"
    msgs, rejects, _ = _read(_write(tmp_path, "x.mbox", text))
    assert [m.text for m in msgs] == ["ok"]
    assert len(rejects) == 1 and rejects[0].where.endswith("x.mbox:1")


def test_mbox_empty_message_rejected(tmp_path):
    text = "From a@x Mon Jan  1 10:00:00 2024\nFrom b@x Mon Jan  1 10:00:00 2024\nFrom: b@x\n\nok\n"
    msgs, rejects, _ = _read(_write(tmp_path, "x.mbox", text))
    assert len(msgs) == 1 and len(rejects) == 1
    assert len(msgs) + len(rejects) == len(mailbox.mbox(str(tmp_path / "x.mbox"), create=False))


def test_forced_mbox_on_non_mbox(tmp_path):
    with pytest.raises(ConvoError) as e:
        _read(_write(tmp_path, "x.txt", "hello\n"), fmt="mbox")
    assert "From " in e.value.what


# --------------------------------------------------------------------------- eml, maildir

EML = b"""Return-Path: <a@x.org>
From: "=?iso-8859-1?Q?M=FCller=2C_J=FCrgen?=" <jm@x.org>
To: alice@example.com <bob@example.com>, "Bob" <bob@example.com>, carol@x.org
Cc: =?utf-8?B?w4lsaXNl?= <elise@x.org>, carol@x.org
Subject: =?utf-8?q?caf=C3=A9?= #planning
Date: Tue, 06 Jun 2017 27:39:33 +0600
Message-ID: <m1@x.org>
In-Reply-To: a bare text
References: <root@x.org>
 <mid@x.org>
Keywords: alpha, beta
Content-Type: text/plain; charset=gb2312
Content-Transfer-Encoding: 8bit

\xe4\xbd\xa0\xe5\xa5\xbd is utf-8 really
"""


def test_eml_headers(tmp_path):
    msgs, rejects, warnings = _read(_write(tmp_path, "a.eml", EML))
    assert not rejects
    (m,) = msgs
    assert m.format == "eml" and m.source_id.endswith("a.eml#msg-1")
    assert m.speaker == '"Müller, Jürgen" <jm@x.org>'
    assert m.listeners == [
        '"alice@example.com" <bob@example.com>',
        "carol@x.org",
        "Élise <elise@x.org>",
    ]
    assert m.extra["to"] == ['"alice@example.com" <bob@example.com>', "carol@x.org"]
    assert m.subject == "café #planning"
    assert m.tags == ["alpha", "beta", "planning"]
    assert m.thread == "<root@x.org>" and m.reply_to == "<mid@x.org>"
    assert m.timestamp is None and "unreadable Date" in warnings[0]
    assert m.text == "你好 is utf-8 really"  # mislabelled gb2312 recovered


def test_eml_dateutil_fallback(tmp_path):
    eml = b"From: a@x\nDate: 2024-03-06 10:00:00 (PST)\n\nhi\n"
    (m,), _, _ = _read(_write(tmp_path, "a.eml", eml))
    assert m.timestamp == "2024-03-06T18:00:00Z"


def test_eml_no_date_tz(tmp_path):
    eml = b"From: a@x\nDate: Wed, 6 Mar 2024 10:00:00\n\nhi\n"
    p = _write(tmp_path, "a.eml", eml)
    from convo.core.timestamps import get_zone

    (m,), _, _ = _read(p, tz=get_zone("+02:00"))
    assert m.timestamp == "2024-03-06T08:00:00Z"


NESTED = b"""From: a@x
Subject: fwd
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary=b1

--b1
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64

SGVsbG8gd29ybGQ=
--b1
Content-Type: message/rfc822

From: Inner <in@x>
Subject: inner one
Content-Type: text/plain; charset=unknown-8bit-thing

inner text \xe9
--b1
Content-Type: application/pdf; name="r.pdf"
Content-Transfer-Encoding: base64

JVBERi0=
--b1--
"""


def test_nested_message_and_attachments(tmp_path):
    (m,), _, _ = _read(_write(tmp_path, "n.eml", NESTED))
    assert m.text.startswith("Hello world\n\n---------- Forwarded message ----------")
    assert "inner text é" in m.text
    types = [(a["type"], a["name"]) for a in m.extra["attachments"]]
    assert types == [("message/rfc822", "inner one"), ("application/pdf", "r.pdf")]


def test_maildir(tmp_path):
    md = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (md / sub).mkdir(parents=True)
    (md / "new" / "2.host").write_bytes(b"From: b@x\nMessage-ID: <2@x>\n\nnew one\n")
    (md / "cur" / "1.host:2,FS").write_bytes(b"From: a@x\nMessage-ID: <1@x>\n\nold one\n")
    (md / "cur" / "3.host:2,").write_bytes(b"")
    msgs = []
    rejects = []
    msgs = list(read_messages(md, on_reject=rejects.append))
    assert [m.text for m in msgs] == ["new one", "old one"]
    assert msgs[1].format == "maildir"
    assert msgs[1].extra["maildir"] == {"mailbox": "INBOX", "folder": "cur", "flags": "FS"}
    assert msgs[1].source_id.endswith("Maildir/cur/1.host:2,FS#msg-1")
    assert len(rejects) == 1 and "3.host" in rejects[0].where


def test_folder_of_eml(tmp_path):
    _write(tmp_path, "a.eml", EML)
    _write(tmp_path, "b.eml", NESTED)
    assert len(list(read_messages(tmp_path))) == 2


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    "text",
    [
        "Alice: hi\nBob: hello\n",
        "WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n",
        '{"textChunks": ["x"]}\n',
        "title: x\ndate: 2024-01-01\n\nbody\n",
        "From here we go\nto there\n",
    ],
)
def test_sniffs_do_not_steal(tmp_path, text):
    from convo.importers.email.eml import sniff as sniff_eml
    from convo.importers.email.mbox import sniff as sniff_mbox

    s = Source(_write(tmp_path, "x.txt", text))
    assert sniff_mbox(s) == 0 and sniff_eml(s) == 0


def test_eml_with_envelope_named_eml(tmp_path):
    p = _write(
        tmp_path, "a.eml", b"From a@x Mon Jan  1 10:00:00 2024\nFrom: a@x\nSubject: s\n\nbody\n"
    )
    assert detect(Source(p)).name == "eml"


# --------------------------------------------------------------------------- helpers


def test_decode_words_robust():
    assert decode_words("=?NONE?B?VEVTVA=?=") == "TEST"
    assert (
        decode_words("Re: Test: =?UTF-8?B?w6k=?= mid =?UTF-8?B?w6k=?= tail")
        == "Re: Test: é mid é tail"
    )
    assert decode_words("=?utf-8?B?!!!bad?=")  # never raises


def test_decode_bytes():
    assert decode_bytes("café".encode("cp1252"), "iso-8859-1") == "café"
    assert decode_bytes("café".encode(), "iso-8859-1") == "café"  # mislabelled UTF-8
    assert decode_bytes(b"caf\xe9", "x-bogus") == "café"
    assert decode_bytes("テスト".encode("utf-16le"), "utf-16le") == "テスト"
    assert decode_bytes(b"+AGkAIQ-", "utf-7") == "i!"


def test_addresses():
    assert addresses(["a@x b@y"]) == ["a@x", "b@y"]
    assert addresses(["a@x (Alice A)"]) == ["Alice A <a@x>"]
    assert addresses(["<>", ", ,"]) == []
    assert addresses(['"x@y" <x@y>']) == ["x@y"]


def test_strip_quotes():
    text = (
        "Sure.\n\nOn Tue, Mar 5, 2024 at 10:00 AM Alice Smith <\nalice@x.org> wrote:\n"
        "> old\n> more\n\nthanks\n-- \nsig"
    )
    assert strip_quotes(text) == "Sure.\n\n\nthanks"
    assert strip_quotes("new\n-----Original Message-----\nFrom: x\nold") == "new"


@given(st.binary(max_size=2000))
def test_hypothesis_eml_never_crashes(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("h") / "x.eml"
    p.write_bytes(b"From: a@x\nContent-Type: multipart/mixed; boundary=b\n\n--b\n" + data)
    try:
        msgs, _, _ = _read(p, fmt="eml")
    except ConvoError:
        return
    for m in msgs:
        m.serialize()


@given(
    st.lists(
        st.sampled_from(
            [
                "From a@x Mon Jan  1 10:00:00 2024",
                "From: =?utf-8?q?x=",
                "Subject: =?bad?B?===?=",
                "Date: 99 Foo 2024 99:99",
                "",
                ">From x",
                "From time to time",
                "Content-Type: text/plain; charset=utf-7",
                "Content-Transfer-Encoding: base64",
                "+AGk-\xff",
                "Content-Type: multipart/alternative; boundary=z",
                "--z",
                "--z--",
                "Message-ID: <",
            ]
        ),
        max_size=40,
    )
)
def test_hypothesis_mbox_never_crashes(tmp_path_factory, lines):
    p = tmp_path_factory.mktemp("h") / "x.mbox"
    p.write_bytes(
        ("From a@x Mon Jan  1 10:00:00 2024\n" + "\n".join(lines)).encode(
            "utf-8", "surrogateescape"
        )
    )
    msgs, rejects, _ = _read(p, fmt="mbox")
    assert len(msgs) + len(rejects) == len(mailbox.mbox(str(p), create=False)) - sum(
        1 for x in lines if x == "From time to time"
    )
    for m in msgs:
        m.serialize()


@pytest.mark.parametrize("chunk", [1, 2, 5, 6, 7, 13, 64])
def test_mbox_tiny_blocks(tmp_path, monkeypatch, chunk):
    p = _write(tmp_path, "x.mbox", "junk before\n" + MBOX)
    whole, _, w1 = _read(p, fmt="mbox")
    monkeypatch.setattr("convo.importers.email.mbox.CHUNK", chunk)
    tiny, _, w2 = _read(p, fmt="mbox")
    assert [m.serialize() for m in tiny] == [m.serialize() for m in whole]
    assert len(whole) == 3 and w1 == w2 and "12 bytes before" in w1[-1]


_PART = st.sampled_from(
    [
        "Content-Type: text/plain; charset=utf-8\n\nplain caf\xe9 text\n",
        "Content-Type: text/html\n\n<p>html <b>only</b></p>\n",
        "Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable"
        "\n\nqp =E9t=E9 soft=\n break\n",
        "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8gYmFzZTY0\n",
        'Content-Type: application/pdf; name="a.pdf"\nContent-Disposition: attachment\n'
        "Content-Transfer-Encoding: base64\n\nJVBERi0=\n",
        "Content-Type: text/plain; format=flowed\n\nflowed \nline\n",
        "\nno headers part\n",
        # RFC 2231 parameters: the fast split keeps the part, compat32 reads its headers
        "Content-Type: application/pdf; name*=utf-8''r%C3%A9sum%C3%A9.pdf\n"
        "Content-Disposition: attachment; filename*=utf-8''r%C3%A9sum%C3%A9.pdf\n"
        "Content-Transfer-Encoding: base64\n\nJVBERi0=\n",
        "Content-Type: text/plain; charset=utf-8\nContent-Disposition: attachment;\n"
        " filename*0*=utf-8''caf%C3%A9;\n filename*1=\" menu.txt\"\n\nmenu caf\xe9\n",
        "Content-Type: text/plain; charset*=us-ascii'en'iso-8859-1\n\nlatin caf\xe9\n",
        'Content-Type: text/plain\nContent-Disposition: inline; filename="plain.txt";'
        " filename*=utf-8''fancy.txt\nContent-ID: <c@x>\n\nboth names\n",
        # an attached message with a plain body: split here, measured as compat32 writes it
        "Content-Type: message/rfc822\n\nFrom: Zo\xeb <z@x.org>\nSubject: inner\n"
        "Date: Mon, 4 Mar 2024 10:00:00 +0100\nReferences: "
        + " ".join(f"<r{i}@x.org>" for i in range(12))
        + "\nContent-Type: text/plain; charset=utf-8\n\nforwarded caf\xe9 text\n",
        "Content-Type: message/rfc822\nContent-Transfer-Encoding: 7bit\n\nFrom: y@x\n"
        "Subject: =?utf-8?q?caf=C3=A9?=\n X-Folded: yes\n\n",
    ]
)


@given(
    st.lists(_PART, min_size=1, max_size=4),
    st.sampled_from(["mixed", "alternative", "related"]),
    st.booleans(),
)
def test_fast_path_agrees_on_generated_mime(parts, sub, crlf):
    from convo.importers.email.fast import parse_fast
    from convo.importers.email.mime import headers, parse_message, read_body
    from convo.importers.email.record import Origin, build_record

    text = (
        "From: =?utf-8?q?J=C3=BCrgen?= <j@x.org>\nTo: a@x, b@y\nSubject: s\n"
        f'Message-ID: <g@x>\nContent-Type: multipart/{sub}; boundary="=_b"\n\npreamble\n'
        + "".join(f"--=_b\n{p}" for p in parts)
        + "--=_b--\nepilogue\n"
    )
    data = text.encode("utf-8")
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    ctx = ImportContext(Source(TEAM))
    fast = parse_fast(data)
    assert fast is not None
    origin = Origin("eml", "msg-1", "x")
    msg = parse_message(data)
    slow = build_record(headers(msg), read_body(msg), ctx, origin).serialize()
    assert build_record(*fast, ctx, origin).serialize() == slow


@pytest.mark.parametrize(
    "part",
    [
        # a digest's parts are messages by default (RFC 2046 5.1.5), not text
        "Content-Type: multipart/digest; boundary=d\n\n--d\n\nFrom: c@z\n\nhi\n--d--\n",
        # RFC 2231 bytes that are not UTF-8: compat32 then reads the raw header
        "Content-Type: text/plain\nContent-Disposition: attachment;"
        " filename*=utf-8''%FF%FE.txt\n\nx\n",
        "Content-Type: multipart/mixed; boundary*=utf-8''b\n\n--b\n\nx\n--b--\n",
        # an attached message that is multipart: its size is the stdlib's rewriting
        "Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: message/rfc822\n\n"
        "From: c@z\nContent-Type: multipart/mixed; boundary=i\n\n--i\n\nhi\n--i--\n--o--\n",
    ],
)
def test_fast_path_leaves_digests_and_odd_rfc2231_to_the_stdlib(part):
    from convo.importers.email.fast import parse_fast

    data = f"From: a@x\nSubject: s\n{part}".encode()
    assert parse_fast(data) is None


@given(
    st.sampled_from(["Subject", "From", "To", "X-A", "Message-ID", "References"]),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=90),
)
def test_sizing_folds_headers_as_compat32(name, value):
    """An attached message's size counts its headers as compat32 folds them."""
    from email.policy import compat32

    from convo.importers.email.mime import SIZING

    def fold(policy):
        try:
            return policy.fold_binary(name, value)
        except Exception as e:  # e.g. a control byte splitlines() cuts at
            return type(e)

    assert fold(SIZING) == fold(compat32)


def test_a_forward_whose_headers_compat32_cannot_write_is_kept(tmp_path):
    inner = "From: c@z\nSubject: odd\x1e0: header\n\ninner text\n"
    text = (
        "From: a@x\nSubject: fwd\nMessage-ID: <f@x>\n"
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
        "Content-Type: text/plain\n\nsee below\n--b\n"
        f"Content-Type: message/rfc822\n\n{inner}--b--\n"
    )
    msgs, rejects, _ = _read(_write(tmp_path, "f.eml", text), fmt="eml")
    assert not rejects and len(msgs) == 1
    (att,) = msgs[0].extra["attachments"]
    assert att["type"] == "message/rfc822" and att["size"] == 0
    assert "inner text" in msgs[0].text_chunks[0]


# Issue 36 §5: addresses spelled out against harvesters, in any archive's headers.
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("jane at example.org (Jane Doe)", ["Jane Doe <jane@example.org>"]),
        ("jane at example.org (Doe, Jane)", ['"Doe, Jane" <jane@example.org>']),
        ("jane@example.org (Doe, Jane)", ['"Doe, Jane" <jane@example.org>']),
        ("JANE AT EXAMPLE.ORG (Jane)", ["Jane <JANE@EXAMPLE.ORG>"]),
        ("x at y (Name)", ["Name <x@y>"]),
        ("jane at example.org(Jane)", ["Jane <jane@example.org>"]),
        ("Jane Doe <jane at example dot org>", ["Jane Doe <jane@example.org>"]),
        ("jane [at] example [dot] org", ["jane@example.org"]),
        ("j%x at example.org (J)", ["J <j%x@example.org>"]),
        ("Bob <bob@x.org>, Al <al at y.org>", ["Bob <bob@x.org>", "Al <al@y.org>"]),
        ("Meet at noon", ["Meet at noon"]),
        ("Andy at Work <andy@x.org>", ["Andy at Work <andy@x.org>"]),
    ],
)
def test_spelled_out_addresses(value, expected):
    from convo.importers.email.addresses import addresses

    assert addresses([value]) == expected


def test_spelled_out_sender_found_by_speaker_filter(tmp_path):
    from convo.pipeline.ingest import Ingest

    path = tmp_path / "list.mbox"
    path.write_bytes(
        b"From jane at example.org  Mon Jan  1 10:00:00 2024\n"
        b"From: jane at example.org (Doe, Jane)\nTo: dev at lists.example.org\n"
        b"Subject: hi\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\nhello\n\n"
        b"From bob at example.net  Mon Jan  1 11:00:00 2024\n"
        b"Subject: no From header\nDate: Mon, 1 Jan 2024 11:00:00 +0000\n\nhi\n\n"
    )
    recs = [m.serialize() for m in Ingest(ImportOptions()).messages([path])]
    assert recs[0]["metadata"] == {
        "speaker": '"Doe, Jane" <jane@example.org>',
        "listeners": ["dev@lists.example.org"],
    }
    assert recs[1]["metadata"]["speaker"] == "bob@example.net"


def test_thunderbird_tags_are_tags(tmp_path):
    """Thunderbird keeps a message's tags in ``X-Mozilla-Keys`` (space-separated, its
    built-in ones as ``$label1``...); they were not read."""
    mbox = (
        "From - Tue Mar 05 09:12:45 2024\n"
        "X-Mozilla-Status: 0001\n"
        "X-Mozilla-Keys: $label1 todo $Forwarded nonjunk                              \n"
        "Date: Tue, 5 Mar 2024 09:12:45 +0100\nFrom: Ann <ann@example.com>\n"
        "To: Ben <ben@example.com>\nSubject: Hi\nMessage-ID: <t1@example.com>\n\n"
        "From now on we meet at 5.\n"
    )
    recs, _, _ = _read(_write(tmp_path, "Inbox", mbox))
    assert recs[0].tags == ["Important", "todo"]
    assert recs[0].text_chunks == ["From now on we meet at 5."]
