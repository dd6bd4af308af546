"""LLM's ``logs.db`` (``convo.importers.agents.llm_logsdb``).

The fixtures are real: ``logs-0.36.db`` was written by llm 0.36 itself (its ``echo``
model from the llm-echo plugin: a system prompt and fragments with an alias, a
conversation continued, a tool call answered, a tool that raised, an attachment), and
``logs-0.36.json`` is ``llm logs -n 0 --json --expand`` of it. The same calls were
written into the tables older versions left (``legacy.py.txt``: llm's own migrations
run up to 0.13's, 0.24's and 0.31's last; 0.13's database also kept two rows of the
pre-0.5 ``logs`` table), each ``.json`` beside it being what llm 0.36 prints for that
database. ``logs-upgraded.db`` is 0.31's database used by llm 0.36: legacy responses and
turns side by side, a legacy conversation continued in the message store.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, detect_name, files_taken, fresh_registry, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.cli.app import app
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.agents import llm_logs, llm_logsdb
from convo.importers.registry import registry

DIR = FIXTURES / "llm_logsdb"
VERSIONS = ("0.13", "0.24", "0.31", "0.36", "upgraded")
DBS = [DIR / f"logs-{v}.db" for v in VERSIONS]


def _plain(recs: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "source_id"} for r in recs]


@pytest.mark.parametrize("path", DBS, ids=lambda p: p.stem)
def test_golden(path):
    recs, rejects, warnings = run(llm_logsdb.read, path)
    assert not rejects and not warnings
    assert_golden(f"formats/llm_logsdb/{path.stem}.jsonl", recs)


@pytest.mark.parametrize("path", DBS, ids=lambda p: p.stem)
def test_the_database_gives_the_records_of_its_json(path):
    """The same records (ids, speakers, texts, times, threads, subjects, extra) as
    ``llm logs --json`` of the same database, in the same order."""
    from_db, _, _ = run(llm_logsdb.read, path)
    from_json, rejects, _ = run(llm_logs.read, path.with_suffix(".json"))
    assert not rejects
    old = [r for r in from_db if r["id"].startswith("llm:logs-0.13.db:")]
    assert _plain(from_db[len(old) :]) == _plain(from_json)
    assert {r["format"] for r in from_db} == {"llm-logs"}


def test_what_the_versions_hold():
    newest, _, _ = run(llm_logsdb.read, DIR / "logs-0.36.db")
    assert [r["metadata"]["speaker"] for r in newest] == [
        "user", "assistant", "user", "assistant", "user", "assistant", "tool", "assistant",
        "user", "assistant", "tool", "assistant", "user", "assistant",
    ]  # fmt: skip
    asked = newest[0]
    assert asked["textChunks"][0].startswith("Kettles click off when the thermostat")
    assert asked["extra"]["system"] == "Answer as a plumber would.\n\nAnswer in two sentences."
    assert asked["extra"]["fragments"][0]["aliases"] == ["manual"]
    assert asked["source_id"].startswith("logs-0.36.db#turns:")
    assert newest[10]["textChunks"][0].startswith("[tool_result divide error]")
    assert newest[12]["textChunks"][1].startswith("[attachment image/png] ")
    legacy, _, _ = run(llm_logsdb.read, DIR / "logs-0.31.db")
    assert legacy[0]["source_id"].startswith("logs-0.31.db#responses:")
    said = [(r["id"], r["textChunks"], r["timestamp"], r.get("thread")) for r in legacy]
    assert said == [(r["id"], r["textChunks"], r["timestamp"], r.get("thread")) for r in newest]


def test_the_first_versions_rows_are_read_scoped_by_the_file():
    recs, _, _ = run(llm_logsdb.read, DIR / "logs-0.13.db")
    first = recs[:4]
    assert [r["id"] for r in first] == [
        "llm:logs-0.13.db:1", "llm:logs-0.13.db:1:response",
        "llm:logs-0.13.db:2", "llm:logs-0.13.db:2:response",
    ]  # fmt: skip
    assert {r["thread"] for r in first} == {"llm:logs-0.13.db:1"}
    assert first[0]["timestamp"] == "2023-06-17T20:01:02Z"
    assert first[0]["source_id"] == "logs-0.13.db#logs:1"


def test_detection():
    reg = fresh_registry(llm_logsdb)
    for path in DBS:
        assert detect_name(reg, path) == "llm-logsdb"
        assert registry.detect(Source(path)).name == "llm-logsdb"
    assert files_taken({"llm-logsdb"}, {"llm_logsdb"}) == {}


def test_other_sqlite_files_are_not_taken(tmp_path):
    other = tmp_path / "logs.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE responses (id TEXT, prompt TEXT, response TEXT)")
    con.commit()
    con.close()
    assert llm_logsdb.sniff(Source(other)) == 0
    autogen = FIXTURES / "autogen_runtime"
    for path in autogen.glob("*.db"):
        assert llm_logsdb.sniff(Source(path)) == 0


def test_opened_read_only(tmp_path):
    copy = tmp_path / "logs.db"
    shutil.copy(DIR / "logs-0.36.db", copy)
    copy.chmod(0o444)
    before = copy.read_bytes()
    run(llm_logsdb.read, copy)
    assert copy.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs.db"]  # no journal either


def test_cli_and_stdin(runner, tmp_path):
    out = tmp_path / "o.jsonl"
    r = runner.invoke(app, ["ingest", str(DIR / "logs-0.36.db"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "imported 14" in r.stderr
    data = (DIR / "logs-0.36.db").read_bytes()
    r = runner.invoke(app, ["ingest", "-", "--from", "llm-logsdb", "-o", str(out)], input=data)
    assert r.exit_code == 0 and "imported 14" in r.stderr, r.output


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 3],  # cut short
        lambda b: b[:100] + b"\xff" * (len(b) - 100),  # pages overwritten
        lambda b: b"SQLite format 3\x00" + b"not a database at all",
    ],
    ids=["truncated", "overwritten", "garbage"],
)
def test_a_damaged_database_is_one_line(runner, tmp_path, damage):
    bad = tmp_path / "logs.db"
    bad.write_bytes(damage((DIR / "logs-0.36.db").read_bytes()))
    r = runner.invoke(app, ["ingest", "--from", "llm-logsdb", str(bad), "-o", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert str(bad) in r.stderr and "database" in r.stderr


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.integers(100, 96255), st.binary(min_size=1, max_size=64)), max_size=4))
def test_any_damage_reads_or_is_an_input_error(tmp_path, hits):
    """Bytes overwritten anywhere past the header: records, or one InputError; never
    another exception."""
    data = bytearray((DIR / "logs-0.36.db").read_bytes())
    for at, junk in hits:
        data[at : at + len(junk)] = junk[: len(data) - at]
    path = tmp_path / "hit.db"
    path.write_bytes(bytes(data))
    with contextlib.suppress(InputError):
        run(llm_logsdb.read, path)


def test_a_database_without_llms_tables_named_with_from(tmp_path):
    other = tmp_path / "x.db"
    sqlite3.connect(other).execute("CREATE TABLE t (a)").connection.commit()
    with pytest.raises(InputError, match="not an LLM logs database"):
        run(llm_logsdb.read, other)


def test_a_zst_compressed_database_reads(tmp_path):
    import zstandard

    packed = tmp_path / "logs.db.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress((DIR / "logs-0.36.db").read_bytes()))
    recs, _, _ = run(llm_logsdb.read, packed)
    plain, _, _ = run(llm_logsdb.read, DIR / "logs-0.36.db")
    assert _plain(recs) == _plain(plain)


def test_the_fixtures_are_what_their_docstring_says():
    assert Path(DIR / "legacy.py.txt").is_file()
    con = sqlite3.connect(f"file:{DIR / 'logs-0.13.db'}?mode=ro", uri=True)
    assert con.execute("SELECT count(*) FROM logs").fetchone() == (2,)
    con.close()
