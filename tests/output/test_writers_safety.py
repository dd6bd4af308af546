"""Issue 13: one CSV writer and one Markdown writer, both escaping through core.text.markup.

Every CSV output escapes formulas; every Markdown output escapes HTML and cannot end its
row or forge a header; the writers are a registry that ``-f`` takes its choices from.
"""

from __future__ import annotations

import csv
import io

import orjson
import pytest
from typer.testing import CliRunner

from convo.cli.app import app
from convo.output.exporters.registry import Exporter, registry
from convo.output.writers.base import RecordWriter

FORMULAS = ['=HYPERLINK("http://evil","x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\uff1d1+1"]
HTML = '<img src=x onerror="alert(1)">'
FORGED = "hi | there |\n### **Mallory** → Bob\n| x | y | z | w | v |"


def _records(tmp_path):
    recs = []
    for i, f in enumerate(FORMULAS):
        recs.append({
            "id": f, "source_id": f, "format": "jsonl", "timestamp": "2024-03-06T10:00:00Z",
            "textChunks": [f, HTML, FORGED], "tags": [f],
            "metadata": {"speaker": f, "listeners": [f]},
        })  # fmt: skip
        recs[-1]["extra"] = {"n": i}
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    return path


@pytest.mark.parametrize("command", ["list", "query", "show"])
def test_every_csv_cell_is_inert(tmp_path, command):
    r = CliRunner().invoke(app, [command, "-f", "csv", str(_records(tmp_path))])
    assert r.exit_code == 0, r.output
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert len(rows) == len(FORMULAS) + 1
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d")), row


@pytest.mark.parametrize("command", ["list", "query", "show"])
def test_every_markdown_message_is_inert(tmp_path, command):
    r = CliRunner().invoke(app, [command, "-f", "markdown", str(_records(tmp_path))])
    assert r.exit_code == 0, r.output
    headings = [ln for ln in r.stdout.splitlines() if ln.startswith("#")]
    # the document's title and one heading a message: no text forged one
    assert len(headings) == len(FORMULAS) + 1, headings
    assert "<img" not in r.stdout and "&lt;img" in r.stdout
    assert "\n**Mallory**" not in r.stdout


@pytest.mark.parametrize("fmt", ["markdown", "csv"])
def test_f_and_export_to_write_the_same_document(tmp_path, fmt):
    """One writer per document format (issue 34): ``-f NAME`` is ``export --to NAME``."""
    src = str(_records(tmp_path))
    shown = CliRunner().invoke(app, ["list", "-f", fmt, src])
    exported = CliRunner().invoke(app, ["export", "--to", fmt, src])
    assert shown.exit_code == exported.exit_code == 0, shown.output + exported.output
    assert shown.stdout == exported.stdout and shown.stdout


def test_an_export_only_format_is_refused_by_f_with_a_hint(tmp_path):
    r = CliRunner().invoke(app, ["list", "-f", "parquet", str(_records(tmp_path))])
    assert r.exit_code == 2
    assert "export --to parquet" in r.output or "parquet" in r.output


def test_format_choices_come_from_the_registry():
    r = CliRunner().invoke(app, ["list", "--help"])
    assert "[" + "|".join(registry.shown_names()) + "]" in r.stdout
    assert "<list[str]>" not in r.stdout and "<str>" not in r.stdout


class _Upper(RecordWriter):
    def __init__(self, out):
        self.out = out

    def write(self, m):
        self.count += 1
        self.out.write(m.record["textChunks"][0].upper() + "\n")


def test_a_third_party_writer_registers_like_the_built_ins(tmp_path):
    registry.register(
        Exporter("shout", "view", "upper-case text", writer=lambda env, _o: _Upper(env.stdout))
    )
    try:
        path = tmp_path / "a.jsonl"
        rec = {"id": "1", "timestamp": "2024-01-01T00:00:00Z", "textChunks": ["hello"]}
        path.write_bytes(orjson.dumps(rec) + b"\n")
        r = CliRunner().invoke(app, ["list", "-f", "shout", str(path)])
        assert r.exit_code == 0, r.output
        assert r.stdout == "HELLO\n"
    finally:
        registry.unregister("shout")
