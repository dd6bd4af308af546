"""Files in and out: the ``Source`` importers read, byte streams, JSON documents, atomic writes.

Every file convo reads or writes is opened here. ``Source`` gives a cheap head for
sniffing and a stream (``.gz`` decompressed, stdin replayable); ``decode_text`` and
``strip_bom`` are the one place encodings without a declaration are decided;
``load_json`` reads a whole JSON document under one size cap (formats whose documents
are large stream them with ``convo.core.jsonstream`` instead).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from convo.core.errors import InputError

HEAD_BYTES = 64 * 1024
BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
MAX_DOCUMENT_BYTES = 512 << 20  # a single JSON document larger than this is refused, not swapped


def strip_bom(data: bytes) -> bytes:
    """``data`` without a leading UTF-8 byte-order mark."""
    return data[3:] if data.startswith(BOM) else data


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file (``-`` = stdin) for reading bytes; ``.gz`` is decompressed by content."""
    if str(path) == "-":
        stream: BinaryIO = sys.stdin.buffer
    else:
        try:
            stream = open(path, "rb")  # noqa: SIM115 - returned to the caller
        except FileNotFoundError:
            raise InputError("no such file", where=str(path), hint="check the path") from None
        except IsADirectoryError:
            raise InputError("is a directory", where=str(path), hint="name a JSONL file") from None
        except OSError as e:
            raise InputError(f"cannot open ({e.strerror})", where=str(path)) from None
    peek = getattr(stream, "peek", None)
    head = peek(2)[:2] if peek else b""
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
    return stream


class _Replay(io.RawIOBase):
    """A stream that gives back bytes already read (the sniffed head) before the rest."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(b))
        n = len(data)
        b[:n] = data
        return n


class Source:
    """One input: a file, a directory, or standard input.

    ``name`` is what ``source_id`` and error messages show. ``head`` holds the first
    64 KiB (decompressed for ``.gz``), for sniffing. ``open()`` gives the whole content
    from the start as a binary stream; for stdin it can be called once.
    """

    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None):
        self.is_stdin = str(path) == "-"
        self.path: Path | None = None if self.is_stdin else Path(path)
        self.name = name or ("stdin" if self.is_stdin else str(path))
        self.is_dir = bool(self.path and self.path.is_dir())
        self.gzipped = False
        self._stdin_stream: BinaryIO | None = None
        self._spooled: Path | None = None
        self.head = b"" if self.is_dir else self._read_head()
        base = self.path.name if self.path else ""
        self.match_name = base[:-3] if self.gzipped and base.endswith(".gz") else base

    def _read_head(self) -> bytes:
        if self.is_stdin:
            raw = sys.stdin.buffer
            first = raw.read(HEAD_BYTES)
            if first[:2] == b"\x1f\x8b":
                self.gzipped = True
                stream = gzip.GzipFile(fileobj=io.BufferedReader(_Replay(first, raw)), mode="rb")
                head = stream.read(HEAD_BYTES)
                self._stdin_stream = io.BufferedReader(_Replay(head, stream))  # type: ignore[arg-type]
                return head
            self._stdin_stream = io.BufferedReader(_Replay(first, raw))
            return first
        assert self.path is not None
        if not self.path.exists():
            raise InputError("no such file or directory", where=self.name, hint="check the path")
        try:
            with open(self.path, "rb") as f:
                head = f.read(HEAD_BYTES)
        except OSError as e:
            raise InputError(f"cannot read ({e.strerror})", where=self.name) from None
        if head[:2] == b"\x1f\x8b":
            self.gzipped = True
            try:
                with gzip.open(self.path, "rb") as g:
                    head = g.read(HEAD_BYTES)
            except (OSError, EOFError) as e:
                raise InputError(f"broken gzip file ({e})", where=self.name) from None
        return head

    def open(self) -> BinaryIO:
        """The whole content as bytes, from the start (decompressed if gzipped)."""
        if self.is_dir:
            raise InputError("is a directory", where=self.name, hint="this format reads files")
        if self.is_stdin:
            if self._stdin_stream is None:
                raise InputError("standard input can be read only once", where=self.name)
            stream, self._stdin_stream = self._stdin_stream, None
            return stream
        assert self.path is not None
        if self.gzipped:
            return gzip.open(self.path, "rb")  # type: ignore[return-value]
        return open(self.path, "rb")

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
        """A path on disk with the (decompressed) content, for readers that need to seek."""
        if self.path is not None and not self.gzipped:
            return self.path
        if self._spooled is None:
            fd, tmp = tempfile.mkstemp(prefix="convo-", suffix="-" + (self.match_name or "stdin"))
            with os.fdopen(fd, "wb") as out, self.open() as src:
                shutil.copyfileobj(src, out, 1 << 20)
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


def decode_text(data: bytes, errors: str = "strict") -> str:
    """Decode bytes whose encoding the source did not declare.

    A BOM decides (UTF-8, UTF-16 LE/BE); else UTF-8; else, for legacy exports (SRT
    files from Windows tools), cp1252, which maps every byte but five to a character.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if errors == "replace" and len(data) >= HEAD_BYTES - 4:
            # A cut in the middle of a multi-byte character at the end of a head.
            with contextlib.suppress(UnicodeDecodeError):
                return data[:-4].decode("utf-8")
        return data.decode("cp1252", "replace")


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


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Write ``path`` through a temporary file in the same folder, renamed on success.

    On any error (or Ctrl-C) the temporary file is removed and ``path`` is untouched.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError("is a directory", where=str(target), hint="name a file to write")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as e:
        raise InputError(f"cannot write here ({e.strerror})", where=str(target)) from None
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as out:
            yield out  # type: ignore[misc]
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(OSError):
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
