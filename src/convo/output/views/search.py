"""What ``convo search`` shows of a hit: its snippet as terminal text, and its relevance.

A snippet (``index.search.snippet``) is pieces of text, hits marked; each piece is
escaped as it is (``core.text.terminal.inline``), so the spaces around punctuation stay
(``refactor: JWT``, ``café, naïve``). BM25 scores are relative to one query over one
index (``4e-06`` on a small store, ``11.5`` on a large one), so people see a hit's
``relevance``: its score as a percentage of the best hit's (the best is 100).
``render`` is ``convo search``'s and ``convo similar``'s table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def snippet_text(pieces: Sequence[tuple[str, bool]]) -> Any:
    """The snippet as rich Text: every piece escaped, hits in bold."""
    from rich.text import Text

    from convo.core.text.terminal import inline

    text = Text()
    for piece, hit in pieces:
        text.append(inline(piece), style="bold yellow" if hit else "")
    return text


def relevance(scores: Sequence[float]) -> list[int]:
    """Each score as a whole percentage of the best one (higher is better; 100 for the
    best, at least 1 for any hit; all 100 when no score is above zero)."""
    best = max(scores, default=0.0)
    if best <= 0:
        return [100] * len(scores)
    return [max(1, round(100 * s / best)) if s > 0 else 1 for s in scores]


def render(hits: Any, console: Any, options: Any) -> None:
    """The hits as a table: rank, relevance, why (unless keyword only), the time as every
    view shows it (``options``: zone, UTC), speaker, the snippet and, under it, the id
    ``convo show --thread`` takes (``fields.conversation``)."""
    from rich.table import Table
    from rich.text import Text

    from convo.core import fields
    from convo.core.text.terminal import one_line
    from convo.output.views.common import record_time

    # Rank, match and time are never cut; the snippet takes the free width, and under it
    # the thread, whole.
    table = Table(show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("match", justify="right", no_wrap=True, min_width=5)
    why = hits.mode != "fts"
    if why:
        table.add_column("why", no_wrap=True, min_width=7)
    table.add_column("time", no_wrap=True, min_width=19)
    table.add_column(
        "speaker", ratio=1, min_width=10, max_width=24, overflow="ellipsis", no_wrap=True
    )
    table.add_column("snippet · thread", ratio=4, min_width=20, overflow="fold")
    percents = relevance([h.score for h in hits])
    for rank, (h, percent) in enumerate(zip(hits, percents, strict=True), 1):
        thread = fields.conversation(h.record) or ""
        when = record_time(h.record, utc=options.utc, zone=options.zone)
        cells = [Text(str(rank)), Text(f"{percent}%"), *([Text(h.why)] if why else [])]
        table.add_row(
            *cells, Text(when), Text(one_line(fields.speaker_label(h.record), 30)),
            snippet_text(h.snippet).append("\n" + one_line(thread), style="dim"),
        )  # fmt: skip
    console.print(table)
