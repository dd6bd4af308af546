"""Text helpers for knowledge extraction: the body worth reading, and the marked-up things in it.

Everything here is regular expressions over one message's text, deterministic and local.
Decisions:
- The body excludes quoted mail (lines starting with ``>``), the ``... wrote:`` line
  introducing a quote, everything after a ``-- `` signature separator, and chunks that
  convo's chat importers write for tool calls and media (``[tool_use ...] {...}``).
- ``@name`` is a mention only when not preceded by a word character (so addresses are
  not mentions); a trailing ``.`` is dropped (``@bob.``).
- ``#tag`` is a hashtag when it has a letter (``#123`` is an issue number, not a topic)
  and is not an HTML entity (``&#39;``).
- URLs are ``http(s)://`` or ``www.`` runs; trailing punctuation and an unbalanced
  closing bracket are not part of them.
- A question is a sentence ending in ``?``; sentences split on ``.!?`` followed by space
  or on line ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from re import Match as _Match

_QUOTE_INTRO = re.compile(r"^\s*(\S.{0,200}\bwrote:|-{2,}\s*Original Message\s*-{2,})\s*$", re.I)
_MEDIA_CHUNK = re.compile(
    r"^\[(tool_use|tool_result|tool_call|function_call|image|audio|video|file|attachment|sticker)\b",
    re.I,
)

URL = re.compile(r"(?<![\w@/])(?:https?://|www\.)[^\s<>\"'`]+", re.I)
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?!\w)")
MENTION = re.compile(r"(?<![\w@.&])@(?P<handle>[A-Za-z0-9_][\w.-]*)")
HASHTAG = re.compile(r"(?<![\w&#/])#(?P<word>[^\W\d_][\w-]*|\d+[^\W\d_][\w-]*)")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")

_TRAILING = ".,;:!?*'\"”’"
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _untouched(chunk: str) -> bool:
    """``body`` keeps the chunk as it is: no line break (every character printable,
    which rules out all that ``splitlines`` splits on) and ``unquoted``."""
    return chunk.isprintable() and unquoted(chunk)


def unquoted(text: str) -> bool:
    """No quote (``>``), no signature or ``Original Message`` dashes (``--``) and no
    ``wrote:`` (in any case, as ``_QUOTE_INTRO`` matches it: none of its letters has
    another case-insensitive form in ``re``). Found by C scans, not a pattern tried at
    every position (one-character ones first: a longer needle is slower to find)."""
    if ">" in text or ("-" in text and "--" in text):
        return False
    return not (":" in text and "wrote:" in text.lower())


def body(chunks: list[str]) -> str:
    """The text a person wrote: no quoted mail, signature or tool/media chunks."""
    try:
        text = "\n".join(chunks)
    except TypeError:  # not all strings
        return _body_by_chunk(chunks)
    # Most messages: every chunk kept as it is (``_untouched``) and none a media chunk
    # (those start with ``[``), tested on the joined text: its line breaks make no
    # ``[``, ``>``, ``--`` or ``wrote:``.
    if "[" not in text and all(map(str.isprintable, chunks)) and unquoted(text):
        return text
    return _body_by_chunk(chunks)


def _body_by_chunk(chunks: list[str]) -> str:
    kept: list[str] = []
    for chunk in chunks:
        if not isinstance(chunk, str) or _MEDIA_CHUNK.match(chunk):
            continue
        if _untouched(chunk):
            kept.append(chunk)
            continue
        lines: list[str] = []
        for line in chunk.splitlines():
            if line in ("-- ", "--"):  # signature separator (some clients drop the space)
                break
            if line.lstrip().startswith(">") or _QUOTE_INTRO.match(line):
                continue
            lines.append(line)
        kept.append("\n".join(lines))
    return "\n".join(kept)


def _trim_url(url: str) -> str:
    while url:
        last = url[-1]
        unbalanced = last in _PAIRS and url.count(last) > url.count(_PAIRS[last])
        if last in _TRAILING or unbalanced:
            url = url[:-1]
        else:
            break
    return url


_MARKED = re.compile(
    "|".join(
        f"(?P<{name}>{pattern.pattern})"
        for name, pattern in (
            ("url", URL),
            ("email", EMAIL),
            ("mention", MENTION),
            ("tag", HASHTAG),
        )
    ),
    re.I,
)


# Only whitespace-separated tokens holding one of these can contain a marked thing; the
# full pattern runs on those tokens alone (much faster than on every position of a text).
_HINT = re.compile(r"[@#]|://|www\.", re.I)


def may_be_marked(text: str) -> bool:
    """``_HINT`` may occur in ``text``: found by one-character ``in`` tests (memchr
    speed), not a pattern tried at every position, nor ``lower()`` (slow on non-ASCII
    text). ``www.`` in any case: its letters have no other ``re`` case form, and only
    ``W`` lower-cases to ``w`` (and only ``.`` to ``.``), so upper-case ``W`` made
    lower is enough."""
    if "@" in text or "#" in text or (":" in text and "://" in text):
        return True
    if "." not in text:
        return False
    return _WWW.search(text.replace("W", "w") if "W" in text else text) is not None


_WWW = re.compile(r"www\.")  # a literal: ``re`` finds it faster than ``in`` does


def _matches(text: str) -> Iterator[_Match]:
    done = 0
    for hint in _HINT.finditer(text):
        if hint.start() < done:
            continue
        start = hint.start()
        while start > done and not text[start - 1].isspace():
            start -= 1
        end = hint.end()
        while end < len(text) and not text[end].isspace():
            end += 1
        # Search the full text between the token's bounds, so lookbehinds see real context.
        pos = start
        while pos < end:
            m = _MARKED.search(text, pos, end)
            if m is None:
                break
            yield m
            pos = m.end()
        done = end


@dataclass
class Marked:
    """What one scan of a text finds: URLs, addresses, mentions, hashtags, and the rest."""

    urls: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)
    hashtags: list[str] = field(default_factory=list)
    plain: str = ""  # the text with all of them replaced by a phrase break


def scan(text: str) -> Marked:
    """One pass over ``text``; a URL is taken whole, so addresses, mentions and ``#``
    fragments inside it are not found separately."""
    if not may_be_marked(text):  # most messages: nothing marked
        return Marked(plain=text)
    found = Marked()
    pieces: list[str] = []
    last = 0
    for m in _matches(text):
        kind = m.lastgroup
        if kind == "url":
            url = _trim_url(m.group(0))
            if len(url) > len("www."):
                found.urls.append(url)
        elif kind == "email":
            found.emails.append(m.group(0).strip("."))
        elif kind == "mention":
            name = m.group("handle").rstrip(".-")
            if name:
                found.mentions.append(name)
        else:
            found.hashtags.append(m.group("word").rstrip("-"))
        pieces.append(text[last : m.start()])
        pieces.append(" , ")
        last = m.end()
    pieces.append(text[last:])
    found.plain = "".join(pieces)
    return found


def urls(text: str) -> list[str]:
    """URLs in order of appearance, trailing punctuation removed."""
    return scan(text).urls


def emails(text: str) -> list[str]:
    """Email addresses in order (addresses inside URLs are left to the URL)."""
    return scan(text).emails


def mentions(text: str) -> list[str]:
    """``@name`` handles (without ``@``), excluding those inside URLs and addresses."""
    return scan(text).mentions


def hashtags(text: str) -> list[str]:
    """``#tag`` words (without ``#``), excluding URL fragments."""
    return scan(text).hashtags


