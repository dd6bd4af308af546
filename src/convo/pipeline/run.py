"""``convo ingest`` as a library call: import, then write to a sink (``convo.pipeline.sinks``).

Every sink holds the output back until the input is read (``-o FILE`` is replaced
atomically, the store is appended from a spool file, ``--strict`` on stdout spools), so
``--strict`` can abort with nothing written and the store lock is held only for the
final append.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.context import ImportOptions, Rejection
from convo.pipeline import sinks
from convo.pipeline.ingest import Ingest, IngestStats, is_conversation_file
from convo.pipeline.parallel import ParallelIngest
from convo.store import AppendResult, Store


@dataclass
class IngestSummary:
    stats: IngestStats
    destination: str
    appended: AppendResult | None = None
    embedded: int | None = None  # messages embedded after the save (None: not set to)

    def text(self, warnings: str | None = None) -> str:
        """The summary line; ``warnings`` says what the warnings were (the command line's
        count of what it showed), else the count of the importers' warnings."""
        s = self.stats
        parts = [f"read {s.read}", f"imported {s.imported}"]
        if self.appended is not None:
            parts.append(f"new {self.appended.added}")
            parts.append(f"duplicates {self.appended.duplicates}")
        if self.embedded is not None:
            parts.append(f"embedded {self.embedded}")
        parts.append(f"rejected {s.rejected}")
        text = f"{', '.join(parts)} ({counted(s.sources, 'source')}) -> {self.destination}"
        if s.unrecognised:
            text += "; " + unrecognised_text(s.unrecognised)
        if s.skipped:
            n = len(s.skipped)
            text += f"; {n} special or repeated folder {plural(n, 'entry', 'entries')} skipped"
        if s.failed:
            text += f"; {counted(len(s.failed), 'input')} unreadable (counted as rejected)"
        if warnings is None and s.warnings:
            warnings = counted(s.warnings, "warning")
        if warnings:
            text += f"; {warnings}"
        if self.appended and self.appended.notes:
            text += "; " + "; ".join(self.appended.notes)
        return text


def embed_saved(store: Store, on_warning: Callable[[str], None] | None) -> int | None:
    """After a save that added messages: embed them when the store is set to (``convo
    embed --on-save``); how many were embedded, None when it is not set to. The messages
    are saved whatever happens here: a failure (no ``[embed]`` extra, a server down) is a
    warning naming the fix, and the next ``convo embed`` catches up."""
    from convo.core.errors import ConvoError
    from convo.embed import embed_on_save

    try:
        result = embed_on_save(store.real)
    except ConvoError as e:
        if on_warning is not None:
            on_warning(f"saved, but not embedded ({e}); run `convo embed` to catch up")
        return None
    return None if result is None else result.added + result.changed


LISTED = 5  # unrecognised files named in the summary line (all are in --rejects)


def unrecognised_text(names: list[str]) -> str:
    """``N files not recognised: a.json, b.txt (1 counted as rejected: a conversation
    file type)``, naming the first few."""
    shown = ", ".join(names[:LISTED]) + (
        f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    )
    rejected = sum(map(is_conversation_file, names))
    text = f"{counted(len(names), 'file')} not recognised: {shown}"
    if rejected:
        text += f" ({rejected} counted as rejected: a conversation file type)"
    return text


def kept_tags_note(duplicates: int, tags: list[str]) -> str:
    """What a re-ingest with --tag says: the store keeps a message once, with its old tags."""
    tag = tags[0] if len(tags) == 1 else "TAG"
    return (
        f"{counted(duplicates, 'message')} {plural(duplicates, 'was', 'were')} already in the "
        f"store and kept {plural(duplicates, 'its', 'their')} tags (--tag applies to new messages "
        f"only); to tag {plural(duplicates, 'it', 'them')} too: "
        f"convo tag add {tag} ID... (or with filters, e.g. --thread NAME --since DATE)"
    )


