"""``convo ingest`` as a library call: import, then write to a file, stdout or the store.

Everything goes first to a spool file next to the destination, so that ``--strict``
can abort with nothing written, ``-o FILE`` is replaced atomically, and the store lock is
held only for the final append.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from convo.core.io import atomic_writer
from convo.core.jsonl import dumps, iter_lines
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest, IngestStats
from convo.pipeline.store import AppendResult, Store, record_id


@dataclass
class IngestSummary:
    stats: IngestStats
    destination: str
    appended: AppendResult | None = None

    def text(self) -> str:
        s = self.stats
        parts = [f"read {s.read}", f"imported {s.imported}"]
        if self.appended is not None:
            parts.append(f"new {self.appended.added}")
            parts.append(f"duplicates {self.appended.duplicates}")
        parts.append(f"rejected {s.rejected}")
        text = f"{', '.join(parts)} ({s.sources} source{'s' if s.sources != 1 else ''}) -> {self.destination}"
        if s.skipped:
            text += f"; {len(s.skipped)} file(s) skipped as unrecognised"
        if s.failed:
            text += f"; {len(s.failed)} input(s) unreadable (counted as rejected)"
        if s.warnings:
            text += f"; {s.warnings} warning(s) above"
        if self.appended and self.appended.notes:
            text += "; " + "; ".join(self.appended.notes)
        return text


def run_ingest(
    paths: Iterable[str],
    options: ImportOptions,
    *,
    format_name: str | None = None,
    output: str | None = None,
    save: bool = False,
    store: str | None = None,
    env=None,
    on_reject: Callable | None = None,
    on_warning: Callable[[str], None] | None = None,
    track: Callable[[Iterable], Iterable] | None = None,
) -> IngestSummary:
    """Import ``paths`` and write them to the store (``save``), a file or stdout.

    ``track`` wraps the message stream (the CLI passes a progress counter).
    """
    ingest = Ingest(options, format_name=format_name, on_reject=on_reject, on_warning=on_warning)
    messages = ingest.messages(paths)
    if track is not None:
        messages = track(messages)
    if save:
        st = Store(store)
        spool_dir = st.path.parent
        spool_dir.mkdir(parents=True, exist_ok=True)
        with _spool(spool_dir) as spool:
            for msg in messages:
                spool.write(dumps(msg.serialize()))
            spool.flush()
            spool.seek(0)
            appended = st.append(_id_lines(spool))
        return IngestSummary(ingest.stats, str(st.path), appended)
    if output and output != "-":
        with atomic_writer(output) as out:
            for msg in messages:
                out.write(dumps(msg.serialize()))
        return IngestSummary(ingest.stats, output)
    out = env.stdout_bytes if env is not None else os.fdopen(1, "wb", closefd=False)
    if options.strict:
        # Nothing may reach stdout before we know the whole input is clean.
        with _spool(None) as spool:
            for msg in messages:
                spool.write(dumps(msg.serialize()))
            spool.seek(0)
            for chunk in iter(lambda: spool.read(1 << 20), b""):
                out.write(chunk)
    else:
        for msg in messages:
            out.write(dumps(msg.serialize()))
    out.flush()
    return IngestSummary(ingest.stats, "stdout")


@contextlib.contextmanager
def _spool(folder: Path | None):
    with tempfile.TemporaryFile(dir=folder, prefix=".convo-spool-") as f:
        yield f


def _id_lines(stream) -> Iterable[tuple[str, bytes]]:
    for line in iter_lines(stream):
        rid = record_id(line.raw)
        if rid is not None:
            yield rid, line.raw + b"\n"
