"""What a read command says of the rejects it did not show, and what an export says it
wrote, on a store holding lines that are not records and records that do not validate."""

from __future__ import annotations

import orjson

from convo.cli.app import app

from .helpers import record, write_store


def _store(tmp_path, bad: int):
    store = write_store(tmp_path / "s.jsonl", 3)
    with store.open("ab") as f:
        for n in range(bad):  # a record by the one record rule, refused by validation
            f.write(orjson.dumps(record(10 + n, timestamp=12345)) + b"\n")
    return store


def test_an_export_counts_what_it_wrote_not_what_it_read(runner, tmp_path):
    store = _store(tmp_path, 25)
    out = tmp_path / "x.csv"
    r = runner.invoke(app, ["--store", str(store), "export", "--to", "csv", "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert f"exported 3 messages -> {out}" in r.output  # was 28: the rejected 25 too
    assert "(25 rejected)" in r.output


def test_a_read_command_points_at_what_it_offers(runner, tmp_path):
    store = write_store(tmp_path / "s.jsonl", 3)
    with store.open("ab") as f:
        f.write(b"".join(b'{"not": "a record %d"}\n' % n for n in range(30)))
    r = runner.invoke(app, ["--store", str(store), "list", "-f", "jsonl"])
    assert r.exit_code == 1
    assert "10 of 30 not shown (30 rejected); `convo validate` names every bad line" in r.stderr
    assert "--warnings FILE keeps" not in r.stderr  # list has no --warnings
    r = runner.invoke(app, ["validate", str(store)])
    assert r.stderr.count("rejected:") == 30
