"""Speed code earns its keep (issue 41, item 5): each fast path of convo against its plain
twin, in the same run, with the noise of that very measurement beside the gain.

Each pair runs once to warm up (and to compare outputs), then alternately ``ROUNDS`` times (in this process, CPU time of the process;
the command-line pair as whole processes); the gain is the median of the per-round
ratios plain/fast, and the noise is half the spread of those ratios over their median.
A gain no larger than its noise (``gain - 1 <= noise``) is marked **no**: such a path
does not earn its place. Each pair's outputs are compared (the same matches, the same
values): a fast path is only a fast path if it answers what its twin answers.

The scan's shortcuts (``query/linescan.py``, ``query/canonical.py``,
``query/rawtext.py``, ``query/prefilter.py``) are measured on the load control's
100k-record file (bench_query.py's generator, convo's layout): the plan as convo builds
it, against the same plan with that one shortcut taken out (``_without``); each range is
scanned by ``query.parallel.scan_range``, in this process.
"""

from __future__ import annotations

import dataclasses
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TITLE = "Fast paths against their plain twins"
ROUNDS = 5


def _pair(fast: Callable[[], Any], plain: Callable[[], Any], rounds: int = ROUNDS):
    """(gain, noise, fast s, plain s, same): CPU seconds per call, alternating."""
    ratios, tf, tp = [], [], []
    same = fast() == plain()  # also the warm-up: first calls import and compile
    for _ in range(rounds):
        c0 = time.process_time()
        a = fast()
        c1 = time.process_time()
        b = plain()
        c2 = time.process_time()
        same = same and a == b
        tf.append(c1 - c0)
        tp.append(c2 - c1)
        ratios.append((c2 - c1) / max(c1 - c0, 1e-9))
    gain = statistics.median(ratios)
    noise = (max(ratios) - min(ratios)) / 2 / gain
    return gain, noise, statistics.median(tf), statistics.median(tp), same


def _row(h, name: str, where: str, result) -> None:
    gain, noise, tf, tp, same = result
    earns = gain - 1 > noise * gain  # the gain stands out of the pair's own spread
    h.row(
        f"{name} (`{where}`)",
        f"{gain:.2f}× (fast {tf * 1000:.0f} ms, plain {tp * 1000:.0f} ms CPU; noise ±{noise:.0%})"
        + ("" if same else "; OUTPUTS DIFFER"),
        "gain > noise, same output",
        earns and same,
    )
    print(f"  {name}: {gain:.2f}× ±{noise:.0%} same={same}", flush=True)


# the scan ------------------------------------------------------------------------------


def _without(plan: Any, shortcut: str) -> Any:
    """``plan`` (a ``query.compiled.Compiled``) with one shortcut taken out."""
    from convo.query.canonical import Decider
    from convo.query.filters import Filters

    if shortcut == "decider":  # raw-byte decisions per line: every candidate parsed
        off = Decider(Filters())
        return dataclasses.replace(plan, decider=off, text_only=None, time_only=False)
    if shortcut == "time_block":  # a block's timestamps in one pass
        return dataclasses.replace(plan, time_only=False)
    if shortcut in ("text_block", "phrase_block"):  # a block's text word or phrase at once
        return dataclasses.replace(plan, text_only=None)
    if shortcut == "leaf":  # a negated leaf a block at a time: every line parsed
        return dataclasses.replace(plan, leaf=None)
    if shortcut == "fields":  # format:/role: a block at a time: lines parsed
        return dataclasses.replace(plan, fields=None)
    if shortcut == "values":  # format:'s lines found on the raw bytes: the needle scan
        import copy

        fields = copy.copy(plan.fields)
        fields.values = None
        return dataclasses.replace(plan, fields=fields)
    if shortcut == "needles":  # the byte prefilter: every line looked at
        return dataclasses.replace(plan, starts=None, narrows=False)
    raise ValueError(shortcut)


