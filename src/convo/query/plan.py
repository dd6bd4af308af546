"""The planner: a whole filter tree as SQL over the index, and what it cannot say.

``compile_where(conn, node)`` turns the tree (``convo.query.tree``: AND, OR, NOT,
parentheses, every leaf) into one condition on ``messages m`` that selects a *superset*
of the matches, and says whether it is *exact*. Each leaf's SQL is its field's
(``convo.query.field_table``); a leaf the index does not hold (text words, a phrase, a
regex, a source) is TRUE in the superset. Under NOT the roles swap, so the compiler
keeps two conditions per node, as in the textbook:

- ``sup(leaf)`` is its SQL (TRUE without one), ``sub(leaf)`` its SQL when exact, else
  FALSE (a subset);
- ``sup(a AND b) = sup(a) AND sup(b)``, the same for OR and for ``sub``;
- ``sup(NOT a) = NOT sub(a)``, ``sub(NOT a) = NOT sup(a)``.

So the superset never misses a match, and when every leaf is exact the two are one and
the index answers alone. Otherwise each candidate line is checked by the exact check
(``Selector.matches``); the planner prefers the scan when the index narrows nothing.
A leaf under NOT is wrapped in ``ifnull(…, 0)``: SQL's NULL (a message with no thread,
say) must read as "no", as the scan reads it.

A tree nested deep enough (NOTs around ANDs, twenty levels) makes SQL that SQLite's
parser cannot hold ("parser stack overflow"): such a tree's condition is tried first,
and when SQLite refuses it the plan narrows nothing, every line checked (``TOO_DEEP``).

``Plan.explain()`` is what ``--explain`` prints: index or scan, and why.
"""

from __future__ import annotations

import sqlite3

from convo.core.slotted import Slotted
from convo.query.field_table import FALSE, FIELDS, TRUE, Cond, Sql, conjoin, disjoin, negate
from convo.query.tree import And, Node, Not, Or, Range, Term

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

TOO_DEEP = "the query nests too deep for the index's SQL"
# A tree this deep or less, of this many leaves or fewer, makes SQL any SQLite parses
# (its parser's stack, its bound on parameters): not tried first.
_SHALLOW, _FEW_LEAVES = 8, 1000
# An OR of more alternatives is not counted as a UNION (SQLite's compound SELECT holds
# 500 at most; each alternative is counted first: ``_few``).
_UNION_MAX = 64


class Plan(Slotted):
    """What the index can say of a query: ``cond``/``params`` select a superset of the
    matches (exactly them when ``exact``); ``indexed`` and ``checked`` name the fields
    the index decides and those checked on each line. ``complement``: for a query that
    is one negated exact leaf (``-tag:urgent``), the leaf's own condition, so that a
    count is the total less the leaf's (``count``) rather than a pass over every row.
    ``counted``: for a query that is one exact leaf, or one negated (``complement``),
    whose messages a SELECT lists each once without reading ``messages`` (``Sql.rows``
    when ``distinct``: a tag's rows), that SELECT: ``count`` counts its rows.
    ``total``: for such a leaf whose count the index keeps (a format, a role:
    ``field_table.Sql.total``), the SELECT of that count, read in place of counting.
    ``fts``: for a query that is one text leaf, its ``index.substring.FullText`` (its
    candidates counted from the full-text rows alone). ``union``: for an exact OR, a
    SELECT of the ids of each alternative (``count`` may count their UNION). ``since``:
    for a date range with one bound, ``(bound, True)`` for ``>=`` and ``(bound,
    False)`` for ``<`` (``count`` may count the other side)."""

    __slots__ = (
        "checked", "complement", "cond", "counted", "estimate", "exact", "fts", "indexed",
        "notes", "params", "since", "total", "union",
    )  # fmt: skip
    cond: str
    params: tuple[Any, ...]
    exact: bool
    indexed: list[str]
    checked: list[str]
    complement: Cond | None
    counted: Cond | None
    total: Cond | None
    union: list[Cond] | None
    since: tuple[str, bool] | None
    fts: Any
    estimate: int | None  # at most this many candidates (``convo.query.drive``)
    notes: list[str]  # how the text leaves are read

    def __init__(
        self,
        cond: str = TRUE,
        params: tuple[Any, ...] = (),
        exact: bool = True,
        indexed: list[str] | None = None,
        checked: list[str] | None = None,
        complement: Cond | None = None,
        estimate: int | None = None,
        notes: list[str] | None = None,
        counted: Cond | None = None,
        union: list[Cond] | None = None,
        since: tuple[str, bool] | None = None,
        fts: Any = None,
        total: Cond | None = None,
    ) -> None:
        self.cond = cond
        self.params = params
        self.exact = exact
        self.indexed = [] if indexed is None else indexed
        self.checked = [] if checked is None else checked
        self.complement = complement
        self.counted = counted
        self.total = total
        self.union = union
        self.since = since
        self.fts = fts
        self.estimate = estimate
        self.notes = [] if notes is None else notes

    @property
    def narrows(self) -> bool:
        """The condition leaves some messages out (else the index only orders)."""
        return self.cond != TRUE


