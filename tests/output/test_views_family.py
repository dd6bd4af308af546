"""Issue 13: views choose their layout by the format's family, never by format names."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from convo.cli.app import app
from convo.importers.registry import Format, registry


def _write(tmp_path, fmt):
    rec = {
        "id": "m1", "format": fmt, "timestamp": "2024-03-06T10:00:00Z",
        "subject": "Quarterly plan", "textChunks": ["See the attached plan."],
        "metadata": {"speaker": "Alice <alice@x.org>", "listeners": ["Bob <bob@x.org>"]},
        "extra": {"to": ["Bob <bob@x.org>"], "attachments": [{"name": "plan.pdf"}]},
    }  # fmt: skip
    path = tmp_path / "m.jsonl"
    path.write_bytes(orjson.dumps(rec) + b"\n")
    return path


def test_a_third_party_email_format_is_shown_as_email(tmp_path):
    fmt = Format(
        "acme-mail", "email", "ACME mail archive", ("*.acme",), lambda s: 0, lambda s, c: iter(())
    )
    registry.register(fmt)
    try:
        r = CliRunner().invoke(app, ["show", "--utc", str(_write(tmp_path, "acme-mail"))])
    finally:
        registry.unregister("acme-mail")
    assert r.exit_code == 0, r.output
    assert "From:    Alice <alice@x.org>" in r.stdout
    assert "Subject: Quarterly plan" in r.stdout
    assert "Files:   plan.pdf" in r.stdout


def test_an_unknown_format_gets_the_generic_view(tmp_path):
    r = CliRunner().invoke(app, ["show", "--utc", str(_write(tmp_path, "nobody-knows"))])
    assert r.exit_code == 0, r.output
    assert "From:" not in r.stdout
    assert "Alice <alice@x.org> → Bob <bob@x.org>" in r.stdout
