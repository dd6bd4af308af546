"""The command line through typer's CliRunner, and a few real pipelines through the shell."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import typer

from conftest import records
from convo.cli.app import app

REC = (
    '{"textChunks": ["I agree. Let\'s use JWT tokens."], "metadata": {"speaker": "Bob Jones <bob@x.org>", '
    '"listeners": ["Alice Smith <alice@x.org>"]}, "tags": ["security"], "timestamp": "2024-03-06T10:02:30Z"}\n'
    '{"textChunks": ["Sessions are simpler"], "metadata": {"speaker": "Alice Smith <alice@x.org>", '
    '"listeners": ["Bob Jones <bob@x.org>"]}, "tags": [], "timestamp": "2023-12-31T23:00:00Z"}\n'
    '{"textChunks": ["Alicia here"], "metadata": {"speaker": "Alicia", "listeners": []}, "tags": ["urgent"], '
    '"timestamp": "2024-05-01T08:00:00Z"}\n'
)


@pytest.fixture
def data(tmp_path) -> Path:
    p = tmp_path / "a.jsonl"
    p.write_text(REC)
    return p


def run(runner, *args, input=None, env=None):
    return runner.invoke(app, list(args), input=input, env=env)


def test_version(runner):
    r = run(runner, "--version")
    assert r.exit_code == 0 and r.output.startswith("convo ")


def test_ingest_twice_adds_once(runner, data, tmp_path):
    store = tmp_path / "s.jsonl"
    r1 = run(runner, "--store", str(store), "ingest", "--save", str(data))
    assert r1.exit_code == 0, r1.output
    assert "new 3" in r1.stderr
    r2 = run(runner, "--store", str(store), "ingest", "--save", str(data))
    assert r2.exit_code == 0
    assert "new 0" in r2.stderr and "duplicates 3" in r2.stderr
    assert len(store.read_text().splitlines()) == 3


def test_ingest_piped_writes_jsonl_to_stdout(runner, data):
    r = run(runner, "ingest", str(data))
    out = records(r.stdout)
    assert [m["metadata"]["speaker"] for m in out][:1] == ["Bob Jones <bob@x.org>"]
    assert all(
        m["format"] == "jsonl" and m["id"] and m["source_id"].endswith(f"#{i}")
        for i, m in enumerate(out, 1)
    )


def test_ingest_output_file_is_atomic_and_complete(runner, data, tmp_path):
    out = tmp_path / "out" / "o.jsonl"
    r = run(runner, "ingest", str(data), "-o", str(out))
    assert r.exit_code == 0
    assert len(records(out.read_bytes())) == 3


def test_ingest_from_stdin(runner):
    r = run(runner, "ingest", input=REC)
    assert r.exit_code == 0
    assert len(records(r.stdout)) == 3


def test_ingest_nothing_to_do_is_usage_error(runner):
    r = run(runner, "ingest")
    assert r.exit_code == 2
    assert r.stderr.startswith("convo: error: nothing to ingest;")


def test_ingest_rejects_counted_kept_and_exit_1(runner, tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text(REC + "not json\n" + '{"textChunks": "oops"}\n')
    rej = tmp_path / "rejects.jsonl"
    r = run(runner, "ingest", str(p), "--rejects", str(rej))
    assert r.exit_code == 1
    assert f"{p}:4: rejected: invalid JSON" in r.stderr
    assert f"{p}:5: rejected: not a ConversationMessage" in r.stderr
    assert "read 5, imported 3" in r.stderr and "rejected 2" in r.stderr
    kept = records(rej.read_bytes())
    assert [k["where"] for k in kept] == [f"{p}:4", f"{p}:5"]
    assert kept[0]["raw"] == "not json"


def test_ingest_strict_writes_nothing(runner, tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text(REC + "not json\n")
    out = tmp_path / "o.jsonl"
    r = run(runner, "ingest", str(p), "-o", str(out), "--strict")
    assert r.exit_code == 1
    assert not out.exists()
    r = run(runner, "ingest", str(p), "--strict")
    assert r.stdout == ""


def test_ingest_missing_file(runner):
    r = run(runner, "ingest", "/no/such/file.vtt")
    assert r.exit_code == 2
    assert (
        r.stderr == "convo: error: /no/such/file.vtt: no such file or directory; check the path\n"
    )


def test_ingest_unknown_format_names_choices(runner, data):
    r = run(runner, "ingest", "--from", "nope", str(data))
    assert r.exit_code == 2 and "unknown format 'nope'; choose one of:" in r.stderr


def test_ingest_undetectable_says_what_the_file_looks_like(runner, tmp_path):
    """One line that says what the file looks like, not the names of 120 formats."""
    cases = {
        "x.bin": (b"\x00\x01garbage", "reads binary data"),
        "x.txt": (b"\n  hello world\x1b[31m\nmore\n", "reads text starting 'hello world\\x1b[31m'"),
        "x.json": (b'{"foo": 1, "bar": {"baz": [1]}}', "reads a JSON object holding the keys "
                   "'foo', 'bar', 'baz'"),
        "y.json": (b"[1, 2]", "reads a JSON array;"),
        # a bracket that opens no JSON (a caption's speaker, a Whisper time) is text
        "z.txt": (b"[Ann Lee] said\nhi\n", "reads text starting '[Ann Lee] said'"),
    }  # fmt: skip
    for name, (body, said) in cases.items():
        p = tmp_path / name
        p.write_bytes(body)
        r = run(runner, "ingest", str(p))
        assert r.exit_code == 2
        assert "format not recognised: none of the " in r.stderr and said in r.stderr, r.stderr
        assert "--from FORMAT" in r.stderr and len(r.stderr.splitlines()) == 1
        assert "\x1b" not in r.stderr


def test_query_pipeline_filters(runner, data):
    ingested = run(runner, "ingest", str(data)).stdout
    r = run(runner, "query", "--speaker", "alice", "--since", "2024-01-01", input=ingested)
    assert r.exit_code == 0
    assert records(r.stdout) == []
    r = run(runner, "query", "--speaker", "alice", input=ingested)
    got = records(r.stdout)
    assert [g["textChunks"][0] for g in got] == ["Sessions are simpler"]  # not Alicia
    r2 = run(runner, "list", input=r.stdout)
    assert r2.stdout == r.stdout  # JSONL passes through unchanged


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-s", "bob@x.org"], ["I agree. Let's use JWT tokens."]),
        (["-s", "Bob Jones"], ["I agree. Let's use JWT tokens."]),
        (["-s", "smith bob"], []),
        (["-r", "alice"], ["I agree. Let's use JWT tokens."]),
        (["-t", "URGENT"], ["Alicia here"]),
        (["-t", "urgent", "-t", "security"], ["I agree. Let's use JWT tokens.", "Alicia here"]),
        (["-s", "alice", "-t", "security"], []),
        (["-q", "jwt"], ["I agree. Let's use JWT tokens."]),
        (["-q", "jwt sessions"], []),
        (
            ["-q", "jwt", "-q", "sessions"],
            ["I agree. Let's use JWT tokens.", "Sessions are simpler"],
        ),
        (["-e", "^Sess"], ["Sessions are simpler"]),
        (["--until", "2024-01-01"], ["Sessions are simpler"]),
        (["-n", "1"], ["I agree. Let's use JWT tokens."]),
        (["--reverse", "-n", "1"], ["Alicia here"]),
    ],
)
def test_filters(runner, data, args, expected):
    r = run(runner, "query", str(data), *args)
    assert r.exit_code == 0, r.output
    assert [m["textChunks"][0] for m in records(r.stdout)] == expected


def test_reads_the_store_when_no_input(runner, data, tmp_path):
    store = tmp_path / "s.jsonl"
    run(runner, "--store", str(store), "ingest", "--save", str(data))
    r = run(runner, "--store", str(store), "list", "-f", "jsonl")
    assert len(records(r.stdout)) == 3
    r = run(runner, "list", "--store", str(store), "-s", "bob")
    assert len(records(r.stdout)) == 1


def test_empty_store_is_explained(runner, tmp_path):
    r = run(runner, "--store", str(tmp_path / "none.jsonl"), "list")
    assert r.exit_code == 2
    assert "no store yet" in r.stderr and "convo ingest FILE --save" in r.stderr


def test_bad_since_is_usage_error(runner, data):
    r = run(runner, "query", str(data), "--since", "blursday")
    assert r.exit_code == 2 and "convo: error:" in r.stderr


def test_bad_lines_in_query_input_reported_with_exit_1(runner, tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text(REC + "{broken\n")
    r = run(runner, "list", str(p), "-f", "jsonl")
    assert r.exit_code == 1
    assert f"{p}:4:" in r.stderr
    assert len(records(r.stdout)) == 3


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "markdown", "text", "table"])
def test_every_output_format(runner, data, fmt):
    r = run(runner, "list", str(data), "-f", fmt)
    assert r.exit_code == 0, r.output
    assert "JWT" in r.stdout
    if fmt == "json":
        assert len(orjson.loads(r.stdout)) == 3


def test_unknown_output_format(runner, data):
    r = run(runner, "list", str(data), "-f", "yaml")
    assert r.exit_code == 2 and "unknown --format 'yaml'" in r.stderr


def test_terminal_gets_a_table_pipe_gets_jsonl(runner, data):
    piped = run(runner, "list", str(data))
    assert records(piped.stdout)
    tty = run(runner, "list", str(data), env={"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"})
    assert "Bob Jones" in tty.stdout and not tty.stdout.lstrip().startswith("{")
    assert not re.search(
        r"\x1b\[(?:\d+;)*(?:3[0-8]|9[0-7])(?:;\d+)*m", tty.stdout
    )  # NO_COLOR: no colours


def test_validate(runner, tmp_path, data):
    good = run(runner, "ingest", str(data)).stdout
    p = tmp_path / "v.jsonl"
    p.write_text(good + "[1]\n" + REC.splitlines()[0] + "\n")
    r = run(runner, "validate", str(p))
    assert r.exit_code == 1
    assert f"{p}:4: rejected: expected a JSON object" in r.stderr
    assert f"{p}:5: rejected: missing id, format, source_id" in r.stderr
    assert "3 valid, 2 invalid" in r.stderr
    r = run(runner, "validate", "--typeagent", str(p))
    assert "4 valid, 1 invalid" in r.stderr


def test_schema_is_json(runner):
    r = run(runner, "schema")
    assert orjson.loads(r.stdout)["title"] == "ConversationMessage"


def test_formats_lists_jsonl(runner):
    r = run(runner, "formats", "-f", "json")
    names = [f["name"] for f in orjson.loads(r.stdout)]
    assert "jsonl" in names


def _commands():
    import typer.main

    return typer.main.get_command(app)


def test_every_command_and_option_is_documented():
    from typer.core import TyperArgument, TyperOption

    group = _commands()
    ctx = typer.Context(group)
    assert group.help
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd.help, f"command {name} has no help"
        for param in cmd.params:
            if isinstance(param, TyperOption) and param.name not in ("help",):
                assert param.help, f"{name} {param.opts} has no help"
            if isinstance(param, TyperArgument):
                assert getattr(param, "help", None), f"{name} argument {param.name} has no help"


def test_help_works_for_every_command(runner):
    group = _commands()
    for name in group.list_commands(typer.Context(group)):
        r = run(runner, name, "--help")
        assert r.exit_code == 0 and "Usage" in r.output


def test_closed_pipe_is_quiet(tmp_path):
    p = tmp_path / "many.jsonl"
    line = REC.splitlines()[0] + "\n"
    p.write_text(line * 50000)
    cmd = f"{sys.executable} -m convo query {p} | head -1"
    r = subprocess.run(
        cmd, shell=True, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": ""}
    )
    assert r.returncode == 0
    assert r.stderr == ""
    assert len(r.stdout.splitlines()) == 1


def test_shell_pipeline_ingest_query_list(tmp_path, data):
    exe = f"{sys.executable} -m convo"
    cmd = f"cat {data} | {exe} query --speaker alice --since 2023-01-01 | {exe} list -f text --utc"
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(
        "2023-12-31 23:00:00Z  Alice Smith <alice@x.org> → Bob Jones <bob@x.org>: Sessions"
    )


def test_folder_walk_detects_each_file_and_reports_skips(runner, tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "a.jsonl").write_text(REC)
    (tmp_path / "d" / "sub" / "b.jsonl").write_text(REC.splitlines()[0] + "\n")
    (tmp_path / "d" / "notes.bin").write_bytes(b"\x00\x01")
    (tmp_path / "d" / ".hidden.jsonl").write_text(REC)
    r = run(runner, "ingest", str(tmp_path / "d"))
    assert r.exit_code == 0
    out = records(r.stdout)
    assert len(out) == 4
    assert out[-1]["source_id"] == f"{tmp_path / 'd'}/sub/b.jsonl#1"
    assert "notes.bin: skipped: format not recognised" in r.stderr
    assert "1 file not recognised" in r.stderr


def test_empty_regular_file_on_stdin_means_the_store(tmp_path, data):
    store = tmp_path / "s.jsonl"
    exe = [sys.executable, "-m", "convo", "--store", str(store)]
    subprocess.run([*exe, "ingest", "--save", str(data)], check=True, capture_output=True)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with open(empty, "rb") as fin:
        r = subprocess.run([*exe, "list", "-f", "jsonl"], stdin=fin, capture_output=True)
    assert len(records(r.stdout)) == 3
    with open(data, "rb") as fin:  # a non-empty file on stdin is the input
        r = subprocess.run(
            [*exe, "list", "-f", "jsonl", "-s", "bob"], stdin=fin, capture_output=True
        )
    assert len(records(r.stdout)) == 1


def test_one_unreadable_input_among_several_is_reported_and_the_rest_imported(
    runner, data, tmp_path
):
    broken = tmp_path / "broken.json"
    broken.write_text(
        '{"guild": {"id": "1", "name": "g"}, "channel": {"id": "2", "name": "c"}, "messages": ['
    )
    r = run(runner, "ingest", str(data), "/no/such.vtt", str(data))
    assert r.exit_code == 1
    assert "/no/such.vtt: rejected: no such file or directory" in r.stderr
    assert len(records(r.stdout)) == 6
    r = run(runner, "ingest", str(data), "/no/such.vtt", "--strict")
    assert r.exit_code == 2 and r.stdout == ""
    r = run(runner, "ingest", "/no/such.vtt")
    assert r.exit_code == 2
