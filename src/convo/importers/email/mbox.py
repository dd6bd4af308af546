"""Unix mailboxes (mboxo, mboxrd, Thunderbird, Gmail Takeout): sniffer and streaming reader.

Ids and their scope (docs/ids.md): the ``Message-ID``, unique everywhere (no scope);
without one, the content hash, with the folder for a mailbox named ``Inbox``/``mbox`` (a
name every account's has).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.ranges import Range, open_range
from convo.core.record import ConversationMessage
from convo.importers.archives import ZIP_MAGIC
from convo.importers.context import ImportContext
from convo.importers.email import FIELDS
from convo.importers.email.convert import convert, head_lines, header_block
from convo.importers.email.mbox_zip import mailboxes_in, read_zipped
from convo.importers.email.record import Origin
from convo.importers.registry import Format

NAME = "mbox"

_MONTHS = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# A later "From " line starts a message only when it looks like an envelope line: empty,
# an address alone, or a word and a date. Only whether it matches is used, so the atomic
# group, the possessive run and the lazy scans (half the time on an envelope line) do not
# change the answer: a shortened run of non-spaces is followed by a non-space, which
# neither [ \t] nor the line's end can match (tests/importers/test_mbox_separator.py).
_SEPARATOR = re.compile(
    rb"From (?:[ \t]*|(?>\S*@\S*|-|MAILER-DAEMON)[ \t]*|\S++[ \t]+.*?\b"
    + _MONTHS
    + rb"\b.*?\d{1,2}:\d\d.*)\r?\n?\Z"
)


def sniff(source: Source) -> int:
    if source.head.startswith(ZIP_MAGIC):
        return 80 if mailboxes_in(source) else 0
    lines = head_lines(source)
    while lines and not lines[0].strip():
        lines = lines[1:]  # blank lines before the first "From " line (Mail::MboxParser's testbox)
    if not lines or not lines[0].startswith(b"From "):
        return 0
    good, bad, known = header_block(lines[1:])
    if known >= 1 and good > bad:
        return 95
    if _SEPARATOR.match(lines[0] + b"\n"):
        return 60
    return 0


def is_separator(line: bytes) -> bool:
    """The ``record_start`` of mbox: a ``From `` line that later in a file starts a message
    (the splitter's rule below); a file is split only where one stands."""
    return line.startswith(b"From ") and _SEPARATOR.match(line) is not None


CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
_UNESCAPE = re.compile(rb"^>(>*From )", re.M)
_RD_EVIDENCE = re.compile(rb"^>>+From ", re.M)
_RD_ENVELOPE = re.compile(rb"From mboxrd@\S* ")


def is_mboxrd(source: Source) -> bool:
    """Whether ``source`` is an mboxrd file: named ``*.mboxrd``, its first envelope line
    ``From mboxrd@...`` (public-inbox's and lore.kernel.org's ``t.mbox.gz`` and b4
    write ``From mboxrd@z Thu Jan  1 00:00:00 1970``), or a ``>>From `` line in its first 64 KiB (an mboxo writer never makes one
    of a ``>From `` line)."""
    if source.match_name.endswith(".mboxrd") or _RD_EVIDENCE.search(source.head):
        return True
    return _RD_ENVELOPE.match(_without_bom(source.head).lstrip(b"\r\n\t ")) is not None


class _Split:
    """What the splitter saw besides messages."""

    def __init__(self, mboxrd: bool = False) -> None:
        self.mboxrd = mboxrd  # un-escape ">From " lines (decided per file by is_mboxrd)
        self.preamble = 0  # bytes before the first "From " line
        self.blank_preamble = True  # ...all of them blank (nothing of the user's lost)
        self.preamble_lines = 0  # ...and their lines, so that a message's line is right
        self.found = False
        self.spanned = False  # a message read over a separator line by its Content-Length
        self.next_offset = 0  # the stream offset where the last message given ends

    def skip(self, data: bytes) -> None:
        """Count ``data``, skipped before the first ``From `` line."""
        self.preamble += len(data)
        self.preamble_lines += data.count(b"\n")
        if self.blank_preamble and data.strip():
            self.blank_preamble = False


def _without_bom(block: bytes) -> bytes:
    """The first block without a UTF-8 BOM (a mailbox saved by a Windows editor, as
    MimeKit's test ``unmunged.mbox``): its first message was skipped as a preamble."""
    return block[len(_BOM) :] if block.startswith(_BOM) else block


def _first(stream: BinaryIO, info: _Split) -> tuple[bytes, bool] | None:
    """The stream's first block from its first ``From `` line on, and whether the stream
    ended; what comes before is the preamble (counted in ``info``). None: no such line."""
    buf = _without_bom(stream.read(CHUNK))
    eof = not buf
    while not buf.startswith(b"From "):
        i = buf.find(b"\nFrom ")
        if i >= 0:
            info.skip(buf[: i + 1])
            return buf[i + 1 :], eof
        if eof:
            info.skip(buf)
            return None
        keep = buf[-6:]
        info.skip(buf[:-6])
        chunk = stream.read(CHUNK)
        eof = not chunk
        buf = keep + chunk
    return buf, eof


def iter_mbox(stream: BinaryIO, info: _Split) -> Iterator[tuple[int, bytes, bytes]]:
    """(line number, envelope line, message bytes) for each message of an mbox stream.

    Reads 1 MiB blocks and looks for ``\nFrom `` with ``bytes.find``: only candidate
    lines are examined, and only one message (plus a block) is held at a time. A message
    whose ``Content-Length`` runs past a separator line is read to where it says when it
    lands exactly on another separator line or the end (``declared_end``: mboxcl2).
    """
    first = _first(stream, info)
    if first is None:
        return
    buf, eof = first
    info.found = True
    line = 1 + info.preamble_lines
    start = 0  # where the current message (its envelope line) starts in buf
    search = 0
    base = info.preamble  # the stream offset of buf[0]
    while True:
        i = buf.find(b"\nFrom ", search)
        cut = _cut(buf, start, i, eof) if i >= 0 else -1
        if cut is not None and cut < 0:  # more bytes are needed (or the last message)
            if eof:
                if start < len(buf):
                    yield line, *_message(buf[start:], info.mboxrd)
                info.next_offset = base + len(buf)
                return
            chunk = stream.read(max(CHUNK, -cut))
            eof = not chunk
            search = i - start if i >= 0 else max(len(buf) - start - 6, 0)
            base += start
            buf = buf[start:] + chunk
            start = 0
        elif cut is None:
            search = i + 1
        else:
            info.spanned = info.spanned or cut > i + 1  # a length read over the line at i + 1
            raw = buf[start:cut]
            info.next_offset = base + cut
            yield line, *_message(raw, info.mboxrd)
            line += raw.count(b"\n")
            start = search = cut


def _cut(buf: bytes, start: int, i: int, eof: bool) -> int | None:
    """Where the message at ``start`` ends, given the ``\nFrom `` at ``i``: at ``i + 1``
    when a separator line stands there, or where its Content-Length says
    (``declared_end``). None: no separator line there; a negative number: read at least
    that many more bytes, then ask again."""
    end = buf.find(b"\n", i + 1)
    if end < 0:
        if not eof:
            return -1
        end = len(buf)  # the last line, without a newline
    if not _SEPARATOR.match(buf, i + 1, end + 1):
        return None
    cut = declared_end(buf, start, i + 1, eof)
    return i + 1 if cut is None else cut


#: The most a Content-Length is read ahead to see where it lands (a larger one is not used).
DECLARED_LIMIT = 128 << 20
_LANDING = 1024  # bytes read past a Content-Length's end to see the line there
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*(\d{1,12})[ \t]*\r?$")


def declared_end(buf: bytes, start: int, sep: int, eof: bool) -> int | None:
    """Where the message at ``start`` ends by its ``Content-Length``, when that runs past
    the separator line at ``sep`` (an unescaped ``From `` line of an mboxcl2 body:
    Solaris and SVR4 mail, Dovecot, mutt write one and escape nothing) and lands
    exactly where mutt's ``mbox_parse_mailbox`` checks: a separator line after the
    body and its blank line (or none), or the end of the stream. None: split at ``sep``
    as usual (no such header, one that ends before ``sep``, or one that lands elsewhere:
    a stale length); a negative number: read that many more bytes, then ask again."""
    target = _body_end(buf, start, sep)
    if target is None or target <= sep or target - start > DECLARED_LIMIT:
        return None
    if not eof and len(buf) < target + _LANDING:
        return -(target + _LANDING - len(buf))
    for blank in (b"\n", b"", b"\r\n"):
        at = target + len(blank)
        if buf.startswith(blank + b"From ", target):
            nl = buf.find(b"\n", at)
            if nl < 0 and not eof:
                return None
            if _SEPARATOR.match(buf, at, nl + 1 if nl >= 0 else len(buf)):
                return at
    if eof and target <= len(buf) and not buf[target:].strip(b"\r\n"):
        return len(buf)
    return None


def _body_end(buf: bytes, start: int, sep: int) -> int | None:
    """The offset in ``buf`` where the ``Content-Length`` of the message at ``start``
    (its header before ``sep``) ends its body; None without one."""
    head_end, gap = buf.find(b"\n\n", start, sep), 2
    crlf = buf.find(b"\n\r\n", start, head_end if head_end >= 0 else sep)
    if crlf >= 0:
        head_end, gap = crlf, 3
    if head_end < 0 or (  # the header's usual spellings, found fast; the regex decides
        buf.find(b"ength:", start, head_end) < 0 and buf.find(b"ENGTH:", start, head_end) < 0
    ):
        return None
    found = _CONTENT_LENGTH.search(buf, start, head_end + 1)
    return None if found is None else head_end + gap + int(found.group(1))


def spans_separators(r: Range) -> bool:
    """The ``record_spans`` of mbox: whether a message starting in range ``r`` is read
    over a separator line by its Content-Length, so that cutting the file at separator
    lines would read it wrong (``pipeline.split`` then reads the file whole). A range that
    declares no length (no ``Content-Length:`` header, in any case) is not read again:
    on the benchmark's mbox (none declared) the reading pass took 0.72 s of CPU for 160 MB
    and this test 0.13 s."""
    with open_range(r) as f:
        if not _declares_length(f):
            return False
    with open_range(Range(r.path, r.start, os.path.getsize(r.path))) as f:
        return spans_in(f, r.size)


def _declares_length(stream: BinaryIO) -> bool:
    """Whether ``stream`` holds ``content-length:``, in any case."""
    tail, keep = b"", len(_DECLARES) - 1  # a header cut between two blocks
    while block := stream.read(CHUNK):
        lower = block.lower()
        if _DECLARES in lower or _DECLARES in tail + lower[:keep]:
            return True
        tail = lower[-keep:]
    return False


_DECLARES = b"content-length:"


def spans_in(stream: BinaryIO, length: int) -> bool:
    """Whether a message starting in the first ``length`` bytes of ``stream`` (a range,
    then the rest of the file) is read over a separator line by its Content-Length."""
    info = _Split()
    for _ in iter_mbox(stream, info):
        if info.spanned or info.next_offset >= length:
            break
    return info.spanned


def _message(raw: bytes, mboxrd: bool) -> tuple[bytes, bytes]:
    """Split off the envelope line, drop the blank line before the next one; un-escape
    ``>From`` lines in an mboxrd file."""
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
    if mboxrd and b">From " in data:
        data = _UNESCAPE.sub(rb"\1", data)
    return envelope, data


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Stream an mbox: split on separator lines, unescape ``>From``, parse each message
    (a zip of mailboxes: each of them, ``mbox_zip``)."""
    if source.head.startswith(ZIP_MAGIC):
        yield from read_zipped(source, ctx, lambda f, prefix, where: _messages(
            f, _Split(), ctx, prefix, lambda line: f"{where}:{line}"))  # fmt: skip
        return
    info = _Split(is_mboxrd(source))  # on the whole file's head, also for one range of it
    with source.open() as stream:
        yield from _messages(stream, info, ctx, "", ctx.loc, ctx.start.record)
    if not info.found:
        raise InputError(
            "not an mbox (no 'From ' separator line)",
            where=source.name,
            hint="a single message is --from eml",
        )
    if info.preamble and not info.blank_preamble:
        ctx.warn(source.name, f"{info.preamble} bytes before the first 'From ' line ignored")


def _messages(
    stream: BinaryIO,
    info: _Split,
    ctx: ImportContext,
    prefix: str,
    place: Callable[[int], str],
    n: int = 0,
) -> Iterator[ConversationMessage]:
    """The records of one mailbox stream, ``msg-N`` from ``n`` + 1 (after ``prefix``)."""
    for line, envelope, data in iter_mbox(stream, info):
        n += 1
        rec = convert(data, ctx, Origin(NAME, f"{prefix}msg-{n}", place(line), envelope))
        if rec is not None:
            yield rec


DESCRIPTION = (
    "Unix mailbox (mboxo/mboxrd, Thunderbird, Gmail Takeout; .mbox.gz too; a zip of mailboxes: "
    "groups.io)"
)
PATTERNS = ("*.mbox", "*.mbx", "*.mbox.gz", "mbox", "Inbox", "*.mboxrd", "*.zip")
EXAMPLE = (
    "From alice@example.org Wed Mar  6 10:00:00 2024\n"
    "From: Alice Smith <alice@example.org>\nSubject: Auth refactor\n\nHi Bob"
)
FORMATS = (
    Format(
        NAME,
        "email",
        DESCRIPTION,
        PATTERNS,
        sniff,
        read,
        EXAMPLE,
        record_start=is_separator,
        record_prefix=b"From ",
        record_spans=spans_separators,
        fields=FIELDS,
    ),
)
