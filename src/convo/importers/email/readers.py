"""The email importers: ``mbox`` (mboxo/mboxrd, Thunderbird), ``eml`` and ``maildir``.

Each message becomes one record: speaker = the decoded ``From`` as ``Name <address>``,
listeners = To then Cc (decoded, in order, duplicates dropped; the split is kept in
``extra.to``/``extra.cc``), ``timestamp`` = ``Date`` in UTC, ``id`` = Message-ID,
``subject`` decoded, ``source_id`` = ``file#msg-N``. Parsing is the standard library's
with the ``compat32`` policy (``email.policy.default`` is ~20x slower); see
``email_parse`` for the per-message work.

Decisions where the spec is silent:

- mbox splitting streams the file line by line and splits on ``From `` lines itself. The
  first ``From `` line of the file always starts a message; later ones only when they
  look like an envelope (``From sender ... Mon DD HH:MM ...``, ``From addr@host``,
  ``From -`` or a bare ``From ``). A body line such as ``From time to time`` that an
  mboxo writer failed to escape therefore stays in its message, where ``mailbox.mbox``
  would start a new (header-less) message: the only case where counts differ.
- The splitter reads 1 MiB blocks and only looks at ``\nFrom `` candidates (memory: one
  message plus a block). Bytes before the first ``From `` line are skipped with a
  warning. Each message then goes through a hand-written fast path (``email_fast``) when
  it is plainly well formed, else through ``email.parser`` (compat32); tests check that
  both give the same records on the whole corpus.
- CRLF line ends are read as LF (so text attachment sizes count LF line ends).
- ``>From `` lines are unescaped by the mboxrd rule (one ``>`` removed from any
  ``>+From `` line); for mboxo files this undoes the single level of escaping too.
  ``>From:`` (a quoted header, no space) is left alone.
- The mbox ``From `` line is kept in ``extra.envelope``; its date is the timestamp when
  the Date header is missing or unreadable (with a warning). No date at all: epoch + a
  warning. Dates without a zone are read in ``--tz``; ``-0000`` is UTC.
- thread = the first id of References (the root), else In-Reply-To, else the message's
  own id; replyTo = In-Reply-To, else the last id of References. Only ``<...>`` tokens
  count, so an In-Reply-To holding a bare address or text gives no replyTo.
- The body is one text chunk: all inline text/plain parts (in order; the text/plain
  alternative of a multipart/alternative); HTML-only mail through ``convo.htmltext``;
  format=flowed is unflowed. Other parts go to ``extra.attachments`` as
  ``{name, type, size}`` (size decoded). A ``message/rfc822`` part is listed there too and
  its text follows the body as a "Forwarded message" block.
- Charsets: valid UTF-8 wins over a declared legacy charset (mislabelled mail); unknown
  charsets fall back to UTF-8, then cp1252; bad bytes are replaced, never a crash.
  Raw 8-bit headers (RFC 6532) are read as UTF-8 (else cp1252).
- Display names that hold address characters (an address, a decoded comma) are quoted:
  ``"Doe, John" <john@x.org>``; a name equal to the address is dropped.
- Tags: ``X-Gmail-Labels`` and ``Keywords`` (comma lists, quotes respected) and
  ``#hashtags`` in the subject and unquoted body (not ``#include``-like or hex colours).
- ``--strip-quotes`` drops ``>`` lines, the "On ... wrote:" line, everything from an
  Outlook "-----Original Message-----" and a signature from a ``-- `` line on.
- A broken message is rejected (located ``file:LINE`` for mbox) and the rest goes on;
  a message without any header is rejected as not being mail.
- Maildir: ``new/`` then ``cur/`` (file names sorted), hidden files skipped; Maildir++
  subfolders are not descended into. ``source_id`` is ``Maildir/cur/NAME#msg-1``;
  the folder and flags go to ``extra.maildir``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.errors import InputError, StrictAbort
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.email.fast import parse_fast
from convo.importers.email.parse import build_record, parse_message, to_record

EML_LIMIT = 256 << 20  # one message a file: refuse absurd sizes rather than run out of memory

_MONTHS = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# A later "From " line starts a message only when it looks like an envelope line.
_SEPARATOR = re.compile(
    rb"From (?:[ \t]*|(?:\S*@\S*|-|MAILER-DAEMON)[ \t]*|\S+[ \t]+.*\b"
    + _MONTHS
    + rb"\b.*\d{1,2}:\d\d.*)\r?\n?\Z"
)
_HEADER = re.compile(rb"[!-9;-~]+:")
_KNOWN = {
    b"from", b"to", b"cc", b"date", b"subject", b"message-id", b"received", b"return-path",
    b"mime-version", b"delivered-to", b"content-type", b"in-reply-to", b"references",
    b"reply-to", b"sender", b"x-mailer", b"user-agent", b"dkim-signature", b"list-id",
    b"x-gmail-labels", b"content-transfer-encoding", b"envelope-to", b"x-mozilla-status",
    b"thread-topic", b"x-original-to", b"precedence", b"errors-to", b"x-ymail-umid",
}  # fmt: skip


# --------------------------------------------------------------------------- sniffing


def _header_block(lines: list[bytes]) -> tuple[int, int, int]:
    """(header-like lines, other lines, known mail header names) up to the first blank line."""
    good = bad = known = 0
    for line in lines[:200]:
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t"):
            continue  # folded continuation
        m = _HEADER.match(line)
        if m:
            good += 1
            if m.group(0)[:1].isupper() and m.group(0)[:-1].lower() in _KNOWN:
                known += 1
        else:
            bad += 1
    return good, bad, known


def _head_lines(source: Source) -> list[bytes]:
    head = source.head
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return head.split(b"\n", 220)[:220]


def sniff_mbox(source: Source) -> int:
    lines = _head_lines(source)
    if not lines or not lines[0].startswith(b"From "):
        return 0
    good, bad, known = _header_block(lines[1:])
    if known >= 1 and good > bad:
        return 95
    if _SEPARATOR.match(lines[0] + b"\n"):
        return 60
    return 0


def sniff_eml(source: Source) -> int:
    lines = _head_lines(source)
    while lines and not lines[0].strip():
        lines = lines[1:]
    if not lines:
        return 0
    envelope = lines[0].startswith(b"From ")
    good, bad, known = _header_block(lines[1:] if envelope else lines)
    if known == 0 or good < bad * 3:
        return 0
    if envelope:
        return 91  # an mbox of one: named *.eml it is eml, on stdin mbox (95) wins
    if known >= 2:
        return 85
    return 50


def sniff_maildir(source: Source) -> int:
    if source.path is None or not source.is_dir:
        return 0
    if (source.path / "cur").is_dir() and (source.path / "new").is_dir():
        return 95
    return 0


# --------------------------------------------------------------------------- readers


def _convert(
    data: bytes,
    ctx: ImportContext,
    *,
    fmt: str,
    n: int,
    where: str,
    envelope: bytes | None = None,
    extra: dict | None = None,
) -> ConversationMessage | None:
    """Parse one message's bytes; a broken one is rejected and None returned."""
    if not data.strip():
        ctx.reject(where, "empty message", envelope or None, "nothing follows the separator")
        return None
    try:
        fast = parse_fast(data)
        if fast is not None and fast[0]:
            h, body = fast
            return _with_extra(
                build_record(
                    h, body, ctx, fmt=fmt, locator=f"msg-{n}", where=where, envelope=envelope
                ),
                extra,
            )
        msg = parse_message(data)
        if not msg.keys() and b"\n" in data:
            # A garbled first line hides the header block behind it: skip it and retry.
            rest = data.split(b"\n", 1)[1]
            if _HEADER.match(rest):
                msg = parse_message(rest)
                if msg.keys():
                    ctx.warn(where, "garbled first header line skipped")
        if not msg.keys():
            ctx.reject(
                where,
                "no mail headers; not an e-mail message",
                data[:2000],
                "a message starts with header lines such as From: and Date:",
            )
            return None
        record = to_record(msg, ctx, fmt=fmt, locator=f"msg-{n}", where=where, envelope=envelope)
    except StrictAbort:
        raise
    except Exception as e:  # never let one broken message end the archive
        ctx.reject(where, f"unreadable message ({type(e).__name__}: {e})", data[:2000])
        return None
    return _with_extra(record, extra)


