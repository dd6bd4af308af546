"""``convo serve``: the JSON API over ``Store`` calls, and the page in a real browser."""

from __future__ import annotations

import http.client
import json
import os
import threading
from pathlib import Path
from urllib.parse import quote

import orjson
import pytest
from tests.web.browser import browser_page

from convo.cli.app import app
from convo.store import Store
from convo.web.api import Api
from convo.web.server import make_server

SAMPLE = Path(__file__).parents[2] / "sample_data"
XSS = "<img src=x onerror=alert(1)>"
HOSTILE = [
    {"textChunks": ["Zebra plans for the offsite?"], "metadata": {"speaker": "Mallory", "listeners": ["Bob"]},
     "tags": ["offsite"], "timestamp": "2024-05-01T09:00:00Z", "source_id": "x.json#1", "id": "z1",
     "format": "slack", "thread": "zt"},
    {"textChunks": [f"zebra {XSS} <script>alert(2)</script>"], "metadata": {"speaker": XSS, "listeners": []},
     "tags": [], "timestamp": "2024-05-01T09:05:00Z", "source_id": "x.json#2", "id": "z2",
     "format": "slack", "thread": "zt", "replyTo": "z1", "subject": XSS},
    {"textChunks": ["Zebra crossing, then."], "metadata": {"speaker": "Bob", "listeners": []},
     "tags": [], "timestamp": "2024-05-01T09:10:00Z", "source_id": "x.json#3", "id": "z3",
     "format": "slack", "thread": "zt", "replyTo": "z2"},
]  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from typer.testing import CliRunner

    folder = tmp_path_factory.mktemp("serve")
    path = folder / "s.jsonl"
    extra = folder / "hostile.jsonl"
    extra.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in HOSTILE))
    for src in (SAMPLE, extra):
        r = CliRunner().invoke(app, ["--store", str(path), "ingest", "--save", str(src)])
        assert r.exit_code in (0, 1), r.output
    return path


