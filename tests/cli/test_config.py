"""The config file (``cli/config.py``) and ``convo config``."""

from __future__ import annotations

import re

import orjson
import pytest
from tests.conftest import SAMPLE_DATA
from typer.testing import CliRunner

from convo.cli.app import app
from convo.cli.fast import run as fast_run


@pytest.fixture
def configured(tmp_path, monkeypatch):
    store = tmp_path / "store.jsonl"
    r = CliRunner().invoke(
        app, ["--store", str(store), "ingest", "--save", str(SAMPLE_DATA / "email")]
    )
    assert r.exit_code == 0, r.output
    folder = tmp_path / "cfg" / "convo"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        f'store = "{store}"\ntz = "America/Los_Angeles"\nsort = "time"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return store, folder / "config.toml"


def test_config_shows_each_value_and_its_source(configured, monkeypatch):
    store, file = configured
    r = CliRunner().invoke(app, ["config", "-f", "json"])
    data = orjson.loads(r.stdout)["settings"]
    assert data["store"] == {"value": str(store), "from": str(file)}
    assert data["tz"]["value"] == "America/Los_Angeles" and data["people"]["from"] == "default"
    monkeypatch.setenv("CONVO_STORE", "/elsewhere.jsonl")
    data = orjson.loads(CliRunner().invoke(app, ["config", "-f", "json"]).stdout)["settings"]
    assert data["store"] == {"value": "/elsewhere.jsonl", "from": "$CONVO_STORE"}


def test_the_file_gives_the_store_the_zone_and_the_order(configured, capfd):
    r = CliRunner().invoke(app, ["list", "-f", "jsonl", "--since", "2024-03-06T02:01"])
    times = [orjson.loads(x)["timestamp"] for x in r.stdout.splitlines()]
    assert times and times == sorted(times)  # sort = "time"
    assert min(times) >= "2024-03-06T10:01:00Z"  # 02:01 in Los Angeles is 10:01 UTC
    assert fast_run(["list", "--count"]) == 0  # the fast path reads the same file
    assert int(capfd.readouterr().out) == len(configured[0].read_bytes().splitlines())


def test_a_bad_config_file_is_one_line(configured):
    configured[1].write_text("sotre = 1\n")
    for argv in (["config"], ["list", "--count"], ["stats"]):
        r = CliRunner().invoke(app, argv)
        assert r.exit_code == 2 and "unknown setting 'sotre'" in r.output
        assert "Traceback" not in r.output


def test_people_after_the_command_as_before_it(tmp_path):
    store = tmp_path / "s.jsonl"
    assert (
        CliRunner()
        .invoke(app, ["--store", str(store), "ingest", "--save", str(SAMPLE_DATA / "email")])
        .exit_code
        == 0
    )
    people = tmp_path / "people.toml"
    people.write_text('[people.bob]\nname = "Bob Jones"\nnames = ["Bob Jones", "Bobby"]\n')
    before = CliRunner().invoke(
        app, ["--store", str(store), "--people", str(people), "query", "from:bobby", "--count"]
    )
    after = CliRunner().invoke(
        app, ["--store", str(store), "query", "from:bobby", "--count", "--people", str(people)]
    )
    knowledge = CliRunner().invoke(
        app, ["--store", str(store), "knowledge", "-f", "json", "--people", str(people)]
    )
    assert before.stdout == after.stdout and int(after.stdout) > 0
    assert knowledge.exit_code == 0, knowledge.output


def test_the_file_picks_the_table_columns(configured, monkeypatch):
    """Issue 35 §19: the terminal table's columns come from the config file, text last."""
    with configured[1].open("a") as f:
        f.write('columns = "text, from, subject, time"\n')
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    monkeypatch.setenv("COLUMNS", "160")
    r = CliRunner().invoke(app, ["list", "--limit", "3", "-f", "table"])
    assert r.exit_code == 0, r.output
    plain = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout)
    header = next(line for line in plain.splitlines() if line.strip())
    assert header.split() == ["from", "subject", "time", "text"]
    assert "tags" not in header
    settings = orjson.loads(CliRunner().invoke(app, ["config", "-f", "json"]).stdout)["settings"]
    assert settings["columns"]["value"] == "text, from, subject, time"


def test_an_unknown_table_column_is_one_line(configured):
    with configured[1].open("a") as f:
        f.write('columns = "time,sender,text"\n')
    r = CliRunner().invoke(app, ["list", "--count"])
    assert r.exit_code == 2 and "unknown table column 'sender'" in r.output
    assert "columns: time, speaker, from, to" in r.output and "Traceback" not in r.output


def test_the_table_lines_up_every_setting(configured):
    """`llm_model` (9 letters) pushed its value out of the column of the 7-letter keys."""
    r = CliRunner().invoke(app, ["config"])
    rows = r.stdout.splitlines()[1:]
    assert any(row.startswith("llm_model ") for row in rows)
    starts = {len(row) - len(row.split(" ", 1)[1].lstrip()) for row in rows}
    assert len(starts) == 1, r.stdout


def test_config_names_the_default_store(tmp_path, monkeypatch):
    """With no store set anywhere, config names the file the commands use (the XDG
    default), not "(not set)": where is my store? is what a user asks it."""
    monkeypatch.delenv("CONVO_STORE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    data = orjson.loads(CliRunner().invoke(app, ["config", "-f", "json"]).stdout)["settings"]
    expected = str(tmp_path / "data" / "convo" / "messages.jsonl")
    assert data["store"] == {"value": expected, "from": "default"}
    r = CliRunner().invoke(app, ["list", "--count"])
    assert expected in r.stderr  # the commands use that very file (none there yet)
