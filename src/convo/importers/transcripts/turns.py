"""Speakers of cues, shared by the three cue formats: cues in, messages out (merged into
turns by ``merging``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.transcripts.cues import (
    BadBlock,
    Comment,
    Header,
    RawCue,
    cues,
    plain_blocks,
    srt_paragraphs,
    text_lines,
    vtt_blocks,
)
from convo.importers.transcripts.cuetext import Segment, choose_style, line_prefixes, segments
from convo.importers.transcripts.merging import TurnMerger

SAMPLE_CUES = 200


class _Turns:
    """Speaker resolution and merging, fed one cue at a time."""

    def __init__(self, source: Source, ctx: ImportContext, kind: str):
        self.ctx = ctx
        self.name = source.name
        self.kind = kind
        opts = ctx.options
        self.mode = opts.speakers if opts.speakers in ("voice", "prefix", "none") else "auto"
        self.style: str | None = None
        self.decided = self.mode in ("voice", "none")
        self.sample: list[tuple[RawCue, list[Segment], bool]] = []
        self.sample_voice = False
        self.prev_speaker: str | None = None
        self.merger = TurnMerger(
            ctx, source.name, kind, merge=opts.merge, start_date=opts.start_date
        )

    # -- input
    def add(
        self, cue: RawCue, segs: list[Segment], has_voice: bool
    ) -> Iterator[ConversationMessage]:
        if self.decided:
            yield from self._resolve(cue, segs, has_voice)
            return
        self.sample.append((cue, segs, has_voice))
        self.sample_voice = self.sample_voice or has_voice
        if len(self.sample) >= SAMPLE_CUES:
            yield from self._decide()

    def finish(self) -> Iterator[ConversationMessage]:
        if not self.decided:
            yield from self._decide()
        if (msg := self.merger.finish()) is not None:
            yield msg

    def _decide(self) -> Iterator[ConversationMessage]:
        self.decided = True
        if self.mode == "prefix" or not self.sample_voice:
            forced = self.mode == "prefix"
            texts = [
                [ln for s in segs for ln in s.lines]
                for _, segs, voiced in self.sample
                if forced or not voiced
            ]
            self.style = choose_style(texts, forced=forced)
        sample, self.sample = self.sample, []
        for cue, segs, has_voice in sample:
            yield from self._resolve(cue, segs, has_voice)

    # -- speakers
    def _resolve(
        self, cue: RawCue, segs: list[Segment], has_voice: bool
    ) -> Iterator[ConversationMessage]:
        mode = self.mode
        for seg in segs:
            if mode == "none":
                yield from self._emit(None, seg.lines, cue)
            elif has_voice and mode in ("auto", "voice"):
                yield from self._emit(seg.speaker, seg.lines, cue)
            elif self.style and mode in ("auto", "prefix"):
                yield from self._prefixed(seg.lines, cue)
            else:
                yield from self._emit(None, seg.lines, cue)

    def _prefixed(self, lines: list[str], cue: RawCue) -> Iterator[ConversationMessage]:
        style = self.style
        assert style is not None
        speaker = None if style == "bracket" else self.prev_speaker
        group: list[str] = []
        for line, got in line_prefixes(style, lines):
            if got is None:
                if style != "paren" or line != "-":  # the line between two speakers
                    group.append(line)
                continue
            if group:
                yield from self._emit(speaker, group, cue)
            speaker, rest = got
            group = [rest] if rest else []
        if group:
            yield from self._emit(speaker, group, cue)
        if style != "bracket":
            self.prev_speaker = speaker

    # -- merging
    def _emit(
        self, speaker: str | None, lines: list[str], cue: RawCue
    ) -> Iterator[ConversationMessage]:
        msg = self.merger.add(speaker, "\n".join(lines), cue.n, cue.ident, cue.start_ms, cue.end_ms)
        if msg is not None:
            yield msg


def _rolling_dedupe(lines: list[str], prev: list[str]) -> list[str]:
    """Drop the leading lines that repeat the end of the previous cue (rolling captions)."""
    for k in range(min(len(lines), len(prev)), 0, -1):
        if lines[:k] == prev[-k:]:
            return lines[k:]
    return lines


class _RollUp:
    """Roll-up captions (YouTube): each cue repeats the lines the previous cue showed."""

    def __init__(self) -> None:
        self.on = False  # the header has ``Kind:``, a cue had karaoke timestamps or froze
        self.prev: list[str] = []

    def freezes(self, segs: list[Segment], cue: RawCue) -> bool:
        """Whether the cue is roll-up's freeze: at most 50 ms showing again the last
        line(s) of the cue before it, which YouTube's automatic captions write between
        two rolls and keep when converted to SubRip (yt-dlp ``--convert-subs srt``,
        FFmpeg), where no ``Kind:`` header or karaoke timestamp says they roll."""
        lines, prev = segs[0].lines, self.prev
        self.prev = lines
        short = 0 <= cue.end_ms - cue.start_ms <= 50
        return short and 0 < len(lines) <= len(prev) and lines == prev[-len(lines) :]

    def new_part(self, segs: list[Segment]) -> list[Segment] | None:
        """The cue's segments without the lines repeated from the previous cue; None: all repeated."""
        lines = segs[0].lines
        kept = _rolling_dedupe(lines, self.prev)
        self.prev = lines
        return [Segment(None, kept)] if kept else None


