"""Rev.ai transcript JSON (``revai``): the ``application/vnd.rev.transcript.v1.0+json``
its API returns (``GET /jobs/{id}/transcript``, the SDKs' ``get_transcript_json``), which
Rev's human transcripts and tools built on it (fstalign) write too. Decisions are in the
package docstring.

- ``monologues``: one segment a monologue (``#monologue-N``), streamed one at a time.
  Its text is its ``elements``' ``value``s joined as written: ``text`` elements are
  words, ``punct`` elements carry the spaces and punctuation between them, an
  ``unknown`` element is a tag such as ``<inaudible>``, kept beside words; a monologue
  of tags alone holds no speech and is counted with the empty ones.
- Speaker: ``speaker_info.display_name``, else ``speaker_name``, else the ``speaker``
  number as text (Rev numbers the speakers of a file from 0 or 1).
- Time: the first timed element's ``ts`` and the last one's ``end_ts``, in seconds.

Ids and their scope (docs/ids.md): the content hash of each turn, its conversation the
file's name (the recording), hashing the monologue's offset
(``convo.importers.transcripts.merging``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format
from convo.importers.transcripts import SPEECH_FIELDS
from convo.importers.transcripts.speech import (
    Spoken,
    SpokenReader,
    label,
    not_an_object,
    offset_ms,
)

PATTERNS = ("*.json",)
_NO_WORDS = ("punct", "unknown")


def sniff_revai(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not has_key(text, "monologues"):
        return 0
    if has_key(text, "elements") and (has_key(text, "ts") or has_key(text, "speaker")):
        return 85
    return 0


def _speaker(mono: dict[str, Any]) -> str | None:
    info = as_dict(mono.get("speaker_info"))
    return (
        label(info.get("display_name"))
        or label(mono.get("speaker_name"))
        or label(mono.get("speaker"))
    )


def _monologue(n: int, mono: Any) -> Spoken:
    if not isinstance(mono, dict):
        return not_an_object(n, mono, "a monologue")
    elements = [as_dict(e) for e in as_list(mono.get("elements"))]
    text = "".join(as_str(e.get("value")) for e in elements)
    if all(as_str(e.get("type")) in _NO_WORDS for e in elements):
        text = ""  # tags alone (``<crosstalk>``, untimed): no speech, counted as empty
    starts = [t for e in elements if (t := offset_ms(e.get("ts"))) is not None]
    ends = [t for e in elements if (t := offset_ms(e.get("end_ts"))) is not None]
    return Spoken(
        n,
        text,
        starts[0] if starts else None,
        ends[-1] if ends else None,
        _speaker(mono),
        raw={k: v for k, v in mono.items() if k != "elements"},
    )


def read_revai(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("monologues",))
    doc.expect("not a Rev.ai transcript (no monologues list)")
    reader = SpokenReader(source, ctx, "revai", unit="monologue")
    yield from reader.read(_monologue(n, m) for n, m in enumerate(doc.values(), 1))
    yield from reader.finish("monologues")


DESCRIPTION = "Rev.ai transcript JSON: monologues of elements, by speaker"
EXAMPLE = (
    '{"monologues": [{"speaker": 0, "elements": [{"type": "text", "value": "Hello", '
    '"ts": 0.5, "end_ts": 0.9, "confidence": 1.0}, {"type": "punct", "value": "."}]}]}'
)
FORMATS = (
    Format("revai", "transcript", DESCRIPTION, PATTERNS, sniff_revai, read_revai, EXAMPLE,
           fields=SPEECH_FIELDS),
)  # fmt: skip
