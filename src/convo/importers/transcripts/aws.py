"""Amazon Transcribe batch output JSON (``aws-transcribe``): ``jobName``, ``accountId``,
``status`` and ``results``. Decisions are in the package docstring.

Transcribe Call Analytics output and Amazon Connect's Contact Lens output
(``JobStatus``, ``LanguageCode``, ``Participants``, ``Transcript``: one turn an object,
``Content``, ``BeginOffsetMillis``/``EndOffsetMillis``, the speaker its
``ParticipantRole``, ``AGENT``/``CUSTOMER``, else its ``ParticipantId``; ``Sentiment``
kept in ``extra.sentiment``) are read too, the turns streamed (``#turn-N``).

``results.audio_segments`` (written by Transcribe since 2023: one segment a pause or a
change of speaker, with its ``transcript``) is streamed one segment at a time. Without
it, ``results.items`` (words and punctuation) are streamed and grouped as words
(``speech.word_groups``); an item's speaker is its ``speaker_label``, else the speaker
of ``results.speaker_labels.segments`` whose time holds the item's start (older files),
read beside the items in a second stream: both are in time order, so memory holds one
segment.

Ids and their scope (docs/ids.md): the content hash of each turn, its conversation the
file's name (the recording), hashing the offset (``convo.importers.transcripts.merging``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, cast

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format
from convo.importers.transcripts import SPEECH_FIELDS
from convo.importers.transcripts.speech import (
    Spoken,
    SpokenReader,
    Word,
    label,
    not_an_object,
    offset_ms,
    word_groups,
)

PATTERNS = ("*.json",)


def sniff_aws(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    if has_key(text, "JobStatus") and has_key(text, "LanguageCode"):
        # Call Analytics / Contact Lens: their participants' roles, or the transcript
        if any(has_key(text, k) for k in ("ParticipantRole", "ParticipantId", "BeginOffsetMillis")):
            return 85
        return 0
    if not has_key(text, "results"):
        return 0
    if has_key(text, "jobName") and (has_key(text, "transcripts") or has_key(text, "accountId")):
        return 90
    return 0


def _extra(item: dict[str, Any]) -> dict[str, Any] | None:
    channel = label(item.get("channel_label"))
    return {"channel": channel} if channel is not None else None


def _segment(n: int, seg: Any) -> Spoken:
    if not isinstance(seg, dict):
        return not_an_object(n, seg, "a segment")
    ident = seg.get("id")
    return Spoken(
        n,
        as_str(seg.get("transcript")),
        offset_ms(seg.get("start_time")),
        offset_ms(seg.get("end_time")),
        label(seg.get("speaker_label")),
        ident=None if ident is None else as_str(ident) or None,
        extra=_extra(seg),
        raw={k: v for k, v in seg.items() if k != "items"},
    )


class _SpeakerAt:
    """The speaker of ``speaker_labels.segments`` at a time, the segments read in order."""

    def __init__(self, segments: Iterator[Any]):
        self.segments = segments
        self.cur: tuple[int, int, str | None] | None = None
        self.done = False

    def __call__(self, at: int | None) -> str | None:
        if at is None:
            return None
        while not self.done and (self.cur is None or self.cur[1] < at):
            seg = next(self.segments, None)
            if seg is None:
                self.done = True
                break
            seg = as_dict(seg)
            start, end = offset_ms(seg.get("start_time")), offset_ms(seg.get("end_time"))
            if start is not None and end is not None:
                self.cur = (start, end, label(seg.get("speaker_label")))
        cur = self.cur
        return cur[2] if cur is not None and cur[0] <= at <= cur[1] else None


def _words(items: Iterator[Any], speaker_at: _SpeakerAt | None) -> Iterator[Word]:
    """Pronunciation items as words, each punctuation item appended to the word before it."""
    pending: Word | None = None
    for item in items:
        item = as_dict(item)
        content = as_str(as_dict((as_list(item.get("alternatives")) or [{}])[0]).get("content"))
        if as_str(item.get("type")) == "punctuation":
            if pending is not None:
                pending.text += content
            else:
                pending = Word(content, None, None)
            continue
        if pending is not None:
            yield pending
        start = offset_ms(item.get("start_time"))
        speaker = label(item.get("speaker_label"))
        if speaker is None and speaker_at is not None:
            speaker = speaker_at(start)
        pending = Word(content, start, offset_ms(item.get("end_time")), speaker, _extra(item))
    if pending is not None:
        yield pending


def _turn(n: int, turn: Any) -> Spoken:
    """One turn of a Call Analytics or Contact Lens transcript."""
    if not isinstance(turn, dict):
        return not_an_object(n, turn, "a turn")
    ident = turn.get("Id")
    sentiment = label(turn.get("Sentiment"))
    return Spoken(
        n,
        as_str(turn.get("Content")),
        offset_ms(turn.get("BeginOffsetMillis"), 1),
        offset_ms(turn.get("EndOffsetMillis"), 1),
        label(turn.get("ParticipantRole")) or label(turn.get("ParticipantId")),
        ident=None if ident is None else as_str(ident) or None,
        extra={"sentiment": sentiment} if sentiment else None,
        raw={k: v for k, v in turn.items() if k != "LoudnessScores"},
    )


def _read_analytics(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("Transcript",))
    head = doc.expect("not an Amazon Transcribe output (no results, no Transcript)", ("JobStatus",))
    status = as_str(head.get("JobStatus"))
    if status and status.upper() != "COMPLETED":
        ctx.warn(source.name, f"transcription job status {status!r}")
    reader = SpokenReader(source, ctx, "aws-transcribe", unit="turn")
    yield from reader.read(_turn(n, t) for n, t in enumerate(doc.values(), 1))
    yield from reader.finish("turns")


def read_aws(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if has_key(json_head(source), "JobStatus"):
        yield from _read_analytics(source, ctx)
        return
    doc = StreamedDoc(source, ("results", "audio_segments"))
    head = doc.head(("status",))
    if doc.root != "{" or "results" not in doc.keys:
        doc.close()
        raise InputError("not an Amazon Transcribe output (no results)", where=source.name)
    status = as_str(head.get("status"))
    if status and status.upper() != "COMPLETED":
        ctx.warn(source.name, f"transcription job status {status!r}")
    if doc.found:
        reader = SpokenReader(source, ctx, "aws-transcribe")
        yield from reader.read(_segment(n, s) for n, s in enumerate(doc.values(), 1))
        yield from reader.finish("audio segments")
        return
    doc.close()
    items = StreamedDoc(source, ("results", "items"), keep=False)
    items.head()
    reader = SpokenReader(source, ctx, "aws-transcribe", unit="word")
    if not items.found:
        items.close()
        yield from reader.finish("words")
        return
    labels = StreamedDoc(source, ("results", "speaker_labels", "segments"), keep=False)
    labels.head()
    # values() is a generator: closed below so its stream closes when items end first
    segments = cast(Generator[Any, None, None], labels.values()) if labels.found else None
    if segments is None:
        labels.close()
    try:
        speaker_at = _SpeakerAt(segments) if segments is not None else None
        yield from reader.read(word_groups(_words(items.values(), speaker_at)))
    finally:
        if segments is not None:
            segments.close()
    yield from reader.finish("words")


DESCRIPTION = (
    "Amazon Transcribe JSON: audio segments, else items; speaker labels, channels; Call "
    "Analytics and Contact Lens turns"
)
EXAMPLE = (
    '{"jobName": "call", "accountId": "111122223333", "status": "COMPLETED", "results": '
    '{"transcripts": [{"transcript": "Hello."}], "audio_segments": [{"id": 0, '
    '"transcript": "Hello.", "start_time": "0.44", "end_time": "0.9", "speaker_label": '
    '"spk_0", "items": [0, 1]}]}}'
)
FORMATS = (
    Format("aws-transcribe", "transcript", DESCRIPTION, PATTERNS, sniff_aws, read_aws, EXAMPLE,
           fields=SPEECH_FIELDS),
)  # fmt: skip
