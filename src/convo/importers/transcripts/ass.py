"""Advanced SubStation Alpha (ASS) and SubStation Alpha (SSA) subtitles: Aegisub's
``.ass``, the older ``.ssa`` (the format's own specification, "Sub Station Alpha v4.00+
Script Format", and Aegisub's writer, ``src/subtitle_format_ass.cpp`` in
github.com/Aegisub/Aegisub, hold the layout read here).

A script is ``[Section]`` blocks of ``Key: value`` lines. ``[Events]`` starts with a
``Format:`` line naming its fields (``Layer, Start, End, Style, Name, MarginL, MarginR,
MarginV, Effect, Text``; SSA: ``Marked`` for ``Layer``), then one ``Dialogue:`` line an
event, its values split on the first commas (``Text``, the last field, keeps its own).
Without a ``Format:`` line the ASS order above is assumed.

- One ``Dialogue:`` is one cue (``#cue-N``, N counting the file's event lines:
  ``Dialogue``, ``Comment`` and the rest). Its ``Start``/``End`` (``H:MM:SS.cc``,
  centiseconds) are the offsets; the cue formats' decisions apply (the package
  docstring): ``--start-date``, merging of one speaker's cues, ``--no-merge``.
- Speaker: the ``Name`` field (Aegisub's "Actor"), as written; ``NTP`` is no name but
  the placeholder SSA writers put there for a line without an actor (Subtitle Edit's
  ``src/libse/SubtitleFormats/SubStationAlpha.cs``: ``var actor = "NTP"``, and the
  ``*Default,NTP,0000,0000,0000,,`` lines of many converters). A file whose
  ``Name`` fields are all empty (most fansubs) gets the cue formats' prefix styles
  (``- Name:``, ``Name:``...), decided on its first cues; the ``Style`` is never a
  speaker (``Default``, ``Top``, ``Signs``).
- Text: override blocks ``{...}`` are dropped (``{\\i1}``, ``{\\pos(..)}``, ``{\\k20}``
  karaoke, and ``{comments}``); a drawing (``{\\p1}`` up to ``{\\p0}``) is vector
  commands, not words, and goes; ``\\N`` is a line break, ``\\n`` (a soft break) and
  ``\\h`` (a hard space) are spaces. Lines are tidied as the cue formats tidy them.
- Not dialogue: ``Comment:`` events (the script's notes) and ``Picture``, ``Sound``,
  ``Movie``, ``Command`` events are skipped and counted in one warning; so are
  dialogue events left with no text (a drawing, an empty sign). Sections other than
  ``[Events]`` (styles, fonts, graphics, Aegisub's project garbage) are not read.
- Bad input: a ``Dialogue:`` with too few fields or an unreadable time is rejected with
  its line. Events are read in the file's order (Aegisub writes them as the grid
  shows them, by time unless the user sorted otherwise).
- Detection: ``[Script Info]`` as the first line (the specification's rule) 95;
  ``[Events]`` with a ``Format:``/``Dialogue:`` line in the head (a file cut
  before its header) 60.

Ids and their scope (docs/ids.md): no cue ids: the content hash of each turn, its
conversation the file's name, hashing the cue offset (``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.registry import Format
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.cues import BadBlock, RawCue, text_lines
from convo.importers.transcripts.cuetext import Segment
from convo.importers.transcripts.sniffing import empty_named
from convo.importers.transcripts.turns import ReadCue, read_segmented

PATTERNS = ("*.ass", "*.ssa")
DEFAULT_FIELDS = ("layer", "start", "end", "style", "name", "marginl", "marginr",
                  "marginv", "effect", "text")  # fmt: skip
_NO_ACTOR = "NTP"  # SSA writers' placeholder Name for a line without an actor
_EVENT_KINDS = ("dialogue", "comment", "picture", "sound", "movie", "command")
_LINE = re.compile(r"[ \t]*([A-Za-z]+)[ \t]*:[ \t]?(.*)")
_TIME = re.compile(r"[ \t]*(\d{1,6}):(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3})\d*)?[ \t]*\Z")
_BLOCK = re.compile(r"\{([^}]*)\}")
_DRAWING = re.compile(r"\\p(\d+)")
_SPACE = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")
_EVENTS_HEAD = re.compile(r"^\[Events\][ \t]*\r?$.*^(?:Format|Dialogue)[ \t]*:", re.M | re.S)


def sniff_ass(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff \t\r\n")
    if text[:13].lower() == "[script info]":
        return 95
    if _EVENTS_HEAD.search(text):
        return 60
    return empty_named(source, PATTERNS)


def ass_time(text: str) -> int | None:
    """``H:MM:SS.cc`` as milliseconds (a fraction of 1-3 digits is a decimal fraction)."""
    m = _TIME.match(text)
    if m is None or int(m[2]) > 59 or int(m[3]) > 59:
        return None
    frac = (m[4] or "").ljust(3, "0")
    return ((int(m[1]) * 60 + int(m[2])) * 60 + int(m[3])) * 1000 + int(frac)


def ass_text(raw: str) -> list[str]:
    """The visible text of an event: override blocks and drawings out, ``\\N`` a line
    break, ``\\n`` and ``\\h`` spaces; lines tidied, empty ones dropped."""
    out: list[str] = []
    drawing = False
    pos = 0
    for m in _BLOCK.finditer(raw):
        if not drawing:
            out.append(raw[pos : m.start()])
        scales = _DRAWING.findall(m[1])
        if scales:
            drawing = scales[-1] != "0"
        pos = m.end()
    if not drawing:
        out.append(raw[pos:])
    text = "".join(out).replace("\\N", "\n").replace("\\n", " ").replace("\\h", " ")
    lines = (_SPACE.sub(" ", ln).strip() for ln in text.split("\n"))
    return [ln for ln in lines if ln]


@dataclass
class _Events:
    """What the reader counts as it goes: event ordinals and the events not read."""

    fields: tuple[str, ...] = DEFAULT_FIELDS
    n: int = 0
    skipped: int = 0
    empty: int = 0


def _cue(line_no: int, value: str, ev: _Events) -> ReadCue | BadBlock | None:
    """A ``Dialogue:`` line's cue; None when it has no text."""
    parts = value.split(",", len(ev.fields) - 1)
    if len(parts) < len(ev.fields):
        return BadBlock(ev.n, line_no, f"Dialogue line with {len(parts)} of its "
                        f"{len(ev.fields)} fields", value[:200], "is the line cut short?")  # fmt: skip
    got = dict(zip(ev.fields, parts, strict=True))
    start, end = ass_time(got.get("start", "")), ass_time(got.get("end", ""))
    if start is None or end is None:
        return BadBlock(ev.n, line_no, "unreadable Dialogue time", value[:200],
                        "times are H:MM:SS.cc")  # fmt: skip
    lines = ass_text(got.get("text", ""))
    if not lines:
        ev.empty += 1
        return None
    actor = " ".join(got.get("name", "").split())
    name = None if not actor or actor == _NO_ACTOR else actor
    cue = RawCue(ev.n, line_no, None, start, end, [])
    return ReadCue(cue, [Segment(name, lines, voiced=name is not None)], name is not None)


