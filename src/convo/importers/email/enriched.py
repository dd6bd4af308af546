"""text/enriched (RFC 1896) and text/richtext (RFC 1341) as plain text.

Both are 1990s mail formats a mail archive still holds (Eudora's and NeXTMail's
formatted mail): their formatting commands (``<bold>``, ``<bigger>``, ``<indent>``,
``<fontfamily><param>Courier New</param>``) are not text, and were read as such.

- text/enriched: a lone line break is a space, ``n`` line breaks in a row are ``n - 1``
  (a paragraph break keeps one blank line less than written, as RFC 1896 says); ``<<``
  is ``<``; a ``<param>`` command's argument is dropped; inside ``<nofill>`` the lines
  are kept as they are.
- text/richtext: line breaks are spaces, ``<nl>`` a line break, ``<np>`` a page (a blank
  line), ``<lt>`` ``<``; ``<comment>`` text is dropped.
- Any other command is dropped, its text kept.
"""

from __future__ import annotations

import re

_COMMAND = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,60}>")
_PARAM = re.compile(r"<param>[^<]{0,2000}</param>", re.I)
_BREAKS = re.compile(r"\n+")
_SPACES = re.compile(r"[ \t]+")


def enriched_to_text(text: str) -> str:
    """text/enriched as plain text (module docstring)."""
    kept: list[str] = []
    text = _spans(_PARAM.sub("", text), "nofill", kept)
    text = _BREAKS.sub(lambda m: " " if len(m.group()) == 1 else "\n" * (len(m.group()) - 1), text)
    text = _COMMAND.sub("", text.replace("<<", "\x01")).replace("\x01", "<")
    text = re.sub(r"\x00(\d+)\x00", lambda m: _COMMAND.sub("", kept[int(m.group(1))]), text)
    return _tidy(text)


def richtext_to_text(text: str) -> str:
    """text/richtext as plain text (module docstring)."""
    text = _spans(text, "comment", None).replace("\n", " ")
    text = re.sub(r"(?i)<nl>", "\n", text)
    text = re.sub(r"(?i)<np>", "\n\n", text)
    text = _COMMAND.sub("", re.sub(r"(?i)<lt>", "\x01", text)).replace("\x01", "<")
    return _tidy(text)


def _spans(text: str, command: str, kept: list[str] | None) -> str:
    """``text`` with each ``<command>...</command>`` span held in ``kept`` (a ``\\x00N\\x00``
    mark in its place), or dropped when ``kept`` is None; one pass (linear on hostile
    input: an unclosed span ends the search)."""
    low, opening, closing = text.lower(), f"<{command}>", f"</{command}>"
    out: list[str] = []
    pos = 0
    while (start := low.find(opening, pos)) >= 0 and (end := low.find(closing, start)) >= 0:
        out.append(text[pos:start])
        if kept is not None:
            kept.append(text[start + len(opening) : end])
            out.append(f"\x00{len(kept) - 1}\x00")
        pos = end + len(closing)
    out.append(text[pos:])
    return "".join(out)


def _tidy(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
