"""Compressed streams: which compression a stream has (gzip, zstd), and each one read as
it comes under the same caps, for every format ``convo.core.io`` opens.

A decompressed stream larger than ``GZIP_CAP``, or more than ``GZIP_RATIO_CAP`` times
its compressed bytes once past ``GZIP_RATIO_FLOOR``, is a bomb; a break (a truncated or
corrupt stream) is a ``StreamError`` too, raised after what came before it was read.
``inflate`` reads gzip (``read1`` one chunk at a time, so the bytes before a truncation
reach the reader before the error does).

Pushshift's Reddit dumps (``RC_2023-01.zst``, ``<subreddit>_comments.zst``) are JSONL
compressed by ``zstd --long=31``: a window of up to 2 GiB, which a decompressor refuses
unless told (``zstd -d`` needs ``--long=31`` for them too). The stream is read a piece
at a time across frames (some dumps are several frames joined), so memory stays flat:
the window the file declares, plus one piece's output.

The ``zstandard`` package (PyPI, the bindings to the reference C library; Python 3.14's
``compression.zstd`` is the same library, and this Python may be older) is a dependency
of convo for this.
"""

from __future__ import annotations

import contextlib
import io
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

from convo.core.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # a frame's magic number, little-endian 0xFD2FB528
MAX_WINDOW = 1 << 31  # Pushshift's --long=31; the format's own limit for 64-bit readers
PIECE = 4096  # compressed bytes a frame is fed at a time (see _Unzstd)
GZIP_CAP = 4 << 30  # a compressed stream, uncompressed (the zip importer's total cap)
GZIP_RATIO_CAP = 200  # uncompressed / compressed, checked above GZIP_RATIO_FLOOR
GZIP_RATIO_FLOOR = 16 << 20
BUFFER = 1 << 20  # what the buffered reader over a decompressed stream asks at a time


class StreamError(InputError):
    """An input broke off part-way (a truncated or corrupt ``.gz``, a decompression bomb).

    What was read before it is good: the ingest keeps those records and rejects the rest
    with this error's location.
    """


def decompressor(head: bytes) -> Callable[[BinaryIO, str], BinaryIO] | None:
    """How to read a stream that starts with ``head`` (4 bytes): gzip, zstd, else None."""
    if head[:2] == GZIP_MAGIC:
        return inflate
    return unzstd if head[:4] == ZSTD_MAGIC else None


def strip_compressed(name: str) -> str:
    """A file name without a ``.gz`` or ``.zst`` suffix (the name of what it holds)."""
    return name.removesuffix(".gz").removesuffix(".zst")


def _over_caps(out: int, compressed: int) -> bool:
    """``out`` decompressed bytes of ``compressed`` ones pass a cap (see the docstring)."""
    return out > GZIP_CAP or (out > GZIP_RATIO_FLOOR and out > GZIP_RATIO_CAP * max(compressed, 1))


def _bomb(kind: str, name: str) -> StreamError:
    return StreamError(
        f"{kind} stream larger than {GZIP_CAP >> 30} GiB or compressed more than "
        f"{GZIP_RATIO_CAP}:1",
        where=name,
        hint=f"possible {kind} bomb; decompress it yourself if it is genuine",
    )


def _broken(kind: str, out: int, why: str, name: str) -> StreamError:
    return StreamError(
        f"broken {kind} stream after {out} bytes ({why})",
        where=name,
        hint="the file is truncated or corrupt; what came before it was read",
    )


class _Counted(io.RawIOBase):
    """A pass-through stream that counts the bytes read (the compressed side of a .gz)."""

    def __init__(self, inner: BinaryIO):
        self._inner = inner
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self._inner.read(len(b))
        n = len(data)
        b[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._inner.close()
        super().close()


class _Inflate(io.RawIOBase):
    """A gzip stream under the caps; a break is a StreamError."""

    def __init__(self, compressed: BinaryIO, name: str):
        import gzip  # (loaded here, and tempfile in real_path: a plain file needs neither)

        self._in = _Counted(compressed)
        self._gzip = gzip.GzipFile(fileobj=self._in, mode="rb")
        self._name = name
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        import gzip

        try:
            data = self._gzip.read1(len(b))
        except (EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise _broken("gzip", self._out, str(e), self._name) from None
        n = len(data)
        b[:n] = data
        self._out += n
        if _over_caps(self._out, self._in.count):
            raise _bomb("gzip", self._name)
        return n

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._gzip.close()
        super().close()


def inflate(compressed: BinaryIO, name: str) -> BinaryIO:
    """A buffered, capped, decompressed view of a gzip stream (see ``_Inflate``)."""
    return io.BufferedReader(_Inflate(compressed, name), BUFFER)


class _Unzstd(io.RawIOBase):
    """A zstd stream under the gzip caps; a break (a corrupt frame, or the input ending
    inside one) is a StreamError.

    Each frame is decompressed by a ``decompressobj`` fed ``PIECE`` bytes at a time: its
    ``eof`` tells a frame ended, which the package's ``stream_reader`` does not (a
    truncated dump would end quietly), and a small piece bounds what one call can
    inflate to (zstd's best case is about 32000:1: 128 MiB) before the caps are checked.
    """

    def __init__(self, compressed: BinaryIO, name: str):
        import zstandard

        self._zstd = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW)
        self._frame = self._zstd.decompressobj()
        self._error: type[Exception] = zstandard.ZstdError
        self._in = compressed
        self._name = name
        self._count = self._out = 0
        self._inside = False  # the last piece ended inside a frame
        self._failed: Exception | None = None  # raised after the bytes before it are read
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if not self._pending:
            self._pending = memoryview(self._next())
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _next(self) -> bytes:
        """The next decompressed bytes (b"" at the end), the caps checked."""
        while True:
            if self._failed is not None:
                raise self._failed
            piece = self._in.read(PIECE)
            if not piece:
                if self._inside:
                    raise self._broken("the input ends inside a frame")
                return b""
            self._count += len(piece)
            data = self._decompress(piece)
            self._out += len(data)
            if _over_caps(self._out, self._count):
                raise _bomb("zstd", self._name)
            if data:
                return data

    def _decompress(self, piece: bytes) -> bytes:
        out: list[bytes] = []
        while piece:
            try:
                out.append(self._frame.decompress(piece))
            except self._error as e:
                self._failed = self._broken(str(e), sum(map(len, out)))
                break
            self._inside = not self._frame.eof
            if self._inside:
                break
            piece = self._frame.unused_data  # the next frame's start
            self._frame = self._zstd.decompressobj()
        return b"".join(out)

    def _broken(self, why: str, more: int = 0) -> Exception:
        return _broken("zstd", self._out + more, why, self._name)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._in.close()
        super().close()


def unzstd(compressed: BinaryIO, name: str) -> BinaryIO:
    """A buffered, capped, decompressed view of a zstd stream (see ``_Unzstd``)."""
    return io.BufferedReader(_Unzstd(compressed, name), BUFFER)
