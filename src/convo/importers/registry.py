"""The importer registry: every input format, built-in or third-party, registers here.

A format is a name, file patterns, a cheap sniff of the first bytes and a streaming
reader. Each built-in module lists its formats in a ``FORMATS`` tuple; its family package
(``records``, ``transcripts``, ``email``, ``agents``, ``apps``, ``forums``) names the
modules in ``MODULES`` and registers them through the same ``register(registry)`` hook
that third parties expose in the ``convo.importers`` entry-point group, as llm does for
its plugins.

A reader is ``read(source, ctx) -> Iterator[ConversationMessage]``. It yields messages
with whatever it knows (``id`` from the source when there is one); the ingest pipeline
fills ``format``, ``source_id`` fallbacks, content-hash ids and extra tags. A bad record
goes to ``ctx.reject(where, reason, raw)``, which counts it, reports it, keeps it for
``--rejects`` and raises under ``--strict``; the reader then carries on with the next.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import KW_ONLY, dataclass

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.plugins import PluginRegistry
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.fields import Fields

__all__ = [
    "Fields",
    "Format",
    "ImportContext",
    "ImportOptions",
    "Registry",
    "Source",
    "detect",
    "get_format",
    "registry",
]

Sniff = Callable[[Source], int]
Reader = Callable[[Source, ImportContext], Iterator[ConversationMessage]]

BUILTIN_MODULES = (
    "convo.importers.records",
    "convo.importers.transcripts",
    "convo.importers.email",
    "convo.importers.agents",
    "convo.importers.apps",
    "convo.importers.forums",
)


@dataclass(frozen=True)
class Format:
    """One input format.

    ``sniff`` returns a confidence from 0 (not this format) to 100 (certainly this
    format), looking only at ``source.head`` (and, for directories, at names inside it).
    A file-name match of ``patterns`` adds a little, so content decides and the name
    breaks ties.

    ``record_start`` (line-oriented formats that read through ``source.open()``) says
    whether a line (its bytes, with its newline) begins a record and the reader's state
    needs nothing from the lines before it: such a file may be split at those lines and
    its ranges read on several cores (``pipeline.split``). The reader then gets a
    ``Source`` whose ``open()`` gives one range (``head`` stays the whole file's) and an
    ``ImportContext.start`` with the line and record numbers of the range's start.
    Formats without one are never split. ``record_prefix``, when set, is what every
    record-start line begins with, so counting a range's records (``pipeline.split``)
    tests only the lines that begin with it.

    ``fields`` says what the format makes of its source, field by field
    (``importers.fields``); every built-in format has one, for the format reference.

    Built-in modules declare theirs positionally, from named constants
    (``Format(NAME, "chat", DESCRIPTION, PATTERNS, sniff, read, EXAMPLE)``): the first
    seven fields are in that order; the rest are keyword-only.
    """

    name: str
    family: str
    description: str
    patterns: tuple[str, ...]
    sniff: Sniff
    read: Reader
    example: str = ""
    _: KW_ONLY
    directory: bool = False  # reads a directory (Maildir, Slack export) rather than a file
    record_start: Callable[[bytes], bool] | None = None
    record_prefix: bytes = b""
    fields: Fields | None = None


class Registry(PluginRegistry[Format]):
    group = "convo.importers"
    builtins = BUILTIN_MODULES

    def formats(self) -> list[Format]:
        return self.items()

    def unknown(self, name: str) -> Exception:
        known = ", ".join(sorted(self.names()))
        return InputError(f"unknown format {name!r}", hint=f"choose one of: {known}")

    def detect(self, source: Source) -> Format:
        """The most likely format of ``source``, or an InputError naming the formats tried."""
        best: Format | None = None
        best_score = 0
        for fmt in self.formats():
            if fmt.directory != source.is_dir:
                continue
            score = fmt.sniff(source)
            if score <= 0:
                continue
            if any(fnmatch.fnmatch(source.match_name, p) for p in fmt.patterns):
                score += 5
            if score > best_score:
                best, best_score = fmt, score
        if best is None:
            tried = ", ".join(f.name for f in self.formats() if f.directory == source.is_dir)
            raise InputError(
                "format not recognised (tried " + tried + ")",
                where=source.name,
                hint="name it with --from FORMAT (see `convo formats`)",
            )
        return best


registry = Registry()


def get_format(name: str) -> Format:
    return registry.get(name)


def detect(source: Source) -> Format:
    return registry.detect(source)


def matches_pattern(source: Source, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(source.match_name, p) for p in patterns)


def head_lines(source: Source, limit: int = 8) -> list[str]:
    """The first ``limit`` non-blank lines of the decoded head (BOM removed), for sniffing."""
    return [x for x in source.head_text().splitlines() if x.strip()][:limit]


def register_modules(package: str, names: Iterable[str], registry: Registry) -> None:
    """Register the ``FORMATS`` of ``package``'s modules, in order (detection's tie-break
    order). Called from the family packages' ``register`` when the registry loads, not at
    start-up; a third party registers through its own ``register(registry)`` instead."""
    for name in names:
        for fmt in importlib.import_module(f"{package}.{name}").FORMATS:
            registry.register(fmt)
