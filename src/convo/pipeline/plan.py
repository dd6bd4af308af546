"""The units of an ingest run: the inputs ``Ingest`` reads, one by one, in its order.

A named file is a unit; a folder is walked as ``Ingest`` walks it (one ``Walker``, each
real folder once): a folder that a folder format claims (Maildir, a Slack export) is one
unit, any other folder gives its files and sub-folders in the walk's order; a file no
format recognises, a special file or a folder seen before is a ``skip`` unit (``Ingest``
warns), an unreadable entry a ``fail`` unit (``Ingest`` counts a rejection). Units are
what ``--jobs`` and ``convo.spark`` distribute: each is read by a plain ``Ingest`` over
that one path, which gives the records a whole run gives, since ``source_id`` numbers
and content-id occurrence counters are per source. A large line-oriented file becomes
one unit per range (``pipeline.split``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from convo.core.errors import InputError
from convo.core.filetypes import is_mail_sidecar
from convo.core.io import Source
from convo.core.ranges import Range
from convo.core.walk import UNREADABLE, Entry, Walker
from convo.importers.context import Position, iter_dir_entries
from convo.importers.registry import Format, registry


@dataclass(frozen=True)
class Part:
    """One range of a file split for several cores (``pipeline.split``): its bytes, the
    format decided on the whole file, where the range starts and its place among them."""

    format: str
    range: Range
    start: Position
    index: int


EMPTY = "empty"  # a folder named on the command line that gave no unit to read


@dataclass(frozen=True)
class Unit:
    """One input: ``read`` it; ``skip`` it (a warning, ``reason`` says why); ``fail``
    (an unreadable entry: a counted rejection at ``path`` with ``reason`` and ``hint``);
    or ``empty``, after a named folder's entries when none is read (a warning:
    ``pipeline.ingest.nothing_found``, ``reason`` the number of its entries).
    A ``read`` unit with a ``part`` reads one range of the file at ``path``.

    ``isolated``: an unreadable ``read`` unit is reported and counted and the run goes on
    (it came from a folder, or is one of several inputs); else its error ends the run.
    """

    path: str
    kind: str = "read"
    isolated: bool = True
    reason: str = ""
    hint: str | None = None
    part: Part | None = None


def _detect(source: Source) -> Format | None:
    try:
        return registry.detect(source)
    except (InputError, OSError):
        return None


def _entry_unit(folder: Source, entry: Entry) -> Unit:
    """A folder entry ``Ingest`` does not read, as ``Ingest._skip_entry`` reports it."""
    assert folder.path is not None
    name = f"{folder.name.rstrip('/')}/{entry.path.relative_to(folder.path)}"
    if entry.kind != UNREADABLE:
        return Unit(name, "skip", reason=entry.detail)
    return Unit(name, "fail", reason=entry.detail, hint="fix or remove it and re-run")


def _child_unit(child: Source, forced: Format | None, walker: Walker, out: list[Unit]) -> None:
    if child.is_dir:
        if (None if forced else _detect(child)) is not None:
            out.append(Unit(child.name))
        else:
            _walk(child, forced, walker, out)
    elif forced is not None:
        out.append(Unit(child.name))
    else:
        try:
            registry.detect(child)
            out.append(Unit(child.name))
        except InputError as e:
            if child.path is None or not is_mail_sidecar(child.path.parts):
                out.append(Unit(child.name, "skip", reason=e.what))  # a sidecar: passed over


def _walk(folder: Source, forced: Format | None, walker: Walker, out: list[Unit]) -> None:
    assert folder.path is not None
    skipped = lambda entry: out.append(_entry_unit(folder, entry))  # noqa: E731
    try:
        for path in iter_dir_entries(folder.path, walker, skipped):
            try:
                child = folder.child(path)
            except InputError as e:
                out.append(Unit(e.where or str(path), "fail", reason=e.what, hint=e.hint))
                continue
            try:
                _child_unit(child, forced, walker, out)
            finally:
                child.close()
    except InputError as e:  # a folder that cannot be listed
        out.append(Unit(e.where or folder.name, "fail", reason=e.what, hint=e.hint))


def plan_units(paths: Iterable[str | Path], forced: Format | None = None) -> list[Unit]:
    """The units of ``paths`` in ``Ingest`` order (``forced`` is ``--from``)."""
    names = [str(p) for p in paths]
    units: list[Unit] = []
    for path in names:
        try:
            source = Source(path)
        except InputError:  # unreadable: its own unit, whose read reports it as Ingest does
            units.append(Unit(path, isolated=len(names) > 1))
            continue
        try:
            walk = source.is_dir and not (forced and not forced.directory)
            if walk and (forced or _detect(source)) is None:
                assert source.path is not None
                first = len(units)
                _walk(source, forced, Walker(source.path), units)
                if all(u.kind != "read" for u in units[first:]):  # Ingest warns of it
                    units.append(Unit(path, EMPTY, reason=str(len(units) - first)))
            else:
                units.append(Unit(path, isolated=len(names) > 1))
        finally:
            source.close()
    return units