def _scanner(path: Path, filters: Any, shortcut: str | None) -> Callable[[], list[int]]:
    from convo.core.ranges import split
    from convo.query import parallel
    from convo.query.blocks import BLOCK
    from convo.query.compiled import Compiled

    st = os.stat(path)
    ranges = split(str(path), 4, min_size=1 << 20)
    plan = Compiled.of(filters)
    if shortcut:
        plan = _without(plan, shortcut)
    tasks = [parallel.Task(filters, r, (st.st_dev, st.st_ino), False, BLOCK) for r in ranges]

    def scan() -> list[int]:
        """The selected lines as merged byte spans (start, end, start, end...): the
        runs themselves may be cut elsewhere (a block scan ends its runs at its block's
        end, a line-by-line scan does not) for the same lines."""
        parallel._compiled.clear()
        parallel._compiled[repr(filters)] = plan  # what ``scan_range`` uses
        out: list[int] = []
        for task in tasks:
            runs = parallel.scan_range(task).runs
            for start, end in zip(runs.starts, runs.ends, strict=True):
                if out and out[-1] + 1 >= start:  # adjacent: the newline between them
                    out[-1] = end
                else:
                    out += (start, end)
        return out

    return scan


SCANS = [
    # A speaker or a tag alone is parsed (query/canonical.py: their decisions gained
    # nothing measurable alone); decided beside another kind:
    (
        "raw-byte decisions, `--speaker Alice --tag security`",
        {"speakers": ["Alice"], "tags": ["security"]},
        "decider",
    ),
    (
        "raw-byte decisions, `--speaker Quinn --since 2018-01-01`",
        {"speakers": ["Quinn"], "since": "2018-01-01T00:00:00Z"},
        "decider",
    ),
    ("block timestamps, `--since 2018-01-01`", {"since": "2018-01-01T00:00:00Z"}, "time_block"),
    ("raw-byte decisions, `--since 2018-01-01`", {"since": "2018-01-01T00:00:00Z"}, "decider"),
    ("block text word, `--text budget`", {"texts": ["budget"]}, "text_block"),
    ("raw-byte decisions, `--text budget`", {"texts": ["budget"]}, "decider"),
    ('block phrase, `"forecast quarter"`', {"query": '"forecast quarter"'}, "phrase_block"),
    ("needle prefilter, `--tag urgent`", {"tags": ["urgent"]}, "needles"),
    ("needle prefilter, `--speaker Quinn`", {"speakers": ["Quinn"]}, "needles"),
    ("negated leaf a block at a time, `NOT tag:urgent`", {"query": "NOT tag:urgent"}, "leaf"),
    ("negated leaf a block at a time, `NOT from:Quinn`", {"query": "NOT from:Quinn"}, "leaf"),
    ("format/role a block at a time, `role:user`", {"query": "role:user"}, "fields"),
    ("format/role a block at a time, `NOT format:slack`", {"query": "NOT format:slack"}, "fields"),
    ("format: lines on the raw bytes, `format:slack`", {"query": "format:slack"}, "values"),
]
WHERE = {
    "decider": "query/canonical.py Decider",
    "time_block": "query/linescan.py time_block",
    "text_block": "query/rawtext.py TextWord.block",
    "phrase_block": "query/rawphrase.py TextPhrase.block",
    "needles": "query/prefilter.py Needles",
    "leaf": "query/rawleaf.py LeafBlock",
    "fields": "query/rawfields.py FieldBlock",
    "values": "query/rawfields.py ValueLines",
}


def _scans(h, path: Path) -> None:
    from convo.query.filters import Filters
    from convo.query.language import parse
    from convo.query.tree import to_filters

    for name, kw, shortcut in SCANS:
        filters = to_filters(parse(kw["query"])) if "query" in kw else Filters(**kw)
        fast, plain = _scanner(path, filters, None), _scanner(path, filters, shortcut)
        _row(h, name, WHERE[shortcut], _pair(fast, plain))


RARE = [
    ("rare bytes in one Hyperscan pass, `format:slack`", {"query": "format:slack"}),
    ("rare bytes in one Hyperscan pass, `--since 2018-01-01`", {"since": "2018-01-01T00:00:00Z"}),
]


