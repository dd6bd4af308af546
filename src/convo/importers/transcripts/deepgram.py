"""Deepgram pre-recorded transcription JSON (``deepgram``): the response of
``POST /v1/listen`` (``metadata`` and ``results``). Decisions are in the package docstring.

``results.utterances`` (``utterances=true``) is streamed one utterance at a time; without
it each of ``results.channels`` is read whole (its first alternative's paragraphs, else
its words), so memory holds one channel.

Ids and their scope (docs/ids.md): the content hash of each turn, its conversation the
file's name (the recording), hashing the offset (``convo.importers.transcripts.merging``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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


def sniff_deepgram(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not has_key(text, "results") or has_key(text, "jobName"):
        return 0  # jobName: Amazon Transcribe's (its channel_labels hold alternatives too)
    if has_key(text, "channels") and has_key(text, "alternatives"):
        return 90
    if has_key(text, "metadata") and has_key(text, "request_id") and has_key(text, "model_info"):
        return 85  # the metadata is long (models, summaries): the results come later
    return 0


class _Channels:
    """Whether the file has several channels (then each turn says its channel, and a
    speaker label is qualified by it).

    With ``multichannel`` and ``diarize`` both on, Deepgram numbers the speakers of each
    channel from 0 again, so speaker ``0`` of channel 0 and speaker ``0`` of channel 1 are
    two people (two lines of a call). Their names are then ``0 (channel 0)`` and
    ``0 (channel 1)``: the engine's label, qualified by the channel it was heard on. A
    file with one channel keeps the bare labels.
    """

    def __init__(self, metadata: dict[str, Any]):
        count = metadata.get("channels")
        self.several = isinstance(count, int) and not isinstance(count, bool) and count > 1

    def extra(self, channel: Any) -> dict[str, Any] | None:
        ch = label(channel)
        if ch is None or (ch == "0" and not self.several):
            return None
        return {"channel": ch}

    def speaker(self, channel: Any, speaker: str | None) -> str | None:
        """The name of ``speaker`` heard on ``channel``: qualified when there are several."""
        if speaker is None or not self.several or (ch := label(channel)) is None:
            return speaker
        return f"{speaker} (channel {ch})"


def _utterance(n: int, u: Any, channels: _Channels) -> Spoken:
    if not isinstance(u, dict):
        return not_an_object(n, u, "an utterance")
    return Spoken(
        n,
        as_str(u.get("transcript")),
        offset_ms(u.get("start")),
        offset_ms(u.get("end")),
        channels.speaker(u.get("channel"), label(u.get("speaker"))),
        ident=as_str(u.get("id")) or None,
        extra=channels.extra(u.get("channel")),
        raw={k: v for k, v in u.items() if k != "words"},
    )


def _paragraphs(alt: dict[str, Any], extra: dict[str, Any] | None) -> Iterator[Spoken]:
    for p in as_list(as_dict(alt.get("paragraphs")).get("paragraphs")):
        p = as_dict(p)
        sentences = [as_dict(s) for s in as_list(p.get("sentences"))]
        text = " ".join(t for s in sentences if (t := as_str(s.get("text")).strip()))
        yield Spoken(
            0, text, offset_ms(p.get("start")), offset_ms(p.get("end")), label(p.get("speaker")),
            extra=extra, raw=p,
        )  # fmt: skip


def _word(w: Any, extra: dict[str, Any] | None) -> Word:
    w = as_dict(w)
    return Word(
        as_str(w.get("punctuated_word")) or as_str(w.get("word")),
        offset_ms(w.get("start")),
        offset_ms(w.get("end")),
        label(w.get("speaker")),
        extra,
    )


def _alternative(alt: dict[str, Any], extra: dict[str, Any] | None) -> Iterator[Spoken]:
    """A channel's first alternative: its paragraphs, else its words in groups, else its
    transcript (no timing: rejected)."""
    if as_dict(alt.get("paragraphs")).get("paragraphs"):
        yield from _paragraphs(alt, extra)
    elif words := as_list(alt.get("words")):
        yield from word_groups(_word(w, extra) for w in words)
    else:
        text = as_str(alt.get("transcript"))
        yield Spoken(0, text, None, None, raw=alt if text.strip() else None)


def _channel_segments(doc: StreamedDoc, channels: _Channels) -> Iterator[Spoken]:
    """Every channel's segments, numbered across the file from 1."""
    n = 0
    for index, channel in enumerate(doc.values()):
        alts = as_list(as_dict(channel).get("alternatives"))
        for seg in _alternative(as_dict(alts[0]) if alts else {}, channels.extra(index)):
            n += 1
            seg.n = n
            seg.speaker = channels.speaker(index, seg.speaker)
            yield seg


def read_deepgram(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("results", "utterances"))
    head = doc.head(("metadata",))
    if doc.root != "{" or "results" not in doc.keys:
        doc.close()
        raise InputError("not a Deepgram response (no results)", where=source.name)
    channels = _Channels(as_dict(head.get("metadata")))
    if doc.found:
        reader = SpokenReader(source, ctx, "deepgram")
        yield from reader.read(_utterance(n, u, channels) for n, u in enumerate(doc.values(), 1))
        yield from reader.finish("utterances")
        return
    doc.close()
    chans = StreamedDoc(source, ("results", "channels"), keep=False)
    chans.head()
    reader = SpokenReader(source, ctx, "deepgram")
    if chans.found:
        yield from reader.read(_channel_segments(chans, channels))
    else:
        chans.close()
    yield from reader.finish("paragraphs")


DESCRIPTION = "Deepgram pre-recorded JSON: utterances, else paragraphs or words; speakers"
EXAMPLE = (
    '{"metadata": {"channels": 1}, "results": {"utterances": [{"start": 0.1, "end": 1.2, '
    '"channel": 0, "transcript": "Hello.", "speaker": 0}]}}'
)
FORMATS = (
    Format("deepgram", "transcript", DESCRIPTION, PATTERNS, sniff_deepgram, read_deepgram,
           EXAMPLE, fields=SPEECH_FIELDS),
)  # fmt: skip
