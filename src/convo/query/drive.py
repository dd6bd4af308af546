"""Cost-based shape of a top-level AND: which leaf drives, and what becomes of its
full-text leaves.

SQLite picks an index for ``messages m`` by its own rules, without statistics. A text
leaf (``-q``, ``text:``, a phrase: ``index.substring``) is ``m.message_id IN (SELECT rowid
FROM messages_fts WHERE messages_fts MATCH ?)``, and SQLite builds that whole list and
drives from it whatever its size: ``-s Quinn --since 2018-01-01 -q budget`` on the
1M-message benchmark store built the list of the 362k messages holding ``budget`` to
keep the 2,888 that Quinn wrote since 2018, 430 ms of CPU in SQLite alone (and done
twice, once to see whether the candidates were few, once to read them).

``shape`` counts each leaf of the AND that an index can count, up to a bound
(``estimates``: ``count(*)`` over ``LIMIT cap``, the bound raised 16-fold until one
leaf is under it, so no count walks much more than the smallest leaf's rows), and gives
each text leaf one of three roles:

- **drive**: it selects the fewest messages: its list is built, the other leaves are
  checked on each of its rows (what SQLite does with it anyway);
- **restrict**: another leaf selects fewer. The full-text rows are read in order and each
  looked up in the list of the other leaves' messages (``FullText.source(within)``):
  ``C_SCAN`` a full-text row, where seeking the full-text index for each of the other
  leaves' messages costs about 19 µs each;
- **drop**: reading its full-text rows would cost more than the exact check of the
  lines it would spare: ``n × C_SCAN ≥ driver × C_LINE × (1 − n / total)``; the leaf
  is left to the check (the candidates stay a superset: a text leaf never is exact).

The costs are CPU times measured on the benchmark store (1M messages, 2 cores): a
full-text row read and looked up in a list of 7,870 ids, 0.12-0.15 µs (362k rows in 42-55
ms); a candidate line read (``os.pread``, 2 µs), parsed (4 µs) and checked (8 µs), about
14 µs. With them the combined query above reads the 362k rows of ``budget`` within the
7,870 messages of Quinn since 2018 (about 80 ms of SQL) and checks 2,888 lines, where
dropping the leaf would check all 7,870 (110 ms). Measured as whole commands in
BENCHMARKS.md (the Index section).

Leaves under OR or NOT, and leaves the index holds only as a superset (``subject:``),
are not counted: they count as every message. The estimates also bound the candidates
(the smallest count), which ``store.select`` reads to decide between the index and the
scan without running the condition first.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from convo.query.field_table import FALSE, TRUE, Cond, Sql, conjoin

C_SCAN = 0.15  # µs of CPU: one full-text row read and looked up in the driver's ids
C_LINE = 14.0  # µs of CPU: one candidate line read, parsed and checked
FIRST_CAP = 4096  # the first bound of the counts; then 16 times more each round
GROWTH = 16


class Part:
    """One child of the AND: its condition, and its leaf's ``Sql`` (None: a subtree)."""

    __slots__ = ("cond", "name", "params", "sql")

    def __init__(self, cond: str, params: tuple[Any, ...], sql: Sql | None, name: str):
        self.cond, self.params, self.sql, self.name = cond, params, sql, name

    @property
    def text(self) -> bool:
        """A full-text leaf (its role is chosen here)."""
        return self.sql is not None and self.sql.fts is not None and self.cond not in (FALSE, TRUE)

    def ids(self) -> Cond:
        """A SELECT of the ids of its messages (duplicates allowed), and its parameters:
        its ``rows``, its full-text rows, or its condition on an index of ``messages``."""
        assert self.sql is not None
        if self.sql.fts is not None:
            return self.sql.fts.source(), self.sql.fts.params()
        return (
            self.sql.rows or f"SELECT m.message_id FROM messages m WHERE {self.cond}",
            self.params,
        )

    @property
    def countable(self) -> bool:
        """An index can count it: an exact leaf, or a full-text one."""
        return (
            self.sql is not None
            and (self.sql.exact or self.text)
            and self.cond not in (FALSE, TRUE)
        )


