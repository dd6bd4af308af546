"""Outputs written inside a folder being read, on the path that cuts large files into
byte ranges across workers (``--jobs 2``): the ``--warnings`` file is never read as an
input, and ``-o`` or ``--rejects`` never replace a file the run read
(``convo.core.guard``). The plain path is covered by ``test_warnings_log.py`` and
``test_rejects_file.py``; the range readers here are ``pipeline.split``'s."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app

GOOD = b'{"textChunks": ["m%d"], "metadata": {"speaker": "A"}, "timestamp": "2024-01-01T00:00:00Z"}'
PART = 8192


@pytest.fixture
def ranged(monkeypatch):
    """Ranges of ``PART`` bytes (a large file, scaled down), and every range read counted."""
    from convo.pipeline import split

    monkeypatch.setattr(split, "PART_BYTES", PART)
    seen: list[str] = []
    real = split.split_units

    def spy(units, *args, **kwargs):
        out = real(units, *args, **kwargs)
        seen.extend(u.path for u in out if u.part is not None)
        return out

    monkeypatch.setattr(split, "split_units", spy)
    import convo.pipeline.parallel as parallel

    monkeypatch.setattr(parallel, "split_units", spy)
    return seen


def _folder(tmp_path, n: int = 3000):
    folder = tmp_path / "in"
    folder.mkdir()
    lines = [b"{broken %d" % i if i % 7 == 0 else GOOD % i for i in range(1, n + 1)]
    (folder / "big.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return folder


def _ingest(runner, folder, *outputs: str):
    return runner.invoke(app, ["ingest", str(folder), "-j", "2", *outputs])


def test_the_warnings_file_in_the_folder_is_not_read(runner, tmp_path, ranged):
    folder = _folder(tmp_path)
    log, out = folder / "w.jsonl", tmp_path / "o.jsonl"
    r = _ingest(runner, folder, "-o", str(out), "--warnings", str(log))
    assert r.exit_code == 1, r.output
    assert ranged.count(str(folder / "big.jsonl")) > 4  # the range path was taken
    lines = [orjson.loads(x) for x in log.read_bytes().splitlines()]
    assert [x for x in lines if x["file"] != str(folder / "big.jsonl")] == [
        {
            "kind": "rejected",
            "file": str(log),
            "line": None,
            "message": "is the --warnings file, written by this run: not read; "
            "name a file outside the folders read",
            "where": str(log),
        }
    ]
    assert len(lines) == 3000 // 7 + 1
    assert len(out.read_bytes().splitlines()) == 3000 - 3000 // 7


def test_outputs_of_an_earlier_run_in_the_folder_are_not_replaced(runner, tmp_path, ranged):
    """A first run leaves ``-o`` and ``--rejects`` in the folder it read; the second reads
    them (the output is large enough to be cut into ranges too) and refuses to replace
    them: an input would be lost."""
    folder = _folder(tmp_path)
    out, rej = folder / "o.jsonl", folder / "r.jsonl"
    first = _ingest(runner, folder, "-o", str(out), "--rejects", str(rej))
    assert first.exit_code == 1, first.output
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert len(kept["o.jsonl"]) > PART and len(kept["r.jsonl"]) > PART
    ranged.clear()
    for outputs in (["-o", str(out)], ["-o", str(tmp_path / "x.jsonl"), "--rejects", str(rej)]):
        r = _ingest(runner, folder, *outputs)
        assert r.exit_code == 2, r.output
        assert "refusing to write over an input being read" in r.output
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == kept
    assert str(out) in ranged  # the earlier output was itself read by ranges
