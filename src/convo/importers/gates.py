"""What a format's sniff needs before it can score, said without importing its module.

Detection (``Registry.detect``) asks every format of the right kind (file or folder) to
sniff a source. A built-in format is declared (``registry.Declared``) with its name, file
patterns and gates; its module, and everything that module imports, is loaded only when
a gate admits the source (the sniff is then asked) or the format is chosen by name. A
JSON chat file so never imports the email or transcript modules.

A gate is a necessary condition of the sniff scoring above 0, never a sufficient one:
the sniff still decides. A format's gates are alternatives (any admits); within one
gate every condition given must hold. ``tests/importers/test_lazy_registry.py`` checks
that every fixture and sample file is detected as the eagerly loaded registry detects
it, and that no gate turns away a source its sniff scores.

Measured in-process (each format module imported in registration order after the
record, the registry and the JSON helpers, ``time.perf_counter`` around each import,
2026-12-04, load ~1): all of them took ~80 ms, the email family ~29 ms of it and the
transcripts ~11 ms; a JSON chat file now imports neither. docs/startup.md has the
whole command's start-up, before and after.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from convo.core.io import Source, strip_bom

__all__ = ["JSON", "JSON_ARRAY", "JSON_OBJECT", "Gate", "Head", "json_with"]

_SKIP = re.compile(r"[\s\ufeff]*")


class Head:
    """One source's head as the gates read it, decoded once."""

    def __init__(self, source: Source):
        self.source = source
        self._text: str | None = None
        self._raw: bytes | None = None

    @property
    def text(self) -> str:
        """The decoded head (``Source.head_text``)."""
        if self._text is None:
            self._text = self.source.head_text()
        return self._text

    @property
    def raw(self) -> bytes:
        """The head's bytes without a UTF-8 BOM."""
        if self._raw is None:
            self._raw = strip_bom(self.source.head)
        return self._raw

    def first(self) -> str:
        """The first character of the decoded head that is neither whitespace nor a BOM."""
        text = self.text
        skipped = _SKIP.match(text)  # matches the empty string at least
        end = skipped.end() if skipped else 0
        return text[end : end + 1]

    def first_byte(self) -> str:
        """The first byte of the raw head after ASCII whitespace, as a character."""
        return self.raw.lstrip()[:1].decode("latin-1")


def _among(char: str, chars: str) -> bool:
    return char != "" and char in chars


@cache
def _compiled(pattern: str | bytes) -> re.Pattern[Any]:
    return re.compile(pattern)


@dataclass(frozen=True)
class Gate:
    """A necessary condition of a sniff: every condition given holds.

    ``opens``: the head's first character that is not whitespace or a BOM (decoded, or
    of the raw bytes) is one of these. ``words``: the decoded head holds one of these.
    ``pattern``: this regular expression is found in the decoded head (``re.search``;
    anchor it with ``\\A``). ``magic``: the raw head (a UTF-8 BOM removed) starts with one
    of these. ``raw``: this bytes regular expression is found in that raw head.
    ``named``: the file's name matches the format's patterns. ``names``: the file's name
    matches one of these (a format that also reads side files its patterns do not name).
    """

    opens: str = ""
    words: tuple[str, ...] = ()
    pattern: str = ""
    magic: tuple[bytes, ...] = ()
    raw: bytes = b""
    named: bool = False
    names: tuple[str, ...] = ()

    def admits(self, head: Head, patterns: tuple[str, ...]) -> bool:
        return self._shape_admits(head, patterns) and self._text_admits(head)

    def _shape_admits(self, head: Head, patterns: tuple[str, ...]) -> bool:
        """``opens``, ``magic`` and ``named``: the head's first bytes and the file's name."""
        if self.opens and not (
            _among(head.first(), self.opens) or _among(head.first_byte(), self.opens)
        ):
            return False
        if self.magic and not head.raw.startswith(self.magic):
            return False
        name = head.source.match_name
        if self.names and not any(fnmatch.fnmatch(name, p) for p in self.names):
            return False
        return not self.named or any(fnmatch.fnmatch(name, p) for p in patterns)

    def _text_admits(self, head: Head) -> bool:
        """``words``, ``pattern`` and ``raw``: what the head holds."""
        if self.words and not any(w in head.text for w in self.words):
            return False
        if self.pattern and _compiled(self.pattern).search(head.text) is None:
            return False
        return not (self.raw and _compiled(self.raw).search(head.raw) is None)


# The gates most JSON formats share: the head opens an object, an array, either.
JSON = Gate(opens="[{")
JSON_OBJECT = Gate(opens="{")
JSON_ARRAY = Gate(opens="[")


def json_with(*words: str, opens: str = "[{") -> Gate:
    """A JSON head (opening one of ``opens``) that holds one of ``words``."""
    return Gate(opens=opens, words=words)
