"""Cue text: voice spans, markup and entities out, speaker-name prefixes.

``segments(payload)`` reads the raw cue text once (SBV's ``[br]`` is a line break, as
YouTube writes one inside a caption): every ``<v Name>`` / ``<v.class Name>`` span
becomes its own segment (a missing ``</v>`` runs to the end of the cue), other tags are
dropped (``<rt>`` ruby annotations with their content), entities are decoded and
whitespace is tidied line by line. Prefix styles are matched on the cleaned lines.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# WebVTT: '<' opens a tag that runs to '>' (or the end of the cue text).
_VTT_TAG = re.compile(r"<([^>]*)(?:>|$)")
# SRT/SBV are not WebVTT: only well-formed tags are markup, a lone '<' is text.
_SRT_TAG = re.compile(r"<(/?[A-Za-z][^<>]*|/)>")
_ASS_TAG = re.compile(r"\{\\[^}]*\}")  # {\an8}, {\i1}: SSA override codes in SRT
_SIMPLE_VOICE = re.compile(r"<[vV](?:\.[^\s<>]*)?[ \t]+([^<>]+)>([^<]*)(?:</[vV]>)?[ \t]*\Z")
_SBV_BREAK = re.compile(r"[ \t]*\[br\][ \t]*", re.I)
_SPACE = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")


@dataclass
class Segment:
    speaker: str | None
    lines: list[str]
    voiced: bool = False  # came from a <v> span (or an explicit no-voice gap in a voiced cue)


@dataclass
class CueText:
    segments: list[Segment]
    has_voice: bool
    karaoke: bool  # inline <00:01.000> timestamps: YouTube-style word timing


def _clean(text: str) -> list[str]:
    """Decode entities and tidy whitespace; empty lines go."""
    if "&" in text:
        text = html.unescape(text)
    text = _SPACE.sub(" ", text)
    if "\n" not in text:
        text = text.strip()
        return [text] if text else []
    return [x for x in (ln.strip() for ln in text.split("\n")) if x]


def _voice_name(tag: str) -> str | None:
    """The annotation of ``v``, ``v.loud Name`` or ``v Name``; None for a bare ``<v>``."""
    parts = tag.split(None, 1)
    if len(parts) < 2:
        return None
    name = " ".join(html.unescape(parts[1]).split())
    return name or None


# Tags that open a voice or ruby text, by their first two / three lowercased characters: the
# tag name ends there or goes on with a class or annotation (``<v.loud Bo>``, not ``<vid>``).
_VOICE_HEADS = frozenset(("v", "v.", "v ", "v\t", "v\n"))  # against tag[:2]
_RUBY_TEXT_HEADS = frozenset(("rt", "rt.", "rt ", "rt\t"))  # against tag[:3]


def segments(payload: list[str], kind: str) -> CueText:
    """Split a cue's raw payload into voiced/unvoiced segments of clean text."""
    raw = "\n".join(payload)
    if kind == "sbv" and "[" in raw:
        raw = _SBV_BREAK.sub("\n", raw)  # SubViewer's line break within a caption
    if kind != "vtt" and "{\\" in raw:
        raw = _ASS_TAG.sub("", raw)
    if "<" not in raw:
        lines = _clean(raw)
        return CueText([Segment(None, lines)] if lines else [], False, False)
    if raw[:2] in ("<v", "<V"):
        m = _SIMPLE_VOICE.match(raw)
        if m:  # the common Teams cue: one voice, no other markup
            lines = _clean(m.group(2))
            segs = [Segment(_voice_name("v " + m.group(1)), lines, True)] if lines else []
            return CueText(segs, True, False)
    return _marked_up(raw, _VTT_TAG if kind == "vtt" else _SRT_TAG)


def _marked_up(raw: str, tag_re: re.Pattern[str]) -> CueText:
    """Segments of cue text with tags: one per voice span; other tags are dropped."""
    parts: list[tuple[str | None, bool, list[str]]] = [(None, False, [])]
    has_voice = karaoke = False
    skip = 0  # inside <rt>
    pos = 0
    for m in tag_re.finditer(raw):
        if not skip and m.start() > pos:
            parts[-1][2].append(raw[pos : m.start()])
        pos = m.end()
        tag = m.group(1).strip()
        low = tag.lower()
        if low[:2] in _VOICE_HEADS:
            has_voice = True
            parts.append((_voice_name(tag), True, []))
        elif low == "/v":
            parts.append((None, True, []))
        elif low[:3] in _RUBY_TEXT_HEADS:
            skip += 1
        elif low in ("/rt", "/ruby"):
            skip = 0
        elif low[:1].isdigit():
            karaoke = True
    if not skip and pos < len(raw):
        parts[-1][2].append(raw[pos:])
    segs = []
    for speaker, voiced, texts in parts:
        lines = _clean("".join(texts))
        if lines:
            segs.append(Segment(speaker, lines, voiced))
    return CueText(segs, has_voice, karaoke)