def _rare(h, path: Path, layout: str) -> None:
    """The workers' one pass for the rare bytes (``query/rarebytes.py``) against the
    regexes it stands in for: the same scan with the engine unloaded for the plain twin
    (``scan_range`` turns it on whenever it is loaded)."""
    from convo.query import rarebytes
    from convo.query.filters import Filters
    from convo.query.language import parse
    from convo.query.tree import to_filters

    if not rarebytes.load():
        h.row(
            "rare bytes in one Hyperscan pass", "hyperscan cannot run here", "gain > noise", False
        )
        return
    for name, kw in RARE:
        filters = to_filters(parse(kw["query"])) if "query" in kw else Filters(**kw)
        fast = _scanner(path, filters, None)

        def plain(fast: Callable[[], list[int]] = fast) -> list[int]:
            engine = rarebytes._engine
            rarebytes._engine = False
            try:
                return fast()
            finally:
                rarebytes._engine = engine

        _row(h, f"{name}, {layout}", "query/rarebytes.py", _pair(fast, plain))


# records -------------------------------------------------------------------------------


def _records(path: Path, n: int) -> list[dict[str, Any]]:
    import orjson

    with open(path, "rb") as f:
        return [orjson.loads(line) for _, line in zip(range(n), f, strict=False)]


def _validation(h, records: list[dict[str, Any]]) -> None:
    from convo.core.errors import RecordError
    from convo.core.record import parse_record
    from convo.output.exporters.common import as_record, plainly_valid

    def fast() -> int:
        return sum(1 for r in records if plainly_valid(r))

    def plain() -> int:
        ok = 0
        for r in records:
            try:
                parse_record(dict(as_record(r)), "x")
            except RecordError:
                continue
            ok += 1
        return ok

    _row(h, "record validation, convo's layout", "output/exporters/common.py plainly_valid",
         _pair(fast, plain))  # fmt: skip


def _arrow(h, records: list[dict[str, Any]]) -> None:
    from convo.output.exporters.parquet import _exact_batch, arrow_batch, arrow_schema

    schema = arrow_schema()
    size = 5_000
    chunks = [records[i : i + size] for i in range(0, len(records), size)]
    _row(
        h,
        "Parquet batches, whole columns in Arrow",
        "output/exporters/parquet.py arrow_batch",
        _pair(
            lambda: [arrow_batch(c, schema) for c in chunks],
            lambda: [_exact_batch(c, schema) for c in chunks],
        ),
    )


def _arrow_json(h, control: Path) -> None:
    """A range of the control file through round 1 of the parallel Parquet export
    (select, validate, convert, spill), blocks read by Arrow's JSON reader or not."""
    import shutil
    import tempfile

    from convo.analysis import parallel
    from convo.core.ranges import Range
    from convo.output.exporters import parquet_parallel as pp
    from convo.query.filters import Filters

    task = parallel.RangeTask(Range(str(control), 0, control.stat().st_size), Filters())
    setup, pp._worker_setup = pp._worker_setup, lambda: None  # keep pandas importable here

    def spill(fast: bool) -> Any:
        pp.FAST = fast
        root = Path(tempfile.mkdtemp(prefix="convo-bench-"))
        try:
            (root / "spill").mkdir()
            got = pp.spill_range(
                pp.SpillTask(task, 0, str(root), str(root / "spill"), ("format", "month"))
            )
            return got.count, got.lines, got.reports, sorted(got.runs)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    try:
        result = _pair(lambda: spill(True), lambda: spill(False))
    finally:
        pp.FAST, pp._worker_setup = True, setup
    _row(h, "Parquet export round 1, blocks read by Arrow's JSON reader",
         "output/exporters/arrow_json.py json_batch", result)  # fmt: skip


def _timestamps(h, records: list[dict[str, Any]]) -> None:
    from convo.core.timestamps import format_timestamp_utc, normalize_timestamp, parse_datetime

    stamps = [r["timestamp"] for r in records]
    _row(
        h,
        "canonical timestamps, a range check only",
        "core/timestamps.py normalize_timestamp",
        _pair(
            lambda: [normalize_timestamp(s) for s in stamps],
            lambda: [format_timestamp_utc(parse_datetime(s)) for s in stamps],
        ),
    )