@pytest.fixture(scope="module")
def base(store):
    server = make_server(Api(Store(store)), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _get(base, path, method="GET", host=None):
    port = int(base.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Host": host} if host else {}
    conn.request(method, path, headers=headers)
    res = conn.getresponse()
    return res.status, dict(res.getheaders()), res.read()


def _cli_ids(runner, store, *words):
    r = runner.invoke(app, ["--store", str(store), "search", *words, "-f", "jsonl"])
    assert r.exit_code == 0, r.output
    return [orjson.loads(line)["id"] for line in r.stdout.splitlines()]


@pytest.mark.parametrize("q", ["jwt", "from:alice tag:security", "zebra"])
def test_search_api_gives_the_ids_of_convo_search(runner, store, base, q):
    status, _, body = _get(base, "/api/search?q=" + quote(q))
    assert status == 200
    hits = orjson.loads(body)["hits"]
    assert [h["id"] for h in hits] == _cli_ids(runner, store, *q.split())
    assert all(isinstance(piece, list) for h in hits for piece in h["snippet"])


def test_thread_message_person_facets(store, base):
    thread = orjson.loads(_get(base, "/api/thread?id=zt")[2])
    assert [m["id"] for m in thread["messages"]] == [r["id"] for r in Store(store).thread("zt")]
    assert [m["depth"] for m in thread["messages"]] == [0, 1, 2]
    mail = orjson.loads(_get(base, "/api/thread?id=" + quote("<auth-1@example.org>"))[2])
    assert mail["messages"][0]["view"]["family"] == "email"
    assert dict(mail["messages"][0]["view"]["headers"])["Subject"]
    cue = next(Store(store).query("format:vtt", limit=1))
    talk = orjson.loads(_get(base, "/api/thread?id=" + quote(cue["id"]))[2])["messages"]
    assert len(talk) > 1 and all(m["view"]["offset"].startswith("+00:") for m in talk)
    msg = orjson.loads(_get(base, "/api/message?id=z2")[2])["message"]
    assert msg["textChunks"][0].startswith("zebra <img")  # data, escaped by the page
    person = orjson.loads(_get(base, "/api/person?name=" + quote("Alice Smith"))[2])
    assert person["messages"] > 0 and person["topics"]
    assert "Alice Smith <alice@example.org>" in person["aliases"]
    # no name: an error, not every message with a speaker (147 of the sample's 159)
    assert _get(base, "/api/person?name=")[0] == 400
    facets = orjson.loads(_get(base, "/api/facets")[2])
    assert facets["speakers"][0]["messages"] >= facets["speakers"][-1]["messages"]
    assert facets["meaning"] is False


def test_errors_and_read_only(base):
    assert _get(base, "/api/message?id=nope")[0] == 404
    assert _get(base, "/api/nope")[0] == 404
    status, _, body = _get(base, "/api/search?q=" + quote('"unclosed'))
    assert status in (200, 400) and body.startswith(b"{")
    assert orjson.loads(_get(base, "/api/search?q=zebra&mode=meaning")[2])["error"]
    assert orjson.loads(_get(base, "/api/search?q=zebra&mode=semantic")[2])["error"]
    status, _, body = _get(base, "/api/search?q=zebra&mode=vectors")  # never a silent keyword
    assert status == 400 and b"unknown search mode" in body
    fts = orjson.loads(_get(base, "/api/search?q=zebra&mode=fts")[2])["hits"]
    assert [h["id"] for h in fts] == [
        h["id"] for h in orjson.loads(_get(base, "/api/search?q=zebra")[2])["hits"]
    ]
    assert _get(base, "/api/search?q=x", method="POST")[0] == 405
    assert _get(base, "/", host="evil.example:80")[0] == 421  # DNS rebinding
    status, headers, _ = _get(base, "/thread?id=zt")
    assert status == 200
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "unsafe-inline" not in headers["Content-Security-Policy"]


def _watch(events, base):
    assert events.console_errors == []
    assert events.dialogs == []
    assert [u for u in events.requests if not u.startswith(base + "/")] == []


def test_browser_search_then_thread(runner, store, base):
    with browser_page() as (page, events):
        page.goto(base + "/")
        page.wait_for_selector("#chips .chip")
        page.fill("#q", "jwt")
        page.press("#q", "Enter")
        page.wait_for_selector("#hits li")
        shown = page.eval_on_selector_all("#hits li", "els => els.map(e => e.dataset.id)")
        assert shown == _cli_ids(runner, store, "jwt")
        assert page.locator("#hits mark").count() > 0
        page.fill("#q", "")
        page.click("#chips .chip[data-term='tag:security']")
        page.wait_for_url("**/search?q=tag%3Asecurity*")
        page.wait_for_selector("#hits li")
        shown = page.eval_on_selector_all("#hits li", "els => els.map(e => e.dataset.id)")
        assert shown == _cli_ids(runner, store, "tag:security")
        page.fill("#q", "zebra")
        page.press("#q", "Enter")
        page.wait_for_selector("#hits li")
        page.click("#hits li[data-id='z2'] a.open")
        page.wait_for_selector("#thread article")
        order = page.eval_on_selector_all("#thread article", "els => els.map(e => e.dataset.id)")
        assert order == ["z1", "z2", "z3"]
        assert "target" in (page.get_attribute("#thread article[data-id='z2']", "class") or "")
        body = page.inner_text("#thread article[data-id='z2'] .body")
        assert XSS in body and "<script>alert(2)</script>" in body
        assert page.locator("main img, main script").count() == 0
        assert XSS in page.inner_text("#thread article[data-id='z2'] .speaker")
    _watch(events, base)


def test_browser_person_and_message_links(base):
    with browser_page() as (page, events):
        page.goto(base + "/message?id=z2")
        page.wait_for_selector("article.msg")
        page.click("text=open its thread")
        page.wait_for_selector("#thread article")
        page.goto(base + "/person?name=" + quote(XSS))
        page.wait_for_selector("h1")
        assert page.inner_text("h1") == XSS
        assert page.locator("main img").count() == 0
        page.goto(base + "/person?name=" + quote("Alice Smith"))
        page.wait_for_selector("#topics li")
        assert page.locator("svg.timeline rect").count() > 0
    _watch(events, base)


def test_search_by_meaning_when_the_store_has_vectors(runner, store, tmp_path):
    import shutil

    copy = tmp_path / "e.jsonl"
    shutil.copy(store, copy)
    r = runner.invoke(app, ["--store", str(copy), "embed"])
    assert r.exit_code == 0, r.output
    api = Api(Store(copy))
    assert api.facets({})["meaning"] is True
    hits = api.search({"q": "token authentication format:slack", "mode": "meaning"})["hits"]
    assert hits and {h["format"] for h in hits} == {"slack"}
    assert hits[0]["score"] >= hits[-1]["score"]


def test_serve_command(runner, store, tmp_path):
    import socket
    import subprocess
    import sys

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = str(taken.getsockname()[1])
        r = runner.invoke(app, ["--store", str(store), "serve", "--port", port])
        assert r.exit_code == 2
        assert "cannot listen on 127.0.0.1:" in r.stderr
    finally:
        taken.close()
    cmd = [sys.executable, "-m", "convo", "--store", str(store), "serve", "--host", "127.0.0.2",
           "--port", "0"]  # fmt: skip
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        warning = proc.stderr.readline()
        assert "warning: serving on 127.0.0.2" in warning
        assert "serving http://127.0.0.2:" in proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_person_with_a_people_file_counts_every_alias(store):
    from convo.core.people import People

    people = People.of({"people": {"alice": {"name": "Alice Smith", "names": ["Alice"]}}})
    alone = Api(Store(store)).person({"name": "Alice Smith"})
    merged = Api(Store(store, people=people)).person({"name": "Alice Smith"})
    assert merged["messages"] > alone["messages"]
    assert "Alice" in merged["aliases"]


def test_serve_takes_store_and_utc_as_mcp_does(store, tmp_path):
    """`convo serve --store PATH` (as `convo mcp --store`, `convo index --store`) serves
    that store, with the global option and $CONVO_STORE unset; --utc reads date: terms
    as UTC; a bad --tz is one usage error before anything listens."""
    import subprocess
    import sys
    import urllib.request

    env = {k: v for k, v in os.environ.items() if k != "CONVO_STORE"}
    env["XDG_DATA_HOME"] = str(tmp_path)  # the default store does not exist
    bad = subprocess.run(
        [sys.executable, "-m", "convo", "serve", "--store", str(store), "--tz", "Mars/Base"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "Mars/Base" in bad.stderr and "Traceback" not in bad.stderr
    cmd = [sys.executable, "-m", "convo", "serve", "--store", str(store), "--utc", "--port", "0"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert f"(store {store.resolve()})" in line, line
        url = line.split()[2].rstrip("/")
        with urllib.request.urlopen(f"{url}/api/facets", timeout=30) as answer:
            assert json.load(answer)["messages"] > 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
