"""Regressions from a review with hostile and odd input: every case is a clean result or
one located error line, and nothing from the data drives a terminal."""

from __future__ import annotations

import shutil

import orjson
import pytest

from conftest import SAMPLE_DATA, records
from convo.cli.app import app

TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}
PAYLOADS = (b"\x1b]", b"\x07", b"\x1b[2J", b"\x1b[31m", "\u202e".encode(), "\u009b".encode())

HOSTILE = orjson.dumps(
    {
        "textChunks": ["hi \x1b]0;pwned\x07 \x1b[2J \u202e \u009b31m [bold]x[/bold]"],
        "metadata": {"speaker": "\x1b[31mA\u202e", "listeners": ["[link=http://e]B"]},
        "tags": ["\u009bx"],
        "timestamp": "2024-03-06T10:02:30Z",
        "source_id": "x",
        "id": "r1",
        "format": "slack",
        "role": "user",
    }
)


def clean(out: bytes | str) -> bool:
    data = out.encode() if isinstance(out, str) else out
    return not any(p in data for p in PAYLOADS)


@pytest.fixture
def hostile(tmp_path):
    p = tmp_path / "h.jsonl"
    p.write_bytes(HOSTILE + b"\n")
    return p


@pytest.mark.parametrize(
    "to", ["markdown", "csv", "html", "vtt", "openai", "typeagent", "anthropic"]
)
def test_export_to_a_terminal_is_escaped(runner, hostile, to):
    r = runner.invoke(app, ["export", "--to", to, str(hostile)], env=TTY)
    assert r.exit_code == 0, r.output
    assert clean(r.stdout_bytes)


@pytest.mark.parametrize(
    "args",
    [
        ["stats", "-f", "json"],
        ["stats", "-f", "jsonl"],
        ["knowledge", "-f", "json"],
        ["knowledge", "-f", "jsonl"],
    ],
)
def test_json_views_on_a_terminal_are_escaped(runner, hostile, args):
    r = runner.invoke(app, [*args, str(hostile)], env=TTY)
    assert r.exit_code == 0, r.output
    assert clean(r.stdout_bytes)
    assert orjson.loads(r.stdout_bytes.splitlines()[0] if args[-1] == "jsonl" else r.stdout_bytes)


def test_piped_export_is_byte_exact(runner, hostile):
    r = runner.invoke(app, ["export", "--to", "typeagent", str(hostile)])
    assert "\u202e" in r.stdout  # a pipe gets the data as it is


def test_time_only_query_rejects_raw_control_lines(runner, tmp_path):
    p = tmp_path / "raw.jsonl"
    p.write_bytes(
        b'{"textChunks":["hi \x1b]0;x\x07"],"metadata":{},"tags":[],"timestamp":"2024-03-06T10:02:30Z"}\n'
    )
    for env in ({}, TTY):
        r = runner.invoke(app, ["list", "-f", "jsonl", "--since", "2024-01-01", str(p)], env=env)
        assert r.exit_code == 1
        assert f"{p}:1: rejected: invalid JSON" in r.stderr
        assert clean(r.stdout_bytes)


def test_hostile_timestamps_are_escaped_and_invalid(runner, tmp_path):
    p = tmp_path / "ts.jsonl"
    rec = {"textChunks": ["x"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
           "timestamp": "1970-01-01T\x1b]0;pwn\x07Z", "source_id": "x", "id": "r2", "format": "f"}  # fmt: skip
    p.write_bytes(orjson.dumps(rec) + b"\n")
    for args in (["list"], ["list", "--utc"], ["show"], ["stats", "--utc"], ["list", "-f", "text"]):
        r = runner.invoke(app, [*args, str(p)], env=TTY)
        assert clean(r.stdout_bytes), args
    r = runner.invoke(app, ["validate", str(p)])
    assert r.exit_code == 1 and "unreadable timestamp" in r.stderr


def test_impossible_dates_are_rejected_on_ingest_and_validate(runner, tmp_path):
    p = tmp_path / "bad.jsonl"
    rec = {"textChunks": ["x"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
           "timestamp": "2024-13-45T99:99:99Z", "source_id": "x", "id": "r", "format": "f"}  # fmt: skip
    p.write_bytes(orjson.dumps(rec) + b"\n")
    assert runner.invoke(app, ["validate", str(p)]).exit_code == 1
    r = runner.invoke(app, ["ingest", str(p)])
    assert r.exit_code == 1 and "unreadable timestamp" in r.stderr


def test_filters_see_through_slash_escapes(runner, tmp_path):
    p = tmp_path / "slash.jsonl"
    p.write_bytes(
        b'{"textChunks":["see http:\\/\\/x.org now"],"metadata":{"speaker":"A","listeners":[]},'
        b'"tags":["ci\\/cd"],"timestamp":"2024-03-06T10:02:30Z","source_id":"x","id":"r1","format":"f"}\n'
    )
    for args in (["-q", "http://x.org"], ["-t", "ci/cd"]):
        assert len(records(runner.invoke(app, ["list", *args, str(p)]).stdout)) == 1
        assert len(records(runner.invoke(app, ["list", *args], input=p.read_bytes()).stdout)) == 1


def test_limit_zero_means_nothing(runner, hostile):
    from convo.query.scan import Filters, select

    assert runner.invoke(app, ["list", "-n", "0", "--reverse", str(hostile)]).stdout == ""
    recs = [orjson.loads(HOSTILE)] * 3
    assert list(select(recs, Filters(limit=0))) == []
    assert list(select(recs, Filters(limit=0, reverse=True))) == []


def test_slack_day_file_beside_broken_users_json_warns(runner, tmp_path):
    export = tmp_path / "sl"
    shutil.copytree(SAMPLE_DATA / "chat" / "slack-export", export)
    (export / "users.json").write_text("{broken")
    day = sorted((export / "general").glob("*.json"))[0]
    r = runner.invoke(app, ["ingest", str(day)])
    assert "users.json:1: export metadata beside the day file is unreadable" in r.stderr


def test_forced_maildir_on_a_file_is_an_error(runner):
    r = runner.invoke(
        app, ["ingest", "--from", "maildir", str(SAMPLE_DATA / "email" / "team.mbox")]
    )
    assert r.exit_code == 2 and "not a Maildir" in r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", "--save", "--store", "{dir}", "{h}"], "the store is a directory"),
        (["list", "--store", "{dir}"], "the store is a directory"),
        (["ingest", "{h}", "-o", "{dir}"], "is a directory"),
        (["ingest", "{h}", "-o", "/proc/nope/x"], "cannot write here"),
        (["list", "--since", "99999999d", "{h}"], "reaches before the year 1"),
        (["formats", "-f", "xml"], "unknown --format 'xml'"),
        (["list", "--tz", "+25:00", "{h}"], "24 hours or more"),
    ],
)
def test_odd_arguments_give_one_clean_error(runner, hostile, tmp_path, args, message):
    d = tmp_path / "adir"
    d.mkdir()
    argv = [a.format(dir=d, h=hostile) for a in args]
    r = runner.invoke(app, argv, env={"CONVO_NO_STDIN": "1"})
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("convo: error: ") and message in lines[0]
    assert "internal error" not in r.stderr


def test_rejects_file_in_a_new_folder(runner, tmp_path, hostile):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(HOSTILE + b"\nnope\n")
    target = tmp_path / "new" / "dir" / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(bad), "--rejects", str(target)])
    assert r.exit_code == 1 and records(target.read_bytes())[0]["raw"] == "nope"
    assert clean(r.stderr)  # the warning line escapes nothing it should not print raw
