"""Mailman 2's scrubbed attachments (pipermail archives, their ``.txt`` mboxes).

Mailman's Scrubber takes every part but the first text out of an archived message and
writes, after ``-------------- next part --------------``, a note of what it took:
``An HTML attachment was scrubbed...`` then ``URL: <...>``; ``A non-text attachment was
scrubbed...`` then ``Name:``, ``Type:``, ``Size: N bytes``, ``Desc:``, ``URL:``; ``An
embedded message was scrubbed...`` (``From:``, ``Subject:``, ``Date:``, ``Size:``,
``URL:``); ``An embedded and charset-unspecified text was scrubbed...``. These notes are
attachments, not what the sender wrote: each becomes an ``extra.attachments`` entry and
leaves the text (a part that is text, written after the same line, stays).
"""

from __future__ import annotations

import re
from typing import Any

SEPARATOR = "-------------- next part --------------"
_NOTE = re.compile(
    r"\A\s*(An HTML attachment|A non-text attachment|An embedded message"
    r"|An embedded and charset-unspecified text) was scrubbed\.\.\.[ \t]*\n"
)
_FIELD = re.compile(r"([A-Z][A-Za-z]*): ?(.*)")
_KINDS = {
    "An HTML attachment": "text/html",
    "An embedded message": "message/rfc822",
    "An embedded and charset-unspecified text": "text/plain",
}
_KEYS = {"Name": "name", "Type": "type", "Desc": "description", "URL": "url"}


def _note(piece: str) -> dict[str, Any] | None:
    """The attachment a scrubbed note describes, or None when the piece is no such note
    (a text part, or a note followed by words of the sender's)."""
    found = _NOTE.match(piece)
    if found is None:
        return None
    info: dict[str, Any] = {"scrubbed": True}
    kind = _KINDS.get(found.group(1))
    lines = piece[found.end() :].strip().splitlines()
    for line in lines:
        field = _FIELD.fullmatch(line.strip())
        if field is None:
            return None
        key, value = field.groups()
        if key == "Size":
            size = value.strip().removesuffix(" bytes")
            info["size"] = int(size) if size.isdecimal() else size
        elif key in _KEYS:
            info[_KEYS[key]] = value.strip().strip("<>")
        elif found.group(1) == "An embedded message" and key in ("From", "Subject", "Date"):
            info[key.lower()] = value.strip()
        else:
            return None
    if "url" not in info:
        return None
    if kind and "type" not in info:
        info["type"] = kind
    if "name" not in info:
        info["name"] = info["url"].rsplit("/", 1)[-1] or None
    return info


def take_scrubbed(text: str) -> tuple[str, list[dict[str, Any]]]:
    """The text without Mailman's scrubbed-attachment notes, and the attachments they
    describe (empty, and the text as it was, when it has none)."""
    if SEPARATOR not in text:
        return text, []
    pieces = re.split(r"(?m)^" + re.escape(SEPARATOR) + r"[ \t]*\r?$\n?", text)
    kept, found = [pieces[0]], []
    for piece in pieces[1:]:
        info = _note(piece)
        if info is None:
            kept.append(piece)
        else:
            found.append(info)
    if not found:
        return text, []
    return "\n\n".join(p.strip("\n").rstrip() for p in kept if p.strip()), found
