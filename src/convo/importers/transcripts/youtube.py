"""YouTube's own caption formats, as its ``timedtext`` endpoint serves them and yt-dlp
saves them (``--sub-format json3/srv3/srv1``, ``VIDEO.en.json3``): ``json3``, ``srv3``
and ``srv1``. The shapes are YouTube's player's (its ``captions.js`` reads the same
three); yt-dlp's ``yt_dlp/extractor/youtube`` lists them as it downloads them.

- ``json3``: ``{"wireMagic": "pb3", "events": [...]}``; an event with ``segs`` is a cue,
  ``tStartMs`` + ``dDurationMs`` its time, its text the ``utf8`` of its segments joined
  (each segment's ``tOffsetMs`` is a word's time, not kept). Events without ``segs``
  define windows and are not cues. In automatic captions the window scrolls: an event
  with ``aAppend`` whose text is only a line break moves it up and is no cue (skipped
  without a warning, as a rolling VTT cue's repeat is).
- ``srv3``: ``<timedtext format="3"><body><p t="ms" d="ms">`` with the text in the
  ``<p>`` and its ``<s>`` word segments; ``<br/>`` a line break. ``srv1``:
  ``<transcript><text start="s" dur="s">``, its text HTML-escaped a second time
  (``&amp;#39;``), which is undone. ``srv2`` (``<text t="ms" d="ms">``) is read as well.
- One event (``<p>``, ``<text>``) is one cue (``#cue-N``, N counting the events, window
  definitions and line breaks included, so numbers match the file); the cue formats'
  decisions apply (the package docstring): no listeners, no speaker unless the captions
  use a prefix style (``>> NAME:``, ``- Name:``, ``[Name]``), merging, ``--start-date``.
- Bad input: an event whose start is not a number is rejected with its JSON (or line);
  events with segments but no text are counted in one warning. A JSON document that is
  not a ``json3`` object is refused with one line.
- Detection: ``json3``: an object whose head holds ``"wireMagic"`` or ``"events"``
  with ``"tStartMs"`` 90. XML: a ``<timedtext`` root 95, a ``<transcript>`` root whose
  head has ``<text start=`` 90.

Ids and their scope (docs/ids.md): no cue ids: the content hash of each turn, its
conversation the file's name, hashing the cue offset (``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str
from convo.importers.registry import Format
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.cues import BadBlock, RawCue
from convo.importers.transcripts.cuetext import Segment
from convo.importers.transcripts.speech import offset_ms
from convo.importers.transcripts.turns import ReadCue, read_segmented
from convo.importers.xmlstream import iter_events

PATTERNS = ("*.json3", "*.srv3", "*.srv2", "*.srv1", "*.json", "*.xml")
_JSON3 = re.compile(
    r'\A[\s\ufeff]*\{[\s\S]*(?:"wireMagic"\s*:\s*"pb3"|"events"\s*:\s*\[\s*\{[^{}]*"tStartMs")'
)
_XML_ROOT = re.compile(r"\A(?:\s|<\?[^>]*\?>|<!--.*?-->)*<(timedtext|transcript)[\s>]", re.S)
_SPACE = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")


def sniff_youtube(source: Source) -> int:
    text = source.head_text()
    if _JSON3.match(text):
        return 90
    m = _XML_ROOT.match(text.lstrip("\ufeff"))
    if m is None:
        return 0
    if m[1] == "timedtext":
        return 95
    return 90 if "<text start=" in text else 0


def _lines(text: str) -> list[str]:
    lines = (_SPACE.sub(" ", ln).strip() for ln in text.replace("\r", "").split("\n"))
    return [ln for ln in lines if ln]


@dataclass
class _Count:
    empty: int = 0


def _cue(n: int, line: int, start: int, end: int, text: str, count: _Count) -> ReadCue | None:
    lines = _lines(text)
    if not lines:
        count.empty += 1
        return None
    return ReadCue(RawCue(n, line, None, start, end, []), [Segment(None, lines)], False)


def _json3_cues(doc: StreamedDoc, count: _Count) -> Iterator[ReadCue | BadBlock]:
    for n, (event, line) in enumerate(doc.items(), 1):
        ev = as_dict(event)
        segs = as_list(ev.get("segs"))
        if not segs:
            continue  # a window definition
        text = "".join(as_str(as_dict(s).get("utf8")) for s in segs)
        if ev.get("aAppend") and not text.strip():
            continue  # a scrolling window's line break
        start = offset_ms(ev.get("tStartMs"), 1)
        if start is None:
            yield BadBlock(n, line, "event without a readable tStartMs", repr(event)[:200])
            continue
        dur = offset_ms(ev.get("dDurationMs"), 1) or 0
        if (cue := _cue(n, line, start, start + dur, text, count)) is not None:
            yield cue


@dataclass
class _XmlCue:
    """An srv3 ``<p>`` or srv1/srv2 ``<text>`` being read."""

    n: int
    line: int
    start: int
    end: int
    srv1: bool
    appended: bool
    parts: list[str]


def _xml_start(n: int, tag: str, attrs: dict[str, str], line: int) -> _XmlCue | BadBlock:
    srv1 = "start" in attrs
    start = offset_ms(attrs.get("start")) if srv1 else offset_ms(attrs.get("t"), 1)
    if start is None:
        return BadBlock(n, line, f"<{tag}> without a readable start", repr(attrs)[:200])
    dur = offset_ms(attrs.get("dur")) if srv1 else offset_ms(attrs.get("d"), 1)
    appended = attrs.get("a") == "1" and not srv1
    return _XmlCue(n, line, start, start + (dur or 0), srv1, appended, [])


def _xml_end(cur: _XmlCue, count: _Count) -> ReadCue | None:
    text = "".join(cur.parts)
    if cur.appended and not text.strip():
        return None  # a scrolling window's line break
    if cur.srv1 and "&" in text:
        text = html.unescape(text)  # srv1 escapes its text a second time
    return _cue(cur.n, cur.line, cur.start, cur.end, text, count)


def _xml_cues(source: Source, count: _Count) -> Iterator[ReadCue | BadBlock]:
    n = 0
    cur: _XmlCue | None = None
    for kind, tag, value, line in iter_events(source, text=True):
        if kind == "start" and tag in ("p", "text"):
            n += 1
            got = _xml_start(n, tag, value, line)
            cur = got if isinstance(got, _XmlCue) else None
            if isinstance(got, BadBlock):
                yield got
        elif cur is None:
            continue
        elif kind == "text":
            cur.parts.append(value)
        elif kind == "start" and tag == "br":
            cur.parts.append("\n")
        elif kind == "end" and tag in ("p", "text"):
            done, cur = cur, None
            if (cue := _xml_end(done, count)) is not None:
                yield cue


def read_youtube(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    count = _Count()
    if source.head_text().lstrip("\ufeff \t\r\n").startswith("{"):
        doc = StreamedDoc(source, ("events",))
        doc.head()
        if not doc.found:
            doc.close()
            raise InputError("not YouTube json3 captions (no events array)", where=source.name)
        items: Iterator[ReadCue | BadBlock] = _json3_cues(doc, count)
    else:
        items = _xml_cues(source, count)
    yield from read_segmented(source, ctx, "youtube", items)
    if count.empty:
        ctx.warn(source.name, f"{counted(count.empty, 'caption event')} without text skipped")


DESCRIPTION = "YouTube timedtext captions: json3, srv3, srv1 (yt-dlp --sub-format)"
EXAMPLE = '{"wireMagic": "pb3", "events": [{"tStartMs": 1000, "dDurationMs": 3000, "segs": [{"utf8": "Hello, Bob."}]}]}'
YOUTUBE_FIELDS = replace(
    FIELDS,
    speaker="the file's name-prefix style (`>> NAME:`, `- Name:`, `[Name]`), else none "
    "(YouTube's captions name no speakers)",
    extra="`start` and `end` (seconds from the start of the video), `cues` (the event "
    "numbers merged)",
)
FORMATS = (
    Format("youtube", "transcript", DESCRIPTION, PATTERNS, sniff_youtube, read_youtube,
           EXAMPLE, fields=YOUTUBE_FIELDS),
)  # fmt: skip
