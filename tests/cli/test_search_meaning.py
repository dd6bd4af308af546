"""``convo search --mode``, ``convo similar`` and ``ingest --save`` embedding, through
convo's own app with the default model (offline: sockets blocked)."""

from __future__ import annotations

import orjson
import pytest
from tests.embed.conftest import no_network, record, write_store  # noqa: F401
from typer.testing import CliRunner

from convo.cli.app import app

pytest.importorskip("wordllama")

TEXTS = {
    "auth": "we agreed to keep the login session in a signed cookie instead of the database",
    "err": "the deploy died with ECONNRESET-4411 on the web nodes",
    "lunch": "pizza for lunch on friday, who is in?",
    "budget": "the budget review moved to next quarter",
}


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store.jsonl"
    write_store(
        path,
        [
            record(
                k, t, speaker="Bob" if k == "lunch" else "Alice", ts=f"2024-0{n + 1}-01T10:00:00Z"
            )
            for n, (k, t) in enumerate(TEXTS.items())
        ],
    )
    return path


def run(store, *argv, input=None):
    return CliRunner().invoke(app, ["--store", str(store), *argv], input=input)


def jsonl(r) -> list[dict]:
    assert r.exit_code == 0, r.output
    return [orjson.loads(x) for x in r.stdout.splitlines()]


def test_search_modes_and_why(store):
    docs = jsonl(run(store, "search", "where", "do", "we", "store", "logins", "-f", "jsonl"))
    assert all("match" not in d for d in docs)  # no vectors yet: keyword search
    assert run(store, "embed").exit_code == 0
    docs = jsonl(run(store, "search", "where do we store logins?", "-f", "jsonl"))
    assert docs[0]["id"] == "auth" and docs[0]["match"] in ("meaning", "both")
    assert all(isinstance(d["score"], float) for d in docs)
    docs = jsonl(run(store, "search", "--mode", "semantic", "retained authentication", "-n", "1"))
    assert [d["id"] for d in docs] == ["auth"] and docs[0]["match"] == "meaning"
    docs = jsonl(run(store, "search", "what failed with ECONNRESET-4411", "-f", "jsonl"))
    assert docs[0]["id"] == "err" and docs[0]["match"] in ("keyword", "both")
    docs = jsonl(run(store, "search", "--mode", "fts", "cookie", "-f", "jsonl"))
    assert [d["id"] for d in docs] == ["auth"] and "match" not in docs[0]
    r = run(store, "search", "where do we store logins", "-f", "table")
    assert r.exit_code == 0 and "why" in r.stdout and ("meaning" in r.stdout or "both" in r.stdout)


def test_filters_restrict_before_ranking(store):
    run(store, "embed")
    docs = jsonl(run(store, "search", "login session cookie", "--since", "2024-03-01", "-n", "1"))
    assert docs and docs[0]["id"] in ("lunch", "budget")
    docs = jsonl(run(store, "search", "login session from:bob", "--mode", "semantic"))
    assert [d["id"] for d in docs] == ["lunch"]


def test_mode_errors_are_one_line_with_the_fix(store):
    r = run(store, "search", "--mode", "hybrid", "login")
    assert r.exit_code == 2 and "no vectors yet; run `convo embed`" in r.stderr
    r = run(store, "search", "--mode", "fuzzy", "login")
    assert r.exit_code == 2 and "unknown search mode 'fuzzy'" in r.stderr
    assert "Traceback" not in r.output


def test_similar(store):
    r = run(store, "similar", "auth")
    assert r.exit_code == 2 and "no vectors yet" in r.stderr
    run(store, "embed")
    docs = jsonl(run(store, "similar", "auth", "-f", "jsonl"))
    assert "auth" not in {d["id"] for d in docs} and len(docs) == 3
    assert all(d["match"] == "meaning" for d in docs)
    docs = jsonl(run(store, "similar", "auth", "from:bob", "-f", "jsonl"))
    assert [d["id"] for d in docs] == ["lunch"]
    r = run(store, "similar", "nope")
    assert r.exit_code == 2 and "no message with id 'nope'" in r.stderr
    # a message removed keeps its vectors until the next embed: not similar to it
    assert run(store, "rm", "--yes", "id:budget").exit_code == 0
    r = run(store, "similar", "budget")
    assert r.exit_code == 2 and "no message with id 'budget'" in r.stderr
    assert "budget" not in {d["id"] for d in jsonl(run(store, "similar", "auth"))}
    r = run(store, "similar")
    assert r.exit_code == 2 and "give a message id" in r.stderr


