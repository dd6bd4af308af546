"""Scale-out: ``ingest --jobs`` on a folder of mbox files and on one large mbox (split into
byte ranges), the Parquet export of the 1M store (``convo export --to parquet``), and DuckDB
over the export beside convo's JSONL scan. ``BENCH_SCALE_ONLY=parquet`` runs only the
Parquet part."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import bench_email
import bench_query

TITLE = "Scale-out (--jobs, Parquet)"
MBOX_FILES = 8
MBOX_MESSAGES = 25_000  # each
BIG_MBOX_MESSAGES = 700_000  # about 1 GB in one file (100 MB under --quick)
STORE = 1_000_000

DUCKDB = """
import sys, duckdb
duckdb.sql(
    f"SELECT count(*) FROM read_parquet('{sys.argv[1]}/**/*.parquet', hive_partitioning = true)"
    " WHERE speaker LIKE '%Quinn%'"
).fetchall()
"""


def _mbox_folder(n: int):
    def generate(path: Path) -> None:
        path.mkdir(parents=True)
        one = path / "one.mbox.tmp"
        bench_email.generate(n)(one)
        for i in range(MBOX_FILES):
            shutil.copy(one, path / f"list-{i}.mbox")
        one.unlink()

    return generate


def _jobs(h, folder: Path, out: Path) -> None:
    mb = sum(p.stat().st_size for p in folder.iterdir()) / (1 << 20)
    label = f"convo ingest ({MBOX_FILES} mbox files, {mb:.0f} MB)"
    one = h.time_cmd(f"{label} --jobs 1", [h.convo(), "ingest", str(folder), "--jobs", "1",
                     "-o", str(out), "--quiet"], repeat=3)  # fmt: skip
    two = h.time_cmd(f"{label} --jobs 2", [h.convo(), "ingest", str(folder), "--jobs", "2",
                     "-o", str(out), "--quiet"], repeat=3)  # fmt: skip
    h.compare("`ingest --jobs 2` vs `--jobs 1`, 8 mbox files", two, one, target=1.7, faster=True,
              quiet=True)  # fmt: skip


def _big_mbox(h, path: Path, out: Path) -> None:
    mb = path.stat().st_size / (1 << 20)
    label = f"convo ingest (one {mb:,.0f} MB mbox)"
    argv = [h.convo(), "ingest", str(path), "-o", str(out), "--quiet", "--jobs"]
    # Alternately, 3 rounds: one run each was a coin toss of the machine's load.
    m = h.alternate({f"{label} --jobs 1": [*argv, "1"], f"{label} --jobs 2": [*argv, "2"]})
    one, two = m.values()
    h.compare(f"`ingest --jobs 2` vs `--jobs 1`, one {mb:,.0f} MB mbox", two, one, target=1.6,
              faster=True, quiet=True)  # fmt: skip


def _parquet(h, store: Path, n: int, out: Path) -> None:
    def export() -> list[str]:  # the command, validation and both cores included
        shutil.rmtree(out, ignore_errors=True)
        return [h.convo(), "export", "--to", "parquet", "-o", str(out), str(store)]

    m = h.time_cmd(f"Parquet export of {n:,} records", export(), repeat=1)
    rate = n / m.median
    cpu = m.cpu_median or 0.0
    h.row(
        "Parquet export rate (wall; CPU time beside it)",
        f"{rate:,.0f} records/s ({m.median:.1f} s wall, {cpu:.1f} s CPU: "
        f"{n / max(cpu, 1e-9):,.0f} records per CPU-second)",
        "≥ 100,000 records/s",
        rate >= 100_000,
    )
    h.section.rows[-1].quiet = True  # two cores at work: holds on an idle machine
    h.memory("Parquet export peak memory", m, limit_mb=200)
    duck = h.time_cmd("DuckDB: count of speaker Quinn over the Parquet export",
                      [sys.executable, "-c", DUCKDB, str(out)], repeat=3)  # fmt: skip
    scan = h.time_cmd("convo query -s Quinn over the JSONL store",
                      [h.convo(), "query", "-s", "Quinn", str(store)], repeat=3)  # fmt: skip
    h.compare("DuckDB over Parquet vs convo's JSONL scan (same question)", duck, scan)


def run(h) -> None:
    if os.environ.get("BENCH_SCALE_ONLY") == "parquet":  # while working on the export
        h.section.title = "Scale-out: Parquet export"  # beside the full section, not over it
        n = h.scale(STORE)
        store = h.data(f"query-{n}.jsonl", lambda p: bench_query.generate(p, n))
        _parquet(h, store, n, Path(h.data("scale-out", lambda p: p.mkdir())) / "parquet")
        return
    folder = h.data(
        f"scale-mbox-{MBOX_FILES}x{h.scale(MBOX_MESSAGES)}", _mbox_folder(h.scale(MBOX_MESSAGES))
    )
    work = Path(h.data("scale-out", lambda p: p.mkdir()))
    _jobs(h, folder, work / "jobs.jsonl")
    big = h.data(f"scale-mbox-1x{h.scale(BIG_MBOX_MESSAGES)}.mbox",
                 bench_email.generate(h.scale(BIG_MBOX_MESSAGES)))  # fmt: skip
    _big_mbox(h, big, work / "big.jsonl")
    n = h.scale(STORE)
    store = h.data(f"query-{n}.jsonl", lambda p: bench_query.generate(p, n))
    _parquet(h, store, n, work / "parquet")
    h.note(
        "One large mbox or JSONL file is cut into byte ranges on record starts (about 64 MB "
        "each) and the ranges are read in the pool; the output is byte for byte that of "
        "--jobs 1 (tests/scale/test_split.py). WhatsApp and IRC files are read whole."
    )
