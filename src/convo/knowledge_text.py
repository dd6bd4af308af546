"""Text helpers for knowledge extraction: the body worth reading, and the marked-up things in it.

Everything here is regular expressions over one message's text, deterministic and local.
Decisions:
- The body excludes quoted mail (lines starting with ``>``), the ``On ... wrote:`` line
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

_QUOTE_INTRO = re.compile(r"^\s*(On\b.{0,200}\bwrote:|-{2,}\s*Original Message\s*-{2,})\s*$", re.I)
_MEDIA_CHUNK = re.compile(
    r"^\[(tool_use|tool_result|tool_call|function_call|image|audio|video|file|attachment|sticker)\b",
    re.I,
)

URL = re.compile(r"(?<![\w@/])(?:https?://|www\.)[^\s<>\"'`]+", re.I)
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?!\w)")
MENTION = re.compile(r"(?<![\w@.&])@([A-Za-z0-9_][\w.-]*)")
HASHTAG = re.compile(r"(?<![\w&#/])#([^\W\d_][\w-]*|\d+[^\W\d_][\w-]*)")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")

_TRAILING = ".,;:!?*'\"”’"
_PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}


def body(chunks: list[str]) -> str:
    """The text a person wrote: no quoted mail, signature or tool/media chunks."""
    kept: list[str] = []
    for chunk in chunks:
        if not isinstance(chunk, str) or _MEDIA_CHUNK.match(chunk):
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


def urls(text: str) -> list[str]:
    """URLs in order of appearance, trailing punctuation removed."""
    found = (_trim_url(m.group(0)) for m in URL.finditer(text))
    return [u for u in found if len(u) > len("www.")]


def emails(text: str) -> list[str]:
    """Email addresses in order (addresses inside URLs are left to the URL)."""
    spans = [m.span() for m in URL.finditer(text)]
    out = []
    for m in EMAIL.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        out.append(m.group(0).strip("."))
    return out


def mentions(text: str) -> list[str]:
    """``@name`` handles (without ``@``), excluding those inside URLs and addresses."""
    spans = [m.span() for m in URL.finditer(text)]
    out = []
    for m in MENTION.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        out.append(m.group(1).rstrip(".-"))
    return [name for name in out if name]


def hashtags(text: str) -> list[str]:
    """``#tag`` words (without ``#``), excluding URL fragments."""
    spans = [m.span() for m in URL.finditer(text)]
    return [
        m.group(1).rstrip("-")
        for m in HASHTAG.finditer(text)
        if not any(a <= m.start() < b for a, b in spans)
    ]


def strip_marked(text: str) -> str:
    """The text without URLs, addresses, mentions and hashtags (for key phrases)."""
    for pattern in (URL, EMAIL, MENTION, HASHTAG):
        text = pattern.sub(" , ", text)
    return text


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def questions(text: str, limit: int = 3, width: int = 200) -> list[str]:
    """The first ``limit`` sentences that end in ``?`` (each cut to ``width`` characters)."""
    out = []
    for s in sentences(text):
        if s.rstrip("\"')]").endswith("?") and any(c.isalpha() for c in s):
            flat = " ".join(s.split())
            out.append(flat if len(flat) <= width else flat[: width - 1] + "…")
            if len(out) >= limit:
                break
    return out


_SUBJECT_PREFIX = re.compile(r"^\s*((re|fwd?|aw|wg|sv|vs|tr|antw)\s*(\[\d+\])?\s*:\s*)+", re.I)


def clean_subject(subject: str) -> str:
    """A subject without ``Re:``/``Fwd:`` prefixes and with whitespace collapsed."""
    return " ".join(_SUBJECT_PREFIX.sub("", subject).split())
