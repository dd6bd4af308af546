"""Timed Text Markup Language (TTML 1 and 2, W3C) and its older name DFXP: the
subtitles of Netflix (its DFXP/IMSC deliveries), YouTube's ``.ttml`` download, Microsoft
Stream and Teams captions, broadcast EBU-TT, and every IMSC profile. The W3C
recommendation (``https://www.w3.org/TR/ttml2/``) fixes the shape read here.

- A ``<p>`` in the ``<body>`` is one cue (``#cue-N``, N counting the ``<p>`` elements
  from 1). Its ``begin`` (else its first ``<span>``'s) and ``end`` (else ``begin`` +
  ``dur``) are offsets on its parents' ``begin`` (``<body>``, ``<div>``: TTML's parallel
  time containers); the cue formats' decisions then apply (the package docstring).
- Times: clock times ``HH:MM:SS``, ``HH:MM:SS.fff`` and ``HH:MM:SS:FF`` (frames, at
  ``ttp:frameRate`` times ``ttp:frameRateMultiplier``, else 30 a second); offsets
  ``12.5s``, ``1500ms``, ``2m``, ``1h``, ``25f`` and ``90000000t`` (ticks at
  ``ttp:tickRate``, else the frame rate, else 1 a second: Netflix writes
  ``ttp:tickRate="10000000"``); outside the recommendation, Apple Music's lyrics TTML
  writes ``M:SS.fff`` and bare seconds (``19.764``), read as such, and times every
  element from the document's start (a ``<p>`` repeats its ``<div>``'s ``begin``): in a
  file declaring its ``http://music.apple.com/`` namespace no parent's is added. A cue without a readable ``begin`` is rejected with
  its line.
- Speaker: ``ttm:agent`` on the ``<p>`` (else on its first ``<span>`` that has one),
  the agent's ``<ttm:name>`` from the head's ``<ttm:agent xml:id=...>`` (its id when it
  has no name); several agents are joined with ``, ``. A file without agents gets the
  cue formats' prefix styles (``- Name:``, ``>> NAME:``, ``[Name]``). A colour style
  (``tts:color``) names no one and is not a speaker.
- Text: the ``<p>``'s characters and its spans', whitespace collapsed as TTML's
  default ``xml:space`` does; ``<br/>`` is a line break; ``<metadata>`` and other
  non-text children are not text. A ``<p>`` without text is skipped and counted in
  one warning.
- XML is read by ``convo.importers.xmlstream``: streamed, entity declarations
  refused, no DTD loaded. Namespaces are matched by the local name (``tt:p`` and ``p``).
- Detection: a ``<tt`` root element (after the XML declaration and comments) in the
  TTML namespace ``http://www.w3.org/ns/ttml`` or DFXP's ``.../2006/10/ttaf1`` 95; a
  ``.ttml``/``.dfxp`` file whose head has a ``<tt`` element 60.

Ids and their scope (docs/ids.md): no cue ids (``xml:id`` is kept in ``cue_ids``): the
content hash of each turn, its conversation the file's name, hashing the cue offset
(``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.registry import Format, matches_pattern
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.cues import BadBlock, RawCue
from convo.importers.transcripts.cuetext import Segment
from convo.importers.transcripts.turns import ReadCue, read_segmented
from convo.importers.xmlstream import iter_events

PATTERNS = ("*.ttml", "*.dfxp", "*.xml", "*.ttml2")
_ROOT = re.compile(
    r"\A(?:\s|<\?[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>]*>)*<(?:[A-Za-z_][\w.-]*:)?tt[\s>]", re.S
)
_NAMESPACE = re.compile(r"http://www\.w3\.org/(?:ns/ttml|2006/(?:10|04)/ttaf1)")
_CLOCK = re.compile(r"(\d+):(\d{2}):(\d{2})(?:(\.\d+)|:(\d+(?:\.\d+)?))?\Z")
# Apple Music's lyrics TTML (``itunes:timing``) writes ``M:SS.fff`` and bare seconds.
_SHORT_CLOCK = re.compile(r"(\d+):(\d{2})(\.\d+)?\Z")
_APPLE = "http://music.apple.com/"
_OFFSET = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s|f|t)?\Z")
_SPACE = re.compile(r"[ \t\r\n]+")
_SKIPPED = frozenset(("metadata", "set", "animate", "image", "audio", "font", "data",
                      "chunk", "source", "style", "region", "layout"))  # fmt: skip


def _local(name: str) -> str:
    return name.rpartition(":")[2]


def sniff_ttml(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff")
    m = _ROOT.match(text)
    if m is None:
        return 0
    tag_end = text.find(">", m.end())
    tag = text[m.end() : tag_end if tag_end >= 0 else len(text)]
    if _NAMESPACE.search(tag):
        return 95
    return 60 if matches_pattern(source, ("*.ttml", "*.dfxp", "*.ttml2")) else 0


@dataclass
class Rates:
    """The document's time parameters (``ttp:`` attributes of ``<tt>``)."""

    frame: float = 30.0
    tick: float | None = None

    @classmethod
    def of(cls, attrs: dict[str, str]) -> Rates:
        got = {_local(k): v for k, v in attrs.items()}
        frame = _number(got.get("frameRate")) or 30.0
        mult = got.get("frameRateMultiplier", "").split()
        if len(mult) == 2 and (num := _number(mult[0])) and (den := _number(mult[1])):
            frame = frame * num / den
        tick = _number(got.get("tickRate"))
        if tick is None and "frameRate" in got:
            tick = frame
        return cls(frame, tick)


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and 0 < value < 1e12 else None


