"""Small value classes without ``dataclasses``: ``Slotted`` and its immutable ``Frozen``.

A ``@dataclass`` costs start-up time twice: importing ``dataclasses`` (and the
``inspect`` it imports), then, for every class, the ``__init__``, ``__eq__``,
``__repr__`` (and, frozen, ``__hash__``, ``__setattr__``, ``__delattr__``) it writes
and compiles with ``exec``. An indexed read (``convo query --count``) declared about
twenty of them before a lookup of about a millisecond: with the import, 0.2-0.5 ms a
class and 8.8 ms for ``dataclasses`` and ``inspect``, about a quarter of its imports
(``python -X importtime``). The classes on that path derive from these instead: with
pathlib and dateutil also kept off it, that command's imports went from 54.7 to
32.2 ms (least of 7 runs each, same loaded machine) and 121 to 96 modules
(BENCHMARKS.md, the index section, has the commands' times).

A subclass names its fields in ``__slots__`` and sets each one in its own ``__init__``
(with the defaults and checks its dataclass had; keyword arguments named as the fields),
and gets from that list what a dataclass has: equality with an object of the same class
(field by field; ``_uncompared`` leaves some out), a ``repr`` naming each field,
pickling and ``copy`` (the fields set again, ``__init__`` not called), and
``replace(**changes)``, a copy with some fields changed (``dataclasses.replace``: its
``__init__`` called with every field by name). ``Frozen`` adds ``__hash__`` and refuses
assignment; its ``__init__`` sets the fields with ``_set``. ``_fields`` names the
fields (as a NamedTuple's does).
``tests/core/test_slotted.py`` checks these on the classes that use them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self


class Slotted:
    """A mutable value class: its fields are its ``__slots__`` (see the module)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    _uncompared: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields: list[str] = []
        for klass in reversed(cls.__mro__):
            fields.extend(s for s in klass.__dict__.get("__slots__", ()) if s not in fields)
        cls._fields = tuple(fields)
        cls._compared = tuple(f for f in fields if f not in cls._uncompared)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other: object) -> bool:  # (so unhashable, as a mutable dataclass)
        if other.__class__ is not self.__class__:
            return NotImplemented
        mine = tuple(getattr(self, f) for f in self._compared)
        return mine == tuple(getattr(other, f) for f in self._compared)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_rebuilt, (type(self), dict(zip(self._fields, self._values(), strict=True))))

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (field names to new values), as ``dataclasses.replace``."""
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__qualname__} has no field {sorted(unknown)[0]!r}")
        return type(self)(**{f: changes.get(f, getattr(self, f)) for f in self._fields})


class Frozen(Slotted):
    """An immutable, hashable value class (a frozen dataclass)."""

    __slots__ = ()

    def _set(self, **values: Any) -> None:
        """Set the fields (from ``__init__``)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in self._compared))


def _rebuilt(cls: type[Slotted], values: dict[str, Any]) -> Slotted:
    """An object of ``cls`` with these fields, its ``__init__`` not called (unpickling)."""
    obj = cls.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


class _TupleClass(type):
    """Makes each class derived from ``NamedTuple`` a ``collections.namedtuple``."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:  # ``NamedTuple`` itself
            return super().__new__(mcls, name, bases, ns)
        from collections import namedtuple

        fields = tuple(ns.get("__annotations__", {}))
        defaults = [ns[f] for f in fields if f in ns]
        made = namedtuple(name, fields, defaults=defaults, module=ns.get("__module__"))  # type: ignore[misc]
        made.__qualname__ = ns.get("__qualname__", name)
        made.__doc__ = ns.get("__doc__")
        for key, value in ns.items():
            if key not in fields and not (key.startswith("__") and key.endswith("__")):
                setattr(made, key, value)  # methods, properties, class constants
        return made


class NamedTuple(metaclass=_TupleClass):
    """``typing.NamedTuple``'s class syntax (fields as annotations, defaults, a docstring,
    methods) without importing ``typing`` (about 16M instructions, 3-4 ms, on an indexed
    read's path: docs/startup.md): the class made is a ``collections.namedtuple``. A
    module imports ``typing.NamedTuple`` for the type checker and this at run time::

        if TYPE_CHECKING:
            from typing import NamedTuple
        else:
            from convo.core.slotted import NamedTuple
    """
