"""The nested regular expressions of the streaming JSON reader (``core.jsonstream``):
whole containers up to a depth, strings skipped whole, compiled on first use."""

from __future__ import annotations

import re
from functools import cached_property

_STRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'


def _nested(depth: int) -> bytes:
    """A pattern for one whole container nested at most ``depth`` deep, strings skipped
    whole. Bracket kinds are not paired (``[1}`` matches): it serves only elements that
    orjson then parses, which refuses them. Every repeat is possessive and its branches
    start with distinct bytes, so a match is linear in the bytes it covers."""
    plain = rb'[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+"'
    inner = rb"(?:" + plain + rb")*+"
    for _ in range(depth - 1):
        inner = rb"(?:" + plain + rb"|[\[{]" + inner + rb"[\]}])*+"
    return rb"[\[{]" + inner + rb"[\]}]"


def _paired(depth: int) -> bytes:
    """Plain bytes, whole strings and whole containers nested at most ``depth`` deep with
    their brackets paired (``[1}`` stops the match): what a skipped value may hold, up
    to the next bracket that is not part of such a container or an unclosed string."""
    plain = rb'[^"\[\]{}]++|' + _STRING
    inner = rb"(?:" + plain + rb")*+"
    for _ in range(depth):
        inner = rb"(?:" + plain + rb"|\[" + inner + rb"\]|\{" + inner + rb"\})*+"
    return inner


SHALLOW = 10  # the deepest element the element and run regexes take at once
SKIM_DEPTH = 5  # the deepest container a skip steps over in one match


class Patterns:
    """The nested patterns, each compiled on first use: together 5-6 ms of compiling
    (measured in-process, ``re.purge()`` before each), paid only by a command that
    walks such a document, not by every command that imports this module (detection,
    a JSONL ingest). After the first use each is a plain attribute."""

    @cached_property
    def plain(self) -> re.Pattern[bytes]:
        # What a skipped value may hold, nested at most SKIM_DEPTH deep.
        return re.compile(_paired(SKIM_DEPTH), re.S)

    @cached_property
    def element(self) -> re.Pattern[bytes]:
        # An array element (a chat message, a conversation: an object with some levels
        # of objects and arrays) with the separator after it, in one match; deeper
        # elements, and ones that run past the buffer, take the bracket loop.
        return re.compile(rb"(" + _nested(SHALLOW) + rb")[ \t\r\n]*+([,\]])[ \t\r\n]*+", re.S)

    @cached_property
    def run(self) -> re.Pattern[bytes]:
        # A run of such elements separated by commas, with the separator after the last.
        return re.compile(
            rb"("
            + _nested(SHALLOW)
            + rb"(?:[ \t\r\n]*+,[ \t\r\n]*+"
            + _nested(SHALLOW)
            + rb")*+)[ \t\r\n]*+([,\]])[ \t\r\n]*+",
            re.S,
        )
