"""How every extension axis loads: built-ins through the same hook as third parties.

A registry (importers' formats, output writers, exporters) calls ``load_plugins`` once,
on first use. Each built-in module and each entry point of the registry's group is a
``register(registry)`` function or a module holding one, as llm does for its plugins; a
built-in that is also declared as an entry point (an installed convo) is loaded once.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any


def load_plugins(registry: Any, group: str, builtins: Iterable[str] = ()) -> None:
    from importlib.metadata import entry_points

    points = list(entry_points(group=group))
    declared = {ep.value.split(":")[0] for ep in points}
    for module in builtins:
        if module not in declared:  # a source checkout not installed with pip
            importlib.import_module(module).register(registry)
    for ep in points:
        hook = ep.load()
        (getattr(hook, "register", None) or hook)(registry)
