"""The units of an ingest run: the inputs ``Ingest`` reads, one by one, in its order.

A named file is a unit; a folder is walked as ``Ingest`` walks it: a folder that a folder
format claims (Maildir, a Slack export) is one unit, any other folder gives its files and
sub-folders in the walk's order; a file no format recognises is a ``skip`` unit (``Ingest``
warns about it). Units are what ``--jobs`` and ``convo.spark`` distribute: each is read by
a plain ``Ingest`` over that one path, which gives the records a whole run gives, since
``source_id`` numbers and content-id occurrence counters are per source.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.context import iter_dir_entries
from convo.importers.registry import Format, registry


@dataclass(frozen=True)
class Unit:
    """One input: ``read`` it, or ``skip`` it (``reason`` says why).

    ``isolated``: an unreadable unit is reported and counted and the run goes on (it came
    from a folder, or is one of several inputs); else its error ends the run.
    """

    path: str
    kind: str = "read"
    isolated: bool = True
    reason: str = ""


def _detect(source: Source) -> Format | None:
    try:
        return registry.detect(source)
    except InputError:
        return None


def _walk(folder: Source, forced: Format | None, out: list[Unit]) -> None:
    assert folder.path is not None
    for path in iter_dir_entries(folder.path):
        child = folder.child(path)
        try:
            if child.is_dir:
                claimed = None if forced else _detect(child)
                if claimed is not None:
                    out.append(Unit(child.name))
                else:
                    _walk(child, forced, out)
            elif forced is not None:
                out.append(Unit(child.name))
            else:
                try:
                    registry.detect(child)
                    out.append(Unit(child.name))
                except InputError as e:
                    out.append(Unit(child.name, "skip", reason=e.what))
        finally:
            child.close()


def plan_units(paths: Iterable[str | Path], forced: Format | None = None) -> list[Unit]:
    """The units of ``paths`` in ``Ingest`` order (``forced`` is ``--from``)."""
    names = [str(p) for p in paths]
    units: list[Unit] = []
    for path in names:
        source = Source(path)
        try:
            walk = source.is_dir and not (forced and not forced.directory)
            if walk and (forced or _detect(source)) is None:
                _walk(source, forced, units)
            else:
                units.append(Unit(path, isolated=len(names) > 1))
        finally:
            source.close()
    return units
