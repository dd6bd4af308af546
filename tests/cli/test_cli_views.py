"""Every read command and output format, on a terminal (CONVO_FORCE_TTY=1) and piped."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import orjson
import pytest

from convo.cli.app import app

FIXTURE = str(Path(__file__).resolve().parents[1] / "fixtures" / "views.jsonl")
RECORDS = [orjson.loads(x) for x in Path(FIXTURE).read_bytes().splitlines()]
# Raw sequences from the hostile record that must never reach a terminal.
RAW_HOSTILE = ("\x1b]0;title", "\x07", "\x1b[2J", "\x1b[31m", "\u202e", "\u202c", "\u009b")
FORMATS = ("table", "jsonl", "json", "csv", "markdown", "text")


@pytest.fixture
def tty(monkeypatch):
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    monkeypatch.setenv("COLUMNS", "140")


def run(runner, *args):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def plain(out: str) -> str:
    """Terminal output without rich's own SGR colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", out)


def assert_safe(out: str) -> None:
    for seq in RAW_HOSTILE:
        assert seq not in out, repr(seq)


# -- piped defaults ---------------------------------------------------------------------


@pytest.mark.parametrize("command", ["list", "query"])
def test_piped_default_is_the_original_lines(runner, command):
    out = run(runner, command, FIXTURE)
    assert out.encode() == Path(FIXTURE).read_bytes()


def test_show_piped_is_the_readable_conversation(runner):
    """Issue 18 trap 7: `convo show | less` is the conversation in plain text, not JSONL."""
    out = run(runner, "show", FIXTURE)
    assert "Good morning everyone." in out and "\x1b[" not in out
    assert not out.lstrip().startswith("{")
    assert run(runner, "show", "-f", "jsonl", FIXTURE).encode() == Path(FIXTURE).read_bytes()


def test_piped_stats_default_is_json(runner):
    data = orjson.loads(run(runner, "stats", FIXTURE))
    assert data["messages"] == len(RECORDS)


# -- every format, piped and on a terminal ---------------------------------------------


@pytest.mark.parametrize("command", ["list", "query", "show"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "tty"])
def test_formats(runner, monkeypatch, command, fmt, terminal):
    if terminal:
        monkeypatch.setenv("CONVO_FORCE_TTY", "1")
        monkeypatch.setenv("COLUMNS", "140")
    out = run(runner, command, FIXTURE, "-f", fmt, "--utc")
    if terminal:
        assert_safe(out)
    if fmt == "jsonl":
        assert [orjson.loads(x) for x in out.splitlines()] == RECORDS
    elif fmt == "json":
        assert orjson.loads(out) == RECORDS
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["timestamp", "speaker", "role", "listeners", "tags", "thread",
                           "subject", "text", "id", "source_id", "format"]  # fmt: skip
        assert len(rows) == len(RECORDS) + 1
        assert rows[4][1] == "Alice Smith <alice@x.org>"
        assert rows[4][3] == "Bob Jones <bob@x.org>; Carol <carol@x.org>"
    elif fmt == "markdown":
        # the transcript ``export --to markdown`` writes: a heading a message
        assert out.startswith("# Conversation\n")
        heads = [ln for ln in out.splitlines() if ln.startswith("### **") or ln.startswith("**")]
        assert len(heads) == len(RECORDS)
    elif fmt == "text":
        assert "2024-03-07 09:00:00Z  Alice Smith <alice@x.org> → Bob Jones" in out
    else:
        assert "Good morning everyone." in out
    if fmt == "markdown":  # escaped so that Markdown shows it literally
        assert "\\[bold\\]x\\[/bold\\]" in out
    elif fmt in ("table", "text", "csv"):
        assert "[bold]x[/bold]" in out  # markup shown literally


def test_piped_jsonl_keeps_raw_bytes_with_escapes(runner):
    out = run(runner, "query", FIXTURE, "-s", "mallory")
    assert out.encode() == Path(FIXTURE).read_bytes().splitlines()[10] + b"\n"


# -- views on a terminal ---------------------------------------------------------------


def test_list_table(runner, tty):
    out = run(runner, "list", FIXTURE, "--utc")
    assert "speaker → listeners" in out
    assert "2024-03-07 09:00:00Z" in out
    assert "Alice Smith <alice@x.org> →" in out
    assert "security" in out
    assert "\x1b[" in out  # coloured
    assert_safe(out)
    assert "[i]subj\\x07" in out


