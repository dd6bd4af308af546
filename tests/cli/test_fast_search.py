"""cli/fast_search.py reads a ``convo search`` line exactly as typer does, or leaves it
to typer: for any command line it accepts, typer accepts it too and the search is asked
the same (``Store.search`` replaced by a recorder, so nothing is read)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from convo.cli import fast
from convo.cli.app import app
from convo.cli.commands.search import specs
from convo.index.search import Hits
from convo.store import Store

VALUES = ["alice", "7", "0", "-3", "x=y", "", "-", "jsonl", "JSONL", "csv", "table",
          "semantic", "hybrid", "fuzzy", "UTC", "2024-03"]  # fmt: skip
WORDS = ["what", "did we decide?", "from:alice", "tag:x", "-tag:spam", "--", "-", "-h",
         "--help", "--bogus", "ECONNRESET-4411", "--reverse", "--pager"]  # fmt: skip
DECLS = sorted({d for s in specs() for d in s.decls})


@pytest.fixture
def recorded(monkeypatch, tmp_path):
    calls: list[tuple] = []
    # The stores the lines name exist (search says "no store yet" otherwise), empty.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.jsonl").touch()
    (tmp_path / "xdg-data" / "convo").mkdir(parents=True)
    (tmp_path / "xdg-data" / "convo" / "messages.jsonl").touch()

    def search(self, text, query=None, **kw):
        asked = sorted((k, v) for k, v in kw.items() if k != "track")  # a progress object
        calls.append((str(self.path), self.tz, self.utc, text, repr(query), asked))
        return Hits()

    monkeypatch.setattr(Store, "search", search)
    for name in ("CONVO_STORE", "CONVO_PEOPLE"):
        monkeypatch.delenv(name, raising=False)
    return calls


@st.composite
def command_lines(draw) -> list[str]:
    top = draw(st.sampled_from([[], ["--store", "s.jsonl"], ["--debug"], ["-h"]]))
    rest: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            decl, value = draw(st.sampled_from(DECLS)), draw(st.sampled_from(VALUES))
            form = draw(st.sampled_from(["apart", "joined", "alone"]))
            if form == "alone":
                rest.append(decl)
            elif form == "joined":
                rest.append(f"{decl}={value}" if decl.startswith("--") else decl + value)
            else:
                rest += [decl, value]
        else:
            rest.append(draw(st.sampled_from(WORDS)))
    return [*top, "search", *rest]


def both(argv, calls):
    code = fast.run(argv)
    by_fast = calls[:]
    calls.clear()
    result = CliRunner().invoke(app, argv)
    by_typer = calls[:]
    calls.clear()
    return code, by_fast, result, by_typer


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(argv=command_lines())
def test_fast_and_typer_parse_a_search_alike(recorded, argv):
    code, by_fast, result, by_typer = both(argv, recorded)
    if code is None:
        assert by_fast == []
        return
    assert result.exit_code == code, (argv, result.output)
    assert by_fast == by_typer, argv


@pytest.mark.parametrize(
    "argv",
    [
        ["--store", "s.jsonl", "search", "what did we decide about storing login state?"],
        ["search", "--mode", "semantic", "login", "state", "-n", "5", "-f", "jsonl"],
        ["search", "--fts", '"login state"', "--since", "2024-03", "--utc", "-s", "alice"],
    ],
)
def test_plain_search_lines_take_the_fast_path(recorded, argv):
    code, by_fast, result, by_typer = both(argv, recorded)
    assert code == 0 and result.exit_code == 0
    assert by_fast == by_typer and len(by_fast) == 1


@pytest.mark.parametrize(
    "argv", [["search", "--help"], ["search", "--fts=1", "x"], ["search", "--reverse", "x"]]
)
def test_anything_unusual_is_left_to_typer(recorded, argv):
    assert fast.run(argv) is None and recorded == []


def test_only_a_search_process_runs_without_the_cycle_collector(tmp_path):
    """``convo search`` as a process turns the collector off (cli/fast.py); a call of the
    fast path inside another program leaves it as it was."""
    import gc
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    store = tmp_path / "s.jsonl"
    store.write_text('{"id": "a", "textChunks": ["hello there"], "metadata": {}}\n')
    assert gc.isenabled()
    fast.run(["--store", str(store), "search", "hello", "-f", "jsonl"])
    assert gc.isenabled()
    code = (
        "import gc, json, sys; sys.argv = ['convo', *json.loads(sys.argv[1])]\n"
        "from convo.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\nGC ' + str(gc.isenabled()))"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    argv = ["--store", str(store), "search", "hello", "-f", "jsonl"]
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONPATH": src},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert '"id":"a"' in proc.stdout
    assert proc.stderr.rpartition("GC ")[2] == "False"
