"""``convo export --to typeagent-db``: TypeAgent's own database, built offline, opened by
``convo.typeagent.open`` and searched through TypeAgent, with the network blocked.

Runs convo (this Python) with ``$CONVO_TYPEAGENT_PYTHON`` naming the TypeAgent
virtualenv of ``tests/compat/conftest.py`` (which fails, never skips, without one), and
``tests/compat/offline/sitecustomize.py`` on every process's path.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = Path(__file__).resolve().parent / "offline"

SEARCH = r"""
import asyncio, sys, orjson
import convo.typeagent
from convo.embed.chunks import message_text
from typeagent.knowpro.interfaces_core import Term
from typeagent.knowpro.interfaces_search import SearchTerm, SearchTermGroup
from typeagent.knowpro.search import search_conversation

async def main(db, term, question):
    conv = await convo.typeagent.open(db)
    group = SearchTermGroup("or", [SearchTerm(Term(term))])
    found = await search_conversation(conv, group)
    hits = [m.message_ordinal for m in found.message_matches] if found else []
    index = conv.secondary_indexes.message_index
    near = await index.lookup_messages(question, max_matches=3)
    async def sid(o):
        m = await conv.messages.get_item(o)
        return m.source_id
    out = {"term": [await sid(o) for o in hits],
           "near": [await sid(m.message_ordinal) for m in near],
           "embedding": conv.settings.embedding_model.model_name}
    await conv.settings.storage_provider.close()
    print(orjson.dumps(out).decode())

