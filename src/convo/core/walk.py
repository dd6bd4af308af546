"""Walking folders so that links cannot loop or repeat and odd entries cannot block.

Symbolic links are followed, but each real directory (device and inode) is entered once,
and a directory that contains the folder being walked (a ``-> ..`` or ``-> /`` link) is
not entered at all: two ``-> .`` links cannot make the walk exponential and a ``-> ..``
link cannot read everything again. Nothing here opens a file, so a FIFO cannot block the
walk: every entry comes back classified, and the caller decides what to warn about or
reject (core reports values; importers and the pipeline count them).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import special_kind

FILE = "file"
DIR = "dir"
SPECIAL = "special"  # a FIFO, socket or device: skipped with a warning
UNREADABLE = "unreadable"  # a dangling or looping link, or a failed stat: a reject
REPEAT = "repeat"  # a directory already walked (or one containing the root): skipped


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a folder: its path as reached, its kind, and why (for the odd kinds)."""

    path: Path
    kind: str
    detail: str = ""


class Walker:
    """One walk from ``root``: remembers the real directories it has handed out."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._real_root = Path(os.path.realpath(self.root))
        self._seen: dict[tuple[int, int], Path] = {}
        try:
            st = os.stat(self.root)
        except OSError:
            return  # entries() reports it
        self._seen[(st.st_dev, st.st_ino)] = self.root

    def entries(self, folder: Path) -> Iterator[Entry]:
        """The entries directly in ``folder``, sorted by name, hidden ones skipped.

        A folder that cannot be listed is a located InputError.
        """
        try:
            with os.scandir(folder) as it:
                names = sorted(e.name for e in it if not e.name.startswith("."))
        except OSError as e:
            raise InputError(f"cannot list folder ({e.strerror})", where=str(folder)) from None
        for name in names:
            yield self.classify(Path(folder) / name)

    def classify(self, path: Path) -> Entry:
        """What ``path`` is, following links; a directory counts as walked from here on."""
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return Entry(path, UNREADABLE, "dangling symbolic link")
        except OSError as e:
            return Entry(path, UNREADABLE, (e.strerror or str(e)).lower())
        if stat.S_ISDIR(st.st_mode):
            return self._directory(path, (st.st_dev, st.st_ino))
        kind = special_kind(st.st_mode)
        if kind is not None:
            return Entry(path, SPECIAL, f"a {kind}")
        return Entry(path, FILE)

    def _directory(self, path: Path, key: tuple[int, int]) -> Entry:
        first = self._seen.get(key)
        if first is not None:
            return Entry(path, REPEAT, f"the same folder as {first}")
        real = Path(os.path.realpath(path))
        if self._real_root.is_relative_to(real):
            return Entry(path, REPEAT, "a link to a folder that contains this one")
        self._seen[key] = path
        return Entry(path, DIR)

    def files(self, folder: Path, on_skip: Callable[[Entry], None] | None = None) -> Iterator[Path]:
        """Regular files below ``folder``: its own first, then each sub-folder in name order.

        Special, unreadable and repeated entries, and sub-folders that cannot be listed,
        go to ``on_skip`` (an ``Entry``; for a folder that cannot be listed, ``UNREADABLE``).
        """
        subdirs: list[Path] = []
        for entry in self.entries(folder):
            if entry.kind == FILE:
                yield entry.path
            elif entry.kind == DIR:
                subdirs.append(entry.path)
            elif on_skip is not None:
                on_skip(entry)
        for sub in subdirs:
            try:
                yield from self.files(sub, on_skip)
            except InputError as e:
                if on_skip is not None:
                    on_skip(Entry(sub, UNREADABLE, e.what))
