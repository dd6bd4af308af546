"""Whisper JSON transcripts: OpenAI Whisper's ``--output_format json``, WhisperX (and
faster-whisper front ends that write the same shape), the OpenAI audio API's
``verbose_json`` and ``diarized_json``, the Hugging Face ASR pipeline's
``return_timestamps`` output (``chunks`` of ``{timestamp: [start, end], text}``; word
chunks grouped as whisper.cpp's pieces are) and insanely-fast-whisper's ``output.json``
(its diarized ``speakers`` turns read instead of the chunks they repeat) (``whisper``), and whisper.cpp's ``-oj``/``-ojf``
(``whisper-cpp``). Decisions are in the package docstring.

whisper.cpp's writer is ``output_json`` in ggerganov/whisper.cpp ``examples/cli/cli.cpp``:
``-ml N`` cuts a segment into pieces of at most N bytes (``whisper_wrap_segment`` in
``src/whisper.cpp``: ``-ml 1`` one token a piece, sub-word pieces and punctuation
without a leading space; ``-sow`` one word), each piece's text its tokens as written;
the file does not say ``-ml`` was given, so short pieces are recognised by their length
(``SPLIT_MEAN_CHARS``) and grouped as words are. ``-tdrz`` (tinydiarize) writes
``speaker_turn_next`` on the segment before a turn (the console prints
``[SPEAKER_TURN]``); it names nobody, so it ends a group and is kept in ``extra``.

Ids and their scope (docs/ids.md): the content hash of each turn, its conversation the
file's name (the recording), hashing the segment's offset
(``convo.importers.transcripts.merging``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc, as_dict, as_str, has_key, json_head
from convo.importers.registry import Format
from convo.importers.transcripts import SPEECH_FIELDS
from convo.importers.transcripts.speech import (
    Spoken,
    SpokenReader,
    Word,
    join_words,
    label,
    not_an_object,
    offset_ms,
    word_groups,
)

PATTERNS = ("*.json",)
# Top-level members passed over unkept: the whole text, and words (read, when they are
# all there is, as their own array).
_BIG = ("text", "words", "word_segments")
_SEGMENT_MARKS = ('"seek"', '"avg_logprob"', '"no_speech_prob"', '"compression_ratio"',
                  "transcript.text.segment", '"word_segments"')  # fmt: skip
# (A head may end just after an escape's backslash: ``\\?``.)
_TEXT_FIRST = re.compile(r'\A\{\s*"text"\s*:\s*"(?:[^"\\]|\\.)*\\?\Z', re.S)
# The OpenAI API's response: ``task`` (and ``duration``) before the whole ``text``, in
# which a head cut short ends.
_TEXT_LAST = re.compile(r'"text"\s*:\s*"(?:[^"\\]|\\.)*\\?\Z', re.S)
# The Hugging Face ASR pipeline's ``return_timestamps`` output (insanely-fast-whisper's
# ``output.json``): each chunk's ``timestamp`` a pair, its end ``null`` when cut short.
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_PAIRS = re.compile(r'"(?:chunks|speakers)"\s*:')
_PAIR = re.compile(rf'"timestamp"\s*:\s*\[\s*{_NUMBER}\s*,\s*(?:{_NUMBER}|null)\s*\]')


def sniff_whisper(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    if has_key(text, "segments"):
        if any(m in text for m in _SEGMENT_MARKS):
            return 85
        if all(has_key(text, k) for k in ("start", "end", "text")) and not has_key(text, "results"):
            return 60  # segments with times and text: a Whisper-shaped dump
        return 0
    if has_key(text, "word_segments"):
        return 80  # WhisperX without segments
    if _PAIRS.search(text) and _PAIR.search(text):
        return 75  # the Hugging Face pipeline's chunks (insanely-fast-whisper)
    if has_key(text, "task") and has_key(text, "duration"):
        return _api_score(text)
    if _TEXT_FIRST.match(text) and source.match_name.endswith(".json"):
        return 30  # Whisper writes the whole text first: the head ends inside it
    return 0


def _api_score(text: str) -> int:
    """The score of a head with the OpenAI API's ``task`` and ``duration`` (no segments)."""
    if has_key(text, "words"):
        return 80  # verbose_json with word timestamps only
    if _TEXT_LAST.search(text):
        return 60  # verbose or diarized json, its text longer than the head
    return 0


