"""The ingest pipeline: paths in, finished ``ConversationMessage``s out.

It opens each input (file, directory, ``-``), picks the format (``--from`` or
detection), runs the reader and finishes every message the same way: ``format``,
a ``source_id`` fallback, the epoch sentinel for unknown times, ``--tag`` tags, a
content-hash id (``convo.importers.build.ContentIds``) where the source has no id of its
own, and the one validation (``convo.core.record.check_message``): a message that fails
it is rejected with its place, like a bad input record.

An id is held to one message within a source (``Finisher``) and across the sources of
the run (``core.stamps.RunIds``: an id an earlier source gave a message of another time
and text gives this one its content hash, and the source warns once with the count).

In a folder, a file no format recognises is listed (``stats.unrecognised``) and reported
as a rejection for ``--rejects``; one whose extension conversations come in
(``CONVERSATION_SUFFIXES``) also counts as rejected, so the run exits 1.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from convo.core.compression import StreamError
from convo.core.errors import ConvoError, InputError, RecordError
from convo.core.filetypes import COMPRESSED, CONVERSATION_SUFFIXES, is_mail_sidecar
from convo.core.io import Source
from convo.core.record import TYPED, ConversationMessage, check_message, content_id, take_typed
from convo.core.stamps import RunIds, id_key, stamp
from convo.core.timestamps import EPOCH_STR
from convo.core.walk import UNREADABLE, Entry, Walker
from convo.importers.build import ContentIds, OwnIds
from convo.importers.context import (
    ImportContext,
    ImportOptions,
    Position,
    Rejection,
    iter_dir_entries,
)
from convo.importers.registry import Format, registry
from convo.pipeline.notes import clash_warning, crossed_warning, nothing_found


@dataclass
class IngestStats:
    sources: int = 0
    imported: int = 0
    rejected: int = 0
    warnings: int = 0
    skipped: list[str] = field(default_factory=list)  # special or repeated folder entries
    unrecognised: list[str] = field(default_factory=list)  # folder files no format claimed
    failed: list[str] = field(default_factory=list)  # inputs that could not be read (rejected)
    formats: dict[str, int] = field(default_factory=dict)

    @property
    def read(self) -> int:
        return self.imported + self.rejected


# Files a folder walk expects to hold conversations (``core.filetypes``): one of these
# that no format recognises is counted as rejected (exit 1), not merely listed. A ``.gz``
# or ``.zst`` is judged by the name inside it (``chat.json.gz``).
NOT_RECOGNISED = "format not recognised"  # the start of ``registry.detect``'s error


def is_conversation_file(name: str) -> bool:
    """The file's extension is one conversations come in (``CONVERSATION_SUFFIXES``)."""
    path = PurePath(name)
    if path.suffix.lower() in COMPRESSED:
        path = PurePath(path.stem)
    return path.suffix.lower() in CONVERSATION_SUFFIXES


def unrecognised_file(
    stats: IngestStats, name: str, on_reject: Callable[[Rejection], None] | None
) -> None:
    """A folder file no format recognised: listed in ``stats.unrecognised`` and reported
    as a rejection (so ``--rejects`` keeps it with its reason); one with a conversation
    extension is also counted as rejected, so the run exits 1."""
    stats.unrecognised.append(name)
    if is_conversation_file(name):
        stats.rejected += 1
    if on_reject:
        on_reject(unrecognised_rejection(name))


def unrecognised_rejection(name: str) -> Rejection:
    """The rejection that reports a folder file no format recognised (``--rejects``)."""
    if is_conversation_file(name):
        return Rejection(
            name, NOT_RECOGNISED, "name its format with --from FORMAT (see `convo formats`)"
        )
    return Rejection(
        name, NOT_RECOGNISED, "not a conversation file type: listed, the run goes on", counted=False
    )