class _Compiler:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.leaves: dict[Node, Sql | None] = {}
        self.plan = Plan()

    def leaf(self, node: Term | Range) -> Sql | None:
        if node in self.leaves:
            return self.leaves[node]
        sql = self._range(node) if isinstance(node, Range) else self._term(node)
        if sql is None or not sql.exact:
            self.plan.exact = False
        self.leaves[node] = sql
        return sql

    def _range(self, node: Range) -> Sql:
        bounds = (("m.timestamp >= ?", node.since), ("m.timestamp < ?", node.until))
        self._note(self.plan.indexed, "date")
        given = [(c, v) for c, v in bounds if v]
        return Sql(" AND ".join(c for c, _ in given) or TRUE, tuple(v for _, v in given))

    def _term(self, node: Term) -> Sql | None:
        f = FIELDS[node.field]
        name = f.words[0] if f.words else f.name
        sql = f.sql(self.conn, node.value) if f.sql is not None else None
        self._note(self.plan.indexed if sql is not None else self.plan.checked, name)
        if sql is not None and not sql.exact:
            self._note(self.plan.checked, name)
        return sql

    @staticmethod
    def _note(names: list[str], name: str) -> None:
        if name not in names:
            names.append(name)

    def both(self, node: Node, negated: bool) -> tuple[Cond, Cond]:
        """``(sup, sub)`` of ``node``."""
        if isinstance(node, Term | Range):
            sql = self.leaf(node)
            if sql is None:
                return (TRUE, ()), (FALSE, ())
            cond = (
                f"ifnull(({sql.cond}), 0)"
                if negated and sql.cond not in (TRUE, FALSE)
                else sql.cond
            )
            c = (cond if sql.cond not in (TRUE, FALSE) else sql.cond, sql.params)
            return c, (c if sql.exact else (FALSE, ()))
        if isinstance(node, Not):
            sup, sub = self.both(node.child, not negated)
            return negate(sub), negate(sup)
        parts = [self.both(c, negated) for c in node.children]
        join = conjoin if isinstance(node, And) else disjoin
        return join([s for s, _ in parts]), join([s for _, s in parts])


def compile_where(conn: sqlite3.Connection, node: Node | None) -> Plan:
    """The index's plan for ``node`` (None: everything) on the open index ``conn``."""
    if node is None:
        return Plan()
    compiler = _Compiler(conn)
    (cond, params), _ = compiler.both(node, False)
    plan = compiler.plan
    depth, size = _shape(node)
    if (depth > _SHALLOW or size > _FEW_LEAVES) and not _parses(conn, cond, params):
        checked = plan.indexed + [c for c in plan.checked if c not in plan.indexed]
        return Plan(exact=False, checked=checked, notes=[TOO_DEEP])
    plan.cond, plan.params = cond, params
    if isinstance(node, And) and not plan.exact and cond not in (TRUE, FALSE):
        from convo.query.drive import Part, shape

        parts = [
            Part(*compiler.both(c, False)[0], compiler.leaves.get(c), _name(c))
            for c in node.children
        ]
        (plan.cond, plan.params), plan.estimate, plan.notes = shape(conn, parts)
    if plan.exact:
        _counting(compiler, node, plan)
    elif isinstance(node, Term):
        leaf = compiler.leaves.get(node)
        plan.fts = None if leaf is None else leaf.fts
    return plan