def _segment(n: int, seg: Any) -> Spoken:
    if not isinstance(seg, dict):
        return not_an_object(n, seg, "a segment")
    ident = seg.get("id")
    return Spoken(
        n,
        as_str(seg.get("text")),
        offset_ms(seg.get("start")),
        offset_ms(seg.get("end")),
        label(seg.get("speaker")),
        ident=None if ident is None else as_str(ident) or None,
        raw=seg,
    )


def _chunk(n: int, chunk: Any) -> Spoken:
    """A Hugging Face pipeline chunk (or insanely-fast-whisper's speaker turn):
    ``{"timestamp": [start, end], "text"}``, a ``speaker`` when diarized."""
    if not isinstance(chunk, dict):
        return not_an_object(n, chunk, "a chunk")
    pair = chunk.get("timestamp")
    start, end = pair if isinstance(pair, list) and len(pair) == 2 else (None, None)
    return Spoken(
        n,
        as_str(chunk.get("text")),
        offset_ms(start),
        offset_ms(end),
        label(chunk.get("speaker")),
        raw=chunk,
    )


def _word(w: Any) -> Word:
    w = as_dict(w)
    return Word(
        as_str(w.get("word")) or as_str(w.get("text")),
        offset_ms(w.get("start")),
        offset_ms(w.get("end")),
        label(w.get("speaker")),
    )


def said_mended(doc: StreamedDoc, ctx: ImportContext, what: str) -> None:
    """One warning for the elements read with bytes that are not UTF-8 as U+FFFD
    (whisper.cpp writes a token's bytes as they are, and may cut a character in two)."""
    if doc.mended:
        ctx.warn(
            ctx.source.name,
            f"{doc.mended} {what} held bytes that are not UTF-8 (a character cut in two, "
            "as whisper.cpp may write it); read as U+FFFD",
        )


def read_whisper(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("segments",), skip=_BIG, mend_utf8=True)
    doc.head()
    if doc.root != "{":
        doc.close()
        raise InputError("not a Whisper transcript (not a JSON object)", where=source.name)
    reader = SpokenReader(source, ctx, "whisper")
    if doc.found:
        yield from reader.read(_segment(n, s) for n, s in enumerate(doc.values(), 1))
        said_mended(doc, ctx, "segments")
        if reader.seen:
            yield from reader.finish()
            return
    else:
        doc.close()
    # No segments: the Hugging Face pipeline's speaker turns, else its chunks.
    for key in ("speakers", "chunks"):
        chunks = StreamedDoc(source, (key,), keep=False, mend_utf8=True)
        chunks.head()
        if not chunks.found:
            chunks.close()
            continue
        reader = SpokenReader(source, ctx, "whisper", unit="chunk")
        spoken = (_chunk(n, c) for n, c in enumerate(chunks.values(), 1))
        yield from reader.read(spoken if key == "speakers" else _pieces(spoken, join_words))
        said_mended(chunks, ctx, key)
        if reader.seen:
            yield from reader.finish(key)
            return
    # No segments (or an empty list): the words, when the file has them.
    for key in ("words", "word_segments"):
        words = StreamedDoc(source, (key,), keep=False, mend_utf8=True)
        words.head()
        if words.found:
            reader = SpokenReader(source, ctx, "whisper", unit="word")
            yield from reader.read(word_groups(_word(w) for w in words.values()))
            said_mended(words, ctx, "words")
            yield from reader.finish("words")
            return
        words.close()
    if not doc.found:
        raise InputError("not a Whisper transcript (no segments or words list)", where=source.name)
    yield from reader.finish()


# -- whisper.cpp


