"""The filter tree: what a query means, and how it becomes a ``Filters`` the scan runs.

Leaves are ``Term`` (a field and a value) and ``Range`` (``since <= t < until``); inner
nodes ``And`` (AND), ``Or`` (OR) and ``Not``. The query language
(``convo.query.language``) and the read options (``-s``, ``--tag``, ``--since``...)
build the same tree, so ``-s alice`` and ``from:alice`` are one filter.

What each leaf field matches, and how the scan, the prefilter and the index decide it,
is declared once in ``convo.query.field_table``.

``to_filters(tree)``: a tree the flat ``Filters`` can say exactly (an AND of one group per
filter kind, each an OR of that kind) becomes exactly that ``Filters``, the fastest scan.
Any other tree rides in ``Filters.tree`` as the exact check, and the flat fields carry
only what every match must hold, for the byte prefilter: an AND keeps its children's
needles, an OR keeps a kind only when every branch needs it (otherwise one word of each
branch, looked for anywhere in the line), a NOT keeps nothing. So a line is skipped on
its bytes only when every branch of an OR would skip it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from convo.core.names import NameQuery
from convo.core.slotted import Frozen, Slotted
from convo.query.field_table import FIELDS, FLAT
from convo.query.filters import Filters, time_check

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.core.people import People  # (loaded with a people file: query.model)

Check = Callable[[dict[str, "Any"]], bool]

LEAF_FIELDS = tuple(f for f in FIELDS if f != "date")


class Term(Frozen):
    __slots__ = ("field", "value")
    field: str  # one of LEAF_FIELDS
    value: str

    def __init__(self, field: str, value: str) -> None:
        self._set(field=field, value=value)

    def check(self) -> Check:
        return FIELDS[self.field].check(self.value)


class Range(Frozen):
    __slots__ = ("since", "until")
    since: str | None  # record timestamp strings (timestamps.parse_when)
    until: str | None

    def __init__(self, since: str | None = None, until: str | None = None) -> None:
        self._set(since=since, until=until)

    def check(self) -> Check:
        return time_check(self.since, self.until)


def _joined(join: Callable[[Iterable[bool]], bool], children: tuple[Node, ...]) -> Check:
    parts = [c.check() for c in children]
    return lambda r: join(p(r) for p in parts)


class And(Frozen):
    __slots__ = ("children",)
    children: tuple[Node, ...]

    def __init__(self, children: tuple[Node, ...]) -> None:
        self._set(children=children)

    def check(self) -> Check:
        return _joined(all, self.children)


class Or(Frozen):
    __slots__ = ("children",)
    children: tuple[Node, ...]

    def __init__(self, children: tuple[Node, ...]) -> None:
        self._set(children=children)

    def check(self) -> Check:
        return _joined(any, self.children)


class Not(Frozen):
    __slots__ = ("child",)
    child: Node

    def __init__(self, child: Node) -> None:
        self._set(child=child)

    def check(self) -> Check:
        inner = self.child.check()
        return lambda r: not inner(r)


Node = Term | Range | And | Or | Not


def all_of(nodes: Iterable[Node | None]) -> Node | None:
    """The AND of ``nodes`` (Nones dropped, nested ANDs flattened); None for none."""
    out: list[Node] = []
    for n in nodes:
        if isinstance(n, And):
            out.extend(n.children)
        elif n is not None:
            out.append(n)
    return None if not out else out[0] if len(out) == 1 else And(tuple(out))


def any_of(nodes: Iterable[Node]) -> Node | None:
    """The OR of ``nodes`` (nested ORs flattened); None for none."""
    out: list[Node] = []
    for n in nodes:
        out.extend(n.children if isinstance(n, Or) else [n])
    return None if not out else out[0] if len(out) == 1 else Or(tuple(out))


def terms(name: str, values: Iterable[str]) -> Node | None:
    """``-s a -s b`` as a tree: the OR of one term per value."""
    return any_of(Term(name, v) for v in values)


def leaves(node: Node | None) -> Iterator[Term | Range]:
    """The terms and ranges of ``node``, in order (negated ones too)."""
    if node is None:
        return
    if isinstance(node, Term | Range):
        yield node
    elif isinstance(node, Not):
        yield from leaves(node.child)
    else:
        for child in node.children:
            yield from leaves(child)


def map_terms(node: Node, fn: Callable[[Term], Node]) -> Node:
    """``node`` with every term replaced by ``fn(term)`` (people's aliases, say)."""
    if isinstance(node, Term):
        return fn(node)
    if isinstance(node, And):
        return And(tuple(map_terms(c, fn) for c in node.children))
    if isinstance(node, Or):
        return Or(tuple(map_terms(c, fn) for c in node.children))
    if isinstance(node, Not):
        return Not(map_terms(node.child, fn))
    return node


def with_people(node: Node, people: People) -> Node:
    """``from:``/``to:`` terms that name a person (``core.people``) as the OR of the
    person's aliases, so every name of the person finds their messages."""

    def expand(term: Term) -> Node:
        names = people.aliases_for(term.value) if term.field in ("from", "to") else []
        return any_of(Term(term.field, n) for n in names) or term

    return map_terms(node, expand)


# -- the flat form, exact or as prefilter hints


class FlatFilters(Slotted):
    """Filters lists by name, and a time range."""

    __slots__ = ("lists", "since", "until")
    lists: dict[str, list[str]]
    since: str | None
    until: str | None

    def __init__(
        self,
        lists: dict[str, list[str]] | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> None:
        self.lists = {} if lists is None else lists
        self.since = since
        self.until = until

    def filters(self, **kw: Any) -> Filters:
        given: dict[str, Any] = {**self.lists, **kw}
        return Filters(since=self.since, until=self.until, **given)

    def narrow(self, since: str | None, until: str | None) -> None:
        """AND a time range into this one."""
        self.since = max(filter(None, (self.since, since)), default=None)
        self.until = min(filter(None, (self.until, until)), default=None)


def _group(child: Node) -> tuple[str, list[str]] | None:
    """A node that is one flat filter kind ORed: its field and values; else None."""
    group = child.children if isinstance(child, Or) else (child,)
    if not all(isinstance(t, Term) and t.field in FLAT for t in group):
        return None
    names = {t.field for t in group if isinstance(t, Term)}
    if len(names) != 1:
        return None
    return names.pop(), [t.value for t in group if isinstance(t, Term)]


def _exact(node: Node) -> FlatFilters | None:
    """``node`` as flat filters that mean exactly the same, or None when they cannot."""
    out = FlatFilters()
    words: list[str] = []
    for child in node.children if isinstance(node, And) else (node,):
        if isinstance(child, Range):
            out.narrow(child.since, child.until)
            continue
        group = _group(child)
        if group is None:
            return None
        name, values = group
        if name == "words" and len(values) == 1:  # words ANDed: one value holding them all
            words.append(values[0])
        elif FLAT[name] in out.lists:
            return None
        else:
            out.lists[FLAT[name]] = values
    if words:
        if "texts" in out.lists:
            return None
        out.lists["texts"] = [" ".join(words)]
    return out


_NEEDLE_KINDS = ("speakers", "listeners", "tags", "texts")


def _needle_word(kind: str, value: str) -> str:
    """One word every line a ``kind`` value matches holds (for the ``texts`` needle)."""
    words = NameQuery(value).tokens if kind in ("speakers", "listeners") else value.split()
    return max(words, key=len, default="")


def _hints(node: Node) -> FlatFilters:
    """What every record ``node`` matches must hold, as flat filters (see the docstring)."""
    if isinstance(node, Range):
        return FlatFilters(since=node.since, until=node.until)
    if isinstance(node, Term):
        kind = FIELDS[node.field].needle
        return FlatFilters({kind: [node.value]}) if kind in _NEEDLE_KINDS else FlatFilters()
    if isinstance(node, And):
        out = FlatFilters()
        for h in map(_hints, node.children):
            for k, v in h.lists.items():
                if k not in out.lists or len(v) < len(out.lists[k]):
                    out.lists[k] = v
            out.narrow(h.since, h.until)
        return out
    if isinstance(node, Or):
        return _either([_hints(c) for c in node.children])
    return FlatFilters()  # Not: a line without a word may match


def _either(branches: list[FlatFilters]) -> FlatFilters:
    """What every branch of an OR needs: a kind all branches need (their values ORed),
    else one word of each branch anywhere in the line; the hull of their time ranges."""
    since = [b.since for b in branches]
    until = [b.until for b in branches]
    out = FlatFilters(
        since=min(since) if None not in since else None,  # type: ignore[type-var]
        until=max(until) if None not in until else None,  # type: ignore[type-var]
    )
    if not all(b.lists for b in branches):
        return out
    common = set.intersection(*(set(b.lists) for b in branches))
    for k in common:
        out.lists[k] = [v for b in branches for v in b.lists[k]]
    if not common:
        out.lists["texts"] = [_needle_word(k, v) for b in branches for k, v in _fewest(b)]
    return out


def _fewest(flat: FlatFilters) -> list[tuple[str, str]]:
    """The values of ``flat``'s kind with the fewest alternatives, with their kind."""
    kind = min(flat.lists, key=lambda k: len(flat.lists[k]))
    return [(kind, v) for v in flat.lists[kind]]


class Compiled(Frozen):
    """A tree with its compiled exact check: the ``Filters.tree`` of a query (equal
    when the trees are)."""

    __slots__ = ("check", "node")
    _uncompared = ("check",)
    node: Node
    check: Check

    def __init__(self, node: Node, check: Check) -> None:
        self._set(node=node, check=check)

    @classmethod
    def of(cls, node: Node) -> Compiled:
        return cls(node, node.check())

    def __reduce__(self) -> tuple[Any, tuple[Node]]:
        # The check is a closure; a worker process (query.parallel) compiles its own.
        return (Compiled.of, (self.node,))


def to_filters(node: Node | None, **kw: Any) -> Filters:
    """The ``Filters`` the scan runs for ``node`` (``kw``: limit, reverse)."""
    if node is None:
        return Filters(**kw)
    exact = _exact(node)
    if exact is not None:
        return exact.filters(**kw)
    return _hints(node).filters(tree=Compiled.of(node), **kw)
