"""Speaker paragraphs of the text transcripts (Otter, Rev, Teams .docx, Google Meet) as
messages.

The text formats time a paragraph by an offset from the start of the recording, as a
cue is timed: the message's time is the start plus the offset, where the start is
``--start-date`` when given, else the meeting's start the file states (Google Meet's
title, Teams' date line), else the epoch (an undated transcript, as ``vtt`` does).
``extra.start`` holds the offset in seconds. The id hashes the offset, not the start,
so re-ingesting with another ``--start-date`` finds the same messages (``turns`` does
the same for cues).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, Protocol

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.registry import head_lines
from convo.importers.transcripts.cues import text_lines

# ``M:SS``, ``MM:SS`` or ``H:MM:SS`` (up to six hour digits): minutes and seconds < 60.
CLOCK = r"\d{1,6}:[0-5]\d(?::[0-5]\d)?"


def clock_seconds(clock: str) -> int:
    """Seconds of a ``CLOCK`` (``1:02:03`` is 3723, ``2:03`` is 123)."""
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total


class TextTurns:
    """Builds the messages of one text transcript, numbering their ids."""

    def __init__(self, source: Source, ctx: ImportContext, kind: str):
        self.ctx = ctx
        self.kind = kind
        self.ids = ContentIds(source.name)
        self.start: datetime | None = ctx.options.start_date
        self.count = 0

    def stated_start(self, start: datetime) -> None:
        """The meeting's start as the file states it; ``--start-date`` wins when given."""
        if self.ctx.options.start_date is None:
            self.start = start

    def build(
        self,
        lines: list[str],
        *,
        speaker: str | None,
        offset: int | None,
        where: str,
        subject: str | None = None,
        tags: list[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ConversationMessage:
        """One message of the paragraph ``lines`` (joined with newlines), found at ``where``
        (its ``source_id``); ``offset`` in seconds from the start of the recording (None:
        unknown)."""
        ts = self._time(offset, where)
        msg = message(
            "\n".join(lines),
            speaker=speaker,
            timestamp=ts,
            source_id=where,
            format=self.kind,
            subject=subject,
            tags=tags,
            extra={"start": None if offset is None else float(offset), **(extra or {})},
        )
        self.ids.assign(msg, timestamp=None if offset is None else _offset_time(offset))
        self.count += 1
        return msg

    def _time(self, offset: int | None, where: str) -> str | None:
        if offset is None:
            return None
        if self.start is None:
            return _offset_time(offset)
        try:
            return format_timestamp_utc(self.start + timedelta(seconds=offset))
        except OverflowError:
            self.ctx.warn(where, "time past the year 9999; left unknown")
            return None


def _offset_time(seconds: int) -> str:
    try:
        return epoch_plus(seconds)
    except OverflowError:
        return f"+{seconds}s"


def never(_line: str) -> bool:
    """The ``skip`` (or ``document``) of a transcript that has no such lines."""
    return False


# A paragraph's header line read: (speaker or None, offset in seconds, text on the line).
Header = tuple[str | None, int, str]


def sniff_headed(
    source: Source,
    header: Callable[[str], Header | None],
    found: int,
    whole: int,
    *,
    refuse: str = "",
) -> int:
    """The score of a text transcript whose turns each open with a header line (``header``
    reads one) in the first 12 non-blank lines of the head: the first is a header and a
    second is there too, ``found``; the head is the whole file (under 4 KiB, under 12
    lines), its first line a header with words or followed by another line, ``whole``;
    else 0. A first line opening with a character of ``refuse`` (``{[<``: JSON or
    markup) is none."""
    lines = head_lines(source, 12)
    if not lines or (refuse and lines[0].lstrip()[:1] in refuse):
        return 0
    first = header(lines[0])
    if first is None:
        return 0
    if sum(1 for x in lines if header(x)) >= 2:
        return found
    alone = len(source.head) < 4096 and len(lines) < 12
    return whole if alone and (len(lines) >= 2 or first[2]) else 0


class Preamble(Protocol):
    """The lines a format writes above its first paragraph (Otter's title, date line and
    keywords: ``otter_header.OtterHeader``), read before the first header line."""

    title: str | None
    start: datetime | None

    def take(self, line: str, where: str) -> bool: ...  # whether ``line`` is one of them
    def settle(self) -> None: ...  # at the first header line
    def first_extra(self) -> dict[str, Any] | None: ...  # for the first message, once


def headed_paragraphs(
    source: Source,
    ctx: ImportContext,
    kind: str,
    header: Callable[[str], Header | None],
    skip: Callable[[str], bool],
    what: str,
    *,
    document: Callable[[str], bool] | None = None,
    start: datetime | None = None,
    preamble: Preamble | None = None,
) -> Iterator[ConversationMessage]:
    """The messages of a text transcript made of header lines (``header`` reads one)
    each followed by its paragraph, streamed line by line (``cues.text_lines``).

    A paragraph's lines (the header's own text first) are joined with newlines, each
    stripped; blank lines and the lines ``skip`` says are structure (a footer) are
    dropped; a non-blank line before the first header is rejected with its line; a
    header without text is skipped with a warning. ``what`` names the format's lines in
    those reports.

    ``document`` (a transcript inside a document: Markdown) says which lines are the
    document's own (a heading): one ends the paragraph before it, and the lines outside
    every paragraph (the title, notes, a summary before the first header, a section
    after the last) are not rejected but counted in one warning with the first's line.
    ``preamble`` reads the lines before the first header it knows (none are rejected);
    its title is every message's subject, its start what offsets count from (unless
    ``--start-date``).
    ``start``: what offsets count from, instead of ``--start-date`` (a day's midnight,
    for a transcript timed by the clock)."""
    turns = TextTurns(source, ctx, kind)
    if start is not None:
        turns.start = start
    cur: tuple[int, str | None, int] | None = None  # (line, speaker, offset)
    text: list[str] = []
    outside = _Outside(source, ctx, what, document)
    head = _Head(preamble, turns)
    for n, raw in text_lines(source, ctx.text_decoder()):
        line = raw.strip()
        got = header(line) if line else None
        if got is not None:
            if cur is not None:
                yield from head.paragraph(ctx, cur, text)
            head.settle()
            cur, text = (n, got[0], got[1]), [got[2]] if got[2] else []
        elif not line or skip(line) or (cur is None and head.take(line, ctx.loc(n))):
            continue  # a blank line, structure, a line of the preamble
        elif outside.takes(n, raw, cur is not None):
            if cur is not None:
                yield from head.paragraph(ctx, cur, text)
                cur, text = None, []
        else:
            text.append(line)
    if cur is not None:
        yield from head.paragraph(ctx, cur, text)
    outside.report()
    if not turns.count:
        ctx.warn(source.name, f"no {what} paragraphs; nothing imported")


class _Outside:
    """The lines outside every paragraph: without ``document``, a line before the first
    header is rejected; with it, a line before the first header or one ``document``
    says is the document's (and those after it, to the next header) is counted for one
    warning (``headed_paragraphs``)."""

    def __init__(
        self,
        source: Source,
        ctx: ImportContext,
        what: str,
        document: Callable[[str], bool] | None,
    ):
        self.document = document
        self.ctx = ctx
        self.what = what
        self.first = 0
        self.count = 0

    def takes(self, n: int, raw: str, in_paragraph: bool) -> bool:
        """Whether line ``n`` is outside every paragraph (rejected or counted); a True in
        a paragraph ends it."""
        if self.document is None:
            if in_paragraph:
                return False
            self.ctx.reject(self.ctx.loc(n), f"text before the first {self.what} speaker line", raw)
            return True
        if in_paragraph and not self.document(raw.strip()):
            return False
        self.first = self.first or n
        self.count += 1
        return True

    def report(self) -> None:
        if self.count:
            self.ctx.warn(
                self.ctx.loc(self.first),
                f"{counted(self.count, 'line')} of the document outside the {self.what} speaker "
                "turns (its title, notes, headings) not read as messages",
            )


class _Head:
    """A ``Preamble`` (or none) and the turns it gives its title, start and extra to."""

    def __init__(self, preamble: Preamble | None, turns: TextTurns):
        self.preamble = preamble
        self.turns = turns
        self.settled = preamble is None

    def take(self, line: str, where: str) -> bool:
        return not self.settled and self.preamble is not None and self.preamble.take(line, where)

    def settle(self) -> None:
        if self.settled or self.preamble is None:
            return
        self.settled = True
        self.preamble.settle()
        if self.preamble.start is not None:
            self.turns.stated_start(self.preamble.start)

    def paragraph(
        self, ctx: ImportContext, cur: tuple[int, str | None, int], text: list[str]
    ) -> Iterator[ConversationMessage]:
        line, speaker, offset = cur
        if not text:
            ctx.warn(ctx.loc(line), "speaker line without text; skipped")
            return
        p = self.preamble
        yield self.turns.build(
            text, speaker=speaker, offset=offset, where=ctx.loc(line),
            subject=None if p is None else p.title, extra=None if p is None else p.first_extra(),
        )  # fmt: skip
