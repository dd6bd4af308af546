"""``convo report``: one offline page whose numbers are ``convo stats``'s, the same bytes
for the same input and zone."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from convo.cli.app import app

SAMPLE = Path(__file__).parents[2] / "sample_data"


class Tables(HTMLParser):
    """The cells of every ``<table id=...>``, by id."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.current: str | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.current = dict(attrs)["id"]
            self.tables[self.current] = []
        elif tag == "tr" and self.current:
            self.tables[self.current].append([])
        elif tag == "td" and self.current:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None and self.current:
            self.tables[self.current][-1].append("".join(self.cell))
            self.cell = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from typer.testing import CliRunner

    path = tmp_path_factory.mktemp("store") / "s.jsonl"
    r = CliRunner().invoke(app, ["--store", str(path), "ingest", "--save", str(SAMPLE)])
    assert r.exit_code in (0, 1), r.output
    return path


def _report(runner, store, out, *args):
    r = runner.invoke(app, ["--store", str(store), "report", *args, "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out.read_text()


def _rows(table):
    return [[c for c in row] for row in table if row]


@pytest.mark.parametrize("query", [[], ["from:alice OR format:slack"]])
def test_numbers_are_stats(runner, store, tmp_path, query):
    page = _report(runner, store, tmp_path / "r.html", *query, "--tz", "UTC")
    stats = json.loads(
        runner.invoke(app, ["--store", str(store), "stats", *query, "-f", "json"]).stdout
    )
    p = Tables()
    p.feed(page)
    totals = dict(_rows(p.tables["totals"]))
    assert int(totals["messages"]) == stats["messages"]
    assert int(totals["words"]) == stats["words"]
    for name in ("speakers", "formats", "tags"):
        got = [
            [r[0], int(r[1]), int(r[2]), r[3] or None, r[4] or None] for r in _rows(p.tables[name])
        ]
        want = [[r["name"], r["messages"], r["words"], r["first"], r["last"]] for r in stats[name]]
        assert got == want
    knowledge = json.loads(
        runner.invoke(
            app, ["--store", str(store), "knowledge", *query, "-f", "json", "--top", "15"]
        ).stdout
    )
    pairs = [[r[0], r[1], int(r[2])] for r in _rows(p.tables["pairs"])]
    assert pairs == [[k["speaker"], k["listener"], k["messages"]] for k in knowledge["pairs"]]


def test_offline_and_byte_identical(runner, store, tmp_path):
    a = _report(runner, store, tmp_path / "a.html", "--tz", "Asia/Tokyo")
    b = _report(runner, store, tmp_path / "b.html", "--tz", "Asia/Tokyo")
    assert a == b
    assert not re.search(r"https?://", a)
    assert "<script" not in a
    assert "default-src 'none'" in a
    c = _report(runner, store, tmp_path / "c.html", "--tz", "America/New_York")
    assert c != a  # the weekday x hour grid moves with the zone


def test_names_are_escaped(runner, tmp_path):
    bad = '{"textChunks":["hi"],"metadata":{"speaker":"<img src=x onerror=alert(1)>","listeners":["Bob"]},"tags":["<b>"],"timestamp":"2024-01-01T10:00:00Z","source_id":"x#1","id":"1","format":"convo","thread":"t","subject":"<script>alert(1)</script>"}\n'
    src = tmp_path / "bad.jsonl"
    src.write_text(bad)
    out = tmp_path / "r.html"
    r = runner.invoke(app, ["report", str(src), "-o", str(out)])
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert "<img" not in page and "<script" not in page and "<b>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_stdin_is_refused(runner, tmp_path):
    r = runner.invoke(app, ["report", "-", "-o", str(tmp_path / "r.html")], input="{}\n")
    assert r.exit_code == 2
    assert "stdin" in r.stderr


def test_opens_in_chromium_without_console_errors(store, tmp_path, runner):
    from tests.web.browser import browser_page

    out = tmp_path / "r.html"
    _report(runner, store, out, "--tz", "UTC")
    with browser_page() as (page, events):
        page.goto(out.as_uri())
        assert page.locator("svg.chart").count() >= 4
        assert page.locator("#speakers tbody tr").count() > 3
    assert events.console_errors == []
    assert [u for u in events.requests if not u.startswith("file://")] == []
