"""``core.slotted``: the value classes of the indexed read's path behave as the
dataclasses they replaced (equality, hashing, repr, pickling, copies, immutability)."""

from __future__ import annotations

import copy
import pickle

import pytest

from convo.cli.options import Spec
from convo.cli.read_args import ImportArgs, OrderArgs, ReadArgs
from convo.core.slotted import Frozen, Slotted
from convo.index.state import Status, SyncResult
from convo.output.writers import WriteOptions
from convo.query.field_table import Sql
from convo.query.filters import Filters
from convo.query.language import Token
from convo.query.model import Options, Query
from convo.query.plan import Plan
from convo.query.tree import And, Compiled, FlatFilters, Not, Or, Range, Term


class Point(Frozen):
    __slots__ = ("x", "y")
    x: int
    y: int

    def __init__(self, x: int, y: int = 0) -> None:
        self._set(x=x, y=y)


class Box(Slotted):
    __slots__ = ("items", "name")
    items: list[int]
    name: str

    def __init__(self, name: str = "", items: list[int] | None = None) -> None:
        self.name = name
        self.items = [] if items is None else items


def test_frozen_equality_hash_repr_and_immutability():
    assert Point(1, 2) == Point(1, 2) and hash(Point(1, 2)) == hash(Point(1, 2))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1) != (1, 0) and Point(1).__eq__((1, 0)) is NotImplemented
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    with pytest.raises(AttributeError, match="cannot assign to field 'x'"):
        Point(1).x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del Point(1).y
    with pytest.raises(AttributeError):
        Point(1).z = 1  # type: ignore[attr-defined]  # slots: no other attribute


def test_mutable_is_unhashable_and_copies_deeply():
    box = Box("a", [1])
    assert box == Box("a", [1]) and box != Box("b", [1])
    with pytest.raises(TypeError):
        hash(box)
    box.items.append(2)
    deep = copy.deepcopy(box)
    assert deep == box and deep.items is not box.items
    assert copy.copy(box).items is box.items


@pytest.mark.parametrize("value", [Point(1, 2), Box("a", [1, 2])])
def test_pickle_and_replace(value):
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(value, protocol=protocol))
        assert again == value and type(again) is type(value)
    changed = value.replace(**{value._fields[0]: value._values()[0]})
    assert changed == value and changed is not value
    with pytest.raises(TypeError, match="no field 'nope'"):
        value.replace(nope=1)


TREE = And((Term("from", "al"), Or((Term("tag", "x"), Not(Range("2024", None))))))
VALUES = [
    TREE,
    Compiled.of(TREE),
    FlatFilters({"tags": ["x"]}, since="2024"),
    Filters(tags=["x"], limit=3, tree=Compiled.of(TREE)),
    Query(TREE, limit=2, sort="-time", latest=5),
    Options(speakers=["al"], since="7d"),
    Plan("m.format = ?", ("mbox",), indexed=["format"]),
    Sql("m.role = ?", ("user",), rows="SELECT 1", distinct=True),
    Spec("tags", str, None, ("--tag", "-t"), "A tag.", "TAG"),
    ImportArgs(tz="UTC", merge=False),
    ReadArgs(inputs=["a"], options=Options(tags=["x"]), imports=ImportArgs(encoding="latin-1")),
    OrderArgs(sort="time", latest=3, count=True),
    Status("append", "the store grew", 3),
    SyncResult("rebuilt", 2, notes=["n"]),
    WriteOptions(utc=True, columns=("time",)),
    Token("field", "x", 3, "tag"),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_the_path_classes_pickle_copy_and_compare(value):
    again = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == value and copy.deepcopy(value) == value
    assert value.replace() == value
    assert repr(value).startswith(type(value).__qualname__ + "(")
    if isinstance(value, Frozen):
        assert hash(again) == hash(value)
        with pytest.raises(AttributeError):
            setattr(value, value._fields[0], None)


def test_tree_nodes_of_different_kinds_differ():
    """And and Or of the same children are different filters (a dict of nodes, the
    planner's, keeps both)."""
    a, b = Term("tag", "x"), Term("tag", "y")
    assert And((a, b)) != Or((a, b)) and len({And((a, b)): 1, Or((a, b)): 2}) == 2
    assert Term("tag", "x") != Term("from", "x") and Range("a") == Range("a", None)


def test_compiled_compares_its_tree_not_its_check():
    one, two = Compiled.of(TREE), Compiled.of(TREE)
    assert one.check is not two.check and one == two and hash(one) == hash(two)


def test_query_checks_and_replace():
    from convo.core.errors import UsageError

    with pytest.raises(UsageError):
        Query(limit=-1)
    with pytest.raises(UsageError):
        Query(TREE).replace(sort="size")
    assert Query(TREE).replace(limit=4) == Query(TREE, limit=4)
    assert Query().and_(Term("tag", "x")) == Query(Term("tag", "x"))


def test_mutable_defaults_are_not_shared():
    assert Filters().tags is not Filters().tags
    assert ReadArgs().imports is not ReadArgs().imports
    assert Plan().indexed is not Plan().indexed


def test_named_tuple_without_typing_is_a_named_tuple():
    from typing import NamedTuple as Typed

    from convo.core.slotted import NamedTuple

    class Mine(NamedTuple):
        """Doc."""

        a: int
        b: str = "x"

        def both(self) -> str:
            return f"{self.a}{self.b}"

    class Theirs(Typed):
        a: int
        b: str = "x"

    mine, theirs = Mine(1), Theirs(1)
    assert tuple(mine) == tuple(theirs) == (1, "x")
    assert mine._fields == theirs._fields and mine._replace(b="y") == (1, "y")
    assert repr(mine) == "Mine(a=1, b='x')" and mine.both() == "1x"
    assert Mine.__doc__ == "Doc." and Mine.__module__ == __name__
