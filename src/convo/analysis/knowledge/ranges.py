"""Knowledge of a large JSONL input on several cores, equal to the one-core result.

The one-core run makes two passes (``extract.replay``): observe every message (phrase
statistics, names, reply targets), then extract each with the whole conversation's
state. Here each pass runs per byte range (``convo.analysis.parallel``):

1. ``observe_range``: a worker observes its range's records, spools each with its
   analysis to a file of its own, and saves its ``Conversation`` state. The states
   merge in input order (``Conversation.merge``: sums, the best-ranked spelling, the
   first parent), which is what one pass over the whole input learns.
2. Replies whose parent lies in another range: ``parents_in_range`` looks the missing
   ids up in the spools (only when there are such replies).
3. ``extract_range``: a worker reads its spool back and extracts with the merged state;
   per-message lines go to a file of its own (copied to the output in order, so memory
   stays flat), or its ``Aggregate``, pickled, does. The parent loads each aggregate
   when its turn comes and merges it before loading the next, so it holds the total and
   one range's aggregate at a time, not every finished one the pool keeps waiting.

Results pass through files (``save``/``load``), not the pool's pipes, for that reason;
the merged state is saved once and each task names the file, so the parent does not
pickle a copy of it into every task it queues.

The passes run on one pool of fresh workers (``core.pool.FreshPool``): a pass's workers
are the last pass's, not new interpreters to start and import while the cores wait.
"""

from __future__ import annotations

import errno
import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from convo.analysis.knowledge import packed
from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.dicts import Plain
from convo.analysis.knowledge.extract import (
    SPOOL_MEMORY,
    Conversation,
    plain_all,
    replay,
    typeagent_knowledge,
)
from convo.analysis.knowledge.lines import Lines, knowledge_line
from convo.analysis.knowledge.metadata import email_format_names, use_email_format_names
from convo.analysis.knowledge.spool import BATCH, SpoolWriter, batches, read_batches
from convo.analysis.knowledge.spool import read as spooled
from convo.analysis.knowledge.summary import Aggregate, aggregate
from convo.analysis.parallel import (
    RangeReport,
    RangeTask,
    Rebase,
    plan,
    range_lines,
    range_records,
    selected,
    whole_files,
    workers,
)
from convo.core import fields, scratch
from convo.core.collector import fewer_collections
from convo.core.pool import FreshPool
from convo.query.filters import Filters

# The workers are fresh interpreters that import this module alone (``core.pool``'s
# ``FreshPool``): about 18 MB each, where a forked copy of the command line is 40 MB and
# the benchmark counts every process. Tasks and results are small (paths, reports), the
# data go through files.
_PRELOAD = (__name__,)


def _records(task: RangeTask, report: RangeReport) -> Iterator[dict[str, Any]]:
    """The records of a range: without filters straight from ``orjson`` (the records,
    line numbers and bad lines of ``range_records``, without its matches)."""
    if task.filters.is_empty():
        return range_lines(task, report, None)
    return range_records(task, report)


@dataclass(frozen=True)
class Step:
    """One range's task in one pass (picklable): where its spool and output go."""

    task: RangeTask
    spool: str
    out: str
    state: str = ""  # the file of the merged Conversation (pass 2)
    summary: bool = False
    metadata_only: bool = False
    wanted: frozenset[str] = frozenset()
    mail: frozenset[str] = frozenset()  # metadata.email_format_names() of the parent


def save(value: Any, path: str) -> None:
    """Pickle ``value`` to ``path`` (a file of this run's temporary folder)."""
    with open(path, "wb") as f:
        pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)


def load(path: str) -> Any:
    """What ``save`` wrote at ``path``; the file is removed."""
    with open(path, "rb") as f:
        value = pickle.load(f)
    os.unlink(path)
    return value


def observe_range(step: Step) -> RangeReport:
    """Pass 1 of a range: records and analyses to ``step.spool``, its conversation state
    saved to ``step.out``."""
    with fewer_collections():  # parsed records by the thousand, no cycles
        return _observe_range(step)


def _observe_range(step: Step) -> RangeReport:
    use_email_format_names(step.mail)
    conv = Conversation()
    report = RangeReport()
    with open(step.spool, "wb") as file:
        spool = SpoolWriter(file)
        for batch in batches(_records(step.task, report), BATCH):
            analyses = conv.observe_records(batch)
            # The records are this loop's own (parsed for it): their text goes in place,
            # what ``without_text`` would copy them for (the analysis holds what was read).
            for r in batch:
                r.pop("textChunks", None)
                r.pop("text_chunks", None)
            spool.add_all(batch, analyses)
        spool.close()
    save(conv, step.out)
    return report


def _spooled(path: str) -> Iterator[tuple[dict[str, Any], Analysis]]:
    with open(path, "rb") as file:
        yield from spooled(file)


