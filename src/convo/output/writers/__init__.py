"""Output formats of the read commands (``-f/--format``): a registry of ``Writer``\\ s.

Built-in writers (table, jsonl, json, csv, markdown, text) register through the same
``register(registry)`` hook a third-party package exposes in the ``convo.writers``
entry-point group, so ``--format``'s choices are whatever is registered. They are
declared in ``builtin.py``; each writer's module is imported when it is made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from typing import TYPE_CHECKING

from convo.core.errors import UsageError
from convo.core.plugins import PluginRegistry

if TYPE_CHECKING:
    from convo.output.env import Environment
    from convo.output.writers.base import RecordWriter

BUILTIN_MODULES = ("convo.output.writers.builtin",)  # declarations only: writers load on use


@dataclass(frozen=True)
class WriteOptions:
    """What a writer may need besides the stream: the zone times are shown in."""

    utc: bool = False
    zone: tzinfo | None = None  # None: local time (or UTC with ``utc``)


@dataclass(frozen=True)
class Writer:
    """One output format: ``factory(env, options)`` makes the streaming writer.

    ``raw``: the writer passes each selected line through as it is, so the scanner need
    not parse lines it can decide on bytes.
    """

    name: str
    description: str
    factory: Callable[[Environment, WriteOptions], RecordWriter]
    raw: bool = False


class WriterRegistry(PluginRegistry[Writer]):
    group = "convo.writers"
    builtins = BUILTIN_MODULES

    def unknown(self, name: str) -> Exception:
        return UsageError(f"unknown --format {name!r}", hint="choose " + "|".join(self.names()))


registry = WriterRegistry()


def make_writer(name: str, env: Environment, options: WriteOptions) -> RecordWriter:
    """The streaming writer of the format ``name``."""
    return registry.get(name).factory(env, options)