def _email(h, mbox: Path) -> None:
    from types import SimpleNamespace

    from convo.importers.email.convert import _parse_stdlib
    from convo.importers.email.fast import parse_fast

    ctx = SimpleNamespace(options=SimpleNamespace(encoding=None))  # read: the encoding
    data = mbox.read_bytes()
    messages = [m for m in re.split(rb"\n(?=From )", data) if m.strip()]
    messages = [m.split(b"\n", 1)[1] for m in messages]  # the envelope line off

    def shape(parsed: Any) -> Any:
        if parsed is None:
            return None
        h_, body = parsed
        return sorted(h_), body.text()

    _row(
        h,
        "mail messages, hand-written parser",
        "importers/email/fast.py parse_fast",
        _pair(
            lambda: [shape(parse_fast(m)) for m in messages],
            lambda: [shape(_parse_stdlib(m, ctx, "x")) for m in messages],
            rounds=3,
        ),
    )


def _cli(h, path: Path) -> None:
    """The read command without typer (``cli/fast.py``) against typer's parse."""
    fast = "import sys; sys.argv[0] = 'convo'; from convo.cli.app import main; main()"
    typer = "import sys; sys.argv[0] = 'convo'; from convo.cli.group import app; app()"
    args = ["query", "--speaker", "Quinn", "-f", "jsonl", str(path)]
    outs = [
        subprocess.run([sys.executable, "-c", code, *args], capture_output=True).stdout
        for code in (fast, typer)
    ]
    m = h.alternate(
        {
            "convo query (cli/fast.py)": [sys.executable, "-c", fast, *args],
            "convo query (typer)": [sys.executable, "-c", typer, *args],
        },
        rounds=9,
    )
    a, b = m.values()
    # judged on CPU time: a whole process's wall time on a loaded machine is mostly waiting
    ratios = [y / x for x, y in zip(a.cpu, b.cpu, strict=True)]
    gain = statistics.median(ratios)
    noise = (max(ratios) - min(ratios)) / 2 / gain
    wall = b.median / a.median
    same = outs[0] == outs[1]
    h.row(
        "read command parsed without typer, whole command (`cli/fast.py`)",
        f"{gain:.2f}× CPU ({statistics.median(a.cpu) * 1000:.0f} vs "
        f"{statistics.median(b.cpu) * 1000:.0f} ms; noise ±{noise:.0%}), {wall:.2f}× wall"
        + ("" if same else "; OUTPUTS DIFFER"),
        "gain > noise, same output",
        gain - 1 > noise * gain and same,
    )


def run(h) -> None:
    import bench_email
    import bench_query

    n = h.scale(100_000)
    control = h.data(f"control-{n}.jsonl", lambda p: bench_query.generate(p, n))
    small = h.data("fastpaths-2000.jsonl", lambda p: bench_query.generate(p, 2_000))
    mbox = h.data("fastpaths-2000.mbox", bench_email.generate(2_000))
    _scans(h, control)
    copy = h.data(f"control-{n}-dumps.jsonl", lambda p: bench_query.foreign(control, p))
    _rare(h, control, "convo's layout")
    _rare(h, copy, "`json.dumps` copy")
    records = _records(control, n)
    _validation(h, records)
    _arrow(h, records)
    _arrow_json(h, control)
    _timestamps(h, records)
    del records
    _email(h, mbox)
    _cli(h, small)
    h.note(
        f"Scans over the {n:,}-record control file (convo's layout, one process; the rare "
        "bytes' rows also on its `json.dumps` copy, bench_query.py's `foreign`); records "
        "from it for validation, Arrow batches and timestamps; 2,000 generated mail "
        "messages (bench_email.py); the command-line pair on a 2,000-record file, 9 "
        f"alternating rounds of whole processes. {ROUNDS} alternating rounds otherwise, "
        "CPU time of this process. The gain is plain/fast; noise is half the spread of "
        "the per-round ratios."
    )
    h.note(
        "Removed for gaining less than their noise (measured 2026-12-03 at load 7-11): "
        "a speaker or a tag decided alone on raw bytes (five runs: `--speaker` 0.85-1.09x, "
        "`--tag` 0.87-1.00x; now parsed, decided only beside another kind, "
        "query/canonical.py); the WebVTT timing-line shortcut (1.6-1.9x per timing line, "
        "but a whole 20,000-cue import 1.08x, quartiles 1.00-1.17x over 40 alternating "
        "rounds; importers/transcripts/cues.py parse_timing)."
    )