def _cue_segments(
    cue: RawCue, kind: str, ctx: ImportContext, roll: _RollUp
) -> tuple[list[Segment], bool] | None:
    """A timed cue's segments and whether it has voice spans; None when there is nothing new."""
    text = segments(cue.payload, kind)
    roll.on = roll.on or text.karaoke
    segs = text.segments
    if not roll.on and not text.has_voice and segs and roll.freezes(segs, cue):
        roll.on = True
        return None  # the freeze repeats what the previous cue said
    if roll.on and not text.has_voice and segs:
        new = roll.new_part(segs)
        if new is None:
            return None  # a duplicate: it vanishes without a warning
        segs = new
    if not segs:
        ctx.warn(ctx.loc(cue.line), f"cue {cue.n} has no text; skipped")
        return None
    if cue.end_ms < cue.start_ms:
        ctx.warn(ctx.loc(cue.line), f"cue {cue.n} ends before it starts; kept as timed")
    if kind == "vtt" and not text.has_voice and (named := _identified(cue, segs)) is not None:
        return named, True
    return segs, text.has_voice


# Webex names the speaker in the cue identifier: ``12 "Ann Lee" (3330436864)``, the
# number in parentheses Webex's id of the attendee; ``1 "" (0)`` when it could not tell.
_WEBEX_IDENT = re.compile(r'\d+[ \t]+"([^"]*)"(?:[ \t]+\(\d*\))?[ \t]*\Z')


def _identified(cue: RawCue, segs: list[Segment]) -> list[Segment] | None:
    """The cue's text as one segment spoken by the name its identifier gives (Webex), else
    None. An empty name is no speaker, as a cue of a voiced file without a voice."""
    m = _WEBEX_IDENT.match(cue.ident or "")
    if m is None:
        return None
    lines = [ln for s in segs for ln in s.lines]
    return [Segment(" ".join(m[1].split()) or None, lines, voiced=True)]


@dataclass
class ReadCue:
    """A timed cue whose text another reader has already cut into segments (``ass``,
    ``ttml``, ``youtube``): ``has_voice`` says its segments name their speakers."""

    cue: RawCue
    segments: list[Segment]
    has_voice: bool


def read_segmented(
    source: Source, ctx: ImportContext, kind: str, items: Iterable[ReadCue | BadBlock]
) -> Iterator[ConversationMessage]:
    """Messages of cues read by another format's reader: the cue formats' speakers (a
    cue without voice gets the file's prefix style) and merging; a ``BadBlock`` is
    rejected with its line. The reader counts and warns about cues without text."""
    turns = _Turns(source, ctx, kind)
    for item in items:
        if isinstance(item, BadBlock):
            ctx.reject(ctx.loc(item.line), item.reason, item.raw, item.hint)
            continue
        cue = item.cue
        if cue.end_ms < cue.start_ms:
            ctx.warn(ctx.loc(cue.line), f"cue {cue.n} ends before it starts; kept as timed")
        yield from turns.add(cue, item.segments, item.has_voice)
    yield from turns.finish()
    if not turns.merger.count:
        ctx.warn(source.name, "no cues with text; nothing imported")


def read_cues(source: Source, ctx: ImportContext, kind: str) -> Iterator[ConversationMessage]:
    lines = text_lines(source, ctx.text_decoder())
    blocks = vtt_blocks(lines) if kind == "vtt" else plain_blocks(lines, sbv=kind == "sbv")
    if kind == "srt":
        blocks = srt_paragraphs(blocks)
    turns = _Turns(source, ctx, kind)
    roll = _RollUp()
    seen_any = False
    first = True
    for item in cues(blocks, kind):
        if isinstance(item, Header):
            first = False
            roll.on = any(x.startswith("Kind:") for x in item.lines[1:])
            continue
        if first and kind == "vtt":
            ctx.warn(ctx.loc(1), "no WEBVTT header; reading the cues anyway")
        first = False
        if isinstance(item, Comment):
            ctx.warn(
                ctx.loc(item.line),
                f"a NOTE comment holds cue text ({item.text.strip()[:60]!r}): not read, as players "
                "do not show it (a comment runs to the next blank line)",
            )
            continue
        seen_any = True
        if isinstance(item, BadBlock):
            ctx.reject(ctx.loc(item.line), item.reason, item.raw, item.hint)
            continue
        got = _cue_segments(item, kind, ctx, roll)
        if got is not None:
            yield from turns.add(item, *got)
    yield from turns.finish()
    if not turns.merger.count:
        what = "no cues" if not seen_any else "no cues with text"
        ctx.warn(source.name, f"{what}; nothing imported")