def test_ingest_save_embeds_when_the_store_is_set_to(store, tmp_path):
    run(store, "embed", "--on-save")
    new = tmp_path / "new.jsonl"
    write_store(new, [record("late", "the cookie session was replaced by tokens")])
    r = run(store, "ingest", "--save", str(new))
    assert r.exit_code == 0, r.output
    assert "embedded 1" in r.stderr
    assert run(store, "embed", "--check").exit_code == 0
    run(store, "embed", "--no-on-save")
    write_store(new, [record("later", "nothing embedded here")])
    r = run(store, "ingest", "--save", str(new))
    assert r.exit_code == 0 and "embedded" not in r.stderr
    assert run(store, "embed", "--check").exit_code == 1


def test_a_save_that_cannot_embed_still_saves_and_says_how_to_catch_up(
    store, tmp_path, monkeypatch
):
    import convo.embed
    from convo.core.errors import UsageError

    def broken(path, progress=None):
        raise UsageError("the embedding server did not answer", hint="start it")

    monkeypatch.setattr(convo.embed, "embed_on_save", broken, raising=False)
    new = tmp_path / "new.jsonl"
    write_store(new, [record("late", "saved anyway")])
    r = run(store, "ingest", "--save", str(new))
    assert r.exit_code == 0, r.output
    assert "saved, but not embedded (the embedding server did not answer; start it)" in r.stderr
    assert "run `convo embed` to catch up" in r.stderr
    assert b'"late"' in store.read_bytes()


def test_vectors_from_before_the_int8_copy_are_upgraded_once_with_a_note(store):
    from convo.embed.vectors import quantized_path

    assert run(store, "embed").exit_code == 0
    quantized_path(store).unlink()  # as vectors made before the copy existed
    r = run(store, "search", "where do we store logins?", "-f", "jsonl")
    assert r.exit_code == 0 and r.stderr.count("int8 search copy (4 rows; once)") == 1
    assert jsonl(r)[0]["id"] == "auth" and quantized_path(store).exists()
    again = run(store, "search", "where do we store logins?", "-f", "jsonl")
    assert "int8" not in again.stderr and jsonl(again) == jsonl(r)


def test_a_search_by_meaning_starts_without_typer_or_the_tokenizers_library(store):
    """Not timed: the modules a fresh `convo search` leaves loaded (the fast path, the
    query tokenized by convo.embed.bpe from its table, and no numpy: the query's vector
    and the scan are convo.embed.simd's, on simsimd), and the files it opens."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    assert run(store, "embed").exit_code == 0
    assert run(store, "index").exit_code == 0  # a fresh index: the search only reads
    code = (
        "import json, sys; sys.argv = ['convo', *json.loads(sys.argv[1])]\n"
        "opened = []\n"
        "def hook(event, args):\n"
        "    if event == 'open' and isinstance(args[0], str):\n"
        "        opened.append(args[0])\n"
        "sys.addaudithook(hook)\n"
        "from convo.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\nOPENED ' + json.dumps(opened))\n"
        "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))"
    )
    argv = ["--store", str(store), "search", "where do we store logins?", "-f", "jsonl"]
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
        timeout=60, env={**os.environ, "PYTHONPATH": src},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["id"] == "auth"
    before, _, listed = proc.stderr.rpartition("\nMODULES ")
    modules = set(json.loads(listed))
    # The tokenizer's JSON is not read: its table, made by `convo embed` (bpe_table).
    opened = json.loads(before.rpartition("\nOPENED ")[2])
    assert any(p.endswith(".bpe") for p in opened), opened
    assert not any(p.endswith("_tokenizer_config.json") for p in opened), opened
    for name in ("typer", "click", "tokenizers", "rich", "pydantic"):
        assert not any(m == name or m.startswith(name + ".") for m in modules), name
    # The writing side (appends' lock and id set, the index's ids, the embedding run, a
    # spool's tempfile and what it brings, OpenSSL's hashes) is not a search's: together
    # about 8 ms of CPU of a search's start-up, paired runs (BENCHMARKS.md).
    for name in (*WRITING_SIDE, "tempfile", "shutil", "bz2", "lzma", "random", "hashlib", "shlex"):
        assert name not in modules, name
    assert "convo.embed.bpe" in modules and "convo.embed.quantized" in modules
    assert "simsimd" in modules and "convo.embed.simd" in modules  # the [embed] extra's
    assert not any(m == "numpy" or m.startswith("numpy.") for m in modules)


WRITING_SIDE = (
    "convo.core.lock", "convo.core.idset", "convo.core.io", "convo.store.dedup",
    "convo.embed.build", "convo.embed.chunks", "convo.index.build",
)  # fmt: skip