def _shape(node: Node) -> tuple[int, int]:
    """How deep the tree nests (a leaf is 1) and how many leaves it has, without
    recursion."""
    deepest, leaves, todo = 0, 0, [(node, 1)]
    while todo:
        n, d = todo.pop()
        deepest = max(deepest, d)
        if isinstance(n, And | Or):
            todo.extend((c, d + 1) for c in n.children)
        elif isinstance(n, Not):
            todo.append((n.child, d + 1))
        else:
            leaves += 1
    return deepest, leaves


def _parses(conn: sqlite3.Connection, cond: str, params: tuple[Any, ...]) -> bool:
    """SQLite can prepare ``cond`` (a deep tree's SQL may overflow its parser's stack,
    or pass its expression depth: ``TOO_DEEP``)."""
    try:
        conn.execute(f"SELECT 1 FROM messages m WHERE {cond} LIMIT 0", params).fetchall()
    except sqlite3.OperationalError as e:
        if any(w in str(e) for w in ("stack overflow", "too large", "too many SQL variables")):
            return False
        raise
    return True


def _counting(compiler: _Compiler, node: Node, plan: Plan) -> None:
    """The ways ``count`` may count the exact ``plan`` of ``node`` other than its
    condition: ``complement``, ``counted``, ``since``, ``union`` (see ``Plan``)."""
    negated = isinstance(node, Not)
    one = node.child if isinstance(node, Not) else node
    leaf = compiler.leaf(one) if isinstance(one, Term | Range) else None
    if leaf is not None and leaf.cond not in (TRUE, FALSE):
        if negated:  # NOT ifnull(leaf, 0): the rows where the leaf is not TRUE
            plan.complement = (leaf.cond, leaf.params)
        plan.counted = _distinct_rows(leaf)
        plan.total = (leaf.total, leaf.params) if leaf.total is not None else None
    if isinstance(node, Range) and bool(node.since) != bool(node.until):
        plan.since = (node.since, True) if node.since else (str(node.until), False)
    if isinstance(node, Or) and _unites(node, plan):
        plan.union = [s for s in (_ids(compiler, c) for c in node.children) if s[0] != FALSE]


def _unites(node: Or, plan: Plan) -> bool:
    """``count`` may count the exact ``plan`` of ``node`` as a UNION (``_UNION_MAX``)."""
    return plan.cond not in (TRUE, FALSE) and len(node.children) <= _UNION_MAX


def _ids(compiler: _Compiler, node: Node) -> Cond:
    """A SELECT of the ids of the messages the exact ``node`` selects (its distinct rows
    when it is such a leaf), or FALSE."""
    if isinstance(node, Term):
        leaf = compiler.leaf(node)
        rows = None if leaf is None else _distinct_rows(leaf)
        if rows is not None:
            return rows
    cond, params = compiler.both(node, False)[0]
    if cond == FALSE:
        return FALSE, ()
    return f"SELECT m.message_id FROM messages m WHERE {cond}", params


def _distinct_rows(leaf: Sql) -> Cond | None:
    """The leaf's ``rows`` and parameters when they list each of its messages once
    (``Sql.distinct``). A tag's rows of ``message_tags`` are counted without looking up
    each message in ``messages``: ``count(*)`` of the 10k messages of ``tag:urgent`` on
    the 1M-message benchmark store took 0.3 ms of CPU, against 13-19 ms through
    ``m.message_id IN (...)`` (a seek of ``messages`` per row); as whole processes
    (Python, sqlite3 and the count alone), 23 against 42 ms of CPU (11 alternating
    runs, load 1.7)."""
    return (leaf.rows, leaf.params) if leaf.rows is not None and leaf.distinct else None


def _name(node: Node) -> str:
    if isinstance(node, Term):
        f = FIELDS[node.field]
        return f.words[0] if f.words else f.name
    return "date" if isinstance(node, Range) else "a group"


