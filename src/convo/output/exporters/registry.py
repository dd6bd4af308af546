"""The exporter registry: every ``convo export --to`` format, built-in or third-party.

An exporter is a frozen ``Exporter``: its name, its kind (``agent``: JSON values a
framework loads; ``document``: text people read; ``dataset``: files written into a folder,
``write_dir(records, folder, **options)``, such as Parquet), a description, the whole-result
function ``export(messages)`` and, where the format streams, ``stream(records)`` yielding
JSON values (agent) or text pieces (document) one record at a time, so memory stays flat.

Built-ins register through the same hook a third party exposes in the ``convo.exporters``
entry-point group: a ``register(registry)`` function (or a module holding one). This
module imports nothing heavy, so the command line can name the formats cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from convo.core.errors import UsageError
from convo.core.plugins import load_plugins

__all__ = ["ENTRY_POINT_GROUP", "Exporter", "Registry", "registry"]

ENTRY_POINT_GROUP = "convo.exporters"
BUILTIN_HOOK = "convo.output.exporters.builtin"


@dataclass(frozen=True)
class Exporter:
    """One export format (see the module docstring)."""

    name: str
    kind: Literal["agent", "document", "dataset"]
    description: str
    export: Callable[[Iterable[Any]], Any]
    stream: Callable[[Iterable[dict[str, Any]]], Iterator[Any]] | None = None
    write_dir: Callable[..., int] | None = None


class Registry:
    def __init__(self) -> None:
        self._exporters: dict[str, Exporter] = {}
        self._loaded = False

    def register(self, exporter: Exporter) -> None:
        if exporter.kind not in ("agent", "document", "dataset"):
            raise ValueError(
                f"exporter {exporter.name!r}: kind must be 'agent', 'document' or 'dataset'"
            )
        if (exporter.kind == "dataset") != (exporter.write_dir is not None):
            raise ValueError(f"exporter {exporter.name!r}: write_dir is what a dataset has")
        self._exporters[exporter.name] = exporter

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        load_plugins(self, ENTRY_POINT_GROUP, (BUILTIN_HOOK,))

    def exporters(self) -> list[Exporter]:
        self._load()
        return list(self._exporters.values())

    def names(self) -> list[str]:
        return [e.name for e in self.exporters()]

    def get(self, name: str) -> Exporter:
        self._load()
        try:
            return self._exporters[name]
        except KeyError:
            raise UsageError(
                f"unknown export format {name!r}", hint="choose " + "|".join(self._exporters)
            ) from None


registry = Registry()
