"""``make bench``: run every ``benchmarks/bench_*.py`` and rewrite BENCHMARKS.md.

Each module defines ``TITLE`` and ``run(h: Harness)``. It generates its inputs with
``h.data(name, generate)`` (cached under bench-data/), times whole commands with
``h.time_cmd`` (median of several runs, peak memory of the process tree) and states each claim with
``h.compare`` against an anchor measured in the same run (jq, the standard library,
webvtt-py). Nothing here asserts: figures go to BENCHMARKS.md with the target beside them.

    python benchmarks/run.py [--write BENCHMARKS.md] [--only NAME] [--quick]

The report is rewritten after each section, so a run cut short keeps what it measured.
With ``--only``, the sections of the existing report that were not run are kept below
the new ones; every section says when it was measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "bench-data"
BIN = Path(sys.executable).parent


@dataclass
class Measure:
    label: str
    seconds: list[float]
    peak_rss_mb: float
    note: str = ""
    cpu: list[float] = field(default_factory=list)  # user+sys seconds of each run

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu) if self.cpu else 0.0


@dataclass
class Row:
    claim: str
    value: str
    target: str
    met: bool | None


@dataclass
class Section:
    title: str
    measures: list[Measure] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class TreeMemory:
    """Peak memory of a process and all its descendants, sampled while it runs.

    ``ru_maxrss`` from ``wait4`` is the peak of the largest single process, which hides
    the workers of a multi-process command. This samples the whole tree and keeps the
    largest sum of proportional set sizes (PSS: pages shared by forked workers counted
    once in total, not once per worker), falling back to RSS where PSS cannot be read.
    ``ru_maxrss`` is not used: a child forked from a large benchmark runner counts the
    runner's pages until it execs, so it reports the runner's size, not the command's.

    Reading PSS costs the kernel a walk of the page tables: every 20 ms it took 13% of a
    core (10.5 s of a 81 s ``ingest --jobs 2``), which a command using both cores of a
    2-core machine then lacks. So the interval starts at 20 ms and grows with the run
    (a hundredth of the time elapsed, at most ``MAX_INTERVAL``): short commands are
    sampled as finely as before, a minute-long one every quarter second (~1% of a core).
    """

    MAX_INTERVAL = 0.25

    def __init__(self, pid: int, interval: float = 0.02):
        self.pid = pid
        self.peak_kb = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)
        self._thread.start()

    def stop(self) -> float:
        """Stop sampling; the peak in MB."""
        self._done.set()
        self._thread.join()
        return self.peak_kb / 1024

    def _run(self, interval: float) -> None:
        start = time.perf_counter()
        wait = interval
        while not self._done.wait(wait):
            total = sum(_pss_kb(p) for p in _tree(self.pid))
            self.peak_kb = max(self.peak_kb, total)
            elapsed = time.perf_counter() - start
            wait = min(self.MAX_INTERVAL, max(interval, elapsed / 100))


def _tree(root: int) -> list[int]:
    """``root`` and its descendants (Linux /proc; elsewhere just ``root``)."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        try:  # cheap: the kernel lists a thread's children, no walk over /proc
            with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
                todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