def count(reader: Any, plan: Plan) -> int:
    """How many messages an exact ``plan`` selects on the index ``reader``
    (``index.lookup.Reader``); a leaf with distinct rows, their count. A negated leaf is
    the total (the meta table's count) less the leaf's own count: ``-tag:urgent`` on a
    1M-message store reads the 10k rows of the tag, not the 990k without it (328 ms →
    about 80 ms as a whole command)."""
    if plan.total is not None:
        n = int(reader.conn.execute(*plan.total).fetchone()[0])
        return int(reader.count()) - n if plan.complement is not None else n
    if plan.counted is not None:
        n = int(reader.rows(*plan.counted))
        return int(reader.count()) - n if plan.complement is not None else n
    if plan.complement is not None:
        return int(reader.count()) - int(reader.count(*plan.complement))
    if plan.since is not None:
        return _either_side(reader, *plan.since)
    if plan.union is not None and _few(reader, plan.union):
        union = " UNION ".join(c for c, _ in plan.union)
        return int(reader.rows(union, tuple(p for _, ps in plan.union for p in ps)))
    return int(reader.count(plan.cond, plan.params))


# An OR's alternatives are counted as the UNION of their ids when each selects under
# 1/UNION_SHARE of the messages. SQLite counts ``a OR b`` by collecting the ids of each
# and reading each message of ``b`` when ``b`` is a SELECT of ids (a tag: a seek of
# ``messages`` per row), where the UNION only sorts the ids (a b-tree): on the 1M-message
# benchmark store, ``from:quinn OR tag:urgent`` (20k messages) 23 against 7-11 ms of CPU;
# but ``format:mbox OR role:user`` (1M) 131 against 410 ms, hence the bound, each
# alternative counted up to it first (a few ms at most).
UNION_SHARE = 16


def _few(reader: Any, union: list[Cond]) -> bool:
    cap = int(reader.count()) // UNION_SHARE + 1
    return all(not reader.at_least_rows(select, params, cap) for select, params in union)


def _either_side(reader: Any, bound: str, since: bool) -> int:
    """How many messages are at or after ``bound`` (``since``) or before it. Every message
    has a time, so one side is the total less the other: the side that the times of the
    first and the last message, read linearly, say is the smaller is counted, up to half
    the messages (else the other side is). SQLite counts a range by stepping through its
    entries of ``messages_by_time`` (about 20 ns each): ``--since 2018-01-01`` on the
    1M-message benchmark store (800k messages after it) took 16-24 ms of CPU, its 200k
    before it 9-13 ms."""
    ge, lt = ("m.timestamp >= ?", (bound,)), ("m.timestamp < ?", (bound,))
    wanted, other = (ge, lt) if since else (lt, ge)
    total = int(reader.count())
    share = _share_before(reader.conn, bound)
    if share is None or (share >= 0.5) == since:  # the wanted side is the smaller one
        return int(reader.count(*wanted))
    half = total // 2 + 1
    n = int(reader.bounded(*other, half))
    return total - n if n < half else int(reader.count(*wanted))


def _share_before(conn: sqlite3.Connection, bound: str) -> float | None:
    """The share of the messages before ``bound`` if times were spread evenly between the
    first and the last message's (None: not known)."""
    first = conn.execute("SELECT julianday(min(timestamp)) FROM messages").fetchone()[0]
    last = conn.execute("SELECT julianday(max(timestamp)) FROM messages").fetchone()[0]
    at = conn.execute("SELECT julianday(?)", (bound,)).fetchone()[0]
    if first is None or last is None or at is None or last <= first:
        return None
    return min(1.0, max(0.0, (at - first) / (last - first)))


def explain(plan: Plan | None, *, reason: str = "") -> str:
    """One line for ``--explain``: how the query is answered, and why (``reason``: why a
    plan the index could run is scanned instead)."""
    if plan is None:
        return f"plan: scan ({reason})" if reason else "plan: scan"
    if reason:
        return f"plan: scan ({reason}; checked on each line: {', '.join(plan.checked)})"
    if plan.exact:
        fields = ", ".join(plan.indexed) or "no filter"
        return f"plan: index (exact: {fields})"
    if not plan.narrows:
        if TOO_DEEP in plan.notes:
            return explain(plan, reason=TOO_DEEP)
        return f"plan: scan (the index holds none of: {', '.join(plan.checked)})"
    notes = "".join(f"; {n}" for n in plan.notes)
    return (
        f"plan: index (narrowed by: {', '.join(plan.indexed)}; "
        f"checked on each candidate: {', '.join(plan.checked)}{notes})"
    )
