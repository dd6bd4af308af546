"""HTML to readable plain text with the standard library's parser (no regex stripping).

Used for HTML-only mail, Discourse ``cooked``, Hacker News and Stack Exchange bodies and
Teams messages. Block elements become line breaks, list items get bullets, links keep
their target when it differs from the text (``text (url)``), images show their alt text,
``<pre>`` keeps its whitespace, and script/style/head content is dropped.

- A ``<blockquote>`` keeps its boundary: every line of it starts with ``> `` (``> > `` a
  quote in a quote), so a reply reads apart from what it quotes. Discourse's quote
  ``<aside>`` gives ``bob:`` and the quoted lines. Quotes deeper than ``MAX_QUOTE_DEPTH``
  are read as plain blocks (each level re-prefixes its lines: the bound keeps the work
  linear on hostile nesting).
- Avatars (``class="avatar"``) are dropped; an emoji image (``class="emoji"``) is its
  text (``:smile:``), not ``[image ...]``.
- A table is one line per row, cells joined by `` | `` (``a | b``).
- A KaTeX formula (Zulip's ``$$...$$``: MathML holding a TeX annotation, beside an
  ``aria-hidden`` drawing of it) reads as its TeX between ``$$``, once; other MathML is
  left out, as before.

Why not inscriptis (evaluated on the forum fixtures and Stack Exchange bodies): it took
the same time, but by default it prints a quote as plain indented-less text, so the
boundary between a reply and what it quotes is lost, and it shows neither link targets
nor emoji shortcodes; it also brings lxml and requests and builds a whole tree in
memory. This converter is an event stream over the standard library's parser: no
dependency, memory in proportion to the text, quotes marked line by line.
"""

from __future__ import annotations

import re

_BLANKS = re.compile(r"\n{3,}")
MAX_QUOTE_DEPTH = 8


def html_to_text(html: str, *, div_lines: bool = False) -> str:
    """Readable text from an HTML document or fragment (never raises on bad markup).

    ``div_lines``: a ``<div>`` is one line, not a paragraph, as mail programs write a
    message (Gmail, Apple Mail: ``<div>line</div>`` a line, ``<div><br></div>`` the blank
    line between paragraphs), so consecutive lines are not spaced apart."""
    if not html:
        return ""
    # The converter (html.parser, html.entities) is imported on first use: format
    # modules import this one, and detection imports some of those for any JSON head
    # (about 5 ms of an ingest's start-up, docs/startup.md).
    from convo.core.text.html_converter import Converter

    conv = Converter(div_lines=div_lines)
    try:
        conv.feed(html)
        conv.close()
    except (AssertionError, ValueError):  # pragma: no cover - html.parser is very lenient
        pass
    while conv.quotes:  # unclosed quotes end with the document
        conv.quote_end(conv.quotes.pop())
    return tidy("".join(conv.out))


def tidy(text: str) -> str:
    """Trailing spaces and blank runs removed, lines unindented (list items excepted)."""
    lines = [line.rstrip() if line.strip() else "" for line in text.split("\n")]
    text = "\n".join(
        line.lstrip(" ") if not line.startswith(("  ", "- ")) else line for line in lines
    )
    return _BLANKS.sub("\n\n", text).strip()
