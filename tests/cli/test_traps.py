"""Issue 18's traps and issue 20's command-line items, each reproduced."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from convo.cli.app import app
from convo.core.timestamps import parse_when

ROOT = Path(__file__).resolve().parents[2]


def _rec(i: int, speaker: str = "Alice", ts: str = "2024-03-06T10:00:00Z", **kw) -> dict:
    rec = {"id": f"m{i}", "format": "jsonl", "source_id": f"s#{i}", "timestamp": ts,
           "textChunks": [f"message {i}"], "metadata": {"speaker": speaker}}  # fmt: skip
    rec.update(kw)
    return rec


def _jsonl(path: Path, recs: list[dict], extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs) + extra)
    return path


def _invoke(*args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(app, list(args), input=input, env=env)


# -- trap 1: stdin swallowed ------------------------------------------------------------


def test_a_named_store_is_read_even_when_stdin_is_a_pipe(tmp_path):
    store = _jsonl(tmp_path / "s.jsonl", [_rec(1, "alice"), _rec(2, "bob")])
    r = _invoke("--store", str(store), "list", "-s", "alice", "-f", "jsonl", input="alice\nbob\n")
    assert r.exit_code == 0, r.output
    assert [orjson.loads(x)["id"] for x in r.stdout.splitlines()] == ["m1"]


@pytest.mark.parametrize(
    "filters",
    [[], ["-s", "alice"], ["-t", "x"], ["-q", "word"], ["from:alice OR tag:x"], ["NOT from:bob"]],
)
def test_garbage_on_stdin_is_reported_whatever_the_filter(filters):
    command = "query" if filters[:1] and ":" in filters[0] else "list"
    r = _invoke(command, *filters, input="garbage\n")
    assert r.exit_code == 2, r.output  # as `convo ingest` says of it
    assert "stdin: format not recognised" in r.stderr
    damaged = "garbage\n" + orjson.dumps(_rec(1, "alice")).decode() + "\n"
    r = _invoke(command, *filters, input=damaged)  # records with a bad line: located
    assert r.exit_code == 1, r.output
    assert "stdin:1: rejected" in r.stderr


def test_garbage_in_a_store_is_located_under_a_word_filter(tmp_path):
    store = _jsonl(tmp_path / "s.jsonl", [_rec(1), _rec(2)], b"not json at all\n")
    r = _invoke("--store", str(store), "list", "-s", "nobody", "-f", "jsonl")
    assert r.exit_code == 1 and f"{store}:3:" in r.stderr


# -- trap 2 and 3: dates and one clock ------------------------------------------------------


def test_a_year_or_a_month_means_its_first_moment():
    assert parse_when("2024") == "2024-01-01T00:00:00Z"
    assert parse_when("2024-03") == "2024-03-01T00:00:00Z"
    with pytest.raises(ValueError):
        parse_when("2024-13")


def test_since_a_month_until_the_next_is_that_month(tmp_path):
    recs = [_rec(1, ts="2024-02-29T23:59:59Z"), _rec(2, ts="2024-03-01T00:00:00Z"),
            _rec(3, ts="2024-03-31T23:59:59Z"), _rec(4, ts="2024-04-01T00:00:00Z")]  # fmt: skip
    path = _jsonl(tmp_path / "a.jsonl", recs)
    r = _invoke(
        "list", "--utc", "--since", "2024-03", "--until", "2024-04", "-f", "jsonl", str(path)
    )
    assert [orjson.loads(x)["id"] for x in r.stdout.splitlines()] == ["m2", "m3"]


def test_naive_since_is_read_in_the_zone_the_table_shows(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        recs = [_rec(1, ts="2024-03-06T08:30:00Z"), _rec(2, ts="2024-03-06T09:30:00Z")]
        path = _jsonl(tmp_path / "a.jsonl", recs)

        def ids(*opts):
            r = _invoke("list", "--since", "2024-03-06 10:00", *opts, "-f", "jsonl", str(path))
            return [orjson.loads(x)["id"] for x in r.stdout.splitlines()]

        assert ids() == ["m2"]  # 10:00 Berlin is 09:00Z: local, as the table shows times
        assert ids("--utc") == []  # 10:00Z
        assert ids("--tz", "UTC") == []
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


# -- trap 4: silent empties -----------------------------------------------------------------


@pytest.mark.parametrize("args", [["list", "-s", "nobody"], ["show", "--thread", "nosuch"]])
def test_an_empty_result_on_a_terminal_says_so(tmp_path, args):
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1), _rec(2), _rec(3)])
    r = _invoke(*args, str(path), env={"CONVO_FORCE_TTY": "1"})
    assert r.exit_code == 0, r.output
    assert "convo: no messages match; 0 of 3 read" in r.stderr
    assert "no messages match" not in _invoke(*args, str(path)).stderr  # piped: silent


def test_an_unknown_format_or_role_is_named_when_nothing_matched(tmp_path):
    """``format:mbx`` is no error (stored values are open strings), but a typo must not
    look like an empty archive: on a terminal, the note names it and a close value."""
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1), _rec(2)])
    tty = {"CONVO_FORCE_TTY": "1"}
    r = _invoke("query", "format:mbx OR role:asistant", str(path), env=tty)
    assert r.exit_code == 0, r.output
    assert (
        "no format is named 'mbx' (`convo formats` lists them); did you mean format:mbox?"
        in r.stderr
    )
    assert "no role is named 'asistant'" in r.stderr and "role:assistant?" in r.stderr
    quiet = _invoke("query", "format:slack role:user -tag:x", "-s", "nobody", str(path), env=tty)
    assert "no messages match" in quiet.stderr and "note:" not in quiet.stderr
    assert "note:" not in _invoke("query", "format:mbx", str(path)).stderr  # piped: silent


@pytest.mark.parametrize("to", ["html", "markdown", "openai"])
def test_an_empty_export_says_so(tmp_path, to):
    """Trap 4: export wrote an empty page and exited 0 without a word."""
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1), _rec(2)])
    out = tmp_path / "out"
    r = _invoke("export", "--to", to, "-s", "nobody", "-o", str(out), str(path))
    assert r.exit_code == 0, r.stderr
    assert "convo: no messages match; 0 of 2 read" in r.stderr
    assert "no messages match" not in _invoke("export", "--to", to, str(path)).stderr


def test_export_to_lists_and_completes_its_choices():
    from convo.cli.choices import Choices
    from convo.cli.commands.export import _exporter_names

    help_text = _invoke("export", "--help", env={"COLUMNS": "200"}).stdout
    assert "--to [openai|anthropic|" in help_text
    assert Choices(_exporter_names).complete("ma") == ["markdown"]
    r = _invoke("export", "--to", "nope")
    assert r.exit_code == 2 and "choose one of: openai|" in r.stderr


# -- trap 5: closed pipes exit 0 -------------------------------------------------------------


@pytest.mark.parametrize("command", ["stats", "show", "list", "knowledge"])
def test_a_closed_pipe_exits_0(tmp_path, command):
    recs = [_rec(i, f"Speaker number {i} with a long name", tags=[f"t{i}"]) for i in range(3000)]
    path = _jsonl(tmp_path / "a.jsonl", recs)
    env = {**os.environ, "CONVO_FORCE_TTY": "1", "CONVO_NO_STDIN": "1"}
    p = subprocess.Popen(
        [sys.executable, "-m", "convo", command, str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(10)
    p.stdout.close()  # `| head -c 10`
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0, err
    assert b"Traceback" not in err


# -- trap 6: 80 columns, tabs, one colour per person ----------------------------------------


def _console(width: int = 80):
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, markup=False, color_system=None)


def test_stats_at_80_columns_keeps_the_counts():
    from convo.analysis.stats import compute
    from convo.output.views.stats import render
    from convo.output.writers import WriteOptions

    name = "Bartholomew Maximilian Fitzgerald-Worthington <bart@example.org>"
    stats = compute([_rec(i, name, textChunks=["one two three"]) for i in range(12345)])
    console = _console(80)
    render(stats, console, WriteOptions(utc=True))
    out = console.file.getvalue()
    assert all(len(line) <= 80 for line in out.splitlines())
    row = next(line for line in out.splitlines() if line.strip().startswith("Bartholomew"))
    assert "12,345" in row and "37,035" in row


def test_formats_fit_80_columns():
    r = _invoke("formats", "-f", "table", env={"COLUMNS": "80"})
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert any("whatsapp" in line for line in lines)


def test_tabs_do_not_break_show(tmp_path):
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1, textChunks=["col1\tcol2\t\tcol3"])])
    r = _invoke("show", "--utc", str(path))
    assert "\t" not in r.stdout and "col1    col2" in r.stdout


def test_one_person_one_colour():
    from convo.output.views.common import speaker_style

    assert speaker_style("Alice Smith <alice@x.org>") == speaker_style("alice smith")
    assert speaker_style("alice@x.org") == speaker_style("<alice@x.org>".strip("<>"))


# -- trap 9: make demo on an old Python ------------------------------------------------------


def test_make_demo_on_an_old_python_stops_with_one_line(tmp_path):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\nexec " + sys.executable + ' -c "import sys; print(0)" "$@"\n')
    old.chmod(0o755)
    old.write_text("#!/bin/sh\necho 0\n")
    r = subprocess.run(
        ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(tmp_path), "demo", f"PYTHON={old}"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode != 0
    assert r.stderr.splitlines()[0].startswith("convo needs Python 3.11 or newer")
    assert not (tmp_path / ".venv").exists()


# -- trap 10: the demo shows the product -------------------------------------------------------


def test_users_xml_beside_its_posts_is_not_warned_about(tmp_path):
    (tmp_path / "Posts.xml").write_text(
        '<posts><row Id="1" PostTypeId="1" OwnerUserId="7" Title="Q" Body="&lt;p&gt;hi&lt;/p&gt;"'
        ' CreationDate="2024-03-06T10:00:00.000" /></posts>'
    )
    users = '<users><row Id="7" Reputation="1" DisplayName="Ann" /></users>'
    (tmp_path / "Users.xml").write_text(users)
    r = _invoke("ingest", "-o", "-", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert "warning" not in r.stderr and '"speaker":"Ann"' in r.stdout
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "Users.xml").write_text(users)
    assert "holds no messages" in _invoke("ingest", "-o", "-", str(alone)).stderr


def test_the_timeline_keeps_its_counts_at_80_columns():
    from convo.analysis.stats import compute
    from convo.output.views.stats import render
    from convo.output.writers import WriteOptions

    times = ["2024-03-06T10:00:00Z", "2024-06-01T10:00:00Z", "2025-01-06T10:00:00Z"]
    stats = compute([_rec(i, ts=t) for i, t in enumerate(times * 40)])
    console = _console(80)
    render(stats, console, WriteOptions(utc=True))
    out = console.file.getvalue().splitlines()
    start = next(i for i, line in enumerate(out) if "messages per" in line)
    rows = [line for line in out[start:] if line.strip()[:4].isdigit()]
    assert rows and all(len(line) <= 80 for line in out)
    assert all(line.rstrip().endswith(("40", "0")) for line in rows), rows
    assert any("…" in line for line in rows)  # a long empty run, folded


def test_the_demo_opens_on_people_talking():
    makefile = (ROOT / "Makefile").read_text()
    demo = makefile[makefile.index("\ndemo:\n") :].split("\n\n")[0]
    commands = [line for line in demo.splitlines() if "$(BIN)/convo" in line]
    first_list = next(line for line in commands if " list " in line or " query " in line)
    query = first_list.split("query ", 1)[1].split("' ")[0].strip("'")
    r = _invoke("--store", "/nonexistent", "query", "-f", "jsonl", query, str(ROOT / "sample_data"))
    assert r.exit_code == 0, r.stderr
    records = [orjson.loads(line) for line in r.stdout.splitlines()][:12]
    assert records and all(rec["format"] in ("mbox", "slack", "discord") for rec in records)
    assert not any("system" in rec["tags"] for rec in records)


def test_timeline_folds_empty_runs():
    from convo.output.views.stats import folded

    buckets = [("2024-01", 5), ("2024-02", 0), ("2024-03", 0), ("2024-04", 0), ("2024-05", 1),
               ("2024-06", 0), ("2024-07", 2)]  # fmt: skip
    assert folded(buckets) == [("2024-01", 5), ("2024-02 … 2024-04", None), ("2024-05", 1),
                               ("2024-06", 0), ("2024-07", 2)]  # fmt: skip


# -- issue 20: usage errors, signals, terminal, wrong types --------------------------------------


def test_a_usage_error_is_one_line():
    r = _invoke("list", "-n", "abc")
    assert r.exit_code == 2
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("convo: error: convo list:")


def test_sigint_during_start_up_exits_130_without_traceback():
    code = (
        "import sys; sys.argv = ['convo']; import convo.cli.app; "
        "import os, signal, time; os.kill(os.getpid(), signal.SIGINT); time.sleep(5)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        # as from a terminal: a background job (`make test &`) inherits SIGINT ignored,
        # and then Python, and convo with it, leave it ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert r.returncode == 130 and r.stderr == "convo: interrupted\n"


def test_ctrl_c_in_a_command_exits_130(tmp_path, monkeypatch):
    import convo.cli.commands.read as read

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(read, "run_read", interrupted)
    r = _invoke("list", str(_jsonl(tmp_path / "a.jsonl", [_rec(1)])))
    assert r.exit_code == 130 and r.stderr.strip() == "convo: interrupted"


HOSTILE = "\x85next\u202eevil\u2028line\u2029para\x1b[31m"


def test_ingest_to_a_terminal_escapes_c1_bidi_and_line_separators(tmp_path):
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1, textChunks=[HOSTILE])])
    r = _invoke("ingest", "-o", "-", str(path), env={"CONVO_FORCE_TTY": "1"})
    assert r.exit_code == 0, r.output
    for raw in ("\x85", "\u202e", "\u2028", "\u2029", "\x1b"):
        assert raw not in r.stdout
    assert orjson.loads(r.stdout.splitlines()[0])["textChunks"] == [HOSTILE]


INVISIBLE = "a\u200bb\u200cc\u200dd\ufeffe\u2060f\u2064g\u00adh"


@pytest.mark.parametrize("args", [["show"], ["list"], ["list", "-f", "text"], ["stats"]])
def test_invisible_characters_are_shown_escaped(tmp_path, args):
    path = _jsonl(tmp_path / "a.jsonl", [_rec(1, INVISIBLE, textChunks=[INVISIBLE])])
    r = _invoke(*args, "--utc", str(path), env={"CONVO_FORCE_TTY": "1", "COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "\\u200b" in r.stdout
    for ch in "\u200b\u200c\u200d\ufeff\u2060\u2064\u00ad":
        assert ch not in r.stdout


def test_a_debug_traceback_escapes_hostile_file_names(tmp_path):
    name = str(tmp_path / "evil\x1b]0;pwned\x07\x1b[2J.jsonl")
    r = _invoke("--debug", "list", name)
    assert r.exit_code == 2
    assert "Traceback" in r.stderr and "\x1b" not in r.stderr and "\x07" not in r.stderr


WRONG = [
    {"id": "a", "timestamp": "2024-03-06T10:00:00Z", "textChunks": False},
    {"id": [], "timestamp": "2024-03-06T10:00:00Z", "textChunks": ["x"], "thread": []},
    {"id": True, "timestamp": 5, "textChunks": ["y"], "tags": True, "metadata": []},
    {"id": "b", "textChunks": ["z"], "metadata": {"speaker": 3, "listeners": "bob"},
     "replyTo": ["a"], "subject": 7, "extra": [], "format": 1, "role": {}},
]  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [["list"], ["show"], ["stats"], ["list", "-f", "csv"], ["list", "-f", "markdown"],
     ["list", "-f", "text"], ["show", "--thread", "a"], ["list", "--thread", "a"],
     ["list", "-s", "x"], ["list", "-q", "x"], ["list", "-t", "x"], ["knowledge"]],
)  # fmt: skip
@pytest.mark.parametrize("tty", [False, True])
def test_wrong_typed_records_never_crash(tmp_path, args, tty):
    path = _jsonl(tmp_path / "a.jsonl", WRONG)
    env = {"CONVO_FORCE_TTY": "1"} if tty else {}
    r = _invoke(*args, str(path), env=env)
    assert r.exit_code in (0, 1), r.output
    assert "internal error" not in r.stderr