# ---------------------------------------------------------------- name prefixes

_COLON = re.compile(r"([^:\[\]<>]{1,60}?)[ \t]?:[ \t]+(\S.*)$")
_COLON_ALONE = re.compile(r"([^:\[\]<>]{1,60}?)[ \t]?:[ \t]*$")
_DASH = re.compile(r"[-–][ \t]*([^:]{1,50}?)[ \t]?:[ \t]+(\S.*)$")
_BROADCAST = re.compile(r">>+[ \t]*(?:([^:]{1,50}?)[ \t]?:[ \t]+)?(.*)$")
_BRACKET = re.compile(r"\[([^\[\]]{1,40})\]:?[ \t]*(\S.*)$")
# WhisperX's subtitles and text: ``[SPEAKER_00]: text`` (its ``SubtitlesWriter``).
_BRACKET_COLON = re.compile(r"\[([^\[\]:]{1,60})\]:[ \t]+(\S.*)$")
_PAREN = re.compile(r"\(([^()]{1,40})\)$")
# Words of the sounds captions write in parentheses, capitalised as a name is
# (``(Applause)``, SDH's ``(MUSIC PLAYING)``): such a line is never a ``(Name)``.
_SOUNDS = frozenset((
    "applause", "beeping", "booing", "cheering", "cheers", "chuckles", "chuckling", "clapping",
    "coughing", "coughs", "crosstalk", "crying", "gasps", "groans", "inaudible", "indistinct",
    "laughing", "laughs", "laughter", "music", "noise", "playing", "screaming", "sighs",
    "silence", "singing", "static", "whispering",
))  # fmt: skip
_NAME_CHARS = re.compile(r"[^\W_][\w'’.\-]*(?:[ \t]+(?:\(\w+\)|[\w'’.\-]+)){0,5}")


def valid_name(name: str, *, capitalised: bool = False) -> bool:
    """A plausible speaker name: starts with a letter, up to six words, no digits-led
    times, URLs or addresses (so never ``10:30 Meeting`` or ``https``)."""
    if not name or not name[0].isalpha():
        return False
    if not _NAME_CHARS.fullmatch(name):
        return False
    low = name.lower()
    if low in ("http", "https", "ftp", "mailto", "note", "www"):
        return False
    if capitalised:
        return all(w[0].isupper() for w in name.split() if w[0].isalpha())
    return True


STYLES = ("broadcast", "colon", "dash", "bracket", "paren")

PrefixMatch = tuple[str | None, str]
PrefixMatcher = Callable[[str, bool], PrefixMatch | None]


def _colon(line: str, first_line: bool) -> PrefixMatch | None:
    """``Name: text``, on the first line of a cue only (Zoom), ``[Name]: text`` (WhisperX's
    diarized subtitles: ``[SPEAKER_00]: text``); or ``NAME:`` alone on that
    line, the words on the lines after it (subtitles for the deaf: ``MAN:``, then what
    he says), capitalised so ``and he said:`` is no speaker."""
    if not first_line:
        return None
    m = _COLON.match(line)
    if m and valid_name(m.group(1).strip()):
        return m.group(1).strip(), m.group(2)
    m = _BRACKET_COLON.match(line)
    if m and valid_name(m.group(1).strip()):
        return m.group(1).strip(), m.group(2)
    m = _COLON_ALONE.match(line)
    if m and valid_name(m.group(1).strip(), capitalised=True):
        return m.group(1).strip(), ""
    return None


def _broadcast(line: str, first_line: bool) -> PrefixMatch | None:
    """``>> NAME: text``; a bare ``>>`` is a new, unnamed speaker."""
    if not line.startswith(">>"):
        return None
    m = _BROADCAST.match(line)
    if not m:
        return None
    name = (m.group(1) or "").strip()
    if name and valid_name(name):
        return name, m.group(2)
    return None, line.lstrip(">").strip()


def _dash(line: str, first_line: bool) -> PrefixMatch | None:
    """``- Name: text`` on any line of a cue."""
    m = _DASH.match(line)
    if m and valid_name(m.group(1).strip()):
        return m.group(1).strip(), m.group(2)
    return None


def _bracket(line: str, first_line: bool) -> PrefixMatch | None:
    """``[Name] text`` with a capitalised name (Netflix), so ``[music]`` is no speaker."""
    m = _BRACKET.match(line)
    if m and valid_name(m.group(1).strip(), capitalised=True):
        return m.group(1).strip(), m.group(2)
    return None