asyncio.run(main(*sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def env(typeagent_env: dict[str, str]) -> dict[str, str]:
    out = dict(typeagent_env)
    out["PYTHONPATH"] = f"{OFFLINE}:{out['PYTHONPATH']}"
    return out


def _convo(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "convo", *args], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip


def _counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as c:
        names = [n for (n,) in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: c.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


@pytest.fixture(scope="module")
def store(tmp_path_factory, env) -> Path:
    path = tmp_path_factory.mktemp("ta") / "messages.jsonl"
    r = _convo(env, "--store", str(path), "ingest", "--save", str(ROOT / "sample_data"))
    assert r.returncode == 0, r.stderr
    return path


def _records(store: Path) -> list[dict]:
    return [orjson.loads(line) for line in store.read_bytes().splitlines()]


def test_database_matches_the_records_and_a_rerun_adds_nothing(store, env, tmp_path):
    db = tmp_path / "conv.db"
    recs = _records(store)
    mail = [r for r in recs if r["format"] == "mbox"]
    first = _convo(env, "--store", str(store), "export", "--to", "typeagent-db", "-o", str(db),
                   "format:mbox")  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert f"{len(mail)} messages added" in first.stderr
    whole = _convo(env, "--store", str(store), "export", "--to", "typeagent-db", "-o", str(db))
    assert whole.returncode == 0, whole.stderr
    assert f"{len(recs) - len(mail)} messages added, {len(mail)} already there" in whole.stderr
    counts = _counts(db)
    assert counts["Messages"] == len(recs)
    assert counts["MessageTextIndex"] == sum(len(r["textChunks"]) for r in recs)
    assert counts["ChunkFailures"] == 0
    with sqlite3.connect(db) as c:
        ingested = {s for (s,) in c.execute("SELECT source_id FROM IngestedSources")}
        meta = dict(c.execute("SELECT key, value FROM ConversationMetadata").fetchall())
    assert ingested == {r["id"] for r in recs}
    assert meta["embedding_name"] == "wordllama-l2_supercat-256"
    assert meta["name_tag"] == "convo"
    for table in ("SemanticRefs", "SemanticRefIndex", "PropertyIndex", "RelatedTermsFuzzy"):
        assert counts[table] > len(recs) // 2, table
    again = _convo(env, "--store", str(store), "export", "--to", "typeagent-db", "-o", str(db))
    assert again.returncode == 0, again.stderr
    assert f"0 messages added, {len(recs)} already there" in again.stderr
    assert _counts(db) == counts


def test_typeagent_finds_by_term_and_ranks_like_convo_semantic(store, env, typeagent_python,
                                                              tmp_path):  # fmt: skip
    from convo.embed import embed_store, semantic

    db = tmp_path / "conv.db"
    r = _convo(env, "--store", str(store), "export", "--to", "typeagent-db", "-o", str(db))
    assert r.returncode == 0, r.stderr
    question = "JWT tokens instead of sessions"
    out = subprocess.run(
        [typeagent_python, "-c", SEARCH, str(db), "jwt", question], env=env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    found = orjson.loads(out.stdout)
    assert found["embedding"] == "wordllama-l2_supercat-256"
    jwt = {x["source_id"] for x in _records(store) if "jwt" in " ".join(x["textChunks"]).lower()}
    assert jwt and set(found["term"]) & jwt
    embed_store(store)
    top = semantic(store, question, limit=1)[0]
    by_id = {x["id"]: x for x in _records(store)}
    assert found["near"][0] == by_id[top.id]["source_id"]


OWN_TOOLS = r"""
import asyncio, sys
from typeagent import create_conversation
from typeagent.knowpro.convsettings import ConversationSettings
from typeagent.knowpro.universal_message import ConversationMessage

async def main(db, question):
    # TypeAgent's own default settings: the model named by OPENAI_EMBEDDING_MODEL at
    # OPENAI_BASE_URL, as its tools make them.
    conv = await create_conversation(db, ConversationMessage, settings=ConversationSettings())
    index = conv.secondary_indexes.message_index
    near = await index.lookup_messages(question, max_matches=1, threshold_score=0.5)
    m = await conv.messages.get_item(near[0].message_ordinal)
    print(m.source_id)
    await conv.settings.storage_provider.close()

asyncio.run(main(*sys.argv[1:]))
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_serving(url: str, proc: subprocess.Popen) -> None:
    import time
    import urllib.request

    for _ in range(300):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            with urllib.request.urlopen(url + "/models", timeout=1) as r:
                assert b"wordllama" in r.read()
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing serves {url}")


def test_typeagent_own_settings_open_it_through_convo_embed_serve(store, env, typeagent_python,
                                                                  tmp_path):  # fmt: skip
    """docs/typeagent.md's recipe: `convo embed --serve` and TypeAgent's own settings."""
    from convo.embed import embed_store, semantic

    db = tmp_path / "conv.db"
    r = _convo(env, "--store", str(store), "export", "--to", "typeagent-db", "-o", str(db))
    assert r.returncode == 0, r.stderr
    url = f"http://127.0.0.1:{_free_port()}/v1"
    server = subprocess.Popen(
        [sys.executable, "-m", "convo", "embed", "--serve", url.split("/")[2]], env=env,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_until_serving(url, server)
        own = dict(env, OPENAI_BASE_URL=url, OPENAI_API_KEY="unused",
                   OPENAI_EMBEDDING_MODEL="wordllama-l2_supercat-256")  # fmt: skip
        question = "token expiry and refresh"
        out = subprocess.run([typeagent_python, "-c", OWN_TOOLS, str(db), question], env=own,
                             capture_output=True, text=True, timeout=600)  # fmt: skip
        assert out.returncode == 0, out.stderr[-2000:]
    finally:
        server.terminate()
        server.wait(timeout=30)
    embed_store(store)
    top = semantic(store, question, limit=1)[0]
    assert out.stdout.strip() == {x["id"]: x for x in _records(store)}[top.id]["source_id"]


def test_the_llm_extractor_adds_the_models_knowledge(store, env, tmp_path):
    """``--extractor llm`` against a local stub of a chat endpoint: the model's entities
    are in TypeAgent's semantic refs; a failing model is one warning and convo's own."""
    from llm_stub import Stub, completion

    stub = Stub()
    try:
        db = tmp_path / "llm.db"
        args = ("--store", str(store), "export", "--to", "typeagent-db", "-o", str(db),
                "--extractor", "llm", "--llm-url", stub.url, "--llm-model", "m", "format:mbox")  # fmt: skip
        r = _convo(env, *args)
        assert r.returncode == 0, r.stderr
        assert "llm extractor" not in r.stderr and stub.requests
        with sqlite3.connect(db) as c:
            refs = " ".join(k for (k,) in c.execute("SELECT knowledge_json FROM SemanticRefs"))
        assert "deploy pipeline" in refs
        stub.reply = lambda body: (200, completion("not json"))
        other = tmp_path / "fallback.db"
        r = _convo(env, *[other.as_posix() if a == str(db) else a for a in args])
        assert r.returncode == 0, r.stderr
        assert "llm extractor:" in r.stderr and "kept convo's own knowledge" in r.stderr
    finally:
        stub.close()
