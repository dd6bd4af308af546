"""What ``convo search`` shows of a hit: its snippet as terminal text, and its relevance.

A snippet (``index.search.snippet``) is pieces of text, hits marked; each piece is
escaped as it is (``core.text.terminal.inline``), so the spaces around punctuation stay
(``refactor: JWT``, ``café, naïve``). BM25 scores are relative to one query over one
index (``4e-06`` on a small store, ``11.5`` on a large one), so people see a hit's
``relevance``: its score as a percentage of the best hit's (the best is 100).
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