def _paren(line: str, first_line: bool) -> PrefixMatch | None:
    """``(Name)`` alone on a line, the text on the lines after it; a cue where two speak
    has ``-`` and a line with a space between them (Google Meet's captions, as
    danyelf/parse-vtt's ``readme.md`` shows them). A capitalised name, so ``(laughs)``
    is no speaker, nor a sound (``_SOUNDS``: ``(Applause)``); and words must follow it
    in the cue (``line_prefixes``)."""
    m = _PAREN.match(line)
    name = m.group(1).strip() if m else ""
    if valid_name(name, capitalised=True) and not _SOUNDS.intersection(name.lower().split()):
        return name, ""
    return None


def _no_prefix(line: str, first_line: bool) -> None:
    return None


_MATCHERS: dict[str, PrefixMatcher] = {
    "broadcast": _broadcast, "colon": _colon, "dash": _dash, "bracket": _bracket,
    "paren": _paren,
}  # fmt: skip


def prefix_matcher(style: str) -> PrefixMatcher:
    """``match_prefix`` for one style, fetched once for a loop over many lines."""
    return _MATCHERS.get(style, _no_prefix)


def line_prefixes(style: str, lines: list[str]) -> Iterator[tuple[str, PrefixMatch | None]]:
    """Each line of a cue and its prefix in ``style`` (``match_prefix``). A ``(Name)``
    or ``NAME:`` line is one only when words follow it in the cue, as Google Meet and
    subtitles write them: one that ends its cue is a caption of its own (``(Standing
    Ovation)``, ``WARNING:``), not the speaker of the cues after it."""
    match = prefix_matcher(style)
    last = len(lines) - 1
    alone = style in ("paren", "colon")
    for i, line in enumerate(lines):
        got = match(line, i == 0)
        yield line, None if alone and i == last and got is not None and not got[1] else got


def match_prefix(style: str, line: str, first_line: bool) -> PrefixMatch | None:
    """``(speaker, rest)`` when ``line`` opens with this style's prefix, else None.

    Broadcast ``>>`` without a name marks a new, unnamed speaker: ``(None, rest)``.
    """
    return prefix_matcher(style)(line, first_line)


def _tally(style: str, samples: list[list[str]]) -> tuple[int, dict[str | None, int]]:
    """How many sample cues have a line with this style's prefix, and how often each name."""
    names: dict[str | None, int] = {}
    count = 0
    for lines in samples:
        hit = False
        for _, got in line_prefixes(style, lines):
            if got is not None:
                hit = True
                names[got[0]] = names.get(got[0], 0) + 1
                if style == "colon":
                    break  # it opens only the first line: nothing more to find
        count += hit
    return count, names


def _repeated(names: dict[str | None, int]) -> bool:
    """Some speaker name was seen at least twice."""
    return any(k is not None and v >= 2 for k, v in names.items())


def _names_open_most_cues(count: int, names: dict[str | None, int], total: int) -> bool:
    """Colon and dash: at least half the cues, with names that repeat."""
    if count * 2 < total or (count >= 3 and not _repeated(names)):
        return False
    # Six or more cues where nearly every "name" is new: these are not speakers.
    return count < 6 or len(names) * 4 <= count * 3


def _marks_two_cues(count: int, names: dict[str | None, int], total: int) -> bool:
    """Broadcast: ``>>`` on at least two cues (or on the only one)."""
    return count >= 2 or total <= 1


def _label_used_twice(count: int, names: dict[str | None, int], total: int) -> bool:
    """Bracket: labels are sparse, but at least two cues have one and a name is used twice."""
    return count >= 2 and _repeated(names)


# Whether a style's tally shows a file really uses it (the thresholds of ``choose_style``).
_CONSISTENT: dict[str, Callable[[int, dict[str | None, int], int], bool]] = {
    "colon": _names_open_most_cues, "dash": _names_open_most_cues,
    "broadcast": _marks_two_cues, "bracket": _label_used_twice,
    "paren": _names_open_most_cues,
}  # fmt: skip


def choose_style(samples: list[list[str]], forced: bool) -> str | None:
    """The prefix style a file uses consistently, judged on its first cues' lines.

    Colon and dash prefixes and ``(Name)`` lines must open at least half the cues (Zoom
    prefixes nearly every cue) and names must repeat; ``>>`` must mark at least two cues; ``[Name]`` labels
    (sparse in Netflix files) need a name used twice. ``forced`` (``--speakers prefix``)
    takes the most frequent style without these thresholds.
    """
    total = len(samples)
    if not total:
        return None
    best, best_count = None, 0
    for style in STYLES:
        count, names = _tally(style, samples)
        if not count or not (forced or _CONSISTENT[style](count, names, total)):
            continue
        if count > best_count:
            best, best_count = style, count
    return best