def bounded(conn: sqlite3.Connection, part: Part, cap: int) -> int:
    """How many messages ``part`` selects, counted up to ``cap`` (``cap``: that many or
    more). A leaf's ``rows`` are counted where it has them (a tag: its rows of
    ``message_tags``, not each message looked up: 0.6 against 19 ms for 10k)."""
    assert part.sql is not None
    if part.sql.fts is not None:
        return int(part.sql.fts.count(conn, cap))
    inner = part.sql.rows or f"SELECT 1 FROM messages m WHERE {part.cond}"
    sql = f"SELECT count(*) FROM (SELECT 1 FROM ({inner}) LIMIT {int(cap)})"
    return int(conn.execute(sql, part.params).fetchone()[0])


def estimates(conn: sqlite3.Connection, parts: list[Part], total: int) -> dict[int, int]:
    """The counts of the countable parts (by index in ``parts``) that are under the bound
    where the first of them was (the others select more than every known one)."""
    todo = [i for i, p in enumerate(parts) if p.countable]
    known: dict[int, int] = {}
    cap = FIRST_CAP
    while todo:
        for i in todo:
            n = bounded(conn, parts[i], cap)
            if n < cap:
                known[i] = n
        todo = [i for i in todo if i not in known]
        if known or cap > total:
            break
        cap *= GROWTH
    return known


def restricts(n: int, driver: int, total: int) -> bool:
    """A full-text leaf of ``n`` messages is worth reading within ``driver`` candidates
    (of ``total`` messages): it costs less than checking the lines it spares."""
    spared = 1.0 - min(n, total) / total if total else 0.0
    return n * C_SCAN < driver * C_LINE * spared


def breakeven(driver: int, total: int) -> int:
    """The fewest messages of a full-text leaf that ``restricts`` rejects (at most
    ``total`` + 1: a leaf is in ``total`` messages at most)."""
    if not total:
        return 0
    line = driver * C_LINE
    n = min(total + 1, int(line / (C_SCAN + line / total)))  # n·C_SCAN = line·(1 − n/total)
    while n > 0 and not restricts(n - 1, driver, total):
        n -= 1
    while n <= total and restricts(n, driver, total):
        n += 1
    return n


def shape(conn: sqlite3.Connection, parts: list[Part]) -> tuple[Cond, int | None, list[str]]:
    """The condition of the AND of ``parts`` with each full-text leaf in its role, an
    upper bound of the messages it selects (None: not known) and notes for ``--explain``."""
    plain = conjoin([(p.cond, p.params) for p in parts])
    texts = [i for i, p in enumerate(parts) if p.text]
    if not texts or len(parts) < 2:
        return plain, None, []
    total = _total(conn)
    known = estimates(conn, parts, total)
    if not known:
        return plain, None, []
    best = min(known.values())
    smallest = min(known, key=lambda i: known[i])
    driver = smallest if smallest in texts else None
    kept = [(p.cond, p.params) for i, p in enumerate(parts) if i not in texts or i == driver]
    others = [i for i in texts if i != driver]
    restricted, notes = _roles(conn, parts, others, known, smallest, total)
    return conjoin([*kept, *restricted]), best, notes


def _roles(
    conn: sqlite3.Connection, parts: list[Part], texts: list[int], known: dict[int, int],
    driver: int, total: int,
) -> tuple[list[Cond], list[str]]:  # fmt: skip
    """The conditions of the full-text ``texts`` that are read within the ``driver``'s
    messages, and a note for each of ``texts``."""
    restricted: list[Cond] = []
    notes: list[str] = []
    for i in texts:
        cond = _restricted(conn, parts[i], known.get(i), known[driver], total, parts[driver])
        notes.append(f"{parts[i].name}: " + (READ if cond else LEFT) + parts[driver].name)
        restricted += [cond] if cond else []
    return restricted, notes


READ = "read within the messages of "
LEFT = "left to the check (fewer lines to check than full-text rows to read), driven by "


def _restricted(
    conn: sqlite3.Connection, part: Part, n: int | None, best: int, total: int, driver: Part
) -> Cond | None:
    """The condition of the full-text leaf ``part`` (``n`` messages, None: more than
    every known count) read within ``driver``'s messages; None: left to the check."""
    if n is None:  # counted up to where it stops paying
        cap = breakeven(best, total)
        n = bounded(conn, part, cap) if cap else total
    if not restricts(n, best, total):
        return None
    assert part.sql is not None
    ids, params = driver.ids()
    return f"m.message_id IN ({part.sql.fts.source(ids)})", part.sql.fts.params(params)


def _total(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'messages'").fetchone()
    return int(row[0]) if row and str(row[0]).isdecimal() else 0
