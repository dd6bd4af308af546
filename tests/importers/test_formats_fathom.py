"""Fathom transcripts as text (``fathom``): ``VIEW RECORDING`` then ``M:SS - Name (Company)``
turns, the words on the next lines."""

from __future__ import annotations

from pathlib import Path

from conftest import records
from convo.cli.app import app

TXT = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "fathom" / "weekly-sync.txt"


def test_fathom_turns_speakers_offsets(runner):
    result = runner.invoke(app, ["ingest", str(TXT), "-o", "-"])
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"fathom"}
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        ("Dana Whitfield (Acme)", "Welcome, everyone.\nGlad you came.", 3.0),
        ("Marcus Oyelaran", "Thanks, Dana.", 9.0),
        ("Dana Whitfield (Acme)", "Bye.", 3723.0),
    ]
    assert "3 lines of the document outside the Fathom speaker turns" in result.stderr