def sniff_whisper_cpp(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not has_key(text, "transcription"):
        return 0
    if has_key(text, "offsets") or has_key(text, "timestamps") or has_key(text, "systeminfo"):
        return 90
    return 0


_CPP_TIME = re.compile(r"\s*(\d+):(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?\s*\Z")


def _cpp_time(value: Any) -> int | None:
    """``00:01:02,500`` (whisper.cpp's ``timestamps``) in milliseconds."""
    m = _CPP_TIME.match(as_str(value))
    if not m or int(m[2]) > 59 or int(m[3]) > 59:
        return None
    return ((int(m[1]) * 60 + int(m[2])) * 60 + int(m[3])) * 1000 + int((m[4] or "0").ljust(3, "0"))


def _cpp_segment(n: int, seg: Any) -> Spoken:
    if not isinstance(seg, dict):
        return not_an_object(n, seg, "a segment")
    offsets, times = as_dict(seg.get("offsets")), as_dict(seg.get("timestamps"))
    start = offset_ms(offsets.get("from"), 1)
    end = offset_ms(offsets.get("to"), 1)
    if start is None:
        start, end = _cpp_time(times.get("from")), _cpp_time(times.get("to"))
    speaker = label(seg.get("speaker"))
    turn = seg.get("speaker_turn_next") is True
    return Spoken(
        n,
        as_str(seg.get("text")),
        start,
        end,
        None if speaker == "?" else speaker,  # "?": the stereo estimate could not tell
        extra={"speaker_turn_next": True} if turn else None,
        raw={k: v for k, v in seg.items() if k != "tokens"},
    )


# ``-ml N`` (``--max-len``) cuts each segment into pieces of at most N bytes (``-ml 1``:
# one token a segment; with ``-sow``, one word): a file whose first segments with text
# are this short on average is read as pieces of sentences and grouped as words are.
SPLIT_SAMPLE = 32
SPLIT_MEAN_CHARS = 12
SPLIT_HELD = 1024  # segments held at most while deciding (empty ones count too)


def _pieces(
    segments: Iterator[Spoken], join: Callable[[list[str]], str] | None = None
) -> Iterator[Spoken]:
    """whisper.cpp's segments, grouped into sentences when ``-ml`` cut them into pieces
    (see ``SPLIT_MEAN_CHARS``; the first ``SPLIT_SAMPLE`` segments with text decide,
    held meanwhile), else as they are. The Hugging Face pipeline's word chunks
    (``return_timestamps="word"``) are such pieces too, joined by ``join``."""
    held: list[Spoken] = []
    sized = 0
    chars = 0
    for seg in segments:
        held.append(seg)
        if seg.problem is None and seg.text.strip():
            sized += 1
            chars += len(seg.text.strip())
        if sized >= SPLIT_SAMPLE or len(held) >= SPLIT_HELD:
            break
    rest = itertools.chain(held, segments)
    if sized < 2 or chars > SPLIT_MEAN_CHARS * sized:
        yield from rest
        return
    yield from _grouped(rest, join or _as_written)


def _grouped(segments: Iterable[Spoken], join: Callable[[list[str]], str]) -> Iterator[Spoken]:
    """Pieces grouped as words (``speech.word_groups``: a sentence's end, a pause, another
    speaker, a tinydiarize turn), their text joined as whisper.cpp wrote it (each piece
    carries its own leading space), a group numbered by its first piece. A piece that
    is not an object is rejected as in a file of whole segments; in its group it counts
    as a piece without text or time (so the numbers stay the file's)."""
    aside: list[Spoken] = []

    def words() -> Iterator[Word]:
        for seg in segments:
            if seg.problem is not None:
                aside.append(seg)
                yield Word("", None, None)
                continue
            turn = bool(seg.extra and seg.extra.get("speaker_turn_next"))
            yield Word(seg.text, seg.start, seg.end, seg.speaker, turn_next=turn)

    for group in word_groups(words(), join=join):
        yield from aside
        aside.clear()
        yield group
    yield from aside


def _as_written(pieces: list[str]) -> str:
    return "".join(pieces).strip()


def read_whisper_cpp(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("transcription",), skip=("systeminfo",), mend_utf8=True)
    doc.expect("not a whisper.cpp transcript (no transcription list)")
    reader = SpokenReader(source, ctx, "whisper-cpp")
    yield from reader.read(_pieces(_cpp_segment(n, s) for n, s in enumerate(doc.values(), 1)))
    said_mended(doc, ctx, "segments")
    yield from reader.finish()


DESCRIPTION = (
    "Whisper JSON (openai-whisper, WhisperX, OpenAI verbose/diarized_json, Hugging Face "
    "pipeline chunks, insanely-fast-whisper); speakers"
)
EXAMPLE = '{"segments": [{"id": 0, "seek": 0, "start": 0.0, "end": 2.5, "text": " Hello."}]}'
CPP_DESCRIPTION = "whisper.cpp JSON (-oj, -ojf): transcription segments"
CPP_EXAMPLE = (
    '{"transcription": [{"timestamps": {"from": "00:00:00,000", "to": "00:00:02,500"}, '
    '"offsets": {"from": 0, "to": 2500}, "text": " Hello."}]}'
)
FORMATS = (
    Format("whisper", "transcript", DESCRIPTION, PATTERNS, sniff_whisper, read_whisper, EXAMPLE,
           fields=SPEECH_FIELDS),
    Format("whisper-cpp", "transcript", CPP_DESCRIPTION, PATTERNS, sniff_whisper_cpp,
           read_whisper_cpp, CPP_EXAMPLE, fields=SPEECH_FIELDS),
)  # fmt: skip
