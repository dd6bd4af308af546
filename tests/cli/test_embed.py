"""``convo embed`` and ``convo index --check`` with vectors, through convo's own app."""

from __future__ import annotations

import orjson
import pytest
from tests.embed.conftest import append_store, no_network, record, write_store  # noqa: F401
from typer.testing import CliRunner

from convo.cli.app import app
from convo.embed.vectors import paths

pytest.importorskip("wordllama")


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store.jsonl"
    write_store(
        path, [record("a", "we keep login state in signed cookies"), record("b", "pizza on friday")]
    )
    return path


def run(store, *argv):
    return CliRunner().invoke(app, ["--store", str(store), *argv])


def test_embed_then_only_what_is_new(store):
    r = run(store, "embed")
    assert r.exit_code == 0, r.output
    assert "embedded 2 new and 0 changed messages (2 chunks), 0 removed, 0 unchanged" in r.stderr
    assert "wordllama-l2_supercat-256, 256 dims" in r.stderr
    append_store(store, [record("c", "the budget review moved")])
    r = run(store, "embed")
    assert "embedded 1 new" in r.stderr and "2 unchanged" in r.stderr
    assert run(store, "embed", "--check").exit_code == 0
    assert run(store, "index").exit_code == 0
    assert run(store, "index", "--check").exit_code == 0


def test_check_reports_messages_not_embedded(store):
    run(store, "embed")
    append_store(store, [record("c", "something new")])
    run(store, "index")
    for argv in (("embed", "--check"), ("index", "--check")):
        r = run(store, *argv)
        assert r.exit_code == 1, argv
        assert "1 message not embedded: c; run `convo embed`" in r.stderr


def test_another_model_is_one_line_with_the_fix(store):
    run(store, "embed")
    _, catalogue = paths(store)
    import sqlite3

    with sqlite3.connect(catalogue) as conn:
        conn.execute("UPDATE meta SET value = 'other-model' WHERE key = 'model'")
    r = run(store, "embed")
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "made by other-model (256 dims), not wordllama" in lines[0]
    assert "--rebuild" in lines[0] and "Traceback" not in r.output
    r = run(store, "embed", "--rebuild")
    assert r.exit_code == 0 and "embedded 2 new" in r.stderr


def test_usage_errors(store, tmp_path):
    r = run(store, "embed", "--model", "nope")
    assert (
        r.exit_code == 2 and "unknown embedding model 'nope'; choose one of: wordllama" in r.stderr
    )
    r = run(tmp_path / "none.jsonl", "embed")
    assert r.exit_code == 2 and "no store yet" in r.stderr
    assert run(store, "embed", "--rebuild", "--check").exit_code == 2
    r = run(store, "embed", "--check")
    assert r.exit_code == 0 and "no vectors" in r.stderr
    assert orjson.loads(store.read_bytes().splitlines()[0])["id"] == "a"


def test_on_save_is_recorded_for_the_store(store):
    from convo.embed import embed_on_save

    r = run(store, "embed", "--on-save")
    assert r.exit_code == 0 and "saves embed what they add" in r.stderr
    append_store(store, [record("c", "the budget review moved")])
    result = embed_on_save(store)
    assert result is not None and result.added == 1
    assert "saves no longer embed" in run(store, "embed", "--no-on-save").stderr
    append_store(store, [record("d", "another")])
    assert embed_on_save(store) is None
