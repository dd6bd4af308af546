"""The read loop of a Markdown chat export whose turns open with a heading line (Cline's
and Roo Code's ``**User:**``, Gemini CLI's ``## USER 🧑‍💻``): the lines under a heading are
its turn's, a heading inside a fenced code block is the block's text, and text before the
first heading is rejected with its line (not dropped unsaid)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.apps.common import numbered_lines
from convo.importers.context import ImportContext

FENCE = re.compile(r"\s*(```|~~~)")


class Turns(Protocol):
    """A reader's state: the turn being read (``who`` from the heading's group, its
    place, its lines) and ``close()``, which gives that turn's messages."""

    who: str
    where: str
    lines: list[str]

    def close(self) -> Iterator[ConversationMessage]: ...


def fenced_turns(
    source: Source, ctx: ImportContext, f: Turns, heading: re.Pattern[str], before: str
) -> Iterator[ConversationMessage]:
    """The messages of every turn, the last one's too; ``before``: the reason a line
    before the first heading is rejected."""
    fenced = False
    for number, line in numbered_lines(source, ctx.text_decoder()):
        found = None if fenced else heading.fullmatch(line)
        if found:
            yield from f.close()
            f.who, f.where = found["who"], ctx.loc(number)
        elif f.who:
            fenced = not fenced if FENCE.match(line) else fenced
            f.lines.append(line)
        elif line.strip():
            ctx.reject(ctx.loc(number), before, line)
    yield from f.close()
