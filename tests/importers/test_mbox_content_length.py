"""mboxcl2: a ``Content-Length`` that runs over an unescaped ``From `` line of its body is
used when it lands exactly on a separator line or the end (mutt's and neomutt's
``mbox_parse_mailbox`` check), else ignored (``importers.email.mbox.declared_end``)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.email import mbox

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "email" / "mboxcl2-dovecot.mbox"


def _read(path: Path):
    source = Source(path)
    rejects, warnings = [], []
    ctx = ImportContext(
        source, ImportOptions(), on_reject=rejects.append, on_warning=warnings.append
    )
    msgs = list(mbox.read(source, ctx))
    assert not rejects
    return msgs, warnings


def _mail(sender: str, body: str, length: int | None = None, *, last: bool = False) -> str:
    n = len(body.encode()) if length is None else length
    return (
        f"From {sender}@example.org Wed Mar  6 10:00:00 2024\nFrom: {sender}@example.org\n"
        f"Date: Wed, 6 Mar 2024 10:00:00 +0000\nContent-Length: {n}\n\n{body}"
        + ("" if last else "\n")
    )


_INNER = "quoted:\n\nFrom carol@example.org Tue Mar  5 09:00:00 2024\nFrom: Carol\n\nhi\n"


def test_the_dovecot_shape_keeps_a_body_s_from_line():
    msgs, warnings = _read(FIXTURE)
    assert [m.id for m in msgs] == [f"<cl{i}@example.org>" for i in (1, 2, 3, 4)]
    assert "From carol@example.org Tue Mar  5" in msgs[0].text_chunks[0]
    assert msgs[0].text_chunks[0].endswith("hello from Carol")
    assert msgs[1].reply_to == "<cl1@example.org>" and msgs[1].text_chunks == ["Thanks."]
    # a stale length (landing inside the next message) is not used
    assert msgs[2].text_chunks[0].startswith("A Content-Length left over")
    # the last message's length lands on the end: its From line stays its own
    assert msgs[3].text_chunks[0].endswith("still Dave.")
    assert not warnings


@pytest.mark.parametrize(
    ("length", "count"),
    [(None, 2), (-1, 3), (+1, 2), (+2, 3), (+500, 3)],
    ids=["exact", "short", "without-blank", "long", "past-the-end"],
)
def test_a_length_is_used_only_when_it_lands_on_a_separator(tmp_path, length, count):
    n = None if length is None else len(_INNER) + length
    p = tmp_path / "a.mbox"
    p.write_text(_mail("alice", _INNER, n) + _mail("bob", "thanks\n", last=True))
    msgs, _ = _read(p)
    assert len(msgs) == count
    assert msgs[-1].speaker == "bob@example.org"


def test_crlf_and_no_blank_line_before_the_next_envelope(tmp_path):
    body = _INNER.replace("\n", "\r\n")
    text = _mail("alice", body).replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    p = tmp_path / "crlf.mbox"
    p.write_bytes(text.encode() + _mail("bob", "x\r\n", last=True).replace("\n", "\r\n").encode())
    assert len(_read(p)[0]) == 2
    p.write_text(_mail("alice", _INNER)[:-1] + _mail("bob", "x\n", last=True))  # no blank line
    assert [m.speaker for m in _read(p)[0]] == ["alice@example.org", "bob@example.org"]


def test_a_length_over_the_limit_is_not_read_ahead(tmp_path, monkeypatch):
    monkeypatch.setattr(mbox, "DECLARED_LIMIT", 64)
    p = tmp_path / "a.mbox"
    p.write_text(_mail("alice", _INNER) + _mail("bob", "thanks\n", last=True))
    assert len(_read(p)[0]) == 3


def _split(data: bytes, chunk: int) -> list[tuple[int, bytes, bytes]]:
    old = mbox.CHUNK
    mbox.CHUNK = chunk
    try:
        return list(mbox.iter_mbox(io.BytesIO(data), mbox._Split()))
    finally:
        mbox.CHUNK = old


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(-3, 3)), min_size=1, max_size=5),
    st.integers(7, 200),
)
def test_blocks_do_not_change_where_messages_end(mails, chunk):
    """However the stream comes in blocks, a length is used or not alike."""
    parts = []
    for k, (inner, off) in enumerate(mails):
        body = (_INNER if inner else "plain\n") + f"n{k}\n"
        parts.append(_mail(f"u{k}", body, len(body.encode()) + off, last=k == len(mails) - 1))
    data = "".join(parts).encode()
    assert _split(data, chunk) == _split(data, 1 << 20)


def test_spans_separators_says_when_a_cut_would_read_wrong(tmp_path):
    spanning = (_mail("alice", _INNER) + _mail("bob", "thanks\n", last=True)).encode()
    assert mbox.spans_in(io.BytesIO(spanning), len(spanning))
    plain = (_mail("alice", "no envelope here\n") + _mail("bob", "x\n", last=True)).encode()
    assert not mbox.spans_in(io.BytesIO(plain), len(plain))
    # only messages that start in the range are asked about
    first = len(_mail("bob", "x\n"))
    later = (_mail("bob", "x\n") + _mail("alice", _INNER, last=True)).encode()
    assert not mbox.spans_in(io.BytesIO(later), first)
    assert mbox.spans_in(io.BytesIO(later), first + 1)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.integers(-3, 3),
            st.sampled_from(["Content-Length", "content-LENGTH", "X-Length"]),
        ),
        min_size=1,
        max_size=5,
    ),
    st.integers(0, 4),
)
def test_the_range_test_equals_reading_the_range(tmp_path_factory, mails, cut):
    """``spans_separators`` (a range with no ``content-length:`` in any case is not read
    again) says what reading the range says (``spans_in``), for every range of the file."""
    from convo.core.ranges import Range

    parts = []
    for k, (inner, off, name) in enumerate(mails):
        body = (_INNER if inner else "plain\n") + f"n{k}\n"
        mail = _mail(f"u{k}", body, len(body.encode()) + off, last=k == len(mails) - 1)
        parts.append(mail.replace("Content-Length", name))
    path = tmp_path_factory.mktemp("spans") / "m.mbox"
    data = "".join(parts).encode()
    path.write_bytes(data)
    starts = [0]
    for part in parts[:-1]:
        starts.append(starts[-1] + len(part.encode()))
    start = starts[min(cut, len(starts) - 1)]
    for end in sorted({*starts[1:], len(data)}):
        if end <= start:
            continue
        r = Range(str(path), start, end)
        assert mbox.spans_separators(r) == mbox.spans_in(io.BytesIO(data[start:]), end - start)


def test_an_upper_case_header_is_read_as_the_usual_one():
    """``CONTENT-LENGTH:`` (header names are case-insensitive) holds a body as
    ``Content-Length:`` does."""
    data = (_mail("alice", _INNER) + _mail("bob", "thanks\n", last=True)).encode()
    upper = data.replace(b"Content-Length", b"CONTENT-LENGTH")
    assert len(_split(upper, 1 << 20)) == len(_split(data, 1 << 20)) == 2
