"""Issue 13 rule 5: read commands import named files with ingest's import options."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from convo.cli.app import app

CHAT = "06/03/2024, 09:01 - Alice: Good morning\n06/03/2024, 09:02 - Bob: Morning!\n"


def _records(out: str) -> list[dict]:
    return [orjson.loads(line) for line in out.splitlines() if line.strip()]


def test_whatsapp_with_tz_reads_the_same_in_ingest_and_query(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(CHAT)
    runner = CliRunner()
    ingested = runner.invoke(app, ["ingest", "--tz", "Europe/Berlin", "-o", "-", str(path)])
    queried = runner.invoke(app, ["query", "--tz", "Europe/Berlin", "-f", "jsonl", str(path)])
    assert ingested.exit_code == 0 and queried.exit_code == 0, queried.output
    a, b = _records(ingested.stdout), _records(queried.stdout)
    assert [r["timestamp"] for r in a] == ["2024-03-06T08:01:00Z", "2024-03-06T08:02:00Z"]
    assert [(r["id"], r["timestamp"]) for r in a] == [(r["id"], r["timestamp"]) for r in b]


def test_from_forces_the_format_of_a_named_file(tmp_path):
    path = tmp_path / "chat.log"  # no telling name: --from decides
    path.write_text(CHAT)
    r = CliRunner().invoke(app, ["list", "--from", "whatsapp", "-f", "jsonl", str(path)])
    assert r.exit_code == 0, r.output
    assert [x["format"] for x in _records(r.stdout)] == ["whatsapp", "whatsapp"]


def test_an_invalid_tz_is_an_error_never_utc(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(CHAT)
    for tz in ("Mars/Olympus", "", " "):
        for cmd in ("ingest", "query"):
            r = CliRunner().invoke(app, [cmd, "--tz", tz, str(path)], env={"CONVO_NO_STDIN": "1"})
            assert r.exit_code == 2, (cmd, tz, r.output)
            assert r.stderr.startswith("convo: error: ") and len(r.stderr.splitlines()) == 1


def test_encoding_option_in_ingest_and_read_commands(tmp_path):
    """Issue 36 §2: --encoding replaces the guess; an unknown one is one usage line."""
    path = tmp_path / "chat.txt"
    path.write_bytes("06/03/2024, 09:01 - Борис: Привет, как дела?\n".encode("cp1251"))
    runner = CliRunner()
    guessed = runner.invoke(app, ["ingest", "-o", "-", str(path)])
    assert guessed.exit_code == 0, guessed.output
    assert _records(guessed.stdout)[0]["metadata"]["speaker"] == "Борис"
    assert "read as windows-1251 (guessed, " in guessed.stderr
    told = runner.invoke(app, ["query", "--encoding", "koi8-r", "-f", "jsonl", str(path)])
    assert told.exit_code == 0, told.output
    speaker = "Борис".encode("cp1251").decode("koi8-r")
    assert _records(told.stdout)[0]["metadata"]["speaker"] == speaker
    for cmd in ("ingest", "list"):
        bad = runner.invoke(app, [cmd, "--encoding", "klingon", str(path)])
        assert bad.exit_code == 2, (cmd, bad.output)
        assert bad.stderr.startswith("convo: error: unknown --encoding 'klingon'")
        assert len(bad.stderr.splitlines()) == 1
