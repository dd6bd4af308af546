"""The output registry: every format convo writes, ``-f NAME`` and ``export --to NAME`` alike.

One registry holds them all, built-in or third-party, so a format is declared once and a
name means one thing (issue 34: one CSV and one Markdown writer). An entry is a frozen
``Exporter``: its name, its kind, a description and what it can do:

- ``view``: what a read command shows (``table``, ``text``, ``jsonl``, ``json``): a
  ``writer(env, options)`` factory of a streaming ``RecordWriter``, ``-f`` only.
  ``raw``: it passes each selected line through as it is, so the scanner need not parse
  lines it can decide on bytes.
- ``document``: text people read (markdown, csv, html, vtt, srt). A ``document()``
  factory of a push-style ``exporters.documents.Document`` serves both ``-f NAME`` and
  ``--to NAME`` (``stream`` is derived from it); a document without one (a generator
  with look-ahead, html/vtt/srt) is ``--to`` only.
- ``agent``: JSON values a framework loads, ``--to`` only.
- ``dataset``: files written at a path (a folder; one SQLite database),
  ``write_dir(records, folder, **options)``, such as Parquet; ``write_parts(parts,
  filters, folder, **options)`` when it can also read large inputs itself, on several
  cores, and returns None for inputs it leaves to ``write_dir``.

``export(messages)`` is the whole-result function, and ``stream(records)`` (where the
format streams) yields JSON values (agent) or text pieces (document) one record at a
time, so memory stays flat.

Built-ins register through the same hook a third party exposes in the ``convo.exporters``
entry-point group: a ``register(registry)`` function (or a module holding one). This
module imports nothing heavy, so the command line can name the formats cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from convo.core.errors import UsageError
from convo.core.plugins import PluginRegistry
from convo.core.slotted import Frozen

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any, Literal

    from convo.output.env import Environment
    from convo.output.exporters.documents import Document
    from convo.output.writers import WriteOptions
    from convo.output.writers.base import RecordWriter

__all__ = ["ENTRY_POINT_GROUP", "Exporter", "Registry", "registry"]

ENTRY_POINT_GROUP = "convo.exporters"
BUILTIN_HOOK = "convo.output.exporters.builtin"


class Exporter(Frozen):
    """One output format (see the module docstring)."""

    __slots__ = (
        "description",
        "document",
        "export",
        "kind",
        "name",
        "raw",
        "stream",
        "write_dir",
        "write_parts",
        "writer",
    )  # fmt: skip
    name: str
    kind: Literal["view", "agent", "document", "dataset"]
    description: str
    export: Callable[[Iterable[Any]], Any] | None
    stream: Callable[[Iterable[dict[str, Any]]], Iterator[Any]] | None
    write_dir: Callable[..., int] | None
    write_parts: Callable[..., int | None] | None
    document: Callable[[], Document] | None
    writer: Callable[[Environment, WriteOptions], RecordWriter] | None
    raw: bool

    def __init__(
        self,
        name: str,
        kind: Literal["view", "agent", "document", "dataset"],
        description: str,
        export: Callable[[Iterable[Any]], Any] | None = None,
        stream: Callable[[Iterable[dict[str, Any]]], Iterator[Any]] | None = None,
        write_dir: Callable[..., int] | None = None,
        write_parts: Callable[..., int | None] | None = None,
        document: Callable[[], Document] | None = None,
        writer: Callable[[Environment, WriteOptions], RecordWriter] | None = None,
        raw: bool = False,
    ) -> None:
        if document is not None:
            make = document

            def streamed(records: Iterable[Any]) -> Iterator[str]:
                from convo.output.exporters.documents import pieces

                return pieces(make(), records)

            def whole(messages: Iterable[Any]) -> str:
                return "".join(streamed(messages))

            stream = stream or streamed
            export = export or whole
            writer = writer or _document_writer(make)
        self._set(
            name=name, kind=kind, description=description, export=export, stream=stream,
            write_dir=write_dir, write_parts=write_parts, document=document, writer=writer,
            raw=raw,
        )  # fmt: skip

    @property
    def shown(self) -> bool:
        """``-f NAME`` takes it: a read command can write it to stdout."""
        return self.writer is not None

    @property
    def exported(self) -> bool:
        """``export --to NAME`` takes it."""
        return self.kind != "view"


def _document_writer(make: Callable[[], Document]):
    def writer(env: Environment, _options: WriteOptions) -> RecordWriter:
        from convo.output.writers.document import DocumentWriter

        return DocumentWriter(env.safe_stdout_bytes("text"), make())

    return writer


class Registry(PluginRegistry[Exporter]):
    group = ENTRY_POINT_GROUP
    builtins = (BUILTIN_HOOK,)

    def register(self, exporter: Exporter) -> None:
        if exporter.kind not in ("view", "agent", "document", "dataset"):
            raise ValueError(
                f"format {exporter.name!r}: kind must be 'view', 'agent', 'document' or 'dataset'"
            )
        if (exporter.kind == "dataset") != (exporter.write_dir is not None):
            raise ValueError(f"format {exporter.name!r}: write_dir is what a dataset has")
        if (exporter.kind == "view") != (exporter.export is None):
            raise ValueError(f"format {exporter.name!r}: a view has no export, the rest have one")
        if exporter.kind == "view" and exporter.writer is None:
            raise ValueError(f"format {exporter.name!r}: a view needs a writer")
        super().register(exporter)

    def exporters(self) -> list[Exporter]:
        """What ``export --to`` takes."""
        return [e for e in self.items() if e.exported]

    def export_names(self) -> list[str]:
        return [e.name for e in self.exporters()]

    def shown_names(self) -> list[str]:
        """What ``-f`` takes."""
        return [e.name for e in self.items() if e.shown]

    def get_shown(self, name: str) -> Exporter:
        """The format ``-f name`` writes (a usage error for an export-only name)."""
        found = self.get(name)
        if not found.shown:
            raise UsageError(
                f"--format {name!r} is written by export only",
                hint=f"use convo export --to {name}, or -f " + "|".join(self.shown_names()),
            )
        return found

    def get_exported(self, name: str) -> Exporter:
        found = self.get(name)
        if not found.exported:
            raise self.unknown(name)
        return found

    def unknown(self, name: str) -> Exception:
        return UsageError(f"unknown format {name!r}", hint="choose " + "|".join(self.names()))


registry = Registry()
