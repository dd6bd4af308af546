"""The query scan on several cores gives what the one-core scan gives, byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from convo.pipeline.inputs import RawFile
from convo.query import parallel
from convo.query.filters import Filters
from convo.query.scan import Selector

ROOT = Path(__file__).resolve().parents[2]


def _records(n: int) -> list[dict]:
    out = []
    for i in range(n):
        out.append(
            {
                "textChunks": [
                    f"budget line {i}" if i % 3 else f"plain {i}",
                    "ß" if i % 7 == 0 else "x",
                ],
                "metadata": {
                    "speaker": ["Quinn Smith <q@x.org>", "Wen Li", "Zoë"][i % 3],
                    "listeners": ["Bob"] if i % 2 else [],
                },
                "tags": ["urgent"] if i % 5 == 0 else ["budget-review"],
                "timestamp": f"20{10 + i % 15}-01-01T00:00:00Z",
                "source_id": f"t#{i}",
                "id": f"id-{i}",
                "format": "jsonl",
                **({"subject": "Budget talk"} if i % 11 == 0 else {}),
                **({"extra": {"timestamp": "1999-01-01T00:00:00Z"}} if i % 13 == 0 else {}),
            }
        )
    return out


def _data(n: int = 4000) -> bytes:
    lines = [orjson.dumps(r) for r in _records(n)]
    lines[10] = b'{"textChunks": ["budget broken'  # invalid JSON
    lines[200] = b'["Quinn", 2]'  # not an object
    lines[300] = b"   "  # blank
    lines[400] = lines[400].replace(b"budget", b"b\\u0075dget")  # an escape
    lines[500] = b"not json at all"
    body = b"\n".join(lines[:1000]) + b"\r\n" + b"\n".join(lines[1000:])
    return b"\xef\xbb\xbf" + body + b'\n{"textChunks": ["torn budget'


CASES = [
    {},
    {"speakers": ["Quinn"]},
    {"speakers": ["wen li"]},
    {"tags": ["urgent"]},
    {"since": "2018-01-01T00:00:00Z"},
    {"until": "2015-01-01T00:00:00Z"},
    {"texts": ["budget"]},
    {"texts": ["budget talk"]},
    {"speakers": ["Quinn"], "since": "2018-01-01T00:00:00Z", "texts": ["budget"]},
    {"regexes": ["line 1\\d"]},
]


def _scan(path: Path, filters: dict, *, cores: bool, need_record: bool):
    sel = Selector(Filters(**filters))
    sel.parallel = 1 if cores else None
    errors: list = []
    got = [
        (m.raw, m.line, m.where)
        for batch in sel.batches(
            [RawFile(str(path))],
            lambda e, line: errors.append((e.where, e.what, line.number, line.raw)),
            need_record,
        )
        for m in batch
    ]
    return got, errors, sel.lines_read()


@pytest.mark.parametrize("filters", CASES, ids=lambda f: repr(f)[:50])
def test_parallel_scan_equals_one_core(tmp_path, monkeypatch, filters):
    monkeypatch.setattr(parallel, "RANGE", 40_000)  # many ranges on a small file
    path = tmp_path / "s.jsonl"
    path.write_bytes(_data())
    for need_record in (False, True):
        one = _scan(path, filters, cores=False, need_record=need_record)
        many = _scan(path, filters, cores=True, need_record=need_record)
        assert many == one
        assert one[1], "the bad lines are reported"


@pytest.mark.parametrize(
    "query",
    ['(from:quinn tag:urgent) OR (from:"wen li" -tag:urgent)', "NOT from:zoë budget",
     'from:quinn OR to:bob date:2018..'],
)  # fmt: skip
def test_parallel_query_language_equals_one_core(tmp_path, monkeypatch, query):
    """A query-language tree (its check a closure) reaches the workers and decides there
    as it does on one core; the raw-byte decider never answers for it."""
    from convo.query.language import parse
    from convo.query.tree import to_filters

    monkeypatch.setattr(parallel, "RANGE", 40_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(_data())
    filters = to_filters(parse(query))
    assert filters.tree is not None
    results = []
    for cores in (False, True):
        sel = Selector(filters)
        sel.parallel = 1 if cores else None
        results.append([m.raw for m in sel.select_parts([RawFile(str(path))])])
    expected = []
    for line in _data().removeprefix(b"\xef\xbb\xbf").splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and filters.tree.check(record):
            expected.append(line.rstrip(b"\r"))
    assert results[0] == results[1] == expected


def test_parallel_limit_and_reverse(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "RANGE", 40_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(_data())
    for limit, reverse in ((5, False), (5, True), (None, True)):
        results = []
        for cores in (False, True):
            sel = Selector(Filters(speakers=["Quinn"], limit=limit, reverse=reverse))
            sel.parallel = 1 if cores else None
            results.append([m.raw for m in sel.select_parts([RawFile(str(path))])])
        assert results[0] == results[1] and results[0]


def test_cli_output_and_warnings_equal_one_core(tmp_path, monkeypatch):
    from convo.cli.app import app

    monkeypatch.setattr(parallel, "RANGE", 40_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(_data())
    outs = []
    for floor in (1 << 40, 1):
        monkeypatch.setattr(parallel, "MIN_PARALLEL", floor)
        r = CliRunner().invoke(app, ["query", "--text", "budget", "-f", "jsonl", str(path)])
        outs.append((r.exit_code, r.stdout_bytes, r.stderr_bytes))
    assert outs[0] == outs[1]
    assert b":11:" in outs[0][2] and outs[0][1]


def test_closed_pipe_ends_the_workers_quietly(tmp_path):
    """``convo query ... | head -1`` on a file scanned on several cores: one line, exit 0,
    no traceback, and no worker left behind."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_query

    small = tmp_path / "small.jsonl"
    bench_query.generate(small, 2_000)
    data = small.read_bytes()
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:  # above parallel.MIN_PARALLEL
        for _ in range(parallel.MIN_PARALLEL // len(data) + 1):
            f.write(data)
    assert path.stat().st_size > parallel.MIN_PARALLEL
    proc = subprocess.Popen(
        [sys.executable, "-m", "convo", "query", "--since", "2010-01-01", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert first.startswith(b'{"textChunks"')
    assert b"Traceback" not in err


def test_the_first_lines_of_a_big_file_are_read_on_one_core(tmp_path, monkeypatch):
    """`convo list -n 5` (every line, a limit) on a file above MIN_PARALLEL read 16 MiB
    ranges in a process pool and waited for them: 1 s for five lines. It reads on one
    core and stops; the output and warnings are the scan's. A filter keeps the pool."""
    from convo.cli.app import app

    monkeypatch.setattr(parallel, "RANGE", 40_000)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 1)
    path = tmp_path / "s.jsonl"
    path.write_bytes(_data())
    started: list[str] = []
    pooled = parallel.ParallelScan.batches

    def batches(self, *a, **kw):
        started.append(self.path)
        return pooled(self, *a, **kw)

    monkeypatch.setattr(parallel.ParallelScan, "batches", batches)
    for n in ("1", "5", "12"):
        outs = []
        for floor in (1, 1 << 40):  # as now, and as a file below MIN_PARALLEL reads
            monkeypatch.setattr(parallel, "MIN_PARALLEL", floor)
            r = CliRunner().invoke(app, ["list", "-n", n, "-f", "jsonl", str(path)])
            outs.append((r.exit_code, r.stdout_bytes, r.stderr_bytes))
        assert outs[0] == outs[1] and len(outs[0][1].splitlines()) == int(n)
    assert started == []
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 1)
    r = CliRunner().invoke(app, ["list", "-n", "5", "-s", "Quinn", "-f", "jsonl", str(path)])
    assert r.exit_code == 1 and started == [str(path)]  # (exit 1: the file's bad lines)