def ttml_time(text: str | None, rates: Rates) -> int | None:
    """A TTML time expression as milliseconds; None when unreadable."""
    if not text:
        return None
    text = text.strip()
    m = _CLOCK.match(text)
    if m is not None:
        if int(m[2]) > 59 or int(m[3]) > 59:
            return None
        secs = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])
        frac = float(m[4]) if m[4] else float(m[5]) / rates.frame if m[5] else 0.0
        return _clock_ms(secs, frac)
    m = _SHORT_CLOCK.match(text)
    if m is not None:
        if int(m[2]) > 59:
            return None
        return _clock_ms(int(m[1]) * 60 + int(m[2]), float(m[3] or 0))
    m = _OFFSET.match(text)
    if m is None:
        return None
    value, unit = float(m[1]), m[2] or "s"
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "f": 1 / rates.frame,
             "t": 1 / (rates.tick or 1.0)}[unit]  # fmt: skip
    ms = value * scale * 1000
    return round(ms) if ms < _MAX_MS else None


_MAX_MS = 1e15  # later than this (31,000 years) is no time of a recording


def _clock_ms(secs: int, frac: float) -> int | None:
    """A clock time's milliseconds; None past ``_MAX_MS`` (a 400-digit hour was an
    internal error: an int too large for a float)."""
    return round((secs + frac) * 1000) if secs < _MAX_MS / 1000 else None


@dataclass
class _Cue:
    """A ``<p>`` being read."""

    n: int
    line: int
    ident: str | None
    begin: int | None
    end: int | None
    dur: int | None
    agents: list[str]
    text: list[str] = field(default_factory=list)


def _on_the_document(attrs: dict[str, str]) -> bool:
    """Whether the root declares Apple's namespace, whose times are all on the document."""
    return any(k.startswith("xmlns") and v.startswith(_APPLE) for k, v in attrs.items())


