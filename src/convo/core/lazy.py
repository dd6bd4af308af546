"""Package attributes imported on first use: the one ``__getattr__`` lazy packages share.

A package lists ``{attribute: module}`` and sets ``__getattr__ = lazy_attributes(...)``
(PEP 562): ``import convo`` or a submodule import then runs no heavy module, and the
first access imports the one module that defines the attribute and caches the value.
An attribute named as a submodule is (``keep_names``) is kept from the submodule.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    import re
    from typing import Any, AnyStr


def lazy_attributes(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``name`` from ``modules[name]``, kept
    in ``namespace`` (the package's ``globals()``) so it is imported once."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


def keep_names(package: str, names: frozenset[str]) -> None:
    """Keep ``names`` of ``package`` (a function, a registry) from the submodules of the
    same names: importing a submodule binds it to its package's attribute, so that once
    anything had imported ``convo.index.check``, ``convo.index.check`` was the module and
    not the function, and ``convo.output.exporters.registry`` the module and not the
    registry, depending on what had been imported before. That binding is skipped for
    ``names`` (the submodules stay in ``sys.modules``); a lazy name is then imported by
    ``lazy_attributes`` on first use as any other."""

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: object) -> None:
            if name in names and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    sys.modules[package].__class__ = _Package


class LazyPattern:
    """A regular expression compiled on its first use: what ``pattern`` returns.

    Its first attribute read compiles it and sets every method and attribute of the
    compiled pattern on this object (slots), so later calls cost what the compiled
    pattern's do."""

    __slots__ = (
        "_args", "findall", "finditer", "flags", "fullmatch", "groupindex", "groups",
        "match", "pattern", "search", "split", "sub", "subn",
    )  # fmt: skip

    def __init__(self, source: str | bytes, flags: int = 0) -> None:
        self._args: tuple[Any, int] = (source, flags)

    def __getattr__(self, name: str) -> Any:
        if name not in LazyPattern.__slots__[1:]:
            raise AttributeError(name)
        import re

        compiled: Any = re.compile(*self._args)
        for attribute in LazyPattern.__slots__[1:]:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)


def pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)`` on first use, for a module whose import would
    otherwise compile patterns that a command may never use: ``core.timestamps``'
    fourteen took about 9M instructions (2 ms) of every indexed read's start-up, which
    uses one or none of them (docs/startup.md)."""
    return LazyPattern(source, flags)  # type: ignore[return-value]
