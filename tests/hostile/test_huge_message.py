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
