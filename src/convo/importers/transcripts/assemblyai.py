"""AssemblyAI transcript JSON (``assemblyai``): the transcript object its API returns
(``GET /v2/transcript/{id}``, the SDKs' ``json_response``). Decisions are in the package
docstring.

Ids and their scope (docs/ids.md): the content hash of each turn, its conversation the
file's name (the recording), hashing the utterance's offset
(``convo.importers.transcripts.merging``).
"""

from __future__ import annotations

from collections.abc import Iterator
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
    label,
    not_an_object,
    offset_ms,
    word_groups,
)

PATTERNS = ("*.json",)
# The top-level members that can be large and are not read from the head: the whole
# text, the words (read as their own array when there are no utterances) and the
# results of the audio-intelligence models.
_BIG = ("text", "words", "utterances", "sentiment_analysis_results", "entities", "chapters",
        "auto_highlights_result", "iab_categories_result", "content_safety_labels",
        "summary")  # fmt: skip
_MARKS = ("acoustic_model", "language_model", "speech_model", "audio_duration", "utterances",
          "words", "speaker_labels", "punctuate")  # fmt: skip


def sniff_assemblyai(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not has_key(text, "audio_url"):
        return 0
    if (has_key(text, "status") or has_key(text, "id")) and any(has_key(text, k) for k in _MARKS):
        return 85
    return 0


def _extra(item: dict[str, Any]) -> dict[str, Any] | None:
    channel = label(item.get("channel"))
    return {"channel": channel} if channel is not None else None


def _utterance(n: int, u: Any) -> Spoken:
    if not isinstance(u, dict):
        return not_an_object(n, u, "an utterance")
    return Spoken(
        n,
        as_str(u.get("text")),
        offset_ms(u.get("start"), 1),
        offset_ms(u.get("end"), 1),
        label(u.get("speaker")),
        extra=_extra(u),
        raw={k: v for k, v in u.items() if k != "words"},
    )


def _word(w: Any) -> Word:
    w = as_dict(w)
    return Word(
        as_str(w.get("text")),
        offset_ms(w.get("start"), 1),
        offset_ms(w.get("end"), 1),
        label(w.get("speaker")),
        _extra(w),
    )


def read_assemblyai(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("utterances",), skip=_BIG)
    head = doc.head(("status",))
    if doc.root != "{":
        doc.close()
        raise InputError("not an AssemblyAI transcript (not a JSON object)", where=source.name)
    status = as_str(head.get("status"))
    if status and status != "completed":
        error = as_str(head.get("error"))
        ctx.warn(source.name, f"transcript status {status!r}" + (f": {error}" if error else ""))
    if doc.found:
        reader = SpokenReader(source, ctx, "assemblyai")
        yield from reader.read(_utterance(n, u) for n, u in enumerate(doc.values(), 1))
        yield from reader.finish("utterances")
        return
    doc.close()
    # No utterances (speaker_labels and multichannel off): the words, in groups.
    words = StreamedDoc(source, ("words",), keep=False)
    words.head()
    reader = SpokenReader(source, ctx, "assemblyai", unit="word")
    if words.found:
        yield from reader.read(word_groups(_word(w) for w in words.values()))
    else:
        words.close()
    yield from reader.finish("words")


DESCRIPTION = "AssemblyAI transcript JSON: utterances by speaker (or words)"
EXAMPLE = (
    '{"id": "t1", "status": "completed", "audio_url": "https://example.com/a.mp3", '
    '"utterances": [{"speaker": "A", "text": "Hello.", "start": 250, "end": 900}]}'
)
FORMATS = (
    Format("assemblyai", "transcript", DESCRIPTION, PATTERNS, sniff_assemblyai,
           read_assemblyai, EXAMPLE, fields=SPEECH_FIELDS),
)  # fmt: skip