def _with_extra(record: ConversationMessage, extra: dict | None) -> ConversationMessage:
    if extra:
        record.extra = {**(record.extra or {}), **extra}
    return record


CHUNK = 1 << 20
_UNESCAPE = re.compile(rb"^>(>*From )", re.M)


class _Split:
    """What the splitter saw besides messages."""

    def __init__(self) -> None:
        self.preamble = 0  # bytes before the first "From " line
        self.found = False


def iter_mbox(stream, info: _Split) -> Iterator[tuple[int, bytes, bytes]]:
    """(line number, envelope line, message bytes) for each message of an mbox stream.

    Reads 1 MiB blocks and looks for ``\nFrom `` with ``bytes.find``: only candidate
    lines are examined, and only one message (plus a block) is held at a time.
    """
    buf = stream.read(CHUNK)
    eof = not buf
    # The preamble: anything before the first line that starts with "From ".
    while not buf.startswith(b"From "):
        i = buf.find(b"\nFrom ")
        if i >= 0:
            info.preamble += i + 1
            buf = buf[i + 1 :]
            break
        if eof:
            info.preamble += len(buf)
            return
        keep = buf[-6:]
        info.preamble += max(len(buf) - 6, 0)
        chunk = stream.read(CHUNK)
        eof = not chunk
        buf = keep + chunk
    info.found = True
    line = 1
    start = 0  # where the current message (its envelope line) starts in buf
    search = 0
    while True:
        i = buf.find(b"\nFrom ", search)
        end = buf.find(b"\n", i + 1) if i >= 0 else -1
        if end < 0 and i >= 0 and eof:
            end = len(buf)  # the last line, without a newline
        if i < 0 or end < 0:
            if eof:
                if start < len(buf):
                    yield line, *_message(buf[start:])
                return
            chunk = stream.read(CHUNK)
            eof = not chunk
            search = i - start if i >= 0 else max(len(buf) - start - 6, 0)
            buf = buf[start:] + chunk
            start = 0
            continue
        if _SEPARATOR.match(buf, i + 1, end + 1):
            raw = buf[start : i + 1]
            yield line, *_message(raw)
            line += raw.count(b"\n")
            start = i + 1
        search = i + 1