def _events(source: Source, ctx: ImportContext, ev: _Events) -> Iterator[ReadCue | BadBlock]:
    section = ""
    for n, line in text_lines(source, ctx.text_decoder()):
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip().lower()
            continue
        if section != "events" or not stripped or stripped.startswith(";"):
            continue
        m = _LINE.match(line)
        if m is None:
            continue
        key = m[1].lower()
        if key == "format":
            ev.fields = tuple(f.strip().lower() for f in m[2].split(","))
            continue
        if key not in _EVENT_KINDS:
            continue
        ev.n += 1
        if key != "dialogue":
            ev.skipped += 1
            continue
        item = _cue(n, m[2], ev)
        if item is not None:
            yield item


def read_ass(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    ev = _Events()
    yield from read_segmented(source, ctx, "ass", _events(source, ctx, ev))
    if ev.skipped:
        ctx.warn(source.name, f"{ev.skipped} Comment (or other non-Dialogue) events skipped")
    if ev.empty:
        ctx.warn(source.name, f"{counted(ev.empty, 'Dialogue event')} without text (drawings, "
                 "empty signs) skipped")  # fmt: skip


DESCRIPTION = "Advanced SubStation Alpha / SSA subtitles (Aegisub .ass, .ssa)"
EXAMPLE = (
    "[Script Info]\nScriptType: v4.00+\n\n[Events]\n"
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
    "Dialogue: 0,0:00:01.00,0:00:04.00,Default,Alice,0,0,0,,Hello, {\\i1}Bob{\\i0}."
)
ASS_FIELDS = replace(
    FIELDS,
    speaker="the event's `Name` (Aegisub's Actor), else the file's name-prefix style "
    "(`Name:`, `- Name:`...), else none; `--speakers` chooses",
)
FORMATS = (
    Format("ass", "transcript", DESCRIPTION, PATTERNS, sniff_ass, read_ass, EXAMPLE,
           fields=ASS_FIELDS),
)  # fmt: skip
