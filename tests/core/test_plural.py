"""Counts in words (``core.plural``): one rule for every summary and warning, right for 1
and for many. Before it, a save said ``(1 sources)``-style things in places and ``1
file(s) not recognised``, ``1 message(s) repeat...``, ``skipped 1 empty messages`` in
others."""

import ast
import re
from pathlib import Path

from convo.core.plural import counted, plural
from convo.pipeline.ingest import IngestStats, clash_warning
from convo.pipeline.run import IngestSummary, unrecognised_text

SRC = Path(__file__).resolve().parents[2] / "src" / "convo"


def test_counted_says_one_and_many():
    assert counted(1, "message") == "1 message"
    assert counted(0, "message") == "0 messages"
    assert counted(2, "entry", "entries") == "2 entries"
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(12345, "row", grouped=True) == "12,345 rows"
    assert plural(1, "was", "were") == "was" and plural(3, "was", "were") == "were"


def test_the_ingest_summary_is_grammatical_for_one():
    stats = IngestStats(sources=1, imported=1, warnings=1, unrecognised=["a.png"])
    stats.failed.append("b.json")
    text = IngestSummary(stats, "stdout").text()
    assert "(1 source)" in text and "1 warning" in text and "1 warnings" not in text
    assert "1 input unreadable" in text and "1 file not recognised" in text
    assert "(s)" not in text
    many = IngestSummary(IngestStats(sources=2, warnings=3), "stdout").text()
    assert "(2 sources)" in many and "3 warnings" in many
    assert unrecognised_text(["a.png", "b.png"]).startswith("2 files not recognised")
    one = clash_warning(1)
    assert one.startswith("1 message repeats the id") and "its content" in one
    assert clash_warning(2).startswith("2 messages repeat the id")


def _fstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield (
                node.lineno,
                "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values),
            )


def test_no_message_writes_a_count_with_a_plural_in_brackets():
    """``{n} file(s)``: the words come from ``core.plural`` (``http(s)`` is no count)."""
    bad = re.compile(r"\{\}[^{}]*?\b[a-z]+\((s|es|ies)\)")
    found = [
        f"{p.relative_to(SRC)}:{line}: {text}"
        for p in SRC.rglob("*.py")
        for line, text in _fstrings(p)
        if bad.search(text)
    ]
    assert not found, found
