"""What a reader gets: the ``Source`` it reads, the ``ImportOptions`` and an ``ImportContext``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from convo.core.encoding import Guess, LineDecoder, check_encoding
from convo.core.errors import RecordError, StrictAbort
from convo.core.io import Source
from convo.core.walk import DIR, FILE, Entry, Walker


@dataclass
class ImportOptions:
    """Options every reader may consult. Readers ignore what does not apply to them."""

    tz: tzinfo = UTC  # zone for naive source times (--tz)
    start_date: datetime | None = None  # transcripts: wall-clock time of offset 0 (--start-date)
    strict: bool = False  # abort on the first rejected record (--strict)
    lenient: bool = False  # wrap non-message objects as text instead of rejecting (--lenient)
    merge: bool = True  # transcripts: merge consecutive cues of one speaker (--no-merge)
    speakers: str = "auto"  # transcripts: auto | voice | prefix | none (--speakers)
    strip_quotes: bool = False  # email: drop quoted replies and signatures (--strip-quotes)
    tags: list[str] = field(default_factory=list)  # added to every message (--tag)
    include_thinking: bool = False  # agent exports: private reasoning as a [thinking] chunk
    encoding: str | None = None  # text that declares no encoding: read as this, not guessed

    def __post_init__(self) -> None:
        self.encoding = check_encoding(self.encoding)


Reporter = Callable[[str, str | None], None]


@dataclass(frozen=True)
class Position:
    """Where a reader starts in its file: line 1 and no records before it, unless it reads
    one range of a file split for several cores (``pipeline.split``); then ``line`` is the
    number of the range's first line and ``record`` the count of record-start lines (the
    format's ``record_start``) before it, so numbers a reader reports are the whole file's.
    """

    line: int = 1
    record: int = 0


@dataclass
class Rejection:
    where: str
    reason: str
    hint: str | None = None
    raw: Any = None
    # False for a file a folder walk passes over (no format claims it and its name is no
    # conversation file type): kept in ``--rejects`` and reported as skipped, not rejected.
    counted: bool = True

    def to_record(self) -> dict[str, Any]:
        """The ``--rejects`` line. A raw line that is not UTF-8 (a Latin-1 line in a JSONL
        file) is ``raw`` with U+FFFD in place of its bad bytes, for a person, and
        ``raw_base64``, its bytes as they were (the rejects file kept the U+FFFDs alone)."""
        raw = self.raw
        out = {"where": self.where, "reason": self.reason, "hint": self.hint, "raw": raw}
        if isinstance(raw, bytes):
            try:
                out["raw"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                import base64

                out["raw"] = raw.decode("utf-8", "replace")
                out["raw_base64"] = base64.b64encode(raw).decode("ascii")
        return out


REJECTS_KEYS = ("where", "reason", "hint", "raw")  # a --rejects line (Rejection.to_record)
WARNINGS_KEYS = ("kind", "file", "line", "message", "where")  # a --warnings line
FIX_REJECTS = (
    "it is a --rejects file: fix each line's raw, then ingest the raws: "
    "jq -r '.raw | if type == \"string\" then . else tojson end' {name} > fixed.jsonl"
)


def run_file_hint(first_line: str, name: str) -> str | None:
    """What to do with a file convo wrote about a run (``--rejects``, ``--warnings``)
    named as an input: no format reads it, and "name it with --from" would not help."""
    import orjson

    try:
        value = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict):
        return None
    keys = tuple(value)
    if keys[:4] == REJECTS_KEYS:  # raw_base64 after them when the raw was not UTF-8
        return FIX_REJECTS.format(name=name)
    if keys == WARNINGS_KEYS:
        return "it is a --warnings file (what a run reported), not conversations"
    return None


class ImportContext:
    """Per-source state a reader reports to: rejections and warnings, counted and located."""

    def __init__(
        self,
        source: Source,
        options: ImportOptions | None = None,
        *,
        on_reject: Callable[[Rejection], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        start: Position | None = None,
    ):
        self.source = source
        self.options = options or ImportOptions()
        self.start = start or Position()
        self.rejected = 0
        self.warnings = 0
        self._on_reject = on_reject
        self._on_warning = on_warning
        self._guessed: set[tuple[str, str]] = set()

    def line(self, n: int) -> int:
        """The file's number of the reader's line ``n`` (counted from 1 where it started)."""
        return n + self.start.line - 1

    def loc(self, locator: int | str) -> str:
        """``name:LINE`` for a line number (the reader's, see ``line``), ``name#locator``
        otherwise."""
        if isinstance(locator, int):
            return f"{self.source.name}:{self.line(locator)}"
        return f"{self.source.name}#{locator}"

    def thread_of(self, where: str) -> str:
        """A location of this source (``FILE``, ``FILE#line-N``, ``FILE:N``) as the thread
        of a conversation the data names no id for: the file as ``build.file_scope``
        names it (its name without the folder; a generic name with its folder), so the
        same file typed as ``ft.jsonl``, ``sub/ft.jsonl`` or an absolute path gives the
        same threads, and so the same content-hash ids (docs/ids.md). Other text is
        returned as it is."""
        name = self.source.name
        if where == name or where.startswith((f"{name}#", f"{name}:")):
            return self._file + where[len(name) :]
        return where

    @property
    def _file(self) -> str:
        # The file itself when the name is its path (or its file name): a generic name's
        # folder is then the real one, not the working folder's.
        from convo.importers.build import file_scope  # build loads the record model

        path = self.source.path
        if (
            path is not None
            and not self.source.is_stdin
            and path.name == Path(self.source.name).name
        ):
            return file_scope(str(path))
        return file_scope(self.source.name)

    def reject(self, where: str, reason: str, raw: Any = None, hint: str | None = None) -> None:
        """A record could not be imported: count, report and keep it; abort under --strict."""
        self.rejected += 1
        rejection = Rejection(where, reason, hint, raw)
        if self._on_reject:
            self._on_reject(rejection)
        if self.options.strict:
            raise StrictAbort(
                reason, where=where, hint="--strict stops at the first rejected record"
            )

    def reject_error(self, error: RecordError, raw: Any = None) -> None:
        self.reject(error.where or self.source.name, error.what, raw, error.hint)

    def text_decoder(
        self, source: Source | None = None, what: str = "text that is not UTF-8"
    ) -> LineDecoder:
        """A decoder for the undeclared text of ``source`` (this context's, or a file inside
        it, a zip's member): UTF-8, else ``--encoding``, else a guess from its head
        (``convo.core.encoding``), told once in a warning about ``what``."""
        src = source or self.source
        return LineDecoder(
            src.head, self.options.encoding, lambda guess: self.tell_guess(src.name, guess, what)
        )

    def tell_guess(self, where: str, guess: Guess, what: str) -> None:
        """Warn that ``what`` was read in a guessed encoding: once for each kind of text and
        encoding in a source (an mbox of Latin-1 mail gives one warning, not thousands)."""
        if (what, guess.encoding) in self._guessed:
            return
        self._guessed.add((what, guess.encoding))
        self.warn(where, guess.warning(what))

    def warn(self, where: str, message: str) -> None:
        """Something worth knowing that loses nothing (e.g. a Reddit 'more' stub not expanded)."""
        self.warnings += 1
        if self._on_warning:
            self._on_warning(f"{where}: {message}")


def iter_dir_entries(
    folder: Path, walker: Walker | None = None, on_skip: Callable[[Entry], None] | None = None
) -> Iterator[Path]:
    """Files and sub-folders directly in ``folder``, sorted, hidden ones skipped.

    Pass one ``Walker`` for a whole walk so that each real directory is handed out once
    (see ``convo.core.walk``). FIFOs, sockets, devices, dangling links and folders seen
    before are not yielded but passed to ``on_skip``. A folder that cannot be listed is
    a located InputError.
    """
    for entry in (walker or Walker(folder)).entries(folder):
        if entry.kind in (FILE, DIR):
            yield entry.path
        elif on_skip is not None:
            on_skip(entry)


def iter_dir_files(root: Path, on_skip: Callable[[Entry], None] | None = None) -> Iterator[Path]:
    """Regular files below ``root`` in a stable order, hidden files and folders skipped.

    Links are followed once per real directory; FIFOs, sockets, devices, dangling links
    and unlistable sub-folders are not yielded but passed to ``on_skip``.
    """
    yield from Walker(root).files(root, on_skip)
