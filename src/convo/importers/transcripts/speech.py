"""What the speech-to-text JSON formats share: a segment as an engine wrote it
(``Spoken``), offsets read leniently, words grouped into segments when a file has
words only, and the reading loop that turns segments into merged turns
(``merging.TurnMerger``). Decisions are in the package docstring."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.transcripts.merging import TurnMerger

# A group of words (a file with words only) ends at a sentence's end, at a change of
# speaker or channel, at a pause this long, or at this many words.
PAUSE_MS = 2000
MAX_GROUP_WORDS = 100
_SENTENCE_ENDS = (".", "?", "!", "\u2026", "\u3002", "\uff1f", "\uff01")
MAX_OFFSET_S = 10**9  # 31 years: a larger "offset" is not one (unreadable)


@dataclass
class Spoken:
    """One segment, utterance or group of words, as the engine wrote it.

    ``n``: its ordinal in the file (1-based, the N of ``FILE#segment-N``); ``start`` and
    ``end``: milliseconds from the start of the recording, None when unreadable;
    ``ident``: the engine's own id; ``extra``: what the turn carries (a channel);
    ``raw``: the element, kept with a rejection; ``problem``: why it cannot be read (it
    is rejected with that reason).
    """

    n: int
    text: str
    start: int | None
    end: int | None
    speaker: str | None = None
    ident: str | None = None
    extra: dict[str, Any] | None = None
    raw: Any = None
    problem: str | None = None


def not_an_object(n: int, raw: Any, what: str) -> Spoken:
    """An array element that is not a JSON object: rejected as such."""
    return Spoken(n, "", None, None, raw=raw, problem=f"not {what} (not a JSON object)")


def offset_ms(value: Any, scale: int = 1000) -> int | None:
    """An offset (seconds, or milliseconds with ``scale=1``; a number or a numeric string
    as AWS writes them) in milliseconds; None when it is not a finite, non-negative number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    if value * scale > MAX_OFFSET_S * 1000:
        return None
    return round(value * scale)


def label(value: Any) -> str | None:
    """A speaker or channel label as the engine gave it (``0`` -> ``"0"``); None when empty."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        text = str(value).strip()
        return text or None
    return None


@dataclass
class Word:
    """One word of a file that has words only (its offsets in milliseconds)."""

    text: str
    start: int | None
    end: int | None
    speaker: str | None = None
    extra: dict[str, Any] | None = None
    turn_next: bool = False  # a speaker turn follows it (whisper.cpp's tinydiarize)


def join_words(words: list[str]) -> str:
    """Words as text: a word that starts with white space (Whisper's) is appended as it is,
    others after a space."""
    out: list[str] = []
    for w in words:
        if out and not w[:1].isspace():
            out.append(" ")
        out.append(w)
    return "".join(out).strip()


def word_groups(
    words: Iterable[Word], first: int = 1, join: Callable[[list[str]], str] = join_words
) -> Iterator[Spoken]:
    """Words grouped into segments (see ``PAUSE_MS``); ``n`` is the ordinal of a group's
    first word (counting from ``first``), so ``FILE#word-N`` points at it. ``join`` makes
    a group's text of its words' (whisper.cpp's pieces are joined as written). A word
    followed by a speaker turn (``turn_next``) ends its group, whose ``extra`` then says
    ``speaker_turn_next``.

    A word with neither times nor a speaker (WhisperX aligns no numerals or symbols:
    ``100`` has no ``start``, ``end`` or ``speaker``) belongs to the words around it: it
    neither changes the speaker nor starts a group of its own, which would have no time
    and be rejected. A group's speaker is that of its first word that has one; words of
    that kind left alone at the end of the file join the group before them.
    """
    group: list[Word] = []
    anchor: Word | None = None  # the group's first word with a time or a speaker
    done: tuple[list[Word], int, Word | None] | None = None  # the group before, held back
    n = first
    at = first
    for word in words:
        follows = word.start is None and word.end is None and word.speaker is None
        if group and _ends_group(group, anchor, word, follows):
            if done is not None:
                yield _group(*done, join)
            done = (group, n, anchor)
            group, n, anchor = [], at, None
        group.append(word)
        if anchor is None and not follows:
            anchor = word
        at += 1
    if done is not None and group and anchor is None:
        done[0].extend(group)  # trailing words without time or speaker
        group = []
    if done is not None:
        yield _group(*done, join)
    if group:
        yield _group(group, n, anchor, join)


def _ends_group(group: list[Word], anchor: Word | None, word: Word, follows: bool) -> bool:
    """Whether ``word`` starts a new group: a sentence's end before it, a pause, the
    group's size, or (unless it ``follows``: no times, no speaker) another speaker or
    channel than the group's ``anchor``."""
    last = group[-1]
    if last.turn_next:
        return True
    if len(group) >= MAX_GROUP_WORDS or last.text.rstrip().endswith(_SENTENCE_ENDS):
        return True
    if word.start is not None and last.end is not None and word.start - last.end >= PAUSE_MS:
        return True
    return (
        not follows
        and anchor is not None
        and (word.speaker != anchor.speaker or word.extra != anchor.extra)
    )


def _group(
    words: list[Word], n: int, anchor: Word | None, join: Callable[[list[str]], str] = join_words
) -> Spoken:
    starts = [w.start for w in words if w.start is not None]
    ends = [w.end for w in words if w.end is not None]
    first = anchor or words[0]
    extra = first.extra
    if words[-1].turn_next:
        extra = {**(extra or {}), "speaker_turn_next": True}
    return Spoken(
        n,
        join([w.text for w in words]),
        starts[0] if starts else None,
        max(ends) if ends else None,
        first.speaker,
        extra=extra,
        raw=[w.text for w in words],
    )


class SpokenReader:
    """Segments in, merged turns out: empty segments counted, untimed ones rejected."""

    def __init__(self, source: Source, ctx: ImportContext, kind: str, unit: str = "segment"):
        self.ctx = ctx
        self.source = source
        self.unit = unit
        opts = ctx.options
        self.named = opts.speakers != "none"  # --speakers none: the labels are left out
        self.merger = TurnMerger(
            ctx, source.name, kind, merge=opts.merge, start_date=opts.start_date, unit=unit
        )
        self.empty = 0
        self.seen = 0

    def read(self, segments: Iterable[Spoken]) -> Iterator[ConversationMessage]:
        """Every segment (more than one call for a file read in several passes)."""
        ctx = self.ctx
        for seg in segments:
            self.seen += 1
            if seg.problem is not None:
                ctx.reject(ctx.loc(f"{self.unit}-{seg.n}"), seg.problem, seg.raw)
                continue
            text = seg.text.strip()
            if not text:
                self.empty += 1
                continue
            if seg.start is None:
                where = ctx.loc(f"{self.unit}-{seg.n}")
                ctx.reject(where, f"{self.unit} without a readable start time", seg.raw)
                continue
            end = seg.end if seg.end is not None and seg.end >= seg.start else seg.start
            speaker = seg.speaker if self.named else None
            msg = self.merger.add(speaker, text, seg.n, seg.ident, seg.start, end, seg.extra)
            if msg is not None:
                yield msg

    def finish(self, what: str = "segments") -> Iterator[ConversationMessage]:
        """The last turn; the count of empty segments, or a warning that nothing was imported."""
        if (msg := self.merger.finish()) is not None:
            yield msg
        ctx = self.ctx
        if self.empty:
            ctx.warn(self.source.name, f"skipped {what} without text: {self.empty}")
        if not self.merger.count and not ctx.rejected:
            ctx.warn(self.source.name, f"no {what} with text; nothing imported")