class _Reader:
    """The document's events into cues: agents from the head, time containers, ``<p>``s."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source = source
        self.ctx = ctx
        self.rates = Rates()
        self.names: dict[str, str] = {}
        self.agent: str | None = None  # the ``ttm:agent`` being read in the head
        self.in_name = False
        self.parents: list[int] = []  # the begin of each open element around a <p>
        self.absolute = False  # Apple Music's times are on the document, not the parents
        self.cue: _Cue | None = None
        self.skip_depth = 0  # inside non-text children of a <p>
        self.n = 0
        self.empty = 0

    def cues(self) -> Iterator[ReadCue | BadBlock]:
        for kind, tag, value, line in iter_events(self.source, text=True):
            name = _local(tag)
            got: ReadCue | BadBlock | None = None
            if kind == "start":
                got = self._start(name, value, line)
            elif kind == "end":
                got = self._end(name)
            else:
                self._text(value)
            if got is not None:
                yield got

    def _start(self, name: str, attrs: dict[str, str], line: int) -> BadBlock | None:
        got = {_local(k): v for k, v in attrs.items()}
        if name == "tt":
            self.rates = Rates.of(attrs)
            self.absolute = _on_the_document(attrs)
        elif name == "agent" and self.cue is None:
            self.agent = got.get("id")
            if self.agent:
                self.names.setdefault(self.agent, self.agent)
        elif name == "name" and self.agent:
            self.in_name = True
            self.names[self.agent] = ""
        elif self.cue is not None:
            self._inner(name, got)
        elif name == "p":
            return self._open_p(got, line)
        elif name in ("body", "div"):
            base = self.parents[-1] if self.parents and not self.absolute else 0
            self.parents.append(base + (ttml_time(got.get("begin"), self.rates) or 0))
        return None

    def _inner(self, name: str, got: dict[str, str]) -> None:
        cue = self.cue
        assert cue is not None
        if self.skip_depth or name in _SKIPPED:
            self.skip_depth += 1
            return
        if name == "br":
            cue.text.append("\n")
        elif name == "span":
            if not cue.agents and got.get("agent"):
                cue.agents = got["agent"].split()
            if cue.begin is None and (b := ttml_time(got.get("begin"), self.rates)) is not None:
                cue.begin = b
                cue.end = ttml_time(got.get("end"), self.rates)

    def _open_p(self, got: dict[str, str], line: int) -> BadBlock | None:
        self.n += 1
        base = self.parents[-1] if self.parents and not self.absolute else 0
        begin = ttml_time(got.get("begin"), self.rates)
        end = ttml_time(got.get("end"), self.rates)
        dur = ttml_time(got.get("dur"), self.rates)
        if got.get("begin") and begin is None:
            self.cue = None
            self.skip_depth = 0
            return BadBlock(self.n, line, f"unreadable begin time {got['begin'][:40]!r}",
                            got["begin"][:200], "TTML times read: 00:00:01.000, 1.5s, 15000000t")  # fmt: skip
        self.cue = _Cue(
            self.n, line, got.get("id"),
            None if begin is None else base + begin,
            None if end is None else base + end,
            dur, got.get("agent", "").split(),
        )  # fmt: skip
        return None

    def _end(self, name: str) -> ReadCue | BadBlock | None:
        if name == "name":
            self.in_name = False
        elif name == "agent" and self.cue is None:
            self.agent = None
        elif self.cue is not None:
            if self.skip_depth:
                self.skip_depth -= 1
            elif name == "p":
                cue, self.cue = self.cue, None
                return self._finish(cue)
        elif name in ("body", "div") and self.parents:
            self.parents.pop()
        return None

    def _text(self, data: str) -> None:
        if self.in_name and self.agent:
            self.names[self.agent] += data
        elif self.cue is not None and not self.skip_depth:
            self.cue.text.append(_SPACE.sub(" ", data))  # XML whitespace: one space

    def _finish(self, cue: _Cue) -> ReadCue | BadBlock | None:
        if cue.begin is None:
            return BadBlock(cue.n, cue.line, "<p> without a begin time", "".join(cue.text)[:200],
                            "a cue needs begin (on the <p> or its first <span>)")  # fmt: skip
        end = cue.end if cue.end is not None else cue.begin + (cue.dur or 0)
        lines = [
            x for x in (_SPACE.sub(" ", ln).strip() for ln in "".join(cue.text).split("\n")) if x
        ]
        if not lines:
            self.empty += 1
            return None
        names = [" ".join(self.names.get(a, a).split()) or a for a in cue.agents]
        speaker = ", ".join(dict.fromkeys(names)) or None
        raw = RawCue(cue.n, cue.line, cue.ident, cue.begin, end, [])
        return ReadCue(
            raw, [Segment(speaker, lines, voiced=speaker is not None)], speaker is not None
        )


def read_ttml(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(source, ctx)
    yield from read_segmented(source, ctx, "ttml", reader.cues())
    if reader.empty:
        ctx.warn(source.name, f"{reader.empty} <p> cues without text skipped")


DESCRIPTION = "TTML / DFXP timed text (Netflix, YouTube, Stream, IMSC, EBU-TT)"
EXAMPLE = (
    '<tt xmlns="http://www.w3.org/ns/ttml" xmlns:ttm="http://www.w3.org/ns/ttml#metadata">'
    '<head><metadata><ttm:agent xml:id="a"><ttm:name>Alice</ttm:name></ttm:agent></metadata>'
    '</head><body><div><p begin="00:00:01.000" end="00:00:04.000" ttm:agent="a">Hello, Bob.'
    "</p></div></body></tt>"
)
TTML_FIELDS = replace(
    FIELDS,
    speaker="the `<p>`'s `ttm:agent` (its `<ttm:name>`), else the file's name-prefix style "
    "(`- Name:`, `>> NAME:`, `[Name]`), else none; `--speakers` chooses",
    extra="`start` and `end` (seconds from the start of the recording), `cues` (the `<p>` "
    "numbers merged), `cue_ids` (their `xml:id`s)",
)
FORMATS = (
    Format("ttml", "transcript", DESCRIPTION, PATTERNS, sniff_ttml, read_ttml, EXAMPLE,
           fields=TTML_FIELDS),
)  # fmt: skip
