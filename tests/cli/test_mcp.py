"""``convo mcp`` through the ``mcp`` package's own stdio client, on the sample store.

One session (the network blocked in the server process by a ``sitecustomize`` that
refuses every non-local connection) lists the tools, calls each one and the thread
resource, and makes the calls that must fail; the tests check what came back against
the command line (``convo show``, ``convo query``). The bounds (results, text pieces,
the scan limit) are checked on ``convo.mcp.calls.Archive`` in this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import orjson
import pytest
from mcp import Client, StdioServerParameters  # the [mcp] extra, in dev: `make test` has it
from tests.conftest import ROOT, SAMPLE_DATA
from typer.testing import CliRunner

from convo.cli.app import app

WRITE_WORDS = ("rm", "remove", "delete", "tag", "write", "append", "ingest", "compact", "save")
BLOCK_NETWORK = """
import socket

_connect = socket.socket.connect


def _local_only(self, address, *args):
    if self.family != socket.AF_UNIX:
        raise OSError("network blocked by tests/cli/test_mcp.py")
    return _connect(self, address, *args)


socket.socket.connect = _local_only
socket.socket.connect_ex = _local_only
"""
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"text": "jwt tokens", "limit": 5}),
    ("search", {"text": "jwt", "speaker": ["bob"], "mode": "hybrid", "limit": 3}),
    ("query", {"query": "from:alice", "sort": "time", "limit": 3}),
    ("get_message", {"id": "<auth-2@example.org>"}),
    ("get_thread", {"id": "<auth-1@example.org>"}),
    ("get_thread", {"id": "<auth-2@example.org>", "window": 1}),
    ("people", {"limit": 5}),
    ("stats", {"query": "format:mbox"}),
    ("knowledge", {"top": 3}),
]
FAILING: list[tuple[str, dict[str, Any]]] = [
    ("query", {"query": "from:"}),
    ("get_message", {"id": "no-such-id"}),
    ("get_thread", {"id": "no-such-thread"}),
    ("query", {"limit": 500}),
    ("no_such_tool", {}),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mcp") / "store.jsonl"
    r = CliRunner().invoke(app, ["--store", str(path), "ingest", "--save", str(SAMPLE_DATA)])
    assert r.exit_code in (0, 1), r.output
    r = CliRunner().invoke(app, ["--store", str(path), "index"])
    assert r.exit_code == 0, r.output
    return path


def _env(tmp: Path) -> dict[str, str]:
    (tmp / "sitecustomize.py").write_text(BLOCK_NETWORK)
    paths = [str(tmp), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def _session(store: Path, env: dict[str, str], calls, failing) -> dict[str, Any]:
    out: dict[str, Any] = {"results": [], "errors": []}

    async def main() -> None:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "convo", "--store", str(store), "mcp"], env=env
        )
        async with Client(server) as client:
            out["tools"] = (await client.list_tools()).tools
            for i, (name, args) in enumerate(calls):
                started = time.monotonic()
                result = await client.call_tool(name, args)
                if i == 0:
                    out["first_call"] = time.monotonic() - started
                out["results"].append(result)
            for name, args in failing:
                out["errors"].append(await client.call_tool(name, args))
            if calls:
                uri = "convo://thread/" + quote("<auth-1@example.org>", safe="")
                out["resource"] = await client.read_resource(uri)
                out["templates"] = await client.list_resource_templates()

    anyio.run(main)
    return out


@pytest.fixture(scope="module")
def session(store, tmp_path_factory) -> dict[str, Any]:
    env = _env(tmp_path_factory.mktemp("offline"))
    return _session(store, env, CALLS, FAILING)


def _cli(store: Path, *argv: str) -> list[dict[str, Any]]:
    r = CliRunner().invoke(app, ["--store", str(store), *argv])
    assert r.exit_code == 0, r.output
    return [orjson.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]


def _data(result) -> Any:
    assert not result.is_error, result.content[0].text
    # the same JSON as structured content and as text, for clients that read only text
    assert orjson.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_the_network_is_blocked_in_the_server(tmp_path):
    probe = "import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)"
    r = subprocess.run([sys.executable, "-c", probe], env=_env(tmp_path), capture_output=True)
    assert b"network blocked" in r.stderr


def test_tools_are_listed_with_schemas_and_none_writes(session):
    tools = {t.name: t for t in session["tools"]}
    assert set(tools) == {"search", "query", "get_message", "get_thread", "people", "stats",
                          "knowledge"}  # fmt: skip
    for name, tool in tools.items():
        assert not any(w in name.split("_") for w in WRITE_WORDS)
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert len(tool.description or "") > 40
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.destructive_hint is False
    assert tools["search"].input_schema["required"] == ["text"]
    modes = tools["search"].input_schema["properties"]["mode"]["enum"]
    assert modes == ["fts", "semantic", "hybrid"]
    assert tools["query"].input_schema["properties"]["limit"]["maximum"] == 100


def test_search_by_meaning_without_vectors_says_so(session):
    # The sample store has no vectors: keyword results with a note, or (a Store.search
    # that takes mode) one line saying why meaning cannot be had.
    result = session["results"][1]
    if result.is_error:
        assert result.content[0].text.startswith("convo: error: ")
    else:
        filtered = _data(result)
        assert filtered["mode"] == "fts" and "note" in filtered
        assert all("bob" in m["speaker"].lower() for m in filtered["messages"])


def test_every_tool_answers_on_the_sample_store(session):
    results = session["results"]
    found = [_data(r) for r in results[:1] + results[2:]]
    search, query, message, thread, window, people, stats, knowledge = found
    assert search["mode"] == "fts" and search["messages"]
    first = search["messages"][0]
    assert set(first) >= {"id", "speaker", "listeners", "time", "tags", "thread", "subject",
                          "text", "score", "source_id"}  # fmt: skip
    assert [m["time"] for m in query["messages"]] == sorted(m["time"] for m in query["messages"])
    assert query["more"] is True and len(query["messages"]) == 3
    assert message["id"] == "<auth-2@example.org>" and "JWT" in message["text"]
    assert message["source_id"].endswith("team.mbox#msg-2") and "truncated" not in message
    assert [m["id"] for m in thread["messages"]][:2] == ["<auth-1@example.org>",
                                                        "<auth-2@example.org>"]  # fmt: skip
    assert [m["id"] for m in window["messages"]] == [m["id"] for m in thread["messages"]][:3]
    assert people["people"] and {"name", "messages", "heard"} <= set(people["people"][0])
    assert stats["messages"] == 5
    assert knowledge["messages"] == 144 and len(knowledge["entities"]) <= 3


def test_first_call_answers_within_a_second(session):
    assert session["first_call"] <= 1.0


def test_search_ids_resolve_with_show_thread(session, store):
    for hit in _data(session["results"][0])["messages"]:
        shown = _cli(store, "show", "-f", "jsonl", "--thread", hit["thread"] or hit["id"])
        assert hit["id"] in [r["id"] for r in shown]


def test_get_thread_is_show_in_time_order(session, store):
    thread = _data(session["results"][4])
    shown = _cli(store, "show", "-f", "jsonl", "--sort", "time", "--thread", thread["thread"])
    assert [m["id"] for m in thread["messages"]] == [r["id"] for r in shown]
    assert thread["total"] == len(shown)


def test_thread_resource_is_get_thread(session):
    (contents,) = session["resource"].contents
    assert contents.mime_type == "application/json"
    assert orjson.loads(contents.text) == _data(session["results"][4])
    (template,) = session["templates"].resource_templates
    assert template.uri_template == "convo://thread/{id}"


def test_errors_are_the_command_lines_one_line(session, store):
    bad_query, unknown_id, unknown_thread, too_many, no_tool = session["errors"]
    for result in session["errors"]:
        assert result.is_error and len(result.content) == 1
        text = result.content[0].text
        assert text.startswith("convo: error: ") and "\n" not in text and "Traceback" not in text
    r = CliRunner().invoke(app, ["--store", str(store), "query", "from:"])
    assert r.exit_code == 2 and bad_query.content[0].text == r.stderr.strip()
    assert "no message with id 'no-such-id'" in unknown_id.content[0].text
    assert "no thread or message with id 'no-such-thread'" in unknown_thread.content[0].text
    assert "'limit' must be from 1 to 100" in too_many.content[0].text
    assert "no tool 'no_such_tool'" in no_tool.content[0].text


def test_a_missing_store_is_a_tool_error(tmp_path):
    missing = tmp_path / "nothing-here.jsonl"
    out = _session(missing, _env(tmp_path), [], [("search", {"text": "x"}), ("stats", {})])
    for result in out["errors"]:
        assert result.is_error
        assert result.content[0].text.startswith(
            f"convo: error: {missing}: no store yet; create it"
        )
    assert not missing.exists()  # read-only: nothing created


def test_bad_scan_limit_is_a_usage_error():
    r = CliRunner().invoke(app, ["mcp", "--scan-limit", "lots"])
    assert r.exit_code == 2 and "--scan-limit 'lots' is not a size" in r.stderr
