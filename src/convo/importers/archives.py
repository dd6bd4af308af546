"""Zip and tar exports read in place, safely (the one home of the archive rules of every
importer).

A zip is never extracted. Members with absolute or ``..`` paths are rejected; size caps
(per member, in total, and a compression-ratio limit, as for .gz in ``convo.core.io``)
stop zip bombs, both by the sizes the archive declares and by the bytes it really
inflates to.

A tar (Skype's export) is not compressed, so its sizes are the bytes it holds (a
``.tar.gz`` is capped by ``convo.core.io``'s gzip caps); the one member a reader wants
is found by its base name among the regular files with safe names, and copied to a
temporary file for that reader.
"""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Any, BinaryIO

from convo.core import scratch
from convo.core.errors import InputError
from convo.importers.context import ImportContext

MEMBER_CAP = 256 << 20  # one member of a .zip, uncompressed
TOTAL_CAP = 4 << 30  # the whole .zip, uncompressed
STREAMED_CAP = TOTAL_CAP  # one member a streaming reader reads a record at a time
RATIO_CAP = 200  # uncompressed / compressed, for members above 1 MiB
ZIP_MAGIC = b"PK\x03\x04"
_BOMB_HINT = "possible zip bomb"


def unsafe_member(name: str) -> str | None:
    """Why a member name is refused (absolute, a drive, ``..``), else None."""
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return f"with an absolute path {name!r}"
    if ".." in re.split(r"[/\\]", name):
        return f"with a parent-directory path {name!r}"
    return None


def open_zip(path: Path, where: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise InputError(f"not a readable zip file ({e})", where=where) from None


def safe_members(
    zf: zipfile.ZipFile, where: str, ctx: ImportContext, hint: str, cap: int | None = None
) -> dict[str, zipfile.ZipInfo]:
    """The archive's files that may be read, by name. Unsafe or oversized members are
    rejected (``hint`` says what the archive should have been); an archive whose files add
    up to more than ``TOTAL_CAP`` is an InputError. A name held by several members is
    ambiguous (which one did the exporter mean?): none of them is read, each rejected."""
    cap = cap or MEMBER_CAP
    members: dict[str, zipfile.ZipInfo] = {}
    repeated: set[str] = set()
    total = 0
    try:
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise InputError(f"not a readable zip file ({e})", where=where) from None
    for info in infos:
        if info.is_dir():
            continue
        here = f"{where}#{info.filename}"
        if info.filename in members or info.filename in repeated:
            members.pop(info.filename, None)
            repeated.add(info.filename)
            ctx.reject(
                here,
                "zip member named more than once: none of them is read",
                hint="unpack the archive and name the file to read",
            )
            continue
        bad = unsafe_member(info.filename)
        if bad:
            ctx.reject(here, f"zip member {bad}", hint=hint)
            continue
        total += info.file_size
        if total > TOTAL_CAP:
            raise InputError(
                f"uncompressed size exceeds {TOTAL_CAP >> 30} GiB", where=where, hint=_BOMB_HINT
            )
        if info.file_size > cap or (
            info.file_size > (1 << 20) and info.file_size > RATIO_CAP * max(info.compress_size, 1)
        ):
            ctx.reject(here, "zip member too large or too highly compressed", hint=_BOMB_HINT)
            continue
        members[info.filename] = info
    return members


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> bytes:
    """A member's bytes, at most ``MEMBER_CAP`` whatever its header declares."""
    with _open_member(zf, info, where) as f:
        data = _read(f, MEMBER_CAP + 1, where)
    if len(data) > MEMBER_CAP:
        raise InputError("zip member larger than declared", where=where, hint=_BOMB_HINT)
    return data


def spool_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, suffix: str, cap: int | None = None
) -> Path:
    """A member copied to a temporary file (at most ``cap`` bytes, ``MEMBER_CAP`` unless
    the reader streams it), for readers that take two passes or a file; the caller
    removes it."""
    cap = cap or MEMBER_CAP
    fd, tmp = scratch.file(None, kind="spool", tail="-member" + suffix)
    path = Path(tmp)
    try:
        with open(fd, "wb") as out, _open_member(zf, info, where) as f:
            copied = 0
            while chunk := _read(f, 1 << 20, where):
                copied += len(chunk)
                if copied > cap:
                    raise InputError(
                        "zip member larger than declared", where=where, hint=_BOMB_HINT
                    )
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _open_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> IO[bytes]:
    try:
        return zf.open(info)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError) as e:
        raise InputError(f"unreadable zip member ({e})", where=where) from None


def _read(f: IO[bytes], size: int, where: str) -> bytes:
    try:
        return f.read(size)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
        raise InputError(f"unreadable zip member ({e})", where=where) from None


class _Capped(io.RawIOBase):
    """A member's stream that fails past ``cap`` bytes, whatever its header declares."""

    def __init__(self, inner: IO[bytes], where: str, cap: int | None = None):
        self._inner = inner
        self._where = where
        self._read = 0
        self._cap = cap or MEMBER_CAP

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = _read(self._inner, len(b), self._where)
        self._read += len(data)
        if self._read > self._cap:
            raise InputError("zip member larger than declared", where=self._where, hint=_BOMB_HINT)
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


def stream_member(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, cap: int | None = None
) -> BinaryIO:
    """A member's bytes as a stream (for a streaming parser), at most ``cap`` (a reader
    holding one record at a time may take ``STREAMED_CAP``: a mailbox of some GiB)."""
    return io.BufferedReader(_Capped(_open_member(zf, info, where), where, cap))


def is_tar(head: bytes) -> bool:
    """A POSIX (ustar) or GNU tar header: ``ustar`` at offset 257."""
    return head[257:262] == b"ustar"


def _tar_member(tf: tarfile.TarFile, name: str) -> tarfile.TarInfo | None:
    """The shallowest regular file whose base name is ``name``, with a safe path."""
    best: tuple[int, tarfile.TarInfo] | None = None
    for info in tf:  # one header at a time: the members' data is skipped
        if info.isfile() and PurePosixPath(info.name).name == name and not unsafe_member(info.name):
            depth = info.name.strip("/").count("/")
            if best is None or depth < best[0]:
                best = (depth, info)
    return best[1] if best else None


def tar_has(path: Path, name: str) -> bool:
    """Whether the tar at ``path`` holds a regular file called ``name`` (False if unreadable)."""
    try:
        with tarfile.open(path, "r:") as tf:
            return _tar_member(tf, name) is not None
    except (tarfile.TarError, OSError, ValueError):
        return False


def spool_tar_member(path: Path, where: str, name: str, suffix: str) -> tuple[str, Path] | None:
    """The member called ``name`` (``_tar_member``) copied to a temporary file: its path in
    the archive and the copy (the caller removes it); None when the tar has none."""
    try:
        with tarfile.open(path, "r:") as tf:
            info = _tar_member(tf, name)
            if info is None:
                return None
            src = tf.extractfile(info)
            if src is None:
                return None
            fd, tmp = scratch.file(None, kind="spool", tail="-member" + suffix)
            try:
                with open(fd, "wb") as out, src:
                    while chunk := src.read(1 << 20):
                        out.write(chunk)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            return info.name, Path(tmp)
    except (tarfile.TarError, OSError, ValueError, EOFError) as e:
        raise InputError(f"not a readable tar file ({e})", where=where) from None
