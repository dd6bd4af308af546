"""`convo knowledge` through typer's CliRunner: piped JSONL, the terminal view, JSON, hostile text."""

from __future__ import annotations

from pathlib import Path

import orjson

from conftest import records
from convo.cli.app import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "knowledge"
CHAT = str(FIXTURES / "chat.jsonl")
EMAIL = str(FIXTURES / "email.jsonl")


def test_piped_jsonl_one_line_per_message(runner):
    result = runner.invoke(app, ["knowledge", CHAT])
    assert result.exit_code == 0, result.output
    out = records(result.stdout)
    assert [o["id"] for o in out] == [f"slack:C1:{i}" for i in range(1, 6)]
    assert out[0]["source_id"] == "general.json#1"
    assert set(out[0]["knowledge"]) == {"entities", "actions", "inverse_actions", "topics"}
    assert "deploy pipeline" in out[0]["knowledge"]["topics"]


def test_metadata_only_equals_typeagents_get_knowledge(runner):
    from convo.core.record import ConversationMessage

    result = runner.invoke(app, ["knowledge", "--metadata-only", EMAIL])
    assert result.exit_code == 0
    lines = (FIXTURES / "email.jsonl").read_bytes().splitlines()
    expected = [
        ConversationMessage.deserialize(orjson.loads(x)).get_knowledge().to_dict() for x in lines
    ]
    assert [o["knowledge"] for o in records(result.stdout)] == expected


def test_filters_apply(runner):
    result = runner.invoke(app, ["knowledge", "--speaker", "dave", CHAT])
    assert [o["id"] for o in records(result.stdout)] == ["slack:C1:2", "slack:C1:3"]
    result = runner.invoke(app, ["knowledge", "-n", "1", CHAT])
    assert len(records(result.stdout)) == 1


def test_stdin_input(runner):
    data = (FIXTURES / "chat.jsonl").read_bytes()
    result = runner.invoke(app, ["knowledge", "-"], input=data)
    assert result.exit_code == 0
    assert len(records(result.stdout)) == 5


def test_json_aggregate(runner):
    result = runner.invoke(app, ["knowledge", "--format", "json", "--top", "3", EMAIL])
    assert result.exit_code == 0
    data = orjson.loads(result.stdout)
    assert data["messages"] == 4
    assert len(data["topics"]) == 3
    assert data["topics"][0] == {"topic": "Auth refactor", "messages": 3}
    assert len(data["pairs"]) == 3 and data["pairs"][0]["speaker"] == "Alice Smith"


def test_table_on_a_terminal(runner, monkeypatch):
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    result = runner.invoke(app, ["knowledge", EMAIL])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("Who talks to whom", "Top entities", "Top topics", "Speakers and their top topics",
                 "Alice Smith", "security@example.org", "token expiry policy", "4 messages"):  # fmt: skip
        assert text in out
    assert '{"id"' not in out


def test_unsupported_format_is_a_usage_error(runner):
    result = runner.invoke(app, ["knowledge", "--format", "markdown", CHAT])
    assert result.exit_code == 2
    assert "table|jsonl|json|csv" in result.stderr
    assert "Traceback" not in result.output


def test_bad_lines_are_reported_and_exit_1(runner, tmp_path):
    path = tmp_path / "mixed.jsonl"
    good = (FIXTURES / "chat.jsonl").read_bytes().splitlines()[0]
    path.write_bytes(good + b"\n{not json\n")
    result = runner.invoke(app, ["knowledge", str(path)])
    assert result.exit_code == 1
    assert len(records(result.stdout)) == 1
    assert "mixed.jsonl:2" in result.stderr


def test_empty_store_is_a_clean_error(runner):
    result = runner.invoke(app, ["knowledge"])
    assert result.exit_code == 2
    assert "no store yet" in result.stderr


HOSTILE = {
    "textChunks": ["[bold]x[/bold] \x1b[31mred\x1b[0m #[red]tag https://evil.example/[link]"],
    "metadata": {"speaker": "[bold]Mallory[/bold]\x1b]0;title\x07", "listeners": ["\u202eevil"]},
    "tags": ["[blink]t[/blink]"],
    "timestamp": "2024-01-01T00:00:00Z",
    "source_id": "h#1",
    "id": "h1",
    "format": "convo",
    "subject": "\x1b[2J[on red]wipe",
}


def test_hostile_text_is_literal_and_escaped_in_the_table(runner, monkeypatch, tmp_path):
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(orjson.dumps(HOSTILE) + b"\n")
    result = runner.invoke(app, ["knowledge", str(path)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "[bold]Mallory[/bold]" in out
    assert "[blink]t[/blink]" in out
    assert "\\x1b]0;title\\x07" in out
    assert "\\u202eevil" in out
    assert "\\x1b[2J[on red]wipe" in out
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\u202e" not in out
    assert "\x07" not in out


def test_hostile_text_stays_data_in_jsonl(runner, tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(orjson.dumps(HOSTILE) + b"\n")
    result = runner.invoke(app, ["knowledge", str(path)])
    k = records(result.stdout)[0]["knowledge"]
    assert k["entities"][0]["name"] == "[bold]Mallory[/bold]\x1b]0;title\x07"
    assert "[blink]t[/blink]" in k["topics"]