class Ingest:
    """One ingest run over many inputs; ``stats`` fills as ``messages()`` is consumed."""

    def __init__(
        self,
        options: ImportOptions | None = None,
        *,
        format_name: str | None = None,
        on_reject: Callable[[Rejection], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        cross: bool | None = None,
    ):
        """``cross``: hold ids across sources (``RunIds``): None when a run has more than
        one (``one_source``), True always (a worker's ``UnitIngest``, whose parent holds
        them across units), False never (a save: the store decides under its lock,
        knowing what it holds already)."""
        self.options = options or ImportOptions()
        self.forced: Format | None = registry.get(format_name) if format_name else None
        self.stats = IngestStats()
        self._on_reject = on_reject
        self._on_warning = on_warning
        self.cross = cross
        self.crossing = bool(cross)  # this run's: ``cross`` decided by ``messages``
        self.run_ids: RunIds | None = None  # made at the first id a reader gives
        self.last_own: tuple[int, int] | None = None  # a worker's: its last id's key, stamp

    def messages(self, paths: Iterable[str | Path]) -> Iterator[ConversationMessage]:
        """Messages of every input. With one input, an unreadable one is an InputError;
        with several (or inside a folder) it is reported, counted as rejected, and the
        others are still read, unless ``--strict``."""
        paths = list(paths)
        self.crossing = self.cross if self.cross is not None else not one_source(paths)
        try:
            yield from self._messages(paths)
        finally:
            self.close_run()

    def close_run(self) -> None:
        """Forget the run's ids (``RunIds``: a temporary table past its bound)."""
        if self.run_ids is not None:
            self.run_ids.close()
            self.run_ids = None

    def _messages(self, paths: list[str | Path]) -> Iterator[ConversationMessage]:
        for path in paths:
            with self._isolated(len(paths) > 1):
                source = Source(path)
                if source.is_dir and not (self.forced and not self.forced.directory):
                    fmt = self.forced or self._detect_dir(source)
                    if fmt is None:
                        assert source.path is not None
                        before = self._seen()
                        yield from self._walk(source, Walker(source.path))
                        if self._seen()[0] == before[0] and self._on_warning:
                            self._on_warning(
                                nothing_found(source.name, self._seen()[1] - before[1])
                            )
                        continue
                    if len(paths) == 1 and self.cross is None:
                        self.crossing = False  # one folder a format reads whole: one source
                    yield from self.read_source(source, fmt)
                else:
                    yield from self.read_source(source, self.forced or registry.detect(source))

    def _seen(self) -> tuple[int, int]:
        """(sources read, entries not read) so far: a walk that adds no source found
        nothing to import (``nothing_found``)."""
        s = self.stats
        return s.sources, len(s.unrecognised) + len(s.skipped) + len(s.failed)

    @contextlib.contextmanager
    def _isolated(self, enabled: bool) -> Iterator[None]:
        """Turn an InputError of one input into a reported rejection when others go on."""
        try:
            yield
        except InputError as e:
            if not enabled or self.options.strict:
                raise
            self._failed(e.where or "", e.what, e.hint)

    def _failed(self, where: str, what: str, hint: str | None) -> None:
        self.stats.rejected += 1
        self.stats.failed.append(where)
        if self._on_reject:
            self._on_reject(Rejection(where, what, hint))

    def _detect_dir(self, source: Source) -> Format | None:
        try:
            return registry.detect(source)
        except (InputError, OSError):
            return None  # walked instead; an unreadable folder is reported there

    def _walk(self, folder: Source, walker: Walker) -> Iterator[ConversationMessage]:
        """Every file below ``folder``, each detected on its own; a sub-folder that a folder
        format claims (a Slack export, a Maildir) is read as one unit and not descended.
        Each real folder is read once; special and unreadable entries are reported."""
        assert folder.path is not None
        skip = functools.partial(self._skip_entry, folder)
        for path in iter_dir_entries(folder.path, walker, skip):
            with self._isolated(True):
                child = folder.child(path)
                if child.is_dir:
                    fmt = None if self.forced else self._detect_dir(child)
                    yield from self.read_source(child, fmt) if fmt else self._walk(child, walker)
                    continue
                try:
                    fmt = self.forced or registry.detect(child)
                except InputError as e:
                    strict = self.options.strict and is_conversation_file(child.name)
                    if strict or not e.what.startswith(NOT_RECOGNISED):
                        raise  # --strict stops at it, as at any rejection
                    if is_mail_sidecar(path.parts):
                        continue  # no messages in it: passed over, as hidden files are
                    unrecognised_file(self.stats, child.name, self._on_reject)
                    continue
                yield from self.read_source(child, fmt)

    def _skip_entry(self, folder: Source, entry: Entry) -> None:
        """A folder entry that is not read: special and repeated ones are skipped with a
        warning, unreadable ones (a dangling link, a failed stat) rejected."""
        assert folder.path is not None
        name = f"{folder.name.rstrip('/')}/{entry.path.relative_to(folder.path)}"
        if entry.kind != UNREADABLE:
            self._skipped(name, entry.detail)
        elif self.options.strict:
            raise InputError(entry.detail, where=name, hint="fix or remove it and re-run")
        else:
            self._failed(name, entry.detail, "fix or remove it and re-run")

    def _skipped(self, name: str, why: str) -> None:
        self.stats.skipped.append(name)
        if self._on_warning:
            self._on_warning(f"{name}: skipped, {why}")

    def read_source(
        self,
        source: Source,
        fmt: Format,
        start: Position | None = None,
        *,
        finish: Finisher | None = None,
    ) -> Iterator[ConversationMessage]:
        """Read one opened source as ``fmt`` (closing it). For one range of a split file
        (``pipeline.split``), ``start`` is where the range begins and ``finish`` the
        range's ``Finisher``, which notes what the file's later numbering may change."""
        self.stats.sources += 1
        ctx = ImportContext(
            source,
            self.options,
            on_reject=self._on_reject,
            on_warning=self._on_warning,
            start=start,
        )
        whole = finish is None and self.crossing  # a range's: the split file's parent's
        finish = finish or Finisher(fmt.name, source.name, self.options.tags)
        number, crossed = self.stats.sources, 0
        try:
            try:
                for msg in fmt.read(source, ctx):
                    try:
                        msg = finish(msg)
                    except RecordError as e:  # a reader built a record the store refuses
                        finish.refused(ctx, e, msg)
                        continue
                    self.stats.imported += 1
                    self.last_own = None
                    if whole and finish.own:  # the reader's id, kept: held across sources
                        crossed += self._cross(number, msg)
                    yield msg
            except StreamError as e:  # a truncated .gz: what came before it is kept
                ctx.reject(e.where or source.name, e.what, hint=e.hint)
            self._said(source, ctx, finish, crossed, fmt is self.forced and start is None)
        finally:
            finish.close()
            self.stats.rejected += ctx.rejected
            self.stats.warnings += ctx.warnings
            self.stats.formats[fmt.name] = self.stats.formats.get(fmt.name, 0) + finish.count
            source.close()

    @staticmethod
    def _said(
        source: Source, ctx: ImportContext, finish: Finisher, crossed: int, forced: bool
    ) -> None:
        """What a source's read leaves to say: where a ``.gz`` broke off while spooling;
        a whole file named with ``--from`` (``forced``) whose format read nothing of it and
        said nothing (``--from specstory notes.txt``: no turn, no reject, no word: its
        content not imported, unsaid); ids repeated in it, or met in earlier sources."""
        broken = source.broken
        if broken is not None:
            ctx.reject(broken.where or source.name, broken.what, hint=broken.hint)
        blank = not source.head.strip(b" \t\r\n\xef\xbb\xbf")
        if forced and not (finish.count or ctx.rejected or ctx.warnings or blank):
            ctx.warn(
                source.name,
                f"nothing in it reads as {finish.fmt}, so nothing was imported; without "
                "--from convo detects the format (`convo formats` lists them)",
            )
        if finish.clashes:
            ctx.warn(source.name, clash_warning(finish.clashes))
        if crossed:
            ctx.warn(source.name, crossed_warning(crossed))

    def _cross(self, number: int, msg: ConversationMessage) -> int:
        """Hold ``msg``'s id against the earlier sources' (``RunIds``): 1 when another
        message had it and ``msg`` now has its content hash, else 0. (A worker's
        ``UnitIngest`` only notes the id's key and stamp: its parent holds them.)"""
        assert msg.id is not None
        run = self.run_ids
        if run is None:
            run = self.run_ids = RunIds()
        if run.claim(number, id_key(msg.id), stamp(msg.timestamp, msg.text_chunks)):
            return 0
        msg.id = content_id(msg)
        return 1


class Finisher:
    """Finishes every message of one source the same way (see the module docstring).

    ``prepare`` is what a message alone decides (format, time, tags); ``number`` what
    depends on the messages before it in the source: the ``source_id`` fallback (the
    n-th message) and the occurrence counter of a content-hash id (``ContentIds``).
    Then ``check_message``, the one validation (readers build records without pydantic's).

    An id the reader gives is held to one message in the source (``build.OwnIds``'s rule
    over text, speaker and time, for every format): an id an export repeats on another
    message (an edited message exported again, a damaged or hand-joined file) gives that
    message its content hash, counted in ``clashes`` (the reader's source warns once).
    A range of a split file (``RangeFinisher``) notes its ids instead, for
    ``pipeline.split.FileNumbers`` to hold the whole file to it.
    """

    def __init__(self, fmt: str, source_name: str, tags: list[str]):
        self.fmt = fmt
        self.source_name = source_name
        self.tags = tags
        self.count = 0  # messages prepared
        self.numbered = 0
        self.ids = ContentIds(source_name)
        self._own: OwnIds | None = None  # made at the first id a reader gives
        self.own = False  # the last message's id is the one its reader gave
        self.stored = _reads_ids(fmt)  # an h: id is read from the file, not made

    @property
    def clashes(self) -> int:
        """Messages whose reader's id another message of the source had."""
        return 0 if self._own is None else self._own.clashes

    def _own_id(self, msg: ConversationMessage) -> None:
        """Keep ``msg.id`` only if no other message of the source had it: ``build.OwnIds``
        over text, speaker and time (``core.spillmap``: bounded, past 262,144 ids the
        older go to disk). Its cost, on the cheapest
        reader (`convo ingest --from jsonl` of 200k of convo's own records with ids, load
        10-11): about 1.2 us of CPU a message (user time 4.0-4.2 s against 3.6-3.7 s on
        main), and 15 MB more at the peak (56 MB against 41 MB); a map limited to 16,384
        ids spilled and cost more CPU (4.6-4.9 s) to save 4 MB (52 MB)."""
        own = self._own
        if own is None:
            own = self._own = OwnIds()
        msg.id = own.checked(msg.id, msg.text_chunks, msg.speaker, msg.timestamp)

    def _given(self, msg: ConversationMessage) -> None:
        """Hold the reader's id (if any) to one message. A content hash (``h:``) a reader
        made (``build.ContentIds``) is its message's, but one a records format reads back
        (convo's JSONL, Parquet) may name another message (a record edited by hand, or
        made to meet another source's hash): such ids were exempt, and two messages of
        one ingest could share one."""
        given = msg.id
        if not given or (given.startswith("h:") and not self.stored):
            self.own = False  # none, or a content hash its reader made: its message's
            return
        self._own_id(msg)
        self.own = msg.id == given

    def close(self) -> None:
        if self._own is not None:
            self._own.close()
            self._own = None

    def __call__(self, msg: ConversationMessage) -> ConversationMessage:
        if TYPED.msg is msg and not self.tags and type(self) is Finisher:
            TYPED.msg = None  # take_typed(msg)
            return self._typed(msg)
        # Tags of the options (any value from the library API) would undo ``TYPED``.
        typed = take_typed(msg) and not self.tags
        self.prepare(msg)
        self._given(msg)
        base = None if msg.id else self.ids.base(msg)
        msg.source_id, new_id = self.number(msg.source_id, base)  # RangeFinisher's too
        msg.id = new_id or msg.id
        return check_message(msg, msg.source_id, typed=typed)

    def _typed(self, msg: ConversationMessage) -> ConversationMessage:
        """``__call__`` of a ``TYPED`` message (``chat_message``'s: every value of its
        type) when there are no tags: ``prepare``, ``number`` and ``check_message``
        written out, and the time check left out for the epoch (an undated chat message).
        Finishing 200k one-document OpenAI messages (the reader's CPU taken out) took
        0.524 s against 0.576 s the long way: medians of 15 alternating rounds
        in-process at load 5-7 on 2 cores, 13 rounds of 15 faster (by 0.056 s, median).
        A ``RangeFinisher`` (``type(self)`` not ``Finisher``) and tags take the long way.
        tests/pipeline/test_finisher_typed.py holds it equal to the long way."""
        self.count += 1
        self.numbered += 1
        if not msg.format:
            msg.format = self.fmt
        if not msg.timestamp:
            msg.timestamp = EPOCH_STR
        self._given(msg)
        if not msg.id:
            ids = self.ids
            msg.id = ids.occurrence(content_id(msg, conversation=ids.file), msg.timestamp)
        sid = msg.source_id = msg.source_id or fallback_source_id(self.source_name, self.numbered)
        if msg.timestamp == EPOCH_STR and msg.text_chunks:
            return msg
        return check_message(msg, sid, typed=True)

    def refused(self, ctx: ImportContext, error: RecordError, msg: ConversationMessage) -> None:
        """Report a message ``check_message`` refused (numbered, as the store would see it)."""
        ctx.reject_error(error, refused_raw(msg))

    def prepare(self, msg: ConversationMessage) -> ConversationMessage:
        self.count += 1
        if not msg.format:
            msg.format = self.fmt
        if not msg.timestamp:
            msg.timestamp = EPOCH_STR
        if self.tags:
            msg.tags = list(dict.fromkeys([*msg.tags, *self.tags]))
        return msg

    def number(self, source_id: str | None, base: str | None) -> tuple[str, str | None]:
        """The next message's ``source_id`` (its own, else ``name#N``) and, given the
        content-hash base of a message without an id, its id with the occurrence counter."""
        self.numbered += 1
        sid = source_id or fallback_source_id(self.source_name, self.numbered)
        return sid, None if base is None else self.ids.occurrence(base)


def _reads_ids(fmt: str) -> bool:
    """``fmt`` reads records back, their ids as they were stored (``h:`` ones too)."""
    try:
        return registry.get(fmt).family == "records"
    except ConvoError:  # a name no format has (a test's finisher)
        return False


def one_source(paths: Sequence[str | Path]) -> bool:
    """Whether ``paths`` are one source (a file or standard input): nothing to hold its
    ids against, so a run of one file pays nothing for ``RunIds`` (nor does one folder a
    format reads whole, a Slack export: ``Ingest._messages`` finds it one source)."""
    import os

    return len(paths) == 1 and not os.path.isdir(paths[0])


def fallback_source_id(source_name: str, n: int) -> str:
    """The ``source_id`` of the ``n``-th message of a source when it has none of its own."""
    return f"{source_name}#{n}"


def refused_raw(msg: ConversationMessage) -> object:
    """What ``--rejects`` keeps of a refused message: its record, else its repr."""
    try:
        return msg.serialize()
    except Exception:  # wrong-typed fields need not serialise
        return repr(msg)


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
