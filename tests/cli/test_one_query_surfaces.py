"""One query, every surface: the command line, the ``Store`` API, the MCP server's tools
and ``convo serve``'s JSON API give the same ids in the same order.

``tests/cli/test_one_query.py`` holds the commands to one answer; this holds the other
ways in to the commands' answer: ``convo query`` against ``Store.query`` and MCP
``query``; ``convo search`` against ``Store.search``, MCP ``search`` and ``/api/search``;
``convo show --thread`` against MCP ``get_thread`` and ``/api/thread`` (which also name
the same conversation); and the servers open the store the read commands open (the
config file's ``store`` and ``tz`` too).
"""

from __future__ import annotations

import orjson
import pytest
from tests.cli.test_one_query import PEOPLE
from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app
from convo.mcp.calls import Archive
from convo.store import Store
from convo.web.api import Api

QUERIES = [
    "from:alice", "tag:security", "-tag:system", "tag:urgent OR tag:security",
    "format:mbox", "role:assistant", "jwt", "jwt -from:bob", "date:2024-03",
    "from:ally", "NOT (from:alice OR format:slack)",
]  # fmt: skip
SEARCHES = ["jwt", "token refresh", "from:alice tag:security", "jwt -from:bob", "sessions"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("surfaces")
    (folder / "people.toml").write_text(PEOPLE)  # test_one_query's: Ally is Alice
    return saved_store(folder / "store.jsonl", SAMPLE_DATA), folder / "people.toml"


def _cli(store, *argv) -> list[str]:
    path, people = store
    r = CliRunner().invoke(app, ["--store", str(path), "--people", str(people), *argv])
    assert r.exit_code == 0, (argv, r.output)
    return [orjson.loads(x)["id"] for x in r.stdout.splitlines() if x.startswith("{")]


def _store(store) -> Store:
    from convo.core.people import People

    path, people = store
    return Store(path, tz="UTC", people=People.load(str(people)))


@pytest.mark.parametrize("q", QUERIES)
def test_query_through_cli_store_and_mcp(store, q):
    cli = _cli(store, "query", "--tz", "UTC", "-f", "jsonl", "--", q)
    lib = [r["id"] for r in _store(store).query(q)]
    got = Archive(_store(store)).call("query", {"query": q, "limit": 100})
    assert cli == lib and cli[:100] == [m["id"] for m in got["messages"]]
    assert got["more"] == (len(cli) > 100)


@pytest.mark.parametrize("q", SEARCHES)
def test_search_through_cli_store_mcp_and_web(store, q):
    cli = _cli(store, "search", "--tz", "UTC", "-f", "jsonl", "--", q)
    lib = [h.record["id"] for h in _store(store).search(q)]
    mcp = Archive(_store(store)).call("search", {"text": q})["messages"]
    web = Api(_store(store)).search({"q": q})["hits"]
    assert cli == lib == [m["id"] for m in mcp] == [h["id"] for h in web]
    assert cli  # the table holds a hit for each


def test_a_thread_through_cli_mcp_and_web(store):
    """By the thread's id: the same messages in time order. By one of its messages' ids
    (``Store.thread``'s other way in, which ``thread:ID`` does not take: it selects that
    message), both servers give the same messages and name the same conversation."""
    thread = "<auth-1@example.org>"
    cli = _cli(store, "show", "-f", "jsonl", "--thread", thread)
    assert len(cli) > 1
    for ident in (thread, cli[-1]):
        mcp = Archive(_store(store)).call("get_thread", {"id": ident})
        web = Api(_store(store)).thread({"id": ident})
        assert cli == [m["id"] for m in mcp["messages"]] == [m["id"] for m in web["messages"]]
        assert mcp["thread"] == web["thread"] == thread


def test_a_message_without_a_thread_names_its_file_everywhere(tmp_path):
    path = tmp_path / "store.jsonl"
    cues = [{"textChunks": [f"cue {i}"], "metadata": {"speaker": "A", "listeners": []},
             "tags": [], "timestamp": f"2024-03-06T10:0{i}:00Z", "id": f"c{i}",
             "source_id": f"/m/standup.vtt#cue-{i}", "format": "vtt"} for i in range(1, 4)]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in cues))
    mcp = Archive(Store(path)).call("get_thread", {"id": "c2"})
    web = Api(Store(path)).thread({"id": "c2"})
    assert mcp["thread"] == web["thread"] == "/m/standup.vtt"
    assert [m["id"] for m in web["messages"]] == ["c1", "c2", "c3"]


