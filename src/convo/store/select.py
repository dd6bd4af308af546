"""Running a Query: through the store's index when it can answer, else the scan.

``select(query, parts, store=...)`` returns the matches in batches, how they were found
(``plan``, the line ``--explain`` prints) and a note. With the store as input (``store``
is its path) and a fresh index (a stale one is brought up to date first, unless a writer
holds the store lock), the planner (``convo.query.plan``) compiles the whole filter tree
to SQL:
- exact (every field the index holds): SQL filters, orders and limits; lines pass
  through as they are (parsed only when the writer needs the record);
- a superset (text words, a phrase, a regex also asked for): the index narrows the
  candidates and the exact check (``Selector.matches``) decides each one.
Otherwise, or when the index narrows nothing and no order is asked for, the scan
(``convo.query.scan``) reads everything, and ``--sort``/``--latest`` are applied in flat
memory (``convo.index.order``): ``--latest N`` keeps a heap of N matches; ``--sort`` is
an external merge sort whose memory is bounded by ``order.RUN_SIZE`` lines. When the
index would have served but cannot (missing, stale while a writer holds the lock,
unreadable, ``CONVO_NO_INDEX=1``), the note says why, for the caller to print once.

Order semantics (identical both ways): ``sort`` None is input order, ``time`` is
(timestamp, position), ``-time`` its exact reverse. ``latest=N`` keeps the N most recent
by (timestamp, position), shown oldest first (newest first with ``-time``). Then
``reverse`` reverses the result and ``limit`` keeps its first N.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator

from convo.core import fields
from convo.core.slotted import Slotted
from convo.index.lookup import Reader, Track, read_spans, reader
from convo.query.model import Query
from convo.query.plan import Plan, compile_where, explain
from convo.query.plan import count as plan_count

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.query.matches import Match
    from convo.query.scan import Selector

BATCH = 1000
# ``query.matches`` (with ``array`` and ``core.heap``) is imported where a line is read:
# a count answered in SQL reads none (docs/startup.md, "Third pass").
Batches = Iterator[list["Match"]]


class Selection(Slotted):
    """The matches in batches; ``indexed`` when the index answered; ``plan``: how (the
    ``--explain`` line); ``note``: empty, or why the index that would have answered could
    not; ``skipped``: lines of the store that are not records, which the index passes
    over (the scan reports each one it meets; the caller reports these); ``selector``:
    the scan's exact check the matches went through, None when the index decided (an
    exact plan) or its candidates were checked by the filters' checks alone (the scan's
    machinery is then never imported)."""

    __slots__ = ("batches", "count", "indexed", "note", "plan", "selector", "skipped")
    batches: Batches
    indexed: bool
    plan: str
    note: str
    skipped: int
    selector: Selector | None
    count: int | None  # ``count``: the number, when SQL counted it (no batches)

    def __init__(
        self,
        batches: Batches,
        indexed: bool = False,
        plan: str = "",
        note: str = "",
        skipped: int = 0,
        selector: Selector | None = None,
        count: int | None = None,
    ) -> None:
        self.batches = batches
        self.indexed = indexed
        self.plan = plan
        self.note = note
        self.skipped = skipped
        self.selector = selector
        self.count = count


class RawFile:
    """A JSONL file of records, read as raw lines (``open()`` and ``name`` like a Source)."""

    reopenable = True  # a regular file: a second reader can locate lines later

    def __init__(self, path: str):
        self.path = path
        self.name = path

    def open(self):
        """The file as it is now: a writer's append that starts during the read is not
        read (its unfinished line would be taken for a torn one)."""
        from convo.core.io import open_binary

        return open_binary(self.path, snapshot=True)


def select(
    query: Query,
    parts: Iterable[Any],
    *,
    store: str | os.PathLike[str] | None = None,
    on_error=None,
    need_record: bool = True,
    track: Track | None = None,
    selector: Selector | None = None,
    counting: bool = False,
) -> Selection:
    """The records ``query`` picks from ``parts`` (``pipeline.inputs.record_parts``);
    ``store``: the store's path when ``parts`` is the store; ``track`` wraps the lines
    being indexed when a stale index is brought up to date first (a progress line);
    ``selector``: the query's compiled filters when the caller has them (made here when
    a check or the scan needs them); ``counting``: only the number is wanted (an exact
    plan's is counted in SQL: ``Selection.count``)."""
    selector = _early(query, selector)
    reason = "the input is not the store"
    if store is not None:
        found = _indexed(query, selector, store, track, counting)
        if isinstance(found, Selection):
            return found
        reason = found
    note = reason if store is not None and not reason.startswith("plan:") else ""
    plan = reason if reason.startswith("plan:") else explain(None, reason=reason)
    selector = selector or _selector(query)
    batches = _scanned(query, selector, parts, on_error, need_record)
    return Selection(batches, plan=plan, note=note, selector=selector)


def through_index(
    query: Query, store: str | os.PathLike[str], *, track: Track | None = None
) -> Selection | None:
    """The selection of ``query`` when the store's index answers it (a condition the
    planner runs in SQL, not the scan), else None. For the commands that otherwise read
    the whole store on every core and filter it there (``stats``, ``knowledge``): ``convo
    knowledge id:X`` read 100 MB to find one message (3.9 s; 0.4 s so, load 8)."""
    if query.where is None:
        return None
    found = _indexed(query, None, store, track, False)
    return found if isinstance(found, Selection) else None


def _selector(query: Query) -> Selector:
    from convo.query.scan import Selector

    return Selector(query.filters())


def _check(query: Query) -> Callable[[Match], bool]:
    """The exact check of ``query`` on a candidate line: the checks ``Selector.matches``
    runs (``query.filters.checks``) on the parsed record, without the scan's machinery
    (its raw-byte decisions, prefilter and parallel reader: 8-10 ms of imports, ``python
    -X importtime``), which the few candidates the index leaves do not need. A query of
    text words only (``-q``, the words of an AND) is first decided on the line's bytes
    (``_text_words``)."""
    from convo.query.filters import checks

    found = checks(query.filters())

    def parsed(m: Match) -> bool:
        record = m.record
        return all(c(record) for c in found)

    words = _text_words(query)
    return parsed if words is None else _decided(words, parsed)


def _text_words(query: Query) -> list[Any] | None:
    """A decision on a line's bytes per text leaf (``query.rawtext``: ``TextWord`` per
    word, ``TextPhrase`` per phrase) when the query is text words and phrases and
    nothing else (``-q quinn``, ``-q "a b"``, ``"quinn wrote"``, ``budget AND
    rollback``) and each can be decided so, else None."""
    from convo.query.tree import And, Term

    node = query.where
    leaves = node.children if isinstance(node, And) else (node,)
    words: list[str] = []
    phrases: list[str] = []
    for leaf in leaves:
        if not isinstance(leaf, Term) or leaf.field not in ("words", "phrase"):
            return None
        folded = leaf.value.casefold().split()
        if leaf.field == "phrase" and len(folded) > 1:
            phrases.append(" ".join(folded))
        else:  # a phrase of one word is that word (``field_table._phrase``)
            words += folded
    if not words and not phrases:
        return None
    from convo.query.filters import Filters
    from convo.query.rawphrase import TextPhrase
    from convo.query.rawtext import TextWord

    decided: list[Any] = [TextWord.of(Filters(texts=[w])) for w in dict.fromkeys(words)]
    decided += [TextPhrase.of(p) for p in dict.fromkeys(phrases)]
    return None if None in decided else decided


def _decided(words: list[Any], parsed: Callable[[Match], bool]) -> Callable[[Match], bool]:
    """``parsed``, unless the line's bytes decide every word and phrase (each True: the
    match; a word False: no match). The query means every word in the text or the
    subject and every phrase in them (``query.filters.text_check``, ``field_table``), so
    each leaf decides alone. On the 1M-message benchmark store the 2,904 candidates of
    ``-q quinn`` took 17.5 ms of CPU parsed and checked, 7.3 ms so (``"quinn wrote"``:
    20.6 and 7.5; least of 9, one process, load 9); and a command that parses no line
    does not import orjson (with dataclasses, uuid and inspect: 57M instructions;
    ``query --count -q quinn`` went from 447M to 265M, docs/startup.md)."""

    def check(m: Match) -> bool:
        raw = m.raw
        low = raw.lower()
        end = len(raw)
        undecided = False
        for word in words:
            d = word.decide(raw, low, 0, end)
            if d is False:
                return False
            undecided = undecided or d is None
        return parsed(m) if undecided else True

    return check


def _early(query: Query, selector: Selector | None) -> Selector | None:
    """The selector now when the query has a regex: a bad one is a usage error before
    anything is read (``Selector`` compiles it), as when the selector was always made."""
    if selector is not None or query.where is None:
        return selector
    from convo.query.tree import Term, map_terms

    kinds: set[str] = set()

    def seen(term: Term) -> Term:
        kinds.add(term.field)
        return term

    map_terms(query.where, seen)
    return _selector(query) if "regex" in kinds else None


def count(
    query: Query, parts: Iterable[Any], *, store: str | os.PathLike[str] | None = None, on_error=None,
    track: Track | None = None,
) -> tuple[int, Selection]:  # fmt: skip
    """How many records ``select`` would give (counted in SQL when the plan is exact, else
    the candidates checked, or the scan), and the selection's description (its batches
    are spent). The index is opened and the query planned once."""
    chosen = select(
        query, parts, store=store, on_error=on_error, need_record=False, track=track,
        counting=True,
    )  # fmt: skip
    if chosen.count is not None:
        return chosen.count, chosen
    return sum(len(b) for b in chosen.batches), chosen


def _indexed(
    query: Query,
    selector: Selector | None,
    store: str | os.PathLike[str],
    track: Track | None,
    counting: bool,
) -> Selection | str:
    """Matches through the index, or why not (a string); ``counting``: an exact plan's
    count, in ``Selection.count``."""
    if query.where is None and not query.ordered and not counting and not _tail(query):
        return "plan: scan (every message, in store order: a plain read is the fastest)"
    opened = reader(store, track=track)  # closed here, or after the last batch
    r = opened.__enter__()
    if isinstance(r, str):
        opened.close()
        return r
    try:
        plan = compile_where(r.conn, query.where)
        done = _without_lines(r, plan, query, counting)
        if done is not None:
            opened.close()
            return done
        sql_order = {None: "store", "time": "time", "-time": "-time"}[query.sort]
        if query.reverse:
            sql_order = sql_order[1:] if sql_order.startswith("-") else "-" + sql_order
        check = None if plan.exact else (_on_record(selector) if selector else _check(query))
        lines = _lines(r, plan, query, check, sql_order)
    except BaseException:
        opened.close()
        raise

    def batches() -> Batches:
        try:
            yield from _chunks(lines)
        finally:
            opened.close()

    return Selection(
        batches(), indexed=True, plan=explain(plan), skipped=r.bad_lines, selector=selector
    )


def _tail(query: Query) -> bool:
    """``--reverse -n N``: the last N lines, which the index finds by their offsets where
    the scan reads every line before them (``convo list -n 5 --reverse`` on a 100 MB
    store: 0.1 s against 3.3 s)."""
    return query.reverse and query.limit is not None


def _without_lines(r: Reader, plan: Plan, query: Query, counting: bool) -> Selection | str | None:
    """What the plan answers before any line is read: an exact count (``counting``), or
    why the scan is chosen; None: the index's lines are read."""
    if counting and plan.exact:
        n = plan_count(r, plan)
        for cap in (query.latest, query.limit):
            n = n if cap is None else min(n, cap)
        return Selection(iter(()), True, explain(plan), "", r.bad_lines, count=n)
    if not plan.exact and not plan.narrows and not query.ordered:
        return explain(plan)
    if not plan.exact and query.latest is None and _too_many(r, plan):
        return explain(plan, reason=f"over 1/{CANDIDATE_SHARE} of the messages are candidates")
    return None


# A candidate the index leaves is read alone (``os.pread``), parsed and checked: about 20 µs
# of CPU on the 1M-message benchmark store, where the scan (byte prefilter, decisions on
# raw bytes, every core) spends about 2.4 µs a line. So when the candidates are more than
# an eighth of the messages the scan is cheaper: ``-q budget`` (36% of the lines) took
# 7.4 s of CPU through the index against 2.4 s scanned, ``-q quinn`` (0.3%) 0.30 s
# against 1.68 s (``convo query --count``, paired runs, benchmarks/bench_query.py's store).
# ``--latest N`` stops after N matches, so it keeps the index.
CANDIDATE_SHARE = 8


def _too_many(r: Reader, plan: Plan) -> bool:
    """Over 1/``CANDIDATE_SHARE`` of the messages are candidates: the planner's estimate
    (``query.drive``: its smallest count bounds them) says no without running the
    condition, else the condition is counted up to that share."""
    enough = r.messages // CANDIDATE_SHARE + 1
    if plan.estimate is not None and plan.estimate < enough:
        return False
    if plan.fts is not None:
        # One text leaf: its full-text rows are counted, not each candidate sought in
        # ``messages`` (a bound from above: a message in both of its sources counts
        # twice): ``-q quinn`` on the 1M-message store, 5.5 against 0.3 ms of CPU.
        return r.messages > 0 and int(plan.fts.count(r.conn, enough)) >= enough
    return r.messages > 0 and r.at_least(plan.cond, plan.params, enough)


def _lines(
    r: Reader,
    plan: Plan,
    query: Query,
    check: Callable[[Match], bool] | None,
    order: str,
) -> Iterator[Match]:
    name = str(r.f.name)
    if plan.exact:
        if query.latest is None:
            spans: Iterable[tuple[int, int]] = r.spans(
                plan.cond, plan.params, order=order, limit=query.limit
            )
        else:
            spans = r.latest_spans(
                plan.cond, plan.params, query.latest, newest_first=order.startswith("-")
            )
            spans = spans if query.limit is None else spans[: query.limit]
        from convo.query.matches import Match

        return (Match(raw, None, name) for raw in read_spans(r.f, spans))  # parsed when needed
    assert check is not None  # a superset: each candidate is checked
    checked = _checked(check, name)
    if query.latest is not None:
        # the newest candidates first, until N of them match
        newest = checked(read_spans(r.f, r.spans(plan.cond, plan.params, order="-time")))
        found = list(itertools.islice(newest, query.latest))
        if not order.startswith("-"):
            found.reverse()
        return iter(found if query.limit is None else found[: query.limit])
    matched = checked(read_spans(r.f, r.spans(plan.cond, plan.params, order=order)))
    return matched if query.limit is None else itertools.islice(matched, max(query.limit, 0))


def _on_record(selector: Selector) -> Callable[[Match], bool]:
    return lambda m: selector.matches(m.record)


def _checked(
    matches: Callable[[Match], bool], name: str
) -> Callable[[Iterable[bytes]], Iterator[Match]]:
    from convo.query.matches import Match

    def run(lines: Iterable[bytes]) -> Iterator[Match]:
        for raw in lines:
            m = Match(raw, None, name)
            if matches(m):
                yield m

    return run


def _chunks(matches: Iterator[Match]) -> Batches:
    while batch := list(itertools.islice(matches, BATCH)):
        yield batch


def _scanned(
    query: Query, selector: Selector, parts: Iterable[Any], on_error, need_record: bool
) -> Batches:
    if not query.ordered:
        if query.limit is None and not query.reverse:
            return selector.batches(parts, on_error, need_record)
        return _chunks(selector.select_parts(parts, on_error, need_record=need_record))
    from convo.index import order as flat  # (tempfile: only a scan that orders needs it)
    from convo.query.scan import limited

    matches = (m for b in selector.batches(parts, on_error, need_record=True) for m in b)
    newest_first = query.sort == "-time"
    if query.latest is not None:
        kept = flat.latest(matches, query.latest, key=_time)
        if newest_first:
            kept.reverse()
        ordered: Iterator[Match] = iter(kept)
    else:
        keyed = ((_time(m), _pack(m)) for m in matches)
        ordered = map(_unpack, flat.sort_by_time(keyed, reverse=newest_first))
    return _chunks(limited(ordered, query.limit, query.reverse))


def _time(m: Match) -> str:
    return fields.timestamp(m.record)


def _pack(m: Match) -> bytes:
    """A match as bytes for the external sort: line number, source name, the line."""
    return b"%d\0%s\0%s" % (m.line, m.name.encode("utf-8", "surrogateescape"), m.raw)


def _unpack(payload: bytes) -> Match:
    from convo.query.matches import Match

    line, name, raw = payload.split(b"\0", 2)
    return Match(raw, None, name.decode("utf-8", "surrogateescape"), int(line))