def strip_marked(text: str) -> str:
    """The text without URLs, addresses, mentions and hashtags (for key phrases)."""
    return scan(text).plain


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def questions(text: str, limit: int = 3, width: int = 200) -> list[str]:
    """The first ``limit`` sentences that end in ``?`` (each cut to ``width`` characters)."""
    if "?" not in text:
        return []
    out = []
    for s in sentences(text):
        if s.rstrip("\"')]").endswith("?") and any(c.isalpha() for c in s):
            flat = " ".join(s.split())
            out.append(flat if len(flat) <= width else flat[: width - 1] + "…")
            if len(out) >= limit:
                break
    return out


NEWLINE = "\x00"  # stands for a newline in a text split on whitespace (a break, as \x00 is)


def split_pieces(text: str) -> list[str]:
    """The whitespace-separated pieces of ``text``, a line break one of its own
    (``NEWLINE``): what ``keyphrases.candidates`` and ``entities.find`` read."""
    return (text.replace("\n", f" {NEWLINE} ") if "\n" in text else text).split()


_SUBJECT_PREFIX = re.compile(r"^\s*((re|fwd?|aw|wg|sv|vs|tr|antw)\s*(\[\d+\])?\s*:\s*)+", re.I)


def clean_subject(subject: str) -> str:
    """A subject without ``Re:``/``Fwd:`` prefixes and with whitespace collapsed
    (remembered: a thread's messages share their subject)."""
    found = _CLEAN.get(subject)
    if found is None:
        if len(_CLEAN) >= _CLEAN_MAX:
            _CLEAN.clear()
        found = _CLEAN[subject] = " ".join(_SUBJECT_PREFIX.sub("", subject).split())
    return found


_CLEAN: dict[str, str] = {}  # subject -> clean_subject(subject)
_CLEAN_MAX = 4096
