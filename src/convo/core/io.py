"""Files in: the ``Source`` importers read, byte streams, JSON documents.

Every file convo reads or writes is opened here. ``Source`` gives a cheap head for
sniffing and a stream (``.gz`` and ``.zst`` decompressed under size and ratio caps:
``convo.core.compression``; stdin and FIFOs replayable); ``decode_text`` reads heads for
sniffing (``convo.core.encoding`` decides what readers decode); ``load_json`` reads a
whole JSON document under one size cap (large ones: ``convo.core.jsonstream``).
Writing files is ``convo.core.atomic``.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar

import orjson

from convo.core import guard
from convo.core.compression import StreamError, decompressor, inflate, strip_compressed
from convo.core.errors import InputError
from convo.core.jsonl import committed_end

HEAD_BYTES = 64 * 1024
BOM = b"\xef\xbb\xbf"
MAX_DOCUMENT_BYTES = 512 << 20  # a single JSON document larger than this is refused, not swapped
COPY_BYTES = 1 << 20

_ERRNO_TEXT = {
    errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted", errno.ELOOP: "symbolic link loop",
    errno.EFBIG: "file too large", errno.EIO: "input/output error",
}  # fmt: skip
_SPECIAL = {
    stat.S_IFCHR: "character device", stat.S_IFBLK: "block device",
    stat.S_IFIFO: "FIFO", stat.S_IFSOCK: "socket",
}  # fmt: skip


def os_error(e: OSError, where: str, hint: str | None = None) -> InputError:
    """A located InputError for a failed system call (``no space left on device``...)."""
    what = _ERRNO_TEXT.get(e.errno or 0) or (e.strerror or str(e)).lower()
    return InputError(what, where=where, hint=hint)


def special_kind(mode: int) -> str | None:
    """``character device``, ``block device``, ``FIFO`` or ``socket`` for such a mode, else None."""
    return _SPECIAL.get(stat.S_IFMT(mode))


def _reading(stream: BinaryIO, path: str | os.PathLike[str], where: str) -> None:
    """``guard.reading``, the stream closed when it refuses."""
    try:
        guard.reading(stream.fileno(), path, where)
    except BaseException:
        stream.close()
        raise


def _refuse_device(path: str | os.PathLike[str], where: str) -> bool:
    """Raise for a device or socket (they never end, or cannot be read); True for a FIFO."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # the caller's open reports it
    kind = special_kind(mode)
    if kind is None or kind == "FIFO":
        return kind == "FIFO"
    raise InputError(f"is a {kind}, not a file", where=where, hint="name a file, or - for stdin")


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte-order mark."""
    return data[3:] if data.startswith(BOM) else data


def open_binary(path: str | os.PathLike[str], *, snapshot: bool = False) -> BinaryIO:
    """Open a file (``-`` = stdin) for reading bytes; ``.gz``, ``.zst`` decompressed by content.

    Devices are refused (``/dev/zero`` never ends); a FIFO named here is read as given.
    ``snapshot``: read what the file holds when it is opened (``jsonl.committed_end``).
    """
    name = str(path)
    if name == "-":
        stream: BinaryIO = sys.stdin.buffer
    else:
        _refuse_device(path, name)
        try:
            stream = open(path, "rb")  # noqa: SIM115 - returned to the caller
            _reading(stream, path, name)
        except FileNotFoundError:
            raise InputError("no such file", where=name, hint="check the path") from None
        except IsADirectoryError:
            raise InputError("is a directory", where=name, hint="name a file") from None
        except OSError as e:
            raise InputError(f"cannot open ({e.strerror})", where=name) from None
    peek = getattr(stream, "peek", None)
    if (unpack := decompressor(peek(4)[:4] if peek else b"")) is not None:
        return unpack(stream, "stdin" if name == "-" else name)
    if name != "-":
        end = committed_end(stream, path, snapshot=snapshot)
        if end is not None:
            return io.BufferedReader(_Upto(stream, end))
    return stream


class _Wrapped(io.RawIOBase):
    """A raw stream over another one, closed with it; subclasses define ``readinto``."""

    def __init__(self, inner: BinaryIO):
        self._inner = inner

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._inner.close()
        super().close()


class _Replay(_Wrapped):
    """A stream that gives back bytes already read (the sniffed head) before the rest."""

    def __init__(self, head: bytes, rest: BinaryIO):
        super().__init__(rest)
        self._head = memoryview(head)

    def readinto(self, b: Any) -> int:
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._inner.read(len(b))
        n = len(data)
        b[:n] = data
        return n


class _Upto(_Wrapped):
    """A file read up to ``end`` bytes (its committed part)."""

    def __init__(self, inner: BinaryIO, end: int):
        super().__init__(inner)
        self._left = end - inner.tell()

    def readinto(self, b: Any) -> int:
        if self._left <= 0:
            return 0
        n = self._inner.readinto(memoryview(b)[: min(len(b), self._left)])  # type: ignore[attr-defined]
        self._left -= n
        return n


def _read_upto(stream: BinaryIO, size: int) -> tuple[bytes, StreamError | None]:
    """Up to ``size`` bytes, stopping early (with the error) where the stream breaks."""
    parts: list[bytes] = []
    got = 0
    while got < size:
        try:
            data = stream.read1(size - got)  # type: ignore[attr-defined]
        except StreamError as e:
            return b"".join(parts), e
        if not data:
            break
        parts.append(data)
        got += len(data)
    return b"".join(parts), None


class Source:
    """One input: a file, a directory, standard input or a FIFO.

    ``name`` is what ``source_id`` and error messages show. ``head`` holds the first
    64 KiB (decompressed), for sniffing. ``open()`` gives the whole content from the start
    as a binary stream; for stdin and a FIFO it can be called once. Devices are refused.
    ``gzipped``: compressed (gzip or zstd, which ``unpack`` reads), so not seekable;
    ``broken`` holds the StreamError where a spooled one broke off.
    """

    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None):
        self.is_stdin = str(path) == "-"
        self.path: Path | None = None if self.is_stdin else Path(path)
        self.name = name or ("stdin" if self.is_stdin else str(path))
        self.is_dir = bool(self.path and self.path.is_dir())
        self.gzipped = False
        self.unpack: Callable[[BinaryIO, str], BinaryIO] = inflate
        self.broken: StreamError | None = None
        self.one_time = self.is_stdin  # stdin or a FIFO: one stream, its head replayed
        self._once: BinaryIO | None = None
        self._spooled: Path | None = None
        self.head = b"" if self.is_dir else self._read_head()
        base = self.path.name if self.path else ""
        self.match_name = strip_compressed(base) if self.gzipped else base

    def _read_head(self) -> bytes:
        if self.is_stdin:
            return self._replayable(sys.stdin.buffer)
        assert self.path is not None
        if not self.path.exists():
            raise InputError("no such file or directory", where=self.name, hint="check the path")
        if _refuse_device(self.path, self.name):
            self.one_time = True
            return self._replayable(self._open_raw())
        with self._open_raw() as f:
            head = f.read(HEAD_BYTES)
        if (unpack := decompressor(head)) is not None:
            self.gzipped, self.unpack = True, unpack
            with self.open() as g:
                head, _ = _read_upto(g, HEAD_BYTES)
        return head

    def _open_raw(self) -> BinaryIO:
        assert self.path is not None
        try:
            raw = open(self.path, "rb")  # noqa: SIM115 - returned to the caller
        except OSError as e:
            raise InputError(f"cannot read ({e.strerror})", where=self.name) from None
        _reading(raw, self.path, self.name)
        return raw

    def _replayable(self, raw: BinaryIO) -> bytes:
        """Read the head of a one-time stream and keep a stream that gives it back first."""
        first = raw.read(HEAD_BYTES)
        replay: BinaryIO = io.BufferedReader(_Replay(first, raw))
        unpack = decompressor(first)
        if unpack is None:
            self._once = replay
            return first
        self.gzipped, self.unpack = True, unpack
        stream = unpack(replay, self.name)
        head, _ = _read_upto(stream, HEAD_BYTES)
        self._once = io.BufferedReader(_Replay(head, stream))
        return head

    def open(self) -> BinaryIO:
        """The whole content as bytes, from the start (decompressed if gzipped)."""
        if self.is_dir:
            raise InputError("is a directory", where=self.name, hint="this format reads files")
        if self.one_time or self._spooled is not None:
            return self._take_once()
        assert self.path is not None
        raw = self._open_raw()
        if self.gzipped:
            return self.unpack(raw, self.name)
        end = committed_end(raw, self.path)  # stop before a live append's unfinished line
        return raw if end is None else io.BufferedReader(_Upto(raw, end))

    def _take_once(self) -> BinaryIO:
        if self._spooled is not None:
            return open(self._spooled, "rb")
        if self._once is None:
            raise InputError("standard input can be read only once", where=self.name)
        stream, self._once = self._once, None
        return stream

    def read_bytes(self, limit: int | None = None) -> bytes:
        """The whole content (for formats that are one JSON document). ``limit`` guards size."""
        with self.open() as f:
            data = f.read(limit + 1 if limit else -1)
        if limit and len(data) > limit:
            raise InputError(
                f"larger than {limit // (1 << 20)} MiB for a single-document format",
                where=self.name,
                hint="split the file, or use a line-based export",
            )
        return data

    def text(self) -> str:
        """The whole content as text (BOM-aware; UTF-8, else UTF-16, else cp1252)."""
        return decode_text(self.read_bytes())

    def real_path(self) -> Path:
        """A path on disk with the (decompressed) content, for readers that need to seek.

        A ``.gz``, stdin or a FIFO is copied to a temporary file, removed by ``close()``
        and on any error or Ctrl-C during the copy. Where the ``.gz`` breaks off, the copy
        holds what came before and ``broken`` the error, for the ingest to report."""
        if self.is_dir:  # a format that reads files, given a folder (--from): open() says so
            self.open()
        if self.path is not None and not self.gzipped and not self.one_time:
            return self.path
        if self._spooled is None:
            from convo.core import scratch

            fd, tmp = scratch.file(None, kind="spool", tail="-" + (self.match_name or "stdin"))
            try:
                with os.fdopen(fd, "wb") as out, self.open() as src:
                    self.broken = _copy_until_broken(src, out)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            self._spooled = Path(tmp)
        return self._spooled

    def close(self) -> None:
        if self._spooled is not None:
            with contextlib.suppress(OSError):
                self._spooled.unlink()
            self._spooled = None

    def head_text(self) -> str:
        """``head`` decoded leniently, for sniffing."""
        return decode_text(self.head, errors="replace")

    def child(self, path: Path) -> Source:
        """A file inside this directory source, named relative to it."""
        assert self.path is not None
        return Source(path, name=f"{self.name.rstrip('/')}/{path.relative_to(self.path)}")


def _copy_until_broken(src: BinaryIO, out: BinaryIO) -> StreamError | None:
    while True:
        data, broken = _read_upto(src, COPY_BYTES)
        out.write(data)
        if broken is not None or not data:
            return broken


def decode_text(data: bytes, errors: str = "strict") -> str:
    """Decode bytes whose encoding the source did not declare, cheaply (heads, for sniffing).

    A BOM decides (UTF-8, UTF-32 and UTF-16, LE or BE); else UTF-8; else cp1252, which maps
    every byte but five to a character. Readers decode their text through
    ``convo.core.encoding`` instead, which guesses the legacy encoding and says so.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16: FF FE
        return data.decode("utf-32", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if errors == "replace" and len(data) >= HEAD_BYTES - 4 and e.start >= len(data) - 3:
            # A cut in the middle of a multi-byte character at the end of a head: the
            # text before that character (the first fault is the cut one).
            with contextlib.suppress(UnicodeDecodeError):
                return data[: e.start].decode("utf-8")
        return data.decode("cp1252", "replace")


def read_capped(f: BinaryIO, cap: int) -> bytes:
    """Up to ``cap + 1`` bytes of an open file (more than ``cap`` shows it is too large).

    ``f.read(n)`` allocates ``n`` bytes before it reads: for a regular file the buffer is
    sized from ``fstat`` instead (a folder of small files read with a cap of hundreds of
    MiB would map and fault in fresh memory for each), and only a file that grew since
    reads on towards the cap.
    """
    try:
        size = os.fstat(f.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        return f.read(cap + 1)
    data = f.read(min(size, cap) + 1)
    if size < len(data) <= cap:  # grew after the fstat
        data += f.read(cap + 1 - len(data))
    return data


def parse_json(data: bytes, where: str) -> Any:
    """Parse one whole JSON document (a BOM allowed) or raise a located InputError."""
    try:
        return orjson.loads(strip_bom(data))
    except orjson.JSONDecodeError as e:
        line = getattr(e, "lineno", None)
        loc = f"{where}:{line}" if line else where
        reason = str(e).split(":", 1)[0]
        raise InputError(
            f"not valid JSON ({reason})", where=loc, hint="is the export complete?"
        ) from None


def load_json(source: Source) -> Any:
    """The whole JSON document of ``source``, at most ``MAX_DOCUMENT_BYTES``."""
    return parse_json(source.read_bytes(MAX_DOCUMENT_BYTES), source.name)


WRITE_ERRNOS = (frozenset(_ERRNO_TEXT) - {errno.ELOOP}) | {errno.ENOENT}  # what a write can meet
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})  # a disk that cannot hold more
SPILL_HINT = "free some space there, or set TMPDIR to a folder with room"


@contextlib.contextmanager
def spilling(folder: str | None = None, hint: str = SPILL_HINT) -> Iterator[None]:
    """Around the writes of a run's own temporary files (a spool, the workers' results, an
    external sort): a disk that cannot hold them is one located line at their folder
    (``$TMPDIR`` unless ``folder``), not an internal error nor the fault of an output
    being written meanwhile (``atomic_writer`` would name its own file)."""
    try:
        yield
    except OSError as e:
        if e.errno not in FULL_ERRNOS:
            raise
        if folder is None:
            import tempfile

            folder = tempfile.gettempdir()
        what = os_error(e, folder).what
        raise InputError(
            f"cannot write temporary files ({what})", where=folder, hint=hint
        ) from None


T = TypeVar("T", bound=IO[bytes])


@contextlib.contextmanager
def closed_quietly(file: T) -> Iterator[T]:
    """``file`` (a run's own temporary file), closed at the end of the block; a failure
    to close it is dropped: after a full disk stopped its writes (an error on its way
    already, which ``spilling`` says), its close flushes again and fails again."""
    try:
        yield file
    finally:
        with contextlib.suppress(OSError):
            file.close()