def test_no_color(runner, tty, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = run(runner, "list", FIXTURE)
    assert "standup" in out
    assert not any(f"\x1b[{c}m" in out for c in (*range(30, 38), *range(90, 98)))


def test_show_transcript_offsets_and_stable_colours(runner, tty):
    out = run(runner, "show", FIXTURE, "--utc", "--tag", "standup")
    assert "+00:00:00" in out and "+00:00:04" in out
    lines = [x for x in out.splitlines() if "Alice" in x or "Bob" in x]
    alice = lines[0].split("Alice")[0][-12:]
    again = run(runner, "show", FIXTURE, "--utc", "--tag", "standup")
    assert again == out
    assert alice  # the style prefix before the name


def test_show_epoch_transcript_as_offset(runner, tty):
    out = run(runner, "show", FIXTURE, "-q", "ship it")
    assert "+00:01:05" in out


def test_show_email_header_block_and_reply_tree(runner, tty):
    out = run(runner, "show", FIXTURE, "--utc", "--thread", "<m1@x.org>")
    lines = out.splitlines()

    def indent_of(text: str) -> int:
        line = next(x for x in lines if text in x)
        return len(line) - len(line.lstrip(" "))

    assert "From:" in out and "To:" in out and "Cc:" in out and "Subject:" in out
    assert "Date:" in out and "2024-03-07 09:00:00Z" in out
    assert indent_of("Can we move auth") < indent_of("Agreed, with short")
    assert indent_of("Agreed, with short") == indent_of("Yes, JWT it is.")
    assert indent_of("Yes, JWT it is.") < indent_of("How long?")
    # children ordered by time: Carol (09:30) before Bob (10:00)
    assert out.index("Agreed, with short") < out.index("Yes, JWT it is.")


def test_show_chat_turns_with_roles(runner, tty):
    out = plain(run(runner, "show", FIXTURE, "--utc", "-s", "user", "-s", "claude", "-s", "system"))
    assert "Claude (assistant)" in out
    assert out.index("You are a helpful") < out.index("What is JWT?") < out.index("A signed token")
    body = next(x for x in out.splitlines() if "What is JWT?" in x)
    assert body.startswith("  ")  # the turn's text under its speaker line


def test_show_hostile_record(runner, tty):
    out = run(runner, "show", FIXTURE, "-s", "mallory")
    assert_safe(out)
    for literal in ("[bold]x[/bold]", "[link=http://evil]", "[red]Mallory", "[i]subj"):
        assert literal in out
    assert "\\x1b[2J" in out and "\\u202e" in out and "\\x9b" in out


def test_local_time_by_default(runner, tty, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        out = run(runner, "list", FIXTURE, "-q", "Good morning")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert "2024-03-06 19:00:00" in out


def test_pager(runner, tty, monkeypatch):
    seen = []
    monkeypatch.setenv("PAGER", "cat")

    import rich.pager

    monkeypatch.setattr(rich.pager.SystemPager, "show", lambda self, content: seen.append(content))
    out = run(runner, "list", FIXTURE, "--pager")
    assert seen and "Good morning everyone." in seen[0]
    assert "Good morning" not in out


def test_stats_terminal(runner, tty):
    out = run(runner, "stats", FIXTURE, "--utc")
    assert "12 messages" in out
    assert "messages per day" in out and "█" in out
    assert "Alice Smith <alice@x.org>" in out
    assert_safe(out)


def test_stats_filters_apply(runner):
    data = orjson.loads(run(runner, "stats", FIXTURE, "-s", "alice", "-f", "json"))
    assert data["messages"] == 4


@pytest.mark.parametrize("order", [[], ["--reverse"]])
def test_stats_limit_applies_on_a_file_read_whole(runner, order):
    """``stats -n 1`` counted every message: the whole-file read (no filter) ignored it."""
    data = orjson.loads(run(runner, "stats", FIXTURE, "-n", "1", *order, "-f", "json"))
    assert data["messages"] == 1


def test_stats_rejects_markdown(runner):  # csv is a summary format since issue 35
    result = runner.invoke(app, ["stats", FIXTURE, "-f", "markdown"])
    assert result.exit_code == 2


def test_help_shows_metavars(runner):
    out = run(runner, "query", "--help")
    assert "--speaker NAME" in out and "--since WHEN" in out
    # typer always prints an argument's type; options read as NAME, WHEN...
    assert not [x for x in out.splitlines() if "--" in x and "<list[str]>" in x]


def test_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    big = tmp_path / "big.jsonl"
    big.write_bytes(Path(FIXTURE).read_bytes() * 5000)
    p = subprocess.run(
        f"{sys.executable} -m convo query {big} | head -1",
        shell=True,
        capture_output=True,
        text=True,
    )
    assert p.stderr == ""
    assert p.stdout.count("\n") == 1


@pytest.mark.parametrize("fmt", ["table", "text", "json", "jsonl"])
@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "tty"])
def test_stats_formats(runner, monkeypatch, fmt, terminal):
    if terminal:
        monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    out = run(runner, "stats", FIXTURE, "-f", fmt, "--utc")
    assert_safe(out)
    if fmt in ("json", "jsonl"):
        assert orjson.loads(out)["messages"] == len(RECORDS)
        assert (out.count("\n") == 1) == (fmt == "jsonl")
    else:
        assert "12 messages" in plain(out)
        assert ("\x1b[" in out) == terminal


def test_show_piped_table_has_no_escapes(runner):
    out = run(runner, "show", FIXTURE, "-f", "table", "--utc")
    assert "\x1b" not in out
    assert "From:    Alice Smith <alice@x.org>" in out


def test_stdin_is_read_when_piped(runner):
    result = runner.invoke(app, ["query", "-s", "carol"], input=Path(FIXTURE).read_bytes())
    assert result.exit_code == 0
    assert [orjson.loads(x)["id"] for x in result.stdout.splitlines()] == ["<m3@x.org>"]


def test_show_long_cue_wraps_under_its_text(runner, monkeypatch, tmp_path):
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    monkeypatch.setenv("COLUMNS", "60")
    rec = dict(RECORDS[0], textChunks=[" ".join(["word"] * 40)])
    path = tmp_path / "cue.jsonl"
    path.write_bytes(orjson.dumps(rec) + b"\n")
    lines = plain(run(runner, "show", str(path))).splitlines()
    assert lines[0].startswith("+00:00:00  Alice: word")
    assert lines[1].startswith(" " * 11 + "word")
