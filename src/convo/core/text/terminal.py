"""Untrusted text made safe for a terminal.

Message bodies, names and subjects come from exporters nobody here controls. Before any
of it reaches a terminal (tables, views, errors), control characters, escape sequences,
bidirectional overrides and invisible format characters are shown escaped (``\\x1b``,
``\\u202e``, ``\\u200b``), so text can neither move the cursor, retitle the window, hide
content nor reorder what is shown.
Rich markup is never parsed from data: views build ``rich.text.Text`` objects and the
console runs with ``markup=False``.
"""

from __future__ import annotations

import re

_UNSAFE = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
# Bidi embeddings/overrides/isolates and other invisible format characters that can
# make displayed text differ from the data ("Trojan Source").
_BIDI = [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# Zero-width and invisible format characters: they hide or join text without showing
# (soft hyphen, zero-width space/joiners, word joiner, invisible operators, BOM).
_INVISIBLE = [0x00AD, 0x200B, 0x200C, 0x200D, *range(0x2060, 0x2065), 0xFEFF]


def _escape(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


_TABLE = {cp: _escape(cp) for cp in _UNSAFE + _BIDI + _INVISIBLE}
_TABLE_KEEP_NL = {k: v for k, v in _TABLE.items() if k not in (0x0A, 0x09)}


_WHITESPACE = re.compile(r"\s+")


def printable(text: str | None, *, newlines: bool = True) -> str:
    """``text`` with every control/bidi character escaped; ``newlines`` keeps ``\\n`` and tab."""
    if not text:
        return ""
    if text.isprintable():
        return text
    return text.translate(_TABLE_KEEP_NL if newlines else _TABLE)


def inline(text: str | None) -> str:
    """A piece of a line (a snippet's words or the space between them): every run of
    whitespace one space, the edges kept (``one_line`` trims them, which glued
    ``refactor: JWT`` into ``refactor:JWT`` when pieces were joined), then escaped."""
    if not text:
        return ""
    return printable(_WHITESPACE.sub(" ", text), newlines=False)


def one_line(text: str | None, width: int | None = None) -> str:
    """Collapse whitespace to single spaces (then escape), optionally cut to ``width``."""
    if not text:
        return ""
    flat = " ".join(text.split())
    flat = printable(flat, newlines=False)
    if width is not None and len(flat) > width:
        return flat[: max(0, width - 1)] + "…"
    return flat


_JSON_TTY_UNSAFE = {
    **{cp: f"\\u{cp:04x}" for cp in range(0x20)},  # raw C0 is invalid JSON anyway
    **{cp: f"\\u{cp:04x}" for cp in (0x7F, *range(0x80, 0xA0), *_BIDI)},
}
_C0 = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


def json_tty_safe(raw: bytes) -> bytes:
    """JSON text with raw control, C1 and bidi characters written as ``\\u`` escapes.

    For JSON output that goes to a terminal: the same JSON value (raw control characters
    cannot be valid JSON in the first place), but nothing a terminal would act on. Line
    breaks between JSON lines are kept.
    """
    if raw.isascii() and not _C0.search(raw):
        return raw
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    return "\n".join(line.translate(_JSON_TTY_UNSAFE) for line in lines).encode()


def text_tty_safe(raw: bytes) -> bytes:
    """Text output for a terminal: ``printable`` applied, newlines and tabs kept."""
    if raw.isascii() and not _C0.search(raw):
        return raw
    return printable(raw.decode("utf-8", "replace")).encode()


class TtySafeStream:
    """A binary stream that passes every write through ``json_tty_safe`` or ``text_tty_safe``."""

    def __init__(self, stream, kind: str = "json"):
        self._stream = stream
        self._clean = json_tty_safe if kind == "json" else text_tty_safe

    def write(self, data: bytes) -> int:
        self._stream.write(self._clean(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self._stream.flush()
