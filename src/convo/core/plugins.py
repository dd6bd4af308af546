"""How every extension axis loads: built-ins through the same hook as third parties.

A registry (importers' formats, output writers, exporters) calls ``load_plugins`` once,
on first use. Each built-in module and each entry point of the registry's group is a
``register(registry)`` function or a module holding one, as llm does for its plugins; a
built-in that is also declared as an entry point (an installed convo) is loaded once.
``PluginRegistry`` is what the registries share: items by name, loaded on first use.

Importing ``importlib.metadata`` costs more than the rest of a short command (it brings
``email``, ``zipfile`` and ``csv``), so ``may_declare`` first looks for the group's name in
the ``entry_points.txt`` files where that module would find them; only when one mentions
it (or the search path holds something it reads another way) is the module asked.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Generic, Protocol, TypeVar

    class Named(Protocol):
        @property
        def name(self) -> str: ...

    T = TypeVar("T", bound=Named)

    class _Generic(Generic[T]):
        pass
else:
    T = None

    class _Generic:
        """``PluginRegistry[X]`` at run time: the class itself (``typing.Generic`` would
        import ``typing`` on the start-up of every command that writes, about 4 ms)."""

        def __class_getitem__(cls, item: object) -> type:
            return cls


def may_declare(group: str) -> bool:
    """False only when no distribution ``importlib.metadata`` can find declares an entry
    point of ``group``: the ``*.dist-info``/``*.egg-info`` folders of every ``sys.path``
    folder are where its path finder looks, and none of their ``entry_points.txt`` names
    the group. True when unsure: a zip on the path, another finder of distributions."""
    from importlib.machinery import PathFinder

    if any(
        getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
        for finder in sys.meta_path
    ):
        return True
    needle = group.encode()
    for entry in sys.path:
        root = entry or "."
        try:
            names = os.listdir(root)
        except NotADirectoryError:
            return True  # a zip file, read by importlib.metadata's own means
        except OSError:
            continue
        egg = root.lower().endswith(".egg")
        for name in names:
            low = name.lower()
            if low.endswith((".dist-info", ".egg-info")) or (egg and low == "egg-info"):
                try:
                    with open(os.path.join(root, name, "entry_points.txt"), "rb") as f:
                        if needle in f.read():
                            return True
                except OSError:
                    continue
    return False


def load_plugins(registry: Any, group: str, builtins: Iterable[str] = ()) -> None:
    points: list[Any] = []
    if may_declare(group):
        from importlib.metadata import entry_points

        points = list(entry_points(group=group))
    declared = {ep.value.split(":")[0] for ep in points}
    for module in builtins:
        if module not in declared:  # a source checkout not installed with pip
            importlib.import_module(module).register(registry)
    for ep in points:
        hook = ep.load()
        (getattr(hook, "register", None) or hook)(registry)


class PluginRegistry(_Generic[T]):
    """Items by name, loaded on first use: the ``builtins`` modules, then the entry points
    of ``group`` (``load_plugins``). A registry subclass names its group and built-ins and
    says what an unknown name is (``unknown``); registering a name again replaces it."""

    group: ClassVar[str]
    builtins: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self._items: dict[str, T] = {}
        self._loaded = False

    def register(self, item: T) -> None:
        self._items[item.name] = item

    def unregister(self, name: str) -> None:
        """Forget ``name`` (a test's plug-in, say); nothing happens when it is not there."""
        self._items.pop(name, None)

    def items(self) -> list[T]:
        self._load()
        return list(self._items.values())

    def names(self) -> list[str]:
        self._load()
        return list(self._items)

    def get(self, name: str) -> T:
        self._load()
        try:
            return self._items[name]
        except KeyError:
            raise self.unknown(name) from None

    def unknown(self, name: str) -> Exception:
        return KeyError(name)

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            load_plugins(self, self.group, self.builtins)
