"""The exporter registry: every ``convo export --to`` format, built-in or third-party.

An exporter is a frozen ``Exporter``: its name, its kind (``agent``: JSON values a
framework loads; ``document``: text people read; ``dataset``: files written at a path (a folder; one SQLite database),
``write_dir(records, folder, **options)``, such as Parquet; ``write_parts(parts, filters,
folder, **options)`` when it can also read large inputs itself, on several cores, and
returns None for inputs it leaves to ``write_dir``), a description, the whole-result
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
from convo.core.plugins import PluginRegistry

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
    write_parts: Callable[..., int | None] | None = None


class Registry(PluginRegistry[Exporter]):
    group = ENTRY_POINT_GROUP
    builtins = (BUILTIN_HOOK,)

    def register(self, exporter: Exporter) -> None:
        if exporter.kind not in ("agent", "document", "dataset"):
            raise ValueError(
                f"exporter {exporter.name!r}: kind must be 'agent', 'document' or 'dataset'"
            )
        if (exporter.kind == "dataset") != (exporter.write_dir is not None):
            raise ValueError(f"exporter {exporter.name!r}: write_dir is what a dataset has")
        super().register(exporter)

    def exporters(self) -> list[Exporter]:
        return self.items()

    def unknown(self, name: str) -> Exception:
        return UsageError(
            f"unknown export format {name!r}", hint="choose " + "|".join(self.names())
        )


registry = Registry()
