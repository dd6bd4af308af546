"""What a reader gets: the ``Source`` it reads, the ``ImportOptions`` and an ``ImportContext``."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, BinaryIO

from convo.core.errors import InputError, RecordError, StrictAbort

HEAD_BYTES = 64 * 1024


@dataclass
class ImportOptions:
    """Options every reader may consult. Readers ignore what does not apply to them."""

    tz: tzinfo = UTC  # zone for naive source times (--tz)
    start_date: datetime | None = None  # transcripts: wall-clock time of offset 0 (--start-date)
    strict: bool = False  # abort on the first rejected record (--strict)
    lenient: bool = False  # wrap non-message objects as text instead of rejecting (--lenient)
    merge: bool = True  # transcripts: merge consecutive cues of one speaker (--no-merge)
    speakers: str = "auto"  # transcripts: auto | voice | prefix | none (--speakers)
    strip_quotes: bool = False  # email: drop quoted replies and signatures (--strip-quotes)
    tags: list[str] = field(default_factory=list)  # added to every message (--tag)


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


Reporter = Callable[[str, str | None], None]


@dataclass
class Rejection:
    where: str
    reason: str
    hint: str | None = None
    raw: Any = None

    def to_record(self) -> dict[str, Any]:
        raw = self.raw
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", "replace")
        return {"where": self.where, "reason": self.reason, "hint": self.hint, "raw": raw}


class ImportContext:
    """Per-source state a reader reports to: rejections and warnings, counted and located."""

    def __init__(
        self,
        source: Source,
        options: ImportOptions | None = None,
        *,
        on_reject: Callable[[Rejection], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
    ):
        self.source = source
        self.options = options or ImportOptions()
        self.rejected = 0
        self.warnings = 0
        self._on_reject = on_reject
        self._on_warning = on_warning

    def loc(self, locator: int | str) -> str:
        """``name:LINE`` for a line number, ``name#locator`` otherwise."""
        if isinstance(locator, int):
            return f"{self.source.name}:{locator}"
        return f"{self.source.name}#{locator}"

    def reject(self, where: str, reason: str, raw: Any = None, hint: str | None = None) -> None:
        """A record could not be imported: count, report and keep it; abort under --strict."""
        self.rejected += 1
        rejection = Rejection(where, reason, hint, raw)
        if self._on_reject:
            self._on_reject(rejection)
        if self.options.strict:
            raise StrictAbort(
                reason, where=where, hint="--strict stops at the first rejected record"
            )

    def reject_error(self, error: RecordError, raw: Any = None) -> None:
        self.reject(error.where or self.source.name, error.what, raw, error.hint)

    def warn(self, where: str, message: str) -> None:
        """Something worth knowing that loses nothing (e.g. a Reddit 'more' stub not expanded)."""
        self.warnings += 1
        if self._on_warning:
            self._on_warning(f"{where}: {message}")


def iter_dir_entries(folder: Path) -> Iterator[Path]:
    """Files and sub-folders directly in ``folder``, sorted, hidden ones skipped."""
    try:
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as e:
        raise InputError(f"cannot list folder ({e.strerror})", where=str(folder)) from None
    yield from entries


def iter_dir_files(root: Path) -> Iterator[Path]:
    """Files below ``root`` in a stable order, hidden files and folders skipped."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            if not fn.startswith("."):
                yield Path(dirpath) / fn
