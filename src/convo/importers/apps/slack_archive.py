"""The files of a Slack export, from its folder or read in place from its .zip.

A .zip is never extracted: members with absolute or ``..`` paths are rejected, and size
caps (per member, in total, and a compression-ratio limit) stop zip bombs.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from convo.core.errors import InputError
from convo.importers.context import ImportContext, iter_dir_files

MEMBER_CAP = 256 << 20  # one member of a .zip, uncompressed
TOTAL_CAP = 4 << 30  # the whole .zip, uncompressed
RATIO_CAP = 200  # uncompressed / compressed, for members above 1 MiB


class ExportTree:
    """Relative posix paths of an export, and their bytes."""

    name: str

    def paths(self) -> list[str]:
        raise NotImplementedError

    def read(self, rel: str) -> bytes:
        raise NotImplementedError


class DirTree(ExportTree):
    def __init__(self, root: Path, name: str):
        self.root, self.name = root, name.rstrip("/")
        self._paths = [p.relative_to(root).as_posix() for p in iter_dir_files(root)]

    def paths(self) -> list[str]:
        return self._paths

    def read(self, rel: str) -> bytes:
        try:
            with open(self.root / rel, "rb") as f:
                data = f.read(MEMBER_CAP + 1)
        except OSError as e:
            raise InputError(f"cannot read ({e.strerror})", where=f"{self.name}/{rel}") from None
        if len(data) > MEMBER_CAP:
            raise InputError(f"larger than {MEMBER_CAP >> 20} MiB", where=f"{self.name}/{rel}")
        return data


class ZipTree(ExportTree):
    def __init__(self, path: Path, name: str, ctx: ImportContext):
        self.name = name
        try:
            self.zf = zipfile.ZipFile(path)
            infos = self.zf.infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise InputError(f"not a readable zip file ({e})", where=name) from None
        self.infos: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in infos:
            if info.is_dir():
                continue
            where = f"{name}#{info.filename}"
            bad = unsafe_member(info.filename)
            if bad:
                ctx.reject(
                    where, f"zip member {bad}", hint="the archive is not a plain Slack export"
                )
                continue
            total += info.file_size
            if total > TOTAL_CAP:
                raise InputError(
                    f"uncompressed size exceeds {TOTAL_CAP >> 30} GiB",
                    where=name,
                    hint="possible zip bomb",
                )
            if info.file_size > MEMBER_CAP or (
                info.file_size > (1 << 20)
                and info.file_size > RATIO_CAP * max(info.compress_size, 1)
            ):
                ctx.reject(
                    where, "zip member too large or too highly compressed", hint="possible zip bomb"
                )
                continue
            self.infos[info.filename] = info

    def paths(self) -> list[str]:
        return sorted(self.infos)

    def read(self, rel: str) -> bytes:
        try:
            with self.zf.open(self.infos[rel]) as f:
                data = f.read(MEMBER_CAP + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
            raise InputError(f"unreadable zip member ({e})", where=f"{self.name}#{rel}") from None
        if len(data) > MEMBER_CAP:
            raise InputError(
                "zip member larger than declared",
                where=f"{self.name}#{rel}",
                hint="possible zip bomb",
            )
        return data

    def close(self) -> None:
        self.zf.close()


def unsafe_member(name: str) -> str | None:
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return f"with an absolute path {name!r}"
    if ".." in re.split(r"[/\\]", name):
        return f"with a parent-directory path {name!r}"
    return None
