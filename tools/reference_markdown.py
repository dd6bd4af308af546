"""Markdown for the generated reference pages: text from the code, shown as it was written.

Help texts and format declarations are plain text with ``code`` in backticks; ``inline``
keeps the backtick spans and escapes what Markdown would read as markup elsewhere
(``<store>`` is text, not an HTML tag; ``*`` and ``_`` are not emphasis).
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\*_\[\]#])")
_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def _escape(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def inline(text: str) -> str:
    """``text`` as Markdown inline content: backtick spans kept, the rest escaped."""
    if text.count("`") % 2:
        return _escape(text).replace("`", "\\`")
    out, end = [], 0
    for m in _SPAN.finditer(text):
        out.append(_escape(text[end : m.start()]))
        out.append(m.group(0))
        end = m.end()
    out.append(_escape(text[end:]))
    return "".join(out)


def code_block(text: str, lang: str = "text") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _preformatted(lines: list[str]) -> bool:
    """Lines laid out by hand (indented, or columns made of runs of spaces)."""
    return any(line[:1].isspace() or "  " in line.strip() for line in lines)


def paragraphs(text: str) -> list[str]:
    """Help text after its first paragraph: prose paragraphs as Markdown, laid-out ones
    (tables, examples) as code blocks, blank-line separated."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip("\n")):
        lines = block.split("\n")
        if not block.strip():
            continue
        if _preformatted(lines):
            indent = min(len(x) - len(x.lstrip()) for x in lines if x.strip())
            out.append(code_block("\n".join(x[indent:] for x in lines)))
        else:
            out.append(inline(" ".join(" ".join(lines).split())))
        out.append("")
    return out[:-1]


def table_cell(text: str) -> str:
    """Text for a Markdown table cell: a ``|`` does not end the cell."""
    return re.sub(r"(?<!\\)\|", r"\\|", text)
