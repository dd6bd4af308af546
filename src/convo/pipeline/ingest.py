"""The ingest pipeline: paths in, finished ``ConversationMessage``s out.

It opens each input (file, directory, ``-``), picks the format (``--from`` or
detection), runs the reader and finishes every message the same way: ``format``,
a ``source_id`` fallback, the epoch sentinel for unknown times, ``--tag`` tags, and a
content-hash id with an occurrence counter where the source has no id of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage, content_id
from convo.core.timestamps import EPOCH_STR
from convo.importers.context import ImportContext, ImportOptions, Rejection, iter_dir_entries
from convo.importers.registry import Format, registry


@dataclass
class IngestStats:
    sources: int = 0
    imported: int = 0
    rejected: int = 0
    warnings: int = 0
    skipped: list[str] = field(default_factory=list)  # files in a folder no format claimed
    failed: list[str] = field(default_factory=list)  # inputs that could not be read (rejected)
    formats: dict[str, int] = field(default_factory=dict)

    @property
    def read(self) -> int:
        return self.imported + self.rejected


class Ingest:
    """One ingest run over many inputs; ``stats`` fills as ``messages()`` is consumed."""

    def __init__(
        self,
        options: ImportOptions | None = None,
        *,
        format_name: str | None = None,
        on_reject: Callable[[Rejection], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
    ):
        self.options = options or ImportOptions()
        self.forced: Format | None = registry.get(format_name) if format_name else None
        self.stats = IngestStats()
        self._on_reject = on_reject
        self._on_warning = on_warning

    def messages(self, paths: Iterable[str | Path]) -> Iterator[ConversationMessage]:
        """Messages of every input. With one input, an unreadable one is an InputError;
        with several (or inside a folder) it is reported, counted as rejected, and the
        others are still read, unless ``--strict``."""
        paths = list(paths)
        for path in paths:
            with self._isolated(len(paths) > 1):
                source = Source(path)
                if source.is_dir and not (self.forced and not self.forced.directory):
                    fmt = self.forced or self._detect_dir(source)
                    if fmt is None:
                        yield from self._walk(source)
                        continue
                    yield from self._read(source, fmt)
                else:
                    yield from self._read(source, self.forced or registry.detect(source))

    @contextlib.contextmanager
    def _isolated(self, enabled: bool) -> Iterator[None]:
        """Turn an InputError of one input into a reported rejection when others go on."""
        try:
            yield
        except InputError as e:
            if not enabled or self.options.strict:
                raise
            self.stats.rejected += 1
            self.stats.failed.append(e.where or "")
            if self._on_reject:
                self._on_reject(Rejection(e.where or "", e.what, e.hint))

    def _detect_dir(self, source: Source) -> Format | None:
        try:
            return registry.detect(source)
        except InputError:
            return None

    def _walk(self, folder: Source) -> Iterator[ConversationMessage]:
        """Every file below ``folder``, each detected on its own; a sub-folder that a folder
        format claims (a Slack export, a Maildir) is read as one unit and not descended."""
        assert folder.path is not None
        for path in iter_dir_entries(folder.path):
            child = folder.child(path)
            if child.is_dir:
                fmt = None if self.forced else self._detect_dir(child)
                with self._isolated(True):
                    if fmt is not None:
                        yield from self._read(child, fmt)
                    else:
                        yield from self._walk(child)
                continue
            try:
                fmt = self.forced or registry.detect(child)
            except InputError as e:
                self.stats.skipped.append(child.name)
                if self._on_warning:
                    self._on_warning(f"{child.name}: skipped, {e.what}")
                continue
            with self._isolated(True):
                yield from self._read(child, fmt)

    def _read(self, source: Source, fmt: Format) -> Iterator[ConversationMessage]:
        self.stats.sources += 1
        ctx = ImportContext(
            source, self.options, on_reject=self._on_reject, on_warning=self._on_warning
        )
        seen: dict[str, int] = {}
        extra_tags = self.options.tags
        n = 0
        try:
            for msg in fmt.read(source, ctx):
                n += 1
                if not msg.format:
                    msg.format = fmt.name
                if not msg.source_id:
                    msg.source_id = f"{source.name}#{n}"
                if not msg.timestamp:
                    msg.timestamp = EPOCH_STR
                if not msg.id:
                    base = content_id(msg)
                    k = seen.get(base, 0)
                    seen[base] = k + 1
                    msg.id = content_id(msg, k) if k else base
                if extra_tags:
                    msg.tags = list(dict.fromkeys([*msg.tags, *extra_tags]))
                self.stats.imported += 1
                yield msg
        finally:
            self.stats.rejected += ctx.rejected
            self.stats.warnings += ctx.warnings
            self.stats.formats[fmt.name] = self.stats.formats.get(fmt.name, 0) + n
            source.close()


def read_messages(
    *paths: str | Path,
    format: str | None = None,
    options: ImportOptions | None = None,
    on_reject: Callable[[Rejection], None] | None = None,
) -> Iterator[ConversationMessage]:
    """Import files, folders or ``-`` (any supported format) as a stream of messages.

    >>> for msg in read_messages("standup.vtt"):  # doctest: +SKIP
    ...     print(msg.speaker, msg.text)
    """
    return Ingest(options, format_name=format, on_reject=on_reject).messages(paths)
