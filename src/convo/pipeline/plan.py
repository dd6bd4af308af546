"""The units of a distributed ingest: the inputs ``convo ingest`` would read, one by one.

A named file is a unit; a folder is walked as ``convo ingest`` walks it: a folder that a
folder format claims (Maildir, a Slack export) is one unit, any other folder gives its
files and sub-folders in the walk's order. A file in a folder that no format recognises
is what ``convo ingest`` skips with a warning; here it becomes a reject row (``skipped``),
so nothing is lost silently on a cluster either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.context import iter_dir_entries
from convo.importers.registry import registry


@dataclass(frozen=True)
class Unit:
    path: str
    readable: bool = True
    reject: dict[str, Any] = field(default_factory=dict)


def _claimed(source: Source) -> bool:
    try:
        registry.detect(source)
    except InputError:
        return False
    return True


def _walk(folder: Source, out: list[Unit], skipped_as_rejects: bool) -> None:
    assert folder.path is not None
    for path in iter_dir_entries(folder.path):
        child = folder.child(path)
        try:
            if child.is_dir:
                if _claimed(child):
                    out.append(Unit(child.name))
                else:
                    _walk(child, out, skipped_as_rejects)
            elif _claimed(child):
                out.append(Unit(child.name))
            elif skipped_as_rejects:
                out.append(Unit(child.name, False, _skipped(child.name)))
        finally:
            child.close()


def _skipped(name: str) -> dict[str, Any]:
    return {"source": name, "where": name, "reason": "skipped, format not recognised",
            "hint": "name it with --from FORMAT (see `convo formats`)", "raw": None}  # fmt: skip


def plan_units(paths: list[str], *, skipped_as_rejects: bool = False) -> list[Unit]:
    """The units of ``paths`` in ``convo ingest`` order."""
    units: list[Unit] = []
    for path in paths:
        source = Source(path)
        try:
            if source.is_dir and not _claimed(source):
                _walk(source, units, skipped_as_rejects)
            else:
                units.append(Unit(path))
        finally:
            source.close()
    return units