def kept_times_note(duplicates: int) -> str:
    """What a re-ingest with --start-date says: a cue's id is made from its offset, not
    its date, so the messages already stored keep the times they were saved with."""
    return (
        f"{counted(duplicates, 'message')} {plural(duplicates, 'was', 'were')} already in the "
        f"store and kept {plural(duplicates, 'its time', 'their times')} (--start-date applies to "
        f"new messages only: a cue's id is its offset's); to re-date {plural(duplicates, 'it', 'them')}: "
        "convo rm source:FILE, then ingest again"
    )


def run_ingest(
    paths: Iterable[str],
    options: ImportOptions,
    *,
    format_name: str | None = None,
    output: str | None = None,
    save: bool = False,
    store: str | None = None,
    env: Any = None,
    on_reject: Callable[[Rejection], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    track: Callable[[Iterable], Iterable] | None = None,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    jobs: int | None = 1,
) -> IngestSummary:
    """Import ``paths`` and write them to the store (``save``), a file or stdout.

    ``track`` wraps the message stream (the CLI passes a progress counter). With
    ``save``, ``wait`` gives up after that many seconds if another writer holds the
    store lock (None: wait as long as it takes), and ``on_wait(line)`` is told, after a
    second of waiting, who holds it (the CLI's ``--wait SECONDS`` and a warning line).
    ``jobs``: parse sources in that many processes (``convo.pipeline.parallel``; None:
    the CPU count when there is more than one source or a large file to split), with
    the same output.
    """
    ingest: Ingest | ParallelIngest
    common: dict[str, Any] = dict(
        format_name=format_name,
        on_reject=on_reject,
        on_warning=on_warning,
        cross=False if save else None,  # a save: the store holds ids across sources
    )
    if jobs == 1:
        ingest = Ingest(options, **common)
    else:  # ``blocks``: every sink writes a worker's lines as they are
        ingest = ParallelIngest(options, **common, jobs=jobs, blocks=True)
    named = list(paths)
    messages: Iterable[ConversationMessage] = ingest.messages(named)
    if track is not None:
        messages = track(messages)
    if save:
        summary = _saved(messages, ingest.stats, options, Store(store), wait, on_wait, on_warning)
    elif output and output != "-":
        sinks.to_file(messages, output)
        summary = IngestSummary(ingest.stats, output)
    else:
        out = env.stdout_bytes if env is not None else os.fdopen(1, "wb", closefd=False)
        sinks.to_stdout(messages, out, strict=options.strict)
        summary = IngestSummary(ingest.stats, "stdout")
    if on_warning is not None and (said := said_nothing(named, ingest.stats)):
        on_warning(said)
    return summary


def _saved(
    messages: Iterable[ConversationMessage],
    stats: IngestStats,
    options: ImportOptions,
    st: Store,
    wait: float | None,
    on_wait: Callable[[str], None] | None,
    on_warning: Callable[[str], None] | None,
) -> IngestSummary:
    """The messages appended to the store; what a re-ingest kept as it was, said."""
    appended = sinks.to_store(messages, st, wait=wait, on_wait=on_wait)
    if options.tags and appended.duplicates and on_warning is not None:
        on_warning(kept_tags_note(appended.duplicates, options.tags))
    if options.start_date and appended.duplicates and on_warning is not None:
        on_warning(kept_times_note(appended.duplicates))
    embedded = embed_saved(st, on_warning) if appended.added else None
    return IngestSummary(stats, str(st.path), appended, embedded)


def said_nothing(paths: list[str], stats: IngestStats) -> str:
    """The warning of a file named alone that its format read without a message, a
    rejection or a warning (a Stack Exchange ``Users.xml`` whose ``Posts.xml`` is beside
    it, an empty list): "read 0, imported 0" alone read like a failure unexplained."""
    if len(paths) != 1 or paths[0] == "-" or os.path.isdir(paths[0]) or stats.sources != 1:
        return ""
    if stats.imported or stats.rejected or stats.warnings or not stats.formats:
        return ""
    fmt = next(iter(stats.formats))
    return f"{paths[0]}: nothing to import: read as {fmt}, it holds no messages"