class Harness:
    def __init__(self, quick: bool = False):
        self.quick = quick
        self.sections: list[Section] = []
        DATA.mkdir(exist_ok=True)
        self.data_dir = DATA

    @property
    def section(self) -> Section:
        return self.sections[-1]

    def scale(self, n: int) -> int:
        """Input sizes shrink 10x under --quick (for trying a benchmark out)."""
        return max(1, n // 10) if self.quick else n

    def data(self, name: str, generate: Callable[[Path], None]) -> Path:
        """A generated input, made once and cached under bench-data/."""
        path = DATA / name
        if not path.exists():
            tmp = path.with_suffix(path.suffix + ".tmp")
            generate(tmp)
            tmp.rename(path)
        return path

    def convo(self) -> str:
        return str(BIN / "convo")

    def time_cmd(
        self,
        label: str,
        argv: Sequence[str] | str,
        *,
        repeat: int = 3,
        stdin: Path | None = None,
        shell: bool = False,
        env: dict[str, str] | None = None,
        note: str = "",
    ) -> Measure:
        """Run a command ``repeat`` times (output discarded); median wall time and peak RSS."""
        times: list[float] = []
        cpu: list[float] = []
        peak = 0.0
        for _ in range(max(1, repeat)):
            # The dirty pages of the run before (temporary files it wrote) are written
            # back now, not while this one is timed.
            if hasattr(os, "sync"):  # POSIX
                os.sync()
            with open(stdin, "rb") if stdin else open(os.devnull, "rb") as fin:
                t0 = time.perf_counter()
                proc = subprocess.Popen(
                    argv, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    shell=shell, env={**os.environ, **(env or {})},
                )  # fmt: skip
                sampler = TreeMemory(proc.pid)
                _, status, usage = os.wait4(proc.pid, 0)
                times.append(time.perf_counter() - t0)
                cpu.append(usage.ru_utime + usage.ru_stime)
                peak = max(peak, sampler.stop())
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                proc.stderr.close() if proc.stderr else None
                code = os.waitstatus_to_exitcode(status)
                if code not in (0, 1):
                    raise RuntimeError(f"{label}: exit {code}: {err[-500:]}")
        m = Measure(label, times, peak, note, cpu)
        self.section.measures.append(m)
        print(f"  {label}: {m.median:.3f}s (peak {peak:.0f} MB)", flush=True)
        return m

    def alternate(self, runs: dict[str, Sequence[str]], rounds: int = 3) -> dict[str, Measure]:
        """Each command once per round, in turn (load on the machine hits every side
        alike); one Measure per command over all rounds."""
        measures = {label: self.time_cmd(label, argv, repeat=1) for label, argv in runs.items()}
        for _ in range(rounds - 1):
            for label, argv in runs.items():
                m = self.time_cmd(label, argv, repeat=1)
                self.section.measures.remove(m)
                measures[label].seconds.extend(m.seconds)
                measures[label].cpu.extend(m.cpu)
                measures[label].peak_rss_mb = max(measures[label].peak_rss_mb, m.peak_rss_mb)
        return measures

    def compare(
        self,
        claim: str,
        measure: Measure,
        anchor: Measure,
        *,
        target: float | None = None,
        faster: bool = False,
    ) -> float:
        """Record ``measure`` against ``anchor``.

        ``faster=False``: the ratio is measure/anchor and the target a ceiling (≤ 1.5×).
        ``faster=True``: the ratio is anchor/measure and the target a floor (≥ 10× faster).
        """
        if faster:
            ratio = anchor.median / measure.median
            value = f"{ratio:.1f}× faster"
            tgt = f"≥ {target}× faster" if target else ""
            met = ratio >= target if target else None
        else:
            ratio = measure.median / anchor.median
            value = f"{ratio:.2f}×"
            tgt = f"≤ {target}×" if target else ""
            met = ratio <= target if target else None
        self.section.rows.append(Row(claim, value, tgt, met))
        return ratio

    def memory(self, claim: str, measure: Measure, *, limit_mb: float) -> None:
        self.section.rows.append(
            Row(
                claim,
                f"{measure.peak_rss_mb:.0f} MB",
                f"≤ {limit_mb:.0f} MB",
                measure.peak_rss_mb <= limit_mb,
            )
        )

    def row(self, claim: str, value: str, target: str, met: bool | None) -> None:
        """A claim measured some other way than a ratio of two commands."""
        self.section.rows.append(Row(claim, value, target, met))

    def note(self, text: str) -> None:
        self.section.notes.append(text)


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _markdown(h: Harness, elapsed: float) -> str:
    out = [
        "# Benchmarks",
        "",
        "Written by `make bench` (benchmarks/run.py); do not edit by hand. Times are medians of",
        "whole commands (start-up included), each ratio against an anchor measured in the same run.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"jq {_jq_version()}; run took {elapsed:.0f} s"
        + (" (--quick: inputs 10× smaller)" if h.quick else "")
        + ".",
        "",
    ]
    for s in h.sections:
        out += [f"## {s.title}", ""]
        if s.rows:
            out += ["| claim | measured | target | met |", "|---|---|---|---|"]
            for r in s.rows:
                met = "" if r.met is None else ("yes" if r.met else "**no**")
                out.append(f"| {r.claim} | {r.value} | {r.target} | {met} |")
            out.append("")
        if s.measures:
            out += ["| command | median s | runs | peak RSS MB |", "|---|---|---|---|"]
            for m in s.measures:
                out.append(
                    f"| {m.label} | {m.median:.3f} | {len(m.seconds)} | {m.peak_rss_mb:.0f} |"
                )
            out.append("")
        for n in s.notes:
            out += [n, ""]
    return "\n".join(out)


def _jq_version() -> str:
    jq = shutil.which("jq")
    if not jq:
        return "absent"
    return subprocess.run([jq, "--version"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--write", metavar="FILE", help="write the report here (else print it)")
    ap.add_argument("--only", action="append", help="run only bench_NAME.py (repeatable)")
    ap.add_argument("--quick", action="store_true", help="10x smaller inputs, to try things out")
    args = ap.parse_args(argv)
    h = Harness(quick=args.quick)
    _compile_sources()
    t0 = time.perf_counter()
    kept = _sections_of(Path(args.write)) if args.write and args.only else {}
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if args.only and name not in args.only:
            continue
        mod = _load(path)
        h.sections.append(Section(getattr(mod, "TITLE", name)))
        print(f"== {h.section.title}", flush=True)
        started = time.perf_counter()
        mod.run(h)
        h.section.notes.append(
            f"_Section measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f" in {time.perf_counter() - started:.0f} s._"
        )
        if args.write:  # after each section, so a run cut short keeps what it measured
            _write(Path(args.write), _markdown(h, time.perf_counter() - t0), kept)
    report = _markdown(h, time.perf_counter() - t0)
    if args.write:
        _write(Path(args.write), report, kept)
        print(f"wrote {args.write}")
    else:
        print(report)
    return 0


def _compile_sources() -> None:
    """Write the bytecode of convo's modules, as installing a wheel does: the editable
    install measured here would otherwise compile every module it imports in every
    measured process (and in each worker) whenever PYTHONDONTWRITEBYTECODE is set."""
    import compileall

    compileall.compile_dir(ROOT / "src", quiet=1)


def _sections_of(path: Path) -> dict[str, str]:
    """The ``## `` sections of an earlier report, by title (kept by an ``--only`` run)."""
    if not path.exists():
        return {}
    parts = path.read_text().split("\n## ")[1:]
    return {p.split("\n", 1)[0]: "## " + p.rstrip("\n") for p in parts}


def _write(path: Path, report: str, kept: dict[str, str]) -> None:
    """Write ``report``, followed by the earlier sections this run did not measure."""
    fresh = set(_sections_of_text(report))
    rest = [text for title, text in kept.items() if title not in fresh]
    if rest:
        report += "\n_Kept from earlier runs (each section says when it was measured):_\n\n"
        report += "\n\n".join(rest)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(report.rstrip("\n") + "\n")
    tmp.replace(path)


def _sections_of_text(report: str) -> list[str]:
    return [p.split("\n", 1)[0] for p in report.split("\n## ")[1:]]


if __name__ == "__main__":
    sys.exit(main())
