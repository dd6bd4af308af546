"""Package attributes imported on first use: the one ``__getattr__`` lazy packages share.

A package lists ``{attribute: module}`` and sets ``__getattr__ = lazy_attributes(...)``
(PEP 562): ``import convo`` or a submodule import then runs no heavy module, and the
first access imports the one module that defines the attribute and caches the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any


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