def _message(raw: bytes) -> tuple[bytes, bytes]:
    """Split off the envelope line, drop the blank line before the next one, unescape."""
    nl = raw.find(b"\n")
    if nl < 0:
        return raw, b""
    envelope, data = raw[: nl + 1], raw[nl + 1 :]
    # The blank line that separates messages belongs to the mbox, not to the message.
    if data.endswith(b"\n\n"):
        data = data[:-1]
    elif data.endswith(b"\r\n\r\n"):
        data = data[:-2]
    elif data in (b"\n", b"\r\n"):
        data = b""
    if b">From " in data:
        data = _UNESCAPE.sub(rb"\1", data)
    return envelope, data


def read_mbox(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Stream an mbox: split on separator lines, unescape ``>From``, parse each message."""
    info = _Split()
    n = 0
    with source.open() as stream:
        for line, envelope, data in iter_mbox(stream, info):
            n += 1
            where = ctx.loc(line)
            rec = _convert(data, ctx, fmt="mbox", n=n, where=where, envelope=envelope)
            if rec is not None:
                yield rec
    if not info.found:
        raise InputError(
            "not an mbox (no 'From ' separator line)",
            where=source.name,
            hint="a single message is --from eml",
        )
    if info.preamble:
        ctx.warn(source.name, f"{info.preamble} bytes before the first 'From ' line ignored")


def _strip_envelope(data: bytes) -> tuple[bytes, bytes | None]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if data.startswith(b"From "):
        end = data.find(b"\n")
        if end < 0:
            return b"", data
        return data[end + 1 :], data[: end + 1]
    return data.lstrip(b"\r\n"), None


def read_eml(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """One message a file (an mbox ``From `` line at the top is tolerated)."""
    data, envelope = _strip_envelope(source.read_bytes(EML_LIMIT))
    rec = _convert(data, ctx, fmt="eml", n=1, where=ctx.loc("msg-1"), envelope=envelope)
    if rec is not None:
        yield rec


def read_maildir(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """A Maildir: every message file in ``new/`` and ``cur/``."""
    assert source.path is not None
    if not source.is_dir or not any((source.path / d).is_dir() for d in ("new", "cur")):
        raise InputError(
            "not a Maildir (no cur/ or new/ folder)",
            where=source.name,
            hint="name the Maildir folder itself, or drop --from maildir",
        )
    for folder in ("new", "cur"):
        path = source.path / folder
        if not path.is_dir():
            continue
        for file in sorted(p for p in path.iterdir() if p.is_file() and p.name[:1] != "."):
            child = source.child(file)
            cctx = _ChildContext(child, ctx)
            try:
                data = child.read_bytes(EML_LIMIT)
            except InputError as e:
                ctx.reject(child.name, e.what, None, e.hint)
                continue
            flags = file.name.rsplit(":2,", 1)[1] if ":2," in file.name else ""
            data, envelope = _strip_envelope(data)
            rec = _convert(
                data,
                cctx,
                fmt="maildir",
                n=1,
                where=cctx.loc("msg-1"),
                envelope=envelope,
                extra={"maildir": {"folder": folder, "flags": flags}},
            )
            if rec is not None:
                yield rec


class _ChildContext(ImportContext):
    """The Maildir's context, naming one message file (counts go to the parent)."""

    def __init__(self, child: Source, parent: ImportContext):
        self.source = child
        self.options = parent.options
        self._parent = parent

    def reject(self, where, reason, raw=None, hint=None) -> None:  # type: ignore[override]
        self._parent.reject(where, reason, raw, hint)

    def warn(self, where: str, message: str) -> None:
        self._parent.warn(where, message)


def register(registry) -> None:
    from convo.importers.registry import Format

    registry.register(
        Format(
            name="mbox",
            family="email",
            description="Unix mailbox (mboxo/mboxrd, Thunderbird, Gmail Takeout; .mbox.gz too)",
            patterns=("*.mbox", "*.mbx", "*.mbox.gz", "mbox", "Inbox", "*.mboxrd"),
            sniff=sniff_mbox,
            read=read_mbox,
            example="From alice@example.org Wed Mar  6 10:00:00 2024\n"
            "From: Alice Smith <alice@example.org>\nSubject: Auth refactor\n\nHi Bob",
        )
    )
    registry.register(
        Format(
            name="eml",
            family="email",
            description="One RFC 5322 e-mail message a file (.eml); a folder of them works too",
            patterns=("*.eml", "*.msg.txt"),
            sniff=sniff_eml,
            read=read_eml,
            example="From: Alice Smith <alice@example.org>\nTo: bob@example.org\n"
            "Subject: Auth refactor\nDate: Wed, 6 Mar 2024 10:00:00 +0000\n\nHi Bob",
        )
    )
    registry.register(
        Format(
            name="maildir",
            family="email",
            description="A Maildir directory (cur/, new/, tmp/), one message a file",
            patterns=("Maildir", "*.maildir"),
            sniff=sniff_maildir,
            read=read_maildir,
            example="Maildir/{cur,new,tmp}/1709719200.M1P2.host:2,S",
            directory=True,
        )
    )
