"""§8: every view is linear in its input: a huge message is shown cut, with a note."""

from __future__ import annotations

import time

import orjson
import pytest

from convo.cli.app import app

from .helpers import record

TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}


@pytest.mark.parametrize("text", ["x" * 4_000_000, ("word " * 10 + "\n") * 80_000])
@pytest.mark.parametrize("fmt", ["slack", "vtt", "mbox"])
def test_show_cuts_a_huge_message(runner, tmp_path, text, fmt):
    src = tmp_path / "h.jsonl"
    rec = record(1, textChunks=[text], format=fmt, subject="s" * 100_000)
    src.write_bytes(orjson.dumps(rec) + b"\n")
    start = time.process_time()  # CPU: the machine may be loaded
    r = runner.invoke(app, ["show", str(src)], env=TTY)
    assert r.exit_code == 0, r.output[-500:]
    assert time.process_time() - start < 10
    assert "more characters not shown; -f jsonl gives them" in " ".join(r.output.split())
    assert len(r.output) < 1_000_000


@pytest.mark.parametrize(
    "text",
    [
        "see data:image/png;base64," + "QUFB" * 300_000 + " end " + "=" * 100_000,
        "see a" + "\u0301" * 200_000,  # one letter under 200,000 accents: one "word"
    ],
)
def test_a_search_snippet_cuts_a_huge_word(runner, tmp_path, text):
    """A snippet is 24 words around the hit; one word of a megabyte made it a megabyte
    (in the table, the web page's hits and the MCP search answer alike)."""
    store = tmp_path / "s.jsonl"
    store.write_bytes(orjson.dumps(record(1, textChunks=[text])) + b"\n")
    r = runner.invoke(app, ["--store", str(store), "search", "see", "-f", "table"], env=TTY)
    assert r.exit_code == 0, r.output[-500:]
    assert len(r.output) < 5_000


def test_a_report_cuts_a_huge_name(runner, tmp_path):
    """A speaker, topic or entity of a megabyte (a base64 data URL read as one) was a
    report of that size: table cells and chart titles are cut."""
    store = tmp_path / "s.jsonl"
    huge = "data:image/png;base64," + "QUFB" * 300_000
    rows = [
        record(n, textChunks=[f"see {huge} end"], metadata={"speaker": huge, "listeners": ["Bob"]})
        for n in range(3)
    ]
    store.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    out = tmp_path / "r.html"
    r = runner.invoke(app, ["--store", str(store), "report", "-o", str(out)])
    assert r.exit_code == 0, r.output[-500:]
    assert out.stat().st_size < 200_000


def test_the_list_table_hands_rich_no_megabyte_cell():
    """The text was cut to a line's worth before rich measured it, the other columns
    not: a speaker of a megabyte took 5 s and 180 MB for three rows."""
    import io

    from rich.console import Console

    from convo.output.writers import WriteOptions
    from convo.output.writers.table import TableWriter
    from convo.query.matches import Match

    huge = "QUFB" * 300_000
    console = Console(file=io.StringIO(), width=100)
    printed = []
    console.print = printed.append  # type: ignore[method-assign]
    writer = TableWriter(console, WriteOptions())
    rec = record(1, metadata={"speaker": huge, "listeners": [huge]}, tags=[huge], textChunks=[huge])
    writer.write(Match(orjson.dumps(rec), rec, "s.jsonl"))
    writer.close()
    (table,) = printed
    assert all(len(cell.plain) <= 1000 for column in table.columns for cell in column.cells)
