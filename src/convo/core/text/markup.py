"""Untrusted text made inert for documents: CSV cells, Markdown, HTML and WebVTT cue text.

Every writer and exporter escapes through these, so a message body can never become a
spreadsheet formula, a Markdown heading or list, an HTML tag, or a cue boundary.
"""

from __future__ import annotations

import html
import re

# OWASP's list for CSV injection: a cell starting with one of these is read as a formula
# by Excel, LibreOffice or Google Sheets. The fullwidth forms are folded to ASCII by some.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")

# CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that
# can start emphasis, code, links, tables, headings or raw HTML anywhere in a line.
_MD_INLINE = re.compile(r"([\\`*_\[\]{}()#!|~])")
# ... and these only at the start of a line: lists, setext underlines, ordered lists.
_MD_LINE_START = re.compile(r"^(\s*)([-+=]|\d{1,9}(?=[.)]))")


def csv_cell(value: str) -> str:
    """A CSV cell that a spreadsheet shows as text, never evaluates."""
    return "'" + value if value.startswith(_FORMULA_START) else value


_HTML_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def html_text(value: str) -> str:
    """Text for HTML element content or a quoted attribute. Control characters (NUL,
    ESC...: a parse error in HTML, and terminal commands when a page goes to stdout)
    become U+FFFD, as a browser shows a NUL."""
    return _HTML_CONTROLS.sub("\ufffd", html.escape(value, quote=True))


def _markdown_line(line: str) -> str:
    line = _MD_INLINE.sub(r"\\\1", html.escape(line, quote=False))
    m = _MD_LINE_START.match(line)
    if m:
        marker = m.group(2)
        if marker.isdigit():  # "1." -> "1\." keeps the number, loses the list
            end = m.end()
            line = line[:end] + "\\" + line[end:]
        else:
            line = line[: m.start(2)] + "\\" + line[m.start(2) :]
    return line


def markdown_text(value: str) -> str:
    """Markdown source that renders as ``value`` itself: no markup, HTML or structure.

    Line breaks are kept (each line escaped on its own, so no line can open a heading,
    list, quote, table or code fence).
    """
    return "\n".join(_markdown_line(line) for line in value.split("\n"))


def markdown_inline(value: str) -> str:
    """Like ``markdown_text`` on one line: runs of white space (newlines too) become one space."""
    return _markdown_line(" ".join(value.split()))


def vtt_text(value: str) -> str:
    """WebVTT cue text: no tags, entities or ``-->`` from the message."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_SRT_TAG = re.compile(r"<(?=[A-Za-z/])|\{(?=\\)|-->")


def srt_text(value: str) -> str:
    """SubRip cue text. SRT has no escapes (players show ``&amp;`` as written), so the
    text stays as it is, except what a player would read as markup: a ``<`` opening a
    tag (``<i>``, ``</b>``, ``<font>``) becomes ``‹``, a brace opening an override
    (``{`` then a backslash, as in ``{\\an8}``) gets a space, and ``-->`` becomes ``->``."""
    return _SRT_TAG.sub(lambda m: {"<": "‹", "{": "{ ", "-->": "->"}[m.group(0)], value)