def parents_in_range(step: Step) -> dict[str, tuple[dict[str, Any], str]]:
    """The first message of each id in ``step.wanted`` in this range's spool, with a speaker."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for r, _ in _spooled(step.spool):
        rid = r.get("id")
        speaker = fields.speaker(r)
        if isinstance(rid, str) and speaker and rid in step.wanted and rid not in found:
            found[rid] = ({"format": r.get("format")}, speaker)
    return found


def extract_range(step: Step) -> RangeReport | None:
    """Pass 2 of a range: lines, or the range's ``Aggregate`` pickled, to ``step.out``;
    the report of the bad lines when this pass read the records (``metadata_only``)."""
    with fewer_collections():  # records, and an aggregate's keys: no cycles
        return _extract_range(step)


def _extract_range(step: Step) -> RangeReport | None:
    use_email_format_names(step.mail)
    if step.metadata_only:  # one pass: no conversation state
        report = RangeReport()
        pairs = ((r, typeagent_knowledge(r).to_dict()) for r in _records(step.task, report))
        if not step.summary:
            with open(step.out, "wb") as out:
                for record, k in pairs:
                    out.write(knowledge_line(record, k))
            return report
        agg = Aggregate()
        for record, k in pairs:
            agg.add(record, k)
    else:
        report = None
        merged = _state(step.state)
        if not step.summary:
            _write_lines(Lines(merged), step.spool, step.out)
            return report
        agg = Aggregate()
        for r, a in _spooled(step.spool):
            agg.add_analysed(r, a, merged)  # a summary counts no actions but replies
    agg.compact()  # smaller to save, and to load in the parent
    save(agg, step.out)
    return report


def _write_lines(lines: Lines, spool: str, path: str) -> None:
    """The lines of the records of the spool at ``spool`` to ``path``, one write a batch."""
    line = lines.line
    with open(spool, "rb") as file, open(path, "wb") as out:
        for batch, analyses in read_batches(file):
            out.write(b"".join(map(line, batch, analyses)))


def _state(path: str) -> Conversation:
    """The merged conversation state ``run`` saved (kept: every range reads it)."""
    with open(path, "rb") as f:
        conv: Conversation = pickle.load(f)
    return conv


def _copy(path: str, out: BinaryIO) -> None:
    """Append the file at ``path`` to ``out``, then remove it: by ``os.sendfile`` when
    ``out`` is a file descriptor (the kernel copies: a run's lines are about twice the
    size of its input), else in blocks."""
    with open(path, "rb") as f:
        if not _sendfile(f, out):
            while block := f.read(1 << 20):
                out.write(block)
    os.unlink(path)


def _sendfile(f: BinaryIO, out: BinaryIO) -> bool:
    """Whether ``f`` was copied to ``out`` whole by ``os.sendfile`` (False: nothing was,
    ``out`` has no descriptor or the system cannot send to it)."""
    try:
        target = out.fileno()
    except (AttributeError, OSError, ValueError):  # io.BytesIO, a wrapper without one
        return False
    if not hasattr(os, "sendfile"):  # Windows
        return False
    out.flush()
    size, sent = os.fstat(f.fileno()).st_size, 0
    while sent < size:
        try:
            n = os.sendfile(target, f.fileno(), sent, size - sent)
        except OSError as e:
            if sent or e.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise  # a broken pipe, a full disk: as a write would
            return False
        if n == 0:
            break
        sent += n
    return True


class Progress:
    """Bytes of input through each pass, for ``on_progress(done, total)``: a range counts
    when its result is taken (in input order), once per pass that reads it."""

    def __init__(self, tasks: list[RangeTask], passes: int, on_progress=None):
        self.total = passes * sum(t.range.size for t in tasks)
        self.done = 0
        self.on_progress = on_progress
        self.tell()

    def tell(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)

    def add(self, task: RangeTask) -> None:
        self.done += task.range.size
        self.tell()


def _observe(
    steps: list[Step], pool: FreshPool, rebase: Rebase, progress: Progress | None = None
) -> Conversation:
    """Passes 1 and 2: the merged conversation state, every parent found."""
    conv = Conversation()
    for step, report in zip(steps, pool.map(observe_range, steps), strict=True):
        conv.merge(load(step.out))  # one range's state held at a time
        rebase.add(step.task, report)
        if progress is not None:
            progress.add(step.task)
    wanted = frozenset(conv.unresolved())
    if wanted:
        look = [Step(s.task, s.spool, s.out, wanted=wanted) for s in steps]
        for found in pool.map(parents_in_range, look):
            conv.note_parents(found)
    return conv


def run(
    tasks: list[RangeTask],
    jobs: int,
    *,
    summary: bool,
    metadata_only: bool = False,
    on_error=None,
    out: BinaryIO | None = None,
    on_progress=None,
) -> Aggregate | None:
    """Knowledge of the records of ``tasks`` on ``jobs`` processes: the summary, or the
    per-message lines written to ``out`` in input order; bad lines go to ``on_error``;
    ``on_progress(done, total)`` hears the input bytes through the passes (``Progress``)."""
    progress = Progress(tasks, 1 if metadata_only else 2, on_progress)
    # The pool first: its workers start and import while the parent lays out the steps.
    with (
        scratch.held_folder(None, "knowledge") as tmp,
        FreshPool(jobs, _PRELOAD) as pool,
    ):
        rebase = Rebase(on_error)
        mail = email_format_names()
        steps = [
            Step(t, os.path.join(tmp, f"{i}.spool"), os.path.join(tmp, f"{i}.out"),
                 summary=summary, metadata_only=metadata_only, mail=mail)
            for i, t in enumerate(tasks)
        ]  # fmt: skip
        state = ""
        if not metadata_only:
            state = os.path.join(tmp, "state")
            save(_observe(steps, pool, rebase, progress), state)  # freed: the workers load it
        steps = [replace(s, state=state) for s in steps]
        total = Aggregate() if summary else None
        for step, report in zip(steps, pool.map(extract_range, steps, last=True), strict=True):
            if report is not None:
                rebase.add(step.task, report)
            progress.add(step.task)
            if total is not None:
                total.merge(load(step.out))  # one range's aggregate held at a time
            elif out is not None:
                _copy(step.out, out)
    return total


def _refined(
    records: Iterable[dict[str, Any]],
    refine: Callable[[dict[str, Any], Plain], Plain],
    summary: bool,
    out: BinaryIO | None,
) -> Aggregate | None:
    """``knowledge_of_parts`` with each message's knowledge refined."""
    conv = Conversation()
    agg = Aggregate() if summary else None
    for record, a in replay(records, conv):
        k = refine(record, conv.extract_plain(record, a))
        if agg is not None:
            agg.add(record, k, conv)
        else:
            assert out is not None
            out.write(knowledge_line(record, k))
    return agg


