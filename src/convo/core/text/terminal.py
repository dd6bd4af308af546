"""Untrusted text made safe for a terminal.

Message bodies, names and subjects come from exporters nobody here controls. Before any
of it reaches a terminal (tables, views, errors, JSON), every character that is
invisible or changes how text is shown, by its Unicode category (``HIDDEN_CATEGORIES``:
controls and escape sequences, bidirectional overrides, zero-width and other format
characters), is shown escaped (``\\x1b``, ``\\u202e``, ``\\u200b``), so text can neither
move the cursor, retitle the window, hide content nor reorder what is shown.
Rich markup is never parsed from data: views build ``rich.text.Text`` objects and the
console runs with ``markup=False``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

# One rule, by Unicode category: every control (Cc), format (Cf: bidi marks and
# overrides, zero-width characters, the soft hyphen, U+180E, U+FFF9-FFFB, the BOM, tag
# characters), line and paragraph separator (Zl, Zp) and lone surrogate (Cs) is shown
# escaped. They are invisible or change how the rest is shown ("Trojan Source"); every
# other character is shown as it is.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def hidden(ch: str) -> bool:
    """Whether ``ch`` is one a terminal must not get raw (``HIDDEN_CATEGORIES``)."""
    return unicodedata.category(ch) in HIDDEN_CATEGORIES


def _escape(cp: int) -> str:
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _json_escape(cp: int) -> str:
    """JSON's escape: astral characters as a UTF-16 surrogate pair."""
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


class _ByCategory(dict):
    """A ``str.translate`` table that decides each character once, by its category."""

    def __init__(self, escape: Callable[[int], str], keep: tuple[int, ...] = ()):
        super().__init__()
        self.escape = escape
        self.keep = frozenset(keep)

    def __missing__(self, cp: int) -> str | int:
        value: str | int = cp
        if cp not in self.keep and hidden(chr(cp)):
            value = self.escape(cp)
        self[cp] = value
        return value


_TABLE = _ByCategory(_escape)
_TABLE_KEEP_NL = _ByCategory(_escape, keep=(0x0A, 0x09))


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


# Inside JSON text: a quote, a backslash and \n between lines are JSON's own (and the
# raw C0 controls are invalid JSON anyway); everything else hidden is escaped as JSON.
_JSON_TTY_UNSAFE = _ByCategory(_json_escape)
_C0 = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


def json_tty_safe(raw: bytes) -> bytes:
    """JSON text with every hidden character (``HIDDEN_CATEGORIES``) as a ``\\u`` escape.

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
