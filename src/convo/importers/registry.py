"""The importer registry: every input format, built-in or third-party, registers here.

A format is a name, file patterns, a cheap sniff of the first bytes and a streaming
reader. Each built-in module lists its formats in a ``FORMATS`` tuple; its family package
(``records``, ``transcripts``, ``email``, ``agents``, ``apps``, ``forums``) declares them
through the same ``register(registry)`` hook that third parties expose in the
``convo.importers`` entry-point group, as llm does for its plugins.

A family declares its formats (``Registry.declare``: name, module, patterns, the gates of
``importers.gates``) rather than importing its modules: a module is imported when a gate
admits a source (its sniff is asked), when its format is named (``get``) or when every
format is listed (``formats``). A third party may ``register`` a ``Format`` or
``declare`` its own in the same way. Detection gives what it gave with every module
imported (``tests/importers/test_lazy_registry.py``); the start-up it saves is in
docs/startup.md.

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
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.lazy import pattern
from convo.core.plugins import PluginRegistry
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.fields import Fields
from convo.importers.gates import Gate, Head

TYPE_CHECKING = False
if TYPE_CHECKING:
    from convo.core.ranges import Range

__all__ = [
    "Declared",
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
    tests only the lines that begin with it. ``record_spans(range)``, when set, says
    whether the reader reads a record starting in the range over a record-start line
    (mbox: a trusted ``Content-Length``); a file where one does is read whole.

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
    record_spans: Callable[[Range], bool] | None = None
    fields: Fields | None = None


@dataclass(frozen=True)
class Declared:
    """A format known before its module is imported: what detection needs to decide
    whether to ask its sniff. ``module`` holds the format in its ``FORMATS``; ``gates``
    are alternatives, one of which admits every source the sniff scores above 0
    (``importers.gates``; none: the sniff is always asked). ``name``, ``patterns``,
    ``directory`` and ``family`` ("": not declared) are the format's own (checked against
    the module by the tests)."""

    name: str
    module: str
    patterns: tuple[str, ...]
    gates: tuple[Gate, ...] = ()
    directory: bool = False
    family: str = ""

    def admits(self, head: Head) -> bool:
        return not self.gates or any(g.admits(head, self.patterns) for g in self.gates)


class Registry(PluginRegistry["Format | Declared"]):
    group = "convo.importers"
    builtins = BUILTIN_MODULES

    def declare(
        self, package: str, entries: Iterable[tuple[Any, ...] | Declared], family: str = ""
    ) -> None:
        """Declare formats of ``package``'s modules, in order (detection's tie-break order):
        each entry is ``(module, name, patterns, gates...)`` or, with ``directory=True``,
        a ``Declared`` itself; ``module`` is relative to ``package``; ``family``: every
        format's family, so ``families()`` needs no module."""
        for entry in entries:
            if isinstance(entry, Declared):
                self.register(replace(entry, family=entry.family or family))
                continue
            module, name, patterns, *gates = entry
            self.register(
                Declared(name, f"{package}.{module}", tuple(patterns), tuple(gates), family=family)
            )

    def declared(self) -> list[Declared]:
        """The formats still only declared (their modules not imported)."""
        return [e for e in self.items() if isinstance(e, Declared)]

    def get(self, name: str) -> Format:
        entry = super().get(name)
        if isinstance(entry, Declared):
            entry = self._resolve(entry)
        return entry

    def families(self) -> dict[str, str]:
        """Format name -> family (``convo show``'s views, the web view, knowledge's email
        names), from the declarations where they say it: no importer module imported for
        it (each is 0.5-5 ms; all of them about 65 ms)."""
        return {
            e.name: e.family if isinstance(e, Declared) and e.family else self.get(e.name).family
            for e in self.items()
        }

    def formats(self) -> list[Format]:
        """Every format, every module imported (``convo formats``, the --from names' families)."""
        return [self.get(name) for name in self.names()]

    def _resolve(self, entry: Declared) -> Format:
        """Import ``entry``'s module; its formats replace their declarations (a format a
        plug-in registered under the same name since is left alone)."""
        module = importlib.import_module(entry.module)
        for fmt in module.FORMATS:
            current = self._items.get(fmt.name)
            if isinstance(current, Declared) and current.module == entry.module:
                self._items[fmt.name] = fmt
        found = self._items[entry.name]
        if isinstance(found, Declared):
            raise LookupError(f"{entry.module} holds no format {entry.name!r} in its FORMATS")
        return found

    def unknown(self, name: str) -> Exception:
        known = ", ".join(sorted(self.names()))
        return InputError(f"unknown format {name!r}", hint=f"choose one of: {known}")

    def detect(self, source: Source) -> Format:
        """The most likely format of ``source``, or an InputError naming the formats tried.

        A declared format's module is imported only when one of its gates admits the
        source; the formats' scores, and so the choice, are those of the eager loop."""
        best: Format | None = None
        best_score = 0
        head = Head(source)
        tried: list[str] = []
        for name in self.names():
            entry = self._items[name]
            if entry.directory != source.is_dir:
                continue
            tried.append(name)
            if isinstance(entry, Declared):
                if not entry.admits(head):
                    continue
                entry = self._resolve(entry)
            score = entry.sniff(source)
            if score <= 0:
                continue
            if any(fnmatch.fnmatch(source.match_name, p) for p in entry.patterns):
                score += 5
            if score > best_score:
                best, best_score = entry, score
        if best is None:
            raise InputError(
                f"format not recognised: none of the {len(tried)} formats reads {_looks(source)}",
                where=source.name,
                hint=_hint(source),
            )
        return best


_KEY = pattern(r'"([^"\\\x00-\x1f]{1,40})"\s*:')


# A JSON array's start: not ``[Alice Smith] 14:03:25`` or ``[00:00.000 --> ...]``.
_JSON_ARRAY = pattern(
    r'\[\s*(?:[{\["\]]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*[,\]\n]|true|false|null|\Z)'
)


def _looks(source: Source) -> str:
    """What a source no format read looks like, from its head, for the error: a folder,
    binary data, a JSON object or array with its first keys, else its first line (every
    format's name would be a list of 120 that says nothing of the file)."""
    if source.is_dir:
        return "this folder"
    head = source.head
    if not head.strip():
        return "an empty file"
    if b"\x00" in head[:4096]:
        return "binary data"
    text = source.head_text().lstrip()
    if text[:1] == "{" or _JSON_ARRAY.match(text):
        keys = list(dict.fromkeys(_KEY.findall(text[:65536])))[:6]
        what = "a JSON object" if text[0] == "{" else "a JSON array"
        return f"{what} holding the keys {', '.join(map(repr, keys))}" if keys else what
    first = next((x for x in text.splitlines() if x.strip()), "")
    return f"text starting {first.strip()[:60]!r}"


def _hint(source: Source) -> str:
    """How to read a source no format recognised."""
    if not source.is_dir:
        from convo.importers.context import run_file_hint

        lines = head_lines(source, 1)
        hint = run_file_hint(lines[0], source.name) if lines else None
        if hint is not None:
            return hint
    return "name it with --from FORMAT (see `convo formats`)"


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
