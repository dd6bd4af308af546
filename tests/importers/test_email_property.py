"""Random header damage never gives a traceback, nor an empty speaker without a warning."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import get_format

HEADERS = [
    b"From: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <juergen@example.org>",
    b"Sender: List <list@example.org>",
    b"To: Bob <bob@example.org>, carol at example.org (Carol)",
    b"Subject: =?iso-8859-1?q?Caf=E9?= plans",
    b"Date: Mon, 4 Mar 2024 10:00:00 +0100",
    b"Received: from mx.example.org by mail.example.net; Mon, 4 Mar 2024 10:00:05 +0100",
    b"Message-ID: <m1@example.org>",
    b"MIME-Version: 1.0",
    b'Content-Type: multipart/alternative; boundary="b"',
]
BODY = (
    b"\n--b\nContent-Type: text/plain; charset=utf-8\n\nplain text\n"
    b"--b\nContent-Type: text/html\n\n<p>html text</p>\n--b--\n"
)


def _damage(line: bytes, op: str, at: int, junk: bytes) -> list[bytes]:
    at %= len(line) + 1
    if op == "drop":
        return []
    if op == "cut":
        return [line[:at]]
    if op == "junk":
        return [line[:at] + junk + line[at + len(junk) :]]
    if op == "no-colon":
        return [line.replace(b":", b"", 1)]
    if op == "empty-value":
        return [line.split(b":", 1)[0] + b":"]
    if op == "fold":
        return [line[:at], b" " + line[at:]]
    if op == "twice":
        return [line, line[:at] + junk]
    return [line]


_OPS = st.sampled_from(
    ["keep", "keep", "drop", "cut", "junk", "no-colon", "empty-value", "fold", "twice"]
)
_DAMAGE = st.lists(
    st.tuples(_OPS, st.integers(0, 120), st.binary(min_size=1, max_size=6)),
    min_size=len(HEADERS),
    max_size=len(HEADERS),
)


def _import(path, fmt):
    source = Source(path)
    rejects, warnings = [], []
    ctx = ImportContext(
        source, ImportOptions(), on_reject=rejects.append, on_warning=warnings.append
    )
    return list(get_format(fmt).read(source, ctx)), rejects, warnings


@given(_DAMAGE, st.booleans(), st.booleans())
def test_header_damage_is_survived_and_said(tmp_path_factory, damage, as_mbox, crlf):
    lines = [d for line, op in zip(HEADERS, damage, strict=True) for d in _damage(line, *op)]
    data = b"\n".join(lines) + b"\n" + BODY
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if as_mbox:
        data = b"From juergen@example.org Mon Mar  4 10:00:00 2024\n" + data
    path = tmp_path_factory.mktemp("damage") / ("x.mbox" if as_mbox else "x.eml")
    path.write_bytes(data)
    try:
        msgs, rejects, warnings = _import(path, "mbox" if as_mbox else "eml")
    except ConvoError as e:  # a located, one-line refusal is fine; a traceback is not
        assert e.where and "\n" not in str(e)
        return
    assert len(msgs) + len(rejects) == 1
    for r in rejects:
        assert "\n" not in r.reason
    for m in msgs:
        m.serialize()
        if not m.speaker:
            assert any("From header" in w and "speaker" in w for w in warnings), warnings
        assert m.timestamp is None or m.timestamp.endswith("Z")
