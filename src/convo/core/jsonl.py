"""Streaming JSONL: read lines as bytes (files, ``-``, stdin, ``.gz``), write them atomically.

A file that a writer appends to under its lock (the store) is read only up to where it
ended before the save began while the save goes on (``committed_end``, the journal of
``convo.core.journal``), so readers never see half a save nor mistake the writer's
unfinished line for a torn one.

Lines are kept as the original bytes so that output can pass them through unchanged;
parsing is left to the caller (the query path parses only lines a byte prefilter keeps).
"""

from __future__ import annotations

import fcntl
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import orjson

from convo.core.journal import committed_size

if TYPE_CHECKING:
    from pathlib import Path

TAIL_CHUNK = 1 << 16
BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(slots=True)
class Line:
    """One non-blank line: its 1-based number, its bytes (no line ending), torn or not."""

    number: int
    raw: bytes
    torn: bool = False  # the last line of the input had no newline


def iter_lines(stream: IO[bytes]) -> Iterator[Line]:
    """Yield the non-blank lines of a byte stream, BOM and CR/LF removed.

    Streaming: one line in memory at a time. The last line is marked ``torn`` when the
    input does not end with a newline (an interrupted write, or just a missing newline).
    """
    number = 0
    prev: bytes | None = None
    prev_no = 0
    for raw in stream:
        number += 1
        if number == 1 and raw.startswith(BOM):
            raw = raw[3:]
        if prev is not None:
            yield Line(prev_no, prev)
            prev = None
        body = raw.rstrip(b"\r\n")
        if not body.strip():
            continue
        ended = raw.endswith(b"\n")
        del raw  # a long line is held once, not twice, while the caller parses it
        if ended:
            yield Line(number, body)
        else:
            prev, prev_no = body, number
    if prev is not None:
        yield Line(prev_no, prev, torn=True)


def parse_record_line(line: Line, where: str) -> dict[str, Any]:
    """Parse one line as a record (``core.fields.is_record``), or raise a located
    RecordError: the one rule every reader of records words its rejection with."""
    from convo.core.errors import RecordError
    from convo.core.fields import is_record

    value = parse_line(line, where)
    if not is_record(value):
        raise RecordError(
            "a JSON object that is not a record (no textChunks list)",
            where=f"{where}:{line.number}",
            hint="a record has textChunks, metadata, tags and timestamp (`convo schema`)",
        )
    return value


def parse_line(line: Line, where: str) -> dict[str, Any]:
    """Parse one line as a JSON object, or raise a located RecordError."""
    from convo.core.errors import RecordError

    try:
        value = orjson.loads(line.raw)
    except orjson.JSONDecodeError as e:
        if line.torn:
            raise RecordError(
                "truncated last line (an interrupted write?)",
                where=f"{where}:{line.number}",
                hint="remove the partial line or re-run the ingest",
            ) from None
        bad = _not_utf8(line.raw)
        raise RecordError(
            bad or f"invalid JSON ({_short_json_error(e)})",
            where=f"{where}:{line.number}",
            hint="JSON is UTF-8: convert the file (iconv -f latin1 -t utf-8 FILE)"
            if bad
            else "each line must be one JSON object",
        ) from None
    if not isinstance(value, dict):
        raise RecordError(
            f"expected a JSON object, got {type(value).__name__}",
            where=f"{where}:{line.number}",
            hint="each line must be one JSON object",
        )
    return value


def _not_utf8(raw: bytes) -> str | None:
    """Where ``raw`` is not UTF-8 (orjson says "str is not valid UTF-8: surrogates not
    allowed" of a Latin-1 byte), else None."""
    try:
        bytes(raw).decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 (byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line)"
    return None


def _short_json_error(e: Exception) -> str:
    msg = str(e)
    return msg.split(": line")[0] if ": line" in msg else msg


def dumps(record: dict[str, Any]) -> bytes:
    """One record as a JSONL line (with its newline); see ``readable`` for a string
    JSON cannot hold. A record nested deeper than orjson writes (254 levels: a reader
    kept a deeper value of its input in ``extra``) is a RecordError naming it, not an
    internal error."""
    try:
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError as e:
        if _TOO_DEEP not in str(e):
            try:
                return orjson.dumps(readable(record), option=orjson.OPT_APPEND_NEWLINE)
            except (TypeError, RecursionError) as again:
                if isinstance(again, TypeError) and _TOO_DEEP not in str(again):
                    raise
    from convo.core.errors import RecordError

    source_id = record.get("source_id")
    raise RecordError(
        "the record is nested more than 254 levels deep: not written",
        where=source_id if isinstance(source_id, str) else None,
        hint="its input holds a value nested that deep",
    )


_TOO_DEEP = "Recursion limit reached"  # orjson's words for a value nested too deep


def readable(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings written as text: the bytes of a
    file name the locale could not decode (a latin-1 name under UTF-8, which Python keeps
    as surrogates, ``os.fsdecode``) as ``\\xe9``, so a record that names the file (its
    ``source_id``, a thread or an id made from the name) can be written. Only called when
    orjson refused the record: other values come back as they are (and fail again)."""
    if isinstance(value, str):
        try:
            raw = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate no decoding made (a JSON "\ud800")
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {readable(k): readable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [readable(v) for v in value]
    return value


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of an appended file (the store): ``.<name>.lock`` beside it (hidden, so
    a folder walk skips it), holding the writer's pid."""
    from pathlib import Path  # (not at import: an indexed read parses lines, locks none)

    p = Path(path)
    return p.with_name(f".{p.name}.lock")


def writer_active(path: str | os.PathLike[str]) -> bool:
    """True while a writer holds the append lock of ``path`` (see ``lock_path``)."""
    try:
        fd = os.open(lock_path(path), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops a shared lock we got
    return False


def committed_end(
    stream: IO[bytes], path: str | os.PathLike[str], *, snapshot: bool = False
) -> int | None:
    """Where to stop reading a file that a writer is appending to, or None to read it all.

    A last line without a newline is a writer's unfinished line while the writer holds
    the lock (or when the file has grown since): the reader stops after the last
    newline and never reports it as torn. Otherwise it is a real torn line, read as such.

    ``snapshot``: a file that ends in a newline now is read up to here, not to wherever
    it ends when the reader gets there (the store, scanned while a writer may start an
    append: its unfinished line was read as a torn one).

    An unfinished save (``convo.core.journal``: its writer live, or killed and not undone
    yet) is not read at all: the reader stops where the store ended before it.
    """
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        end = st.st_size
        if not stat.S_ISREG(st.st_mode) or end == 0:
            return None
        saved = committed_size(path, st)  # after the fstat: a save begun since is not read
        if saved is not None:
            return saved
        if os.pread(fd, 1, end - 1) == b"\n":
            return end if snapshot else None
        if not (writer_active(path) or os.fstat(fd).st_size > end):
            return None
        return last_newline(fd, end)
    except (OSError, ValueError, io.UnsupportedOperation):
        return None


def last_newline(fd: int, end: int) -> int:
    """The offset just after the last newline before ``end`` (0 if there is none)."""
    pos = end
    while pos > 0:
        start = max(0, pos - TAIL_CHUNK)
        i = os.pread(fd, pos - start, start).rfind(b"\n")
        if i >= 0:
            return start + i + 1
        pos = start
    return 0
