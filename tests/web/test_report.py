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


class StoreReads:
    """A spy on ``open`` of one file: how many times its bytes were read whole."""

    def __init__(self, path: Path):
        self.path, self.size, self.opened, self.read = str(path), path.stat().st_size, 0, []

    def install(self, monkeypatch) -> None:
        import builtins

        real = builtins.open

        def spy(file, *args, **kwargs):
            f = real(file, *args, **kwargs)
            if str(file) != self.path:
                return f
            self.opened += 1
            self.read.append(0)
            n = len(self.read) - 1
            read, readinto = f.read, getattr(f, "readinto", None)

            def counted(*a):
                data = read(*a)
                self.read[n] += len(data)
                return data

            def counted_into(buf):
                got = readinto(buf)
                self.read[n] += got or 0
                return got

            f.read = counted
            if readinto is not None:
                f.readinto = counted_into
            return f

        monkeypatch.setattr(builtins, "open", spy)

    def whole(self) -> int:
        return sum(1 for n in self.read if n >= self.size)


@pytest.mark.parametrize("query", ["from:alice OR format:slack", "date:2024..", "id:{id}"])
def test_an_indexed_selection_is_read_once(runner, store, tmp_path, monkeypatch, query):
    """The index answers the query: the store is not read whole (three times before),
    the records come from one lookup, and the page is the one the three-pass scan makes
    of the same file named as an input."""
    first = json.loads(
        runner.invoke(app, ["--store", str(store), "list", "-n", "1", "-f", "jsonl"]).stdout
    )
    query = query.format(id=first["id"])
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(store.read_bytes())
    scanned = runner.invoke(app, ["report", str(copy), query, "--tz", "UTC", "-o", "-"])
    assert scanned.exit_code == 0, scanned.output
    spy = StoreReads(store)
    spy.install(monkeypatch)
    r = runner.invoke(
        app, ["--store", str(store), "report", query, "--tz", "UTC", "-o", "-", "--explain"]
    )
    monkeypatch.undo()
    assert r.exit_code == 0, r.output
    assert "plan: index" in r.stderr
    assert spy.whole() == 0, spy.read
    assert spy.opened <= 2, spy.read  # the index's freshness check, then one lookup
    assert r.stdout == scanned.stdout


def test_a_scanned_selection_is_read_three_times(runner, store, tmp_path, monkeypatch):
    """The spy sees the scan's passes (so the test above counts what it claims to)."""
    spy = StoreReads(store)
    spy.install(monkeypatch)
    r = runner.invoke(app, ["--store", str(store), "report", "-q", "the", "-o", "-"])
    monkeypatch.undo()
    assert r.exit_code == 0, r.output
    assert spy.whole() >= 3, spy.read


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
