"""What a read command writes, in which order: through the store's index, or the scan.

``select(selector, parts, store=..., order=...)`` returns the matches in batches and a
note. The index is used when the input is the store (``store`` is its path), the
filters have an indexable part (speaker, listener, tag, thread, time; ``IndexQuery``)
or an order is asked for, and the index is fresh (a stale one is brought up to date
first, the appended tail only when it can be, unless a writer holds the store lock).
Then only the matching lines are read, by byte offset:
- every filter indexable: SQLite filters, orders and limits; lines pass through as
  they are (parsed only when the writer needs the record);
- ``--text``/``--regex`` as well: the index narrows the candidates (a superset) and the
  scan's exact checks (``Selector.matches``) decide each one.
Otherwise the scan (``convo.query.scan``) reads everything, and ``--sort``/``--latest``
are applied in flat memory (``convo.index.order``): ``--latest N`` keeps a heap of N
matches; ``--sort`` is an external merge sort whose memory is bounded by
``order.RUN_SIZE`` lines (runs beyond it spill to temporary files).
When the index would have served but cannot (missing, stale while a writer holds the
lock, unreadable, ``CONVO_NO_INDEX=1``), the note says why, for the caller to print once.

Order semantics (identical both ways): ``sort`` None is store order, ``time`` is
(timestamp, store position), ``-time`` its exact reverse. ``latest=N`` keeps the N most
recent by (timestamp, position) and shows them oldest first (newest first with
``-time``). Then ``--reverse`` reverses the result and ``--limit`` keeps its first N.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from convo.core import fields
from convo.index.lookup import IndexQuery, Lines, Track, lookup
from convo.query.scan import Match, Selector, limited

BATCH = 1000
Batches = Iterator[list[Match]]


@dataclass(frozen=True)
class Order:
    """``--sort`` (None: store order, ``time``, ``-time``) and ``--latest N``."""

    sort: str | None = None
    latest: int | None = None

    @property
    def active(self) -> bool:
        return self.sort is not None or self.latest is not None


@dataclass
class Selection:
    """The matches in batches; ``indexed`` when the index answered; ``note``: empty, or
    why the index that would have answered could not (the scan answered instead);
    ``skipped``: lines of the store that are not records, which the index passes over
    (the scan reports each one it meets; the caller reports these)."""

    batches: Batches
    indexed: bool = False
    note: str = ""
    skipped: int = 0


def select(
    selector: Selector,
    parts: Iterable[Any],
    *,
    store: Path | None = None,
    order: Order = Order(),
    on_error=None,
    need_record: bool = True,
    track: Track | None = None,
) -> Selection:
    """The records ``selector`` picks from ``parts`` (``pipeline.inputs.record_parts``),
    in ``order``; ``store``: the store's path when ``parts`` is the store; ``track``
    wraps the lines being indexed when a stale index is brought up to date first (a
    progress line, ``convo.output.progress``)."""
    note = ""
    if store is not None:
        found = _indexed(selector, store, order, track)
        if not isinstance(found, str):
            return found
        note = found
    return Selection(_scanned(selector, parts, order, on_error, need_record), note=note)


def count(
    selector: Selector, parts: Iterable[Any], *, store: Path | None = None, order: Order = Order(),
    on_error=None, track: Track | None = None,
) -> tuple[int, str]:  # fmt: skip
    """``(how many records select would give, note)``: counted in SQL when every filter is
    indexable and the index is fresh, else by selecting without keeping anything."""
    from convo.index.lookup import count as index_count

    f = selector.filters
    q = IndexQuery.from_filters(f)
    if store is not None and q is not None:
        n, note = index_count(store, q, track=track), ""
        if isinstance(n, str):
            note, batches = n, _scanned(selector, parts, Order(), on_error, False)
            n = sum(len(b) for b in batches)
    else:
        chosen = select(
            selector, parts, store=store, on_error=on_error, need_record=False, track=track
        )
        n, note = sum(len(b) for b in chosen.batches), chosen.note
    for cap in (order.latest, f.limit):
        if cap is not None:
            n = min(n, max(0, cap))
    return n, note


def _indexed(selector: Selector, store: Path, order: Order, track: Track | None) -> Selection | str:
    """Matches through the index, or why not (a string; "" when it would not help)."""
    f = selector.filters
    if f.tree is not None:
        # A query-language tree the flat filters cannot say: its flat fields are byte
        # prefilter hints, not a superset the index could narrow to; the scan decides.
        return ""
    q = IndexQuery.from_filters(f)
    exact = q is not None
    if q is None:
        q = IndexQuery.part_of(f)
        if q.is_empty():
            return ""  # only text or regexes: the index cannot narrow, the scan is best
    elif q.is_empty() and not order.active:
        return ""  # everything, in store order: a plain read is the fastest
    sql_order = {None: "store", "time": "time", "-time": "-time"}[order.sort]
    if f.reverse:
        sql_order = sql_order[1:] if sql_order.startswith("-") else "-" + sql_order
    if exact:
        return _to_batches(
            lookup(store, q, order=sql_order, limit=f.limit, latest=order.latest, track=track),
            store,
        )
    return _narrowed(selector, store, q, sql_order, order, f.limit, track)


def _to_batches(lines: Lines | str, store: Path) -> Selection | str:
    if isinstance(lines, str):
        return lines
    name = str(store)
    matches = (Match(raw, None, name) for raw in lines)  # parsed when a writer needs it
    return Selection(_chunks(matches), indexed=True, skipped=lines.bad_lines)


def _narrowed(
    selector: Selector, store: Path, q: IndexQuery, sql_order: str, order: Order,
    limit: int | None, track: Track | None,
) -> Selection | str:  # fmt: skip
    """Candidates from the index (a superset), decided by the exact checks."""
    if order.latest is not None:
        # the newest candidates first, until N of them match
        lines = lookup(store, q, order="-time", track=track)
        if isinstance(lines, str):
            return lines
        found = list(itertools.islice(_exact(selector, lines, store), max(0, order.latest)))
        if not sql_order.startswith("-"):
            found.reverse()
        kept = iter(found if limit is None else found[: max(0, limit)])
        return Selection(_chunks(kept), indexed=True, skipped=lines.bad_lines)
    lines = lookup(store, q, order=sql_order, track=track)
    if isinstance(lines, str):
        return lines
    matches = limited(_exact(selector, lines, store), limit, False)
    return Selection(_chunks(matches), indexed=True, skipped=lines.bad_lines)


def _exact(selector: Selector, lines: Iterable[bytes], store: Path) -> Iterator[Match]:
    name = str(store)
    for raw in lines:
        m = Match(raw, None, name)
        if selector.matches(m.record):
            yield m


def _chunks(matches: Iterator[Match]) -> Batches:
    while batch := list(itertools.islice(matches, BATCH)):
        yield batch


def _scanned(
    selector: Selector, parts: Iterable[Any], order: Order, on_error, need_record: bool
) -> Batches:
    f = selector.filters
    if not order.active:
        if f.limit is None and not f.reverse:
            return selector.batches(parts, on_error, need_record)
        return _chunks(selector.select_parts(parts, on_error, need_record=need_record))
    from convo.index import order as flat  # (tempfile: only a scan that orders needs it)

    matches = (m for b in selector.batches(parts, on_error, need_record=True) for m in b)
    newest_first = order.sort == "-time"
    if order.latest is not None:
        kept = flat.latest(matches, order.latest, key=_time)
        if newest_first:
            kept.reverse()
        ordered: Iterator[Match] = iter(kept)
    else:
        keyed = ((_time(m), _pack(m)) for m in matches)
        ordered = map(_unpack, flat.sort_by_time(keyed, reverse=newest_first))
    return _chunks(limited(ordered, f.limit, f.reverse))


def _time(m: Match) -> str:
    return fields.timestamp(m.record)


def _pack(m: Match) -> bytes:
    """A match as bytes for the external sort: line number, source name, the line."""
    return b"%d\0%s\0%s" % (m.line, m.name.encode("utf-8", "surrogateescape"), m.raw)


def _unpack(payload: bytes) -> Match:
    line, name, raw = payload.split(b"\0", 2)
    return Match(raw, None, name.decode("utf-8", "surrogateescape"), int(line))
