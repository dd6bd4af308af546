"""The files of a Slack export, from its folder or read in place from its .zip.

A .zip is never extracted; its rules (unsafe names, size and ratio caps) are those of
``convo.importers.archives``.
"""

from __future__ import annotations

from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import read_capped
from convo.importers.archives import MEMBER_CAP, open_zip, read_member, safe_members
from convo.importers.context import ImportContext, iter_dir_files


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
                data = read_capped(f, MEMBER_CAP)
        except OSError as e:
            raise InputError(f"cannot read ({e.strerror})", where=f"{self.name}/{rel}") from None
        if len(data) > MEMBER_CAP:
            raise InputError(f"larger than {MEMBER_CAP >> 20} MiB", where=f"{self.name}/{rel}")
        return data


class ZipTree(ExportTree):
    def __init__(self, path: Path, name: str, ctx: ImportContext):
        self.name = name
        self.zf = open_zip(path, name)
        self.infos = safe_members(self.zf, name, ctx, "the archive is not a plain Slack export")

    def paths(self) -> list[str]:
        return sorted(self.infos)

    def read(self, rel: str) -> bytes:
        return read_member(self.zf, self.infos[rel], f"{self.name}#{rel}")

    def close(self) -> None:
        self.zf.close()