def test_web_meaning_is_convo_search_by_meaning(store, tmp_path):
    """``/api/search?mode=meaning`` is ``convo search --mode semantic``: the terms filter,
    the other words (not their FTS5 match expression) are embedded."""
    import shutil

    copy = tmp_path / "e.jsonl"
    shutil.copy(store[0], copy)
    r = CliRunner().invoke(app, ["--store", str(copy), "embed"])
    assert r.exit_code == 0, r.output
    for q in ("token authentication format:slack", "what did we decide about login"):
        r = CliRunner().invoke(
            app, ["--store", str(copy), "search", "--mode", "semantic", "-f", "jsonl", q]
        )
        assert r.exit_code == 0, r.output
        cli = [orjson.loads(x)["id"] for x in r.stdout.splitlines()]
        web = Api(Store(copy)).search({"q": q, "mode": "meaning"})["hits"]
        assert cli and cli == [h["id"] for h in web]
    argv = ["--store", str(copy), "similar", "--explain", "-f", "jsonl", cli[0], "format:slack"]
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 0, r.output
    assert "plan: search (meaning); filters: scan (no index)" in r.stderr  # a copy, unindexed


def test_servers_and_maintenance_open_the_configured_store(tmp_path, monkeypatch):
    """The config file's ``store`` (and ``tz``) is the store of ``index`` and of both
    servers, as it is of ``query``: not the default store beside it."""
    from convo.cli.options import served_store, store_path
    from convo.cli.runtime import state

    path = tmp_path / "configured.jsonl"
    saved_store(path, SAMPLE_DATA)
    config = tmp_path / "config.toml"
    config.write_text(f'store = "{path}"\ntz = "Europe/Berlin"\n')
    monkeypatch.setenv("CONVO_CONFIG", str(config))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CONVO_STORE", raising=False)
    r = CliRunner().invoke(app, ["index"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "configured.jsonl.index.sqlite").exists()
    assert state["store"] == str(path)  # as the callback set it for `index`
    assert store_path(None, None) == path.resolve()
    served = served_store(None, None, None, False)
    assert served.real == path.resolve() and served.tz == "Europe/Berlin"
    r = CliRunner().invoke(app, ["serve", "--tz", "Nowhere/Else"])
    assert r.exit_code == 2 and "bad --tz" in r.stderr


def test_search_shows_times_in_the_zone_list_shows_them(store):
    """``--tz`` (or the config file's) is the zone of the search table's times, as of
    every read command's; under each hit, the id ``convo show --thread`` takes."""
    path, _ = store
    tty = {"CONVO_FORCE_TTY": "1", "COLUMNS": "200"}
    ids = _cli(store, "search", "-f", "jsonl", "jwt")
    got = {}
    for tz in ("Asia/Tokyo", "America/Los_Angeles"):
        argv = ["--store", str(path), "search", "--tz", tz, "-n", "1", "jwt"]
        r = CliRunner().invoke(app, argv, env=tty)
        assert r.exit_code == 0, r.output
        got[tz] = r.stdout
    record = next(Store(path).query(f"id:{ids[0]}"))
    from convo.core.timestamps import get_zone
    from convo.output.views.common import record_time

    for tz, out in got.items():
        assert record_time(record, zone=get_zone(tz)) in out
    assert (record.get("thread") or "") in got["Asia/Tokyo"]


@pytest.mark.parametrize("q", ["", "tag:security", "from:ally"])
def test_people_and_stats_through_cli_and_mcp(store, q):
    """MCP ``people`` and ``stats`` are ``convo people`` and ``convo stats``: the same
    library calls over the same selection, with the people file."""
    words = ["--", q] if q else []
    path, people = store
    base = ["--store", str(path), "--people", str(people)]

    def cli(*argv: str):
        r = CliRunner().invoke(app, [*base, *argv, "-f", "json", *words])
        assert r.exit_code == 0, r.output
        return orjson.loads(r.stdout)

    archive = Archive(_store(store))
    named = archive.call("people", {"query": q, "limit": 100})["people"]
    assert named == cli("people")["identities"][:100]
    assert archive.call("stats", {"query": q}) == cli("stats")


@pytest.mark.parametrize(
    ("words", "said"),
    [(["jwt"], "plan: search (fts); filters: none"),
     (["jwt", "from:alice"], "plan: search (fts); filters: index (exact: from)"),
     (["tag:security"], "plan: search (newest first); filters: index (exact: tag)"),
     (["jwt", "--since", "2024-03"], "plan: search (fts); filters: index (exact: date)")],
)  # fmt: skip
def test_search_explains_its_plan_as_every_read_command(store, words, said):
    path, _ = store
    CliRunner().invoke(app, ["--store", str(path), "index"])
    r = CliRunner().invoke(
        app, ["--store", str(path), "search", "--explain", "-f", "jsonl", *words]
    )
    assert r.exit_code == 0, r.output
    assert said in r.stderr
