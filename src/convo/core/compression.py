"""Which compression a stream has (gzip, zstd), and zstd streams (``.zst``) read as they
come, for every format ``convo.core.io`` opens (gzip's reader is ``convo.core.io.inflate``).

Pushshift's Reddit dumps (``RC_2023-01.zst``, ``<subreddit>_comments.zst``) are JSONL
compressed by ``zstd --long=31``: a window of up to 2 GiB, which a decompressor refuses
unless told (``zstd -d`` needs ``--long=31`` for them too). The stream is read a piece
at a time across frames (some dumps are several frames joined), so memory stays flat:
the window the file declares, plus one piece's output. (``convo.core.io`` imports this
module, so its names are imported here where they are used.)

The ``zstandard`` package (PyPI, the bindings to the reference C library; Python 3.14's
``compression.zstd`` is the same library, and this Python may be older) is a dependency
of convo for this. The caps are the gzip ones (``convo.core.io.GZIP_CAP`` and the ratio
cap): a break or a bomb is a ``StreamError`` after what came before it was read.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any, BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # a frame's magic number, little-endian 0xFD2FB528
MAX_WINDOW = 1 << 31  # Pushshift's --long=31; the format's own limit for 64-bit readers
PIECE = 4096  # compressed bytes a frame is fed at a time (see _Unzstd)


def decompressor(head: bytes) -> Callable[[BinaryIO, str], BinaryIO] | None:
    """How to read a stream that starts with ``head`` (4 bytes): gzip, zstd, else None."""
    if head[:2] == GZIP_MAGIC:
        from convo.core.io import inflate

        return inflate
    return unzstd if head[:4] == ZSTD_MAGIC else None


def strip_compressed(name: str) -> str:
    """A file name without a ``.gz`` or ``.zst`` suffix (the name of what it holds)."""
    return name.removesuffix(".gz").removesuffix(".zst")


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
        from convo.core import io as cio

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
            if self._out > cio.GZIP_CAP or (
                self._out > cio.GZIP_RATIO_FLOOR
                and self._out > cio.GZIP_RATIO_CAP * max(self._count, 1)
            ):
                raise cio.StreamError(
                    f"zstd stream larger than {cio.GZIP_CAP >> 30} GiB or compressed more "
                    f"than {cio.GZIP_RATIO_CAP}:1",
                    where=self._name,
                    hint="possible zstd bomb; decompress it yourself if it is genuine",
                )
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
        from convo.core import io as cio

        return cio.StreamError(
            f"broken zstd stream after {self._out + more} bytes ({why})",
            where=self._name,
            hint="the file is truncated or corrupt; what came before it was read",
        )

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._in.close()
        super().close()


def unzstd(compressed: BinaryIO, name: str) -> BinaryIO:
    """A buffered, capped, decompressed view of a zstd stream (see ``_Unzstd``)."""
    return io.BufferedReader(_Unzstd(compressed, name), 1 << 20)
