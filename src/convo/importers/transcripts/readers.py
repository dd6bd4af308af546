"""Transcripts: WebVTT, SRT and SBV cues into messages, one per speaker turn.

Reading is streamed a line at a time (see ``transcript_cues``); webvtt-py, which reads a
whole file into memory and drops malformed cues without saying where, serves as the
reference parser in the tests rather than as the reader. The cue block rules are its
(and WebVTT's) rules.

Decisions, where the formats and the brief are silent:

- Speakers (``--speakers auto``): a cue's ``<v Name>`` spans, every one of them, each its
  own segment; text outside any span in a voiced cue has no speaker. A cue without voice
  tags uses the file's name-prefix style, decided on its first 200 cues with text
  (``transcript_text.choose_style``; memory stays bounded): ``Name: text`` (Zoom, first
  line of a cue), ``- Name: text``, ``>> NAME: text`` (broadcast; a bare ``>>`` is a new,
  unnamed speaker) or ``[Name] text`` (Netflix; only capitalised labels followed by text,
  so ``[ríe]`` and ``[music]`` are not speakers). Cues without a prefix continue the
  previous speaker, except in the ``[Name]`` style, where labels are sparse and an
  unlabelled line has no known speaker. Names keep their spelling (``Ashlee Kupor (SL)``).
  ``voice`` uses only voice tags, ``prefix`` only prefixes (without the consistency
  thresholds), ``none`` neither (text is left as written).
- Text: tags dropped, ``<rt>`` ruby annotations with their content; SSA ``{\\an8}`` codes
  dropped in SRT; HTML entities decoded; spaces tidied; a cue's lines are joined with
  ``\\n`` and merged cues with a space, as TypeAgent's ``ingest_vtt_transcript`` does
  (one text chunk per message). Rolling YouTube captions (the file header has ``Kind:``
  or cues carry karaoke timestamps) drop leading lines that repeat the previous cue's
  last lines; a cue left empty by that is a duplicate and vanishes without a warning.
- Merging: consecutive segments of one named speaker become one message, up to
  ``MAX_MERGED_CHARS`` of text (a monologue is split there so that memory stays flat).
  Segments without a speaker are never merged (TypeAgent merges them; here a
  speakerless subtitle file would become one huge message).
- Time: ``timestamp`` = ``--start-date`` (or the epoch sentinel) + the first cue's start,
  truncated to the second. ``extra``: ``start`` (the first cue's start) and ``end`` (the
  latest end among its cues), in seconds from the start of the recording as millisecond
  floats; ``cues`` (the cue
  ordinals N of ``#cue-N``, counting every cue block in the file from 1, malformed ones
  too, so numbers match the file) and ``cue_ids`` (the cues' own identifiers, SRT index
  numbers included, aligned with ``cues``; only when a cue has one).
- Timing lines are read leniently where nothing is ambiguous: missing hours, unpadded
  Teams times (``0:0:0.570``), ``,`` or ``.`` before the milliseconds (in any format), no
  milliseconds (``00:00:01``); minutes or seconds over 59 are unreadable.
- Detection: ``WEBVTT`` at the start is WebVTT (95); a first cue with a ``,`` timing is
  SRT (90); ``H:MM:SS.mmm,H:MM:SS.mmm`` as the first line is SBV (90); header-less cues
  with ``.`` timings are WebVTT (40) unless numbered (SRT, 45). An empty file counts only
  when its name has the format's extension (so it warns "no cues" instead of failing).
- Encodings: a BOM decides (UTF-8, UTF-16 LE/BE); otherwise UTF-8, falling back to
  cp1252, line by line, for the lines that are not UTF-8.
- Bad input: a block with text but no timing line, or with an unreadable timing line, is
  rejected with its line; a cue without text is skipped with a warning; a WebVTT file
  without the ``WEBVTT`` header is read anyway with a warning; an empty or header-only
  file gives no messages and a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from convo.core.io import Source
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.core.timestamps import epoch_plus, format_timestamp_utc
from convo.importers.context import ImportContext
from convo.importers.transcripts.cues import (
    SBV_TIMING,
    TIMING,
    BadBlock,
    Header,
    RawCue,
    cues,
    plain_blocks,
    text_lines,
    vtt_blocks,
)
from convo.importers.transcripts.cuetext import Segment, choose_style, match_prefix, segments

VTT_PATTERNS = ("*.vtt", "*.webvtt")
SRT_PATTERNS = ("*.srt",)
SBV_PATTERNS = ("*.sbv",)
SAMPLE_CUES = 200
MAX_MERGED_CHARS = 64 * 1024


# ---------------------------------------------------------------- detection


def _head_lines(source: Source, limit: int = 8) -> list[str]:
    text = source.head_text().lstrip("\ufeff")
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append(line)
            if len(out) >= limit:
                break
    return out


def _is_webvtt(source: Source) -> bool:
    text = source.head_text().lstrip("\ufeff")
    return text.startswith("WEBVTT") and (len(text) == 6 or text[6] in " \t\r\n")


def _first_timing(lines: list[str]) -> tuple[int, str] | None:
    for i, line in enumerate(lines[:3]):
        if "-->" in line and TIMING.match(line):
            return i, line
    return None


def _empty_named(source: Source, patterns: tuple[str, ...]) -> int:
    """An empty (or blank) file named like this format: read it, to warn 'no cues'."""
    from convo.importers.registry import matches_pattern

    return (
        1
        if not source.head.strip(b"\xef\xbb\xbf\xff\xfe\x00 \t\r\n")
        and matches_pattern(source, patterns)
        else 0
    )


def sniff_vtt(source: Source) -> int:
    if _is_webvtt(source):
        return 95
    lines = _head_lines(source)
    hit = _first_timing(lines)
    if hit and hit[0] <= 1 and "," not in hit[1].split("-->")[0]:
        return 40  # cues without the WEBVTT header
    return _empty_named(source, VTT_PATTERNS)


def sniff_srt(source: Source) -> int:
    if _is_webvtt(source):
        return 0
    lines = _head_lines(source)
    hit = _first_timing(lines)
    if not hit:
        return _empty_named(source, SRT_PATTERNS)
    i, line = hit
    indexed = i == 0 or (i == 1 and lines[0].strip().isdigit())
    if "," in line.split("-->")[0]:
        return 90 if indexed else 60
    return 45 if i == 1 and lines[0].strip().isdigit() else 30


def sniff_sbv(source: Source) -> int:
    lines = _head_lines(source, 1)
    if lines and SBV_TIMING.match(lines[0]):
        return 90
    return _empty_named(source, SBV_PATTERNS)


# ---------------------------------------------------------------- reading


class _Turns:
    """Speaker resolution and merging, fed one cue at a time."""

    def __init__(self, source: Source, ctx: ImportContext, kind: str):
        self.ctx = ctx
        self.name = source.name
        self.kind = kind
        opts = ctx.options
        self.mode = opts.speakers if opts.speakers in ("voice", "prefix", "none") else "auto"
        self.merge = opts.merge
        self.start_date = opts.start_date
        self.style: str | None = None
        self.decided = self.mode in ("voice", "none")
        self.sample: list[tuple[RawCue, list[Segment], bool]] = []
        self.sample_voice = False
        self.prev_speaker: str | None = None
        self.cur: dict | None = None
        self.count = 0

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
        if self.cur:
            yield self._build(self.cur)
            self.cur = None

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
        for i, line in enumerate(lines):
            got = match_prefix(style, line, i == 0)
            if got is None:
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
        text = "\n".join(lines)
        cur = self.cur
        if (
            cur is not None
            and self.merge
            and speaker is not None
            and speaker == cur["speaker"]
            and cur["size"] + len(text) <= MAX_MERGED_CHARS
        ):
            cur["texts"].append(text)
            cur["size"] += len(text) + 1
            cur["end"] = max(cur["end"], cue.end_ms)
            if cur["cues"][-1] != cue.n:
                cur["cues"].append(cue.n)
                cur["ids"].append(cue.ident)
            return
        if cur is not None:
            yield self._build(cur)
        self.cur = {
            "speaker": speaker, "texts": [text], "size": len(text), "start": cue.start_ms,
            "end": cue.end_ms, "cues": [cue.n], "ids": [cue.ident],
        }  # fmt: skip

    def _build(self, cur: dict) -> ConversationMessage:
        start = cur["start"]
        if self.start_date is not None:
            ts = format_timestamp_utc(self.start_date + timedelta(milliseconds=start))
        else:
            ts = epoch_plus(start / 1000)
        extra: dict = {"start": start / 1000, "end": cur["end"] / 1000, "cues": cur["cues"]}
        if any(i is not None for i in cur["ids"]):
            extra["cue_ids"] = cur["ids"]
        self.count += 1
        texts = cur["texts"]
        return ConversationMessage(
            text_chunks=[" ".join(texts) if len(texts) > 1 else texts[0]],
            metadata=ConversationMessageMeta(speaker=cur["speaker"], recipients=[]),
            timestamp=ts,
            source_id=f"{self.name}#cue-{cur['cues'][0]}",
            extra=extra,
        )


def _rolling_dedupe(lines: list[str], prev: list[str]) -> list[str]:
    """Drop the leading lines that repeat the end of the previous cue (rolling captions)."""
    for k in range(min(len(lines), len(prev)), 0, -1):
        if lines[:k] == prev[-k:]:
            return lines[k:]
    return lines


def read_kind(source: Source, ctx: ImportContext, kind: str) -> Iterator[ConversationMessage]:
    lines = text_lines(source)
    blocks = vtt_blocks(lines) if kind == "vtt" else plain_blocks(lines, sbv=kind == "sbv")
    turns = _Turns(source, ctx, kind)
    rolling = False
    prev_lines: list[str] = []
    seen_any = False
    first = True
    for item in cues(blocks, kind):
        if isinstance(item, Header):
            first = False
            rolling = any(x.startswith("Kind:") for x in item.lines[1:])
            continue
        if first and kind == "vtt":
            ctx.warn(ctx.loc(1), "no WEBVTT header; reading the cues anyway")
        first = False
        seen_any = True
        if isinstance(item, BadBlock):
            ctx.reject(ctx.loc(item.line), item.reason, item.raw, item.hint)
            continue
        text = segments(item.payload, kind)
        rolling = rolling or text.karaoke
        segs = text.segments
        if rolling and not text.has_voice and segs:
            all_lines = segs[0].lines
            kept = _rolling_dedupe(all_lines, prev_lines)
            prev_lines = all_lines
            if not kept:
                continue
            segs = [Segment(None, kept)]
        if not segs:
            ctx.warn(ctx.loc(item.line), f"cue {item.n} has no text; skipped")
            continue
        yield from turns.add(item, segs, text.has_voice)
    yield from turns.finish()
    if not turns.count:
        what = "no cues" if not seen_any else "no cues with text"
        ctx.warn(source.name, f"{what}; nothing imported")


def read_vtt(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return read_kind(source, ctx, "vtt")


def read_srt(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return read_kind(source, ctx, "srt")


def read_sbv(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return read_kind(source, ctx, "sbv")


def register(registry) -> None:
    from convo.importers.registry import Format

    registry.register(
        Format(
            name="vtt",
            family="transcript",
            description="WebVTT captions/transcripts (Teams, Zoom, YouTube); <v> voices",
            patterns=VTT_PATTERNS,
            sniff=sniff_vtt,
            read=read_vtt,
            example="WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>Hello, Bob.</v>",
        )
    )
    registry.register(
        Format(
            name="srt",
            family="transcript",
            description="SubRip subtitles (.srt)",
            patterns=SRT_PATTERNS,
            sniff=sniff_srt,
            read=read_srt,
            example="1\n00:00:01,000 --> 00:00:04,000\nAlice: Hello, Bob.",
        )
    )
    registry.register(
        Format(
            name="sbv",
            family="transcript",
            description="YouTube SubViewer captions (.sbv)",
            patterns=SBV_PATTERNS,
            sniff=sniff_sbv,
            read=read_sbv,
            example="0:00:01.000,0:00:04.000\nAlice: Hello, Bob.",
        )
    )