def _read(
    parts: list[Any], filters: Filters, on_error, people: Any, jobs: int | None
) -> Iterator[dict[str, Any]]:
    """The selected records of ``parts`` read in this process. Files read without
    filters, ``--limit`` or ``--reverse`` take the range readers' path
    (``parallel.whole_files``, as ``convo stats`` does): the same records and bad lines
    as ``parallel.selected``, the lines parsed by one loop (``range_lines``) instead of
    a scan's layers of generators and matches (cachegrind, 20k records of
    benchmarks/bench_query.py's store: 29k -> 24.5k instructions a record, of the
    355k a message costs in all)."""
    plain = filters.is_empty() and filters.limit is None and not filters.reverse
    whole = whole_files(parts, filters, people) if plain else None
    if whole is None:
        return selected(parts, filters, on_error, people, scan_on_cores=jobs != 1)
    return _whole(whole, on_error)


def _whole(tasks: list[RangeTask], on_error) -> Iterator[dict[str, Any]]:
    rebase = Rebase(on_error)
    for task in tasks:
        report = RangeReport()
        yield from range_lines(task, report, None)
        rebase.add(task, report)  # the file's bad lines, with their line numbers


def knowledge_of_parts(
    parts: Iterable[Any],
    filters: Filters,
    *,
    summary: bool,
    metadata_only: bool = False,
    on_error=None,
    jobs: int | None = None,
    out: BinaryIO | None = None,
    people: Any = None,
    on_progress=None,
    track=None,
    refine: Callable[[dict[str, Any], Plain], Plain] | None = None,
    records: Iterable[dict[str, Any]] | None = None,
) -> Aggregate | None:
    """``convo knowledge`` as a library call: the summary of the records ``filters``
    select in ``parts`` (``inputs.record_parts``), or their per-message lines written to
    ``out``; on several cores when ``parallel.plan`` says the inputs are worth it; with
    ``people`` (a core.people.People) each name as its person. ``refine(record,
    knowledge)`` (``llm.Refiner``) gives each message's knowledge from convo's, in this
    process (it waits on a model, not on a core). Progress: on several cores
    ``on_progress(done, total)`` hears the input bytes through both passes; in this
    process ``track(records)`` sees the records as the first pass reads them.
    ``records``: the selection already made (the store's index found it; names already
    their persons'), read in this process instead of ``parts``."""
    inputs = list(parts) if records is None else []
    if refine is not None and not metadata_only:
        refined = selected(inputs, filters, on_error, people) if records is None else records
        return _refined(track(refined) if track else refined, refine, summary, out)
    if records is None:
        tasks = plan(inputs, filters, jobs, people)
        if tasks is not None:
            return run(tasks, workers(tasks, jobs), summary=summary, metadata_only=metadata_only,
                       on_error=on_error, out=out, on_progress=on_progress)  # fmt: skip
        records = _read(inputs, filters, on_error, people, jobs)
    if track is not None:
        records = track(records)
    if summary:
        return aggregate(records, metadata_only=metadata_only)
    assert out is not None
    if metadata_only:
        for record, k in plain_all(records, metadata_only=True):
            out.write(knowledge_line(record, k))
        return None
    with fewer_collections():  # as a range's passes: records by the thousand, no cycles
        # The records are parsed for this run (``_read``): their text goes in place.
        for block in packed.lines(records, Conversation(), SPOOL_MEMORY):
            out.write(block)  # one write a spool batch
    return None
