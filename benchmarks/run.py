"""``make bench``: run every ``benchmarks/bench_*.py`` and rewrite BENCHMARKS.md.

Each module defines ``TITLE`` and ``run(h: Harness)``. It generates its inputs with
``h.data(name, generate)`` (cached under bench-data/), times whole commands with
``h.time_cmd`` (median of several runs: wall time, CPU time of the process and its
children, peak memory of the process tree) and states each claim with ``h.compare``
against an anchor measured in the same run (jq, the standard library, webvtt-py).
Nothing here asserts: figures go to BENCHMARKS.md with the target beside them, and a
missed target stays in the table, marked.

Every section is bracketed by a load control (``LoadControl``): the load average and a
fixed jq task timed before and after it, and the noise of the moment, measured by
running one pair (``convo query --tag`` and the same jq select, on a fixed 100k-record
file) several times: the spread of their ratio is how far apart two runs of the same
comparison land. A ratio closer to its target than that spread is marked "within
noise", and a row that holds only on an idle machine (several cores against a
one-core anchor, wall time) says "quiet machine".

    python benchmarks/run.py [--write BENCHMARKS.md] [--only NAME] [--quick] [--no-control]

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
    cpu: list[float] = field(default_factory=list)  # user+sys of the process tree, per run

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu) if self.cpu else None


@dataclass
class Row:
    claim: str
    value: str
    target: str
    met: bool | None
    quiet: bool = False  # holds only on an idle machine (said in the table)
    near: bool = False  # closer to the target than the section's noise


@dataclass
class Control:
    """The load control of a section: the load average and the fixed jq task, before and
    after it, and the spread of one repeated pair (the noise)."""

    load: list[float] = field(default_factory=list)  # 1-minute load average: start, end
    jq: list[float] = field(default_factory=list)  # the jq task's wall s: start, end
    ratios: list[float] = field(default_factory=list)  # convo/jq per round of the pair
    cpu_ratios: list[float] = field(default_factory=list)  # the same in CPU time
    convo: list[float] = field(default_factory=list)
    pair_jq: list[float] = field(default_factory=list)

    @property
    def noise(self) -> float | None:
        """Half the spread of the pair's wall-time ratio over its median: ±this fraction."""
        return _half_spread(self.ratios)

    @property
    def cpu_noise(self) -> float | None:
        """The same for the ratio of CPU times."""
        return _half_spread(self.cpu_ratios)

    def text(self) -> str:
        parts = []
        if self.load:
            parts.append("load average " + " → ".join(f"{x:.1f}" for x in self.load))
        if self.jq:
            parts.append("fixed jq task " + " → ".join(f"{x:.2f} s" for x in self.jq))
        if self.ratios:
            noise = self.noise
            parts.append(
                f"noise: `convo query --tag` / jq on the control file, {len(self.ratios)} "
                f"alternating pairs, ratio {min(self.ratios):.3f}–{max(self.ratios):.3f} "
                f"(median {statistics.median(self.ratios):.3f}"
                + (f", ±{noise:.0%}" if noise is not None else "")
                + f"); convo {_spread(self.convo)}, jq {_spread(self.pair_jq)}"
                + (f"; in CPU time ±{self.cpu_noise:.0%}" if self.cpu_noise is not None else "")
            )
        return "Load control (start → end of the section): " + "; ".join(parts) + "."


def _half_spread(xs: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    return (max(xs) - min(xs)) / 2 / statistics.median(xs)


def _spread(xs: list[float]) -> str:
    return f"{min(xs):.2f}–{max(xs):.2f} s" if xs else "-"


@dataclass
class Section:
    title: str
    measures: list[Measure] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    control: Control = field(default_factory=Control)


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
        self.started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.load_at_start = os.getloadavg()[0]
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
        """Run a command ``repeat`` times (output discarded); median wall time, CPU time
        (user+sys of the command and the children it waited for) and peak memory."""
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
        print(
            f"  {label}: {m.median:.3f}s (CPU {m.cpu_median:.3f}s, peak {peak:.0f} MB)", flush=True
        )
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
        on_cpu: bool = False,
        quiet: bool = False,
    ) -> float:
        """Record ``measure`` against ``anchor``; both wall and CPU ratios are shown.

        ``faster=False``: the ratio is measure/anchor and the target a ceiling (≤ 1.5×).
        ``faster=True``: the ratio is anchor/measure and the target a floor (≥ 10× faster).
        ``on_cpu``: the target is judged on CPU time (user+sys), else on wall time.
        ``quiet``: the claim holds only on an idle machine (a command using several cores
        against a one-core anchor, in wall time); the table says so.
        """
        wall = _ratio(measure.median, anchor.median, faster)
        c1, c2 = measure.cpu_median, anchor.cpu_median
        cpu = _ratio(c1, c2, faster) if c1 and c2 else None
        ratio = cpu if on_cpu and cpu is not None else wall
        word = " faster" if faster else ""
        digits = 1 if faster else 2
        value = (
            f"{wall:.{digits}f}×{word} (CPU {cpu:.{digits}f}×)"
            if cpu
            else f"{wall:.{digits}f}×{word}"
        )
        if on_cpu and cpu is not None:
            value = f"CPU {cpu:.{digits}f}×{word} (wall {wall:.{digits}f}×)"
        tgt = ""
        met = None
        if target:
            tgt = f"≥ {target}× faster" if faster else f"≤ {target}×"
            tgt += " (CPU)" if on_cpu else ""
            met = ratio >= target if faster else ratio <= target
        control = self.section.control
        noise = control.cpu_noise if on_cpu and cpu is not None else control.noise
        near = bool(target and noise and abs(ratio - target) <= noise * target)
        self.section.rows.append(Row(claim, value, tgt, met, quiet, near))
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

    def row(
        self, claim: str, value: str, target: str, met: bool | None, *, quiet: bool = False
    ) -> None:
        """A claim measured some other way than a ratio of two commands (``quiet``: it
        holds only on an idle machine)."""
        self.section.rows.append(Row(claim, value, target, met, quiet))

    def note(self, text: str) -> None:
        self.section.notes.append(text)


def _ratio(a: float, b: float, faster: bool) -> float:
    return b / a if faster else a / b


class LoadControl:
    """The fixed tasks that bracket every section (see the module docstring): a jq
    select on a fixed 100k-record file (bench_query.py's generator), and the pair
    ``convo query --tag urgent`` / that jq select run alternately ``PAIRS`` times. The
    file is under the size at which convo scans on several cores, so both sides use one
    core and their ratio moves only with the machine's noise, not with its free cores."""

    PAIRS = 5
    N = 100_000

    def __init__(self, h: Harness):
        self.jq = shutil.which("jq")
        self.path: Path | None = None
        if self.jq:
            gen = _load(HERE / "bench_query.py").generate
            self.path = h.data(f"control-{self.N}.jsonl", lambda p: gen(p, self.N))
        self.convo = str(BIN / "convo")

    def _jq(self) -> list[str]:
        assert self.jq and self.path
        return [self.jq, "-c", 'select(.tags | any(. == "urgent"))', str(self.path)]

    def start(self, c: Control) -> None:
        c.load.append(os.getloadavg()[0])
        if not self.path:
            return
        c.jq.append(_run(self._jq())[0])
        for _ in range(self.PAIRS):
            convo, convo_cpu = _run([self.convo, "query", "--tag", "urgent", str(self.path)])
            jq, jq_cpu = _run(self._jq())
            c.convo.append(convo)
            c.pair_jq.append(jq)
            c.ratios.append(convo / jq)
            c.cpu_ratios.append(convo_cpu / jq_cpu)
        print("  " + c.text(), flush=True)

    def end(self, c: Control) -> None:
        if self.path:
            c.jq.append(_run(self._jq())[0])
        c.load.append(os.getloadavg()[0])


def _run(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv``, output discarded."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{argv[:3]}: exit {os.waitstatus_to_exitcode(status)}")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime


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
        "whole commands (start-up included), each ratio against an anchor measured in the same run;",
        "CPU is user+sys time of the command and its workers, less disturbed by other work on the",
        "machine than wall time. Each section starts with its load control (load average, a fixed",
        "jq task before and after, and the noise: the spread of one repeated pair). A target missed",
        'is **no**; "within noise" means the ratio is closer to its target than that spread;',
        '"quiet machine" marks a claim that holds only on an idle machine.',
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"jq {_jq_version()}; run took {elapsed:.0f} s"
        + (" (--quick: inputs 10× smaller)" if h.quick else "")
        + f". This run ({h.started} on {_commit()}, load average "
        + f"{h.load_at_start:.1f} at its start): {', '.join(s.title for s in h.sections)}.",
        "",
    ]
    for s in h.sections:
        out += [f"## {s.title}", ""]
        if s.control.load:
            out += [s.control.text(), ""]
        if s.rows:
            out += ["| claim | measured | target | met |", "|---|---|---|---|"]
            for r in s.rows:
                met = "" if r.met is None else ("yes" if r.met else "**no**")
                met += " (within noise)" if r.near and r.met is not None else ""
                met += " (quiet machine)" if r.quiet else ""
                out.append(f"| {r.claim} | {r.value} | {r.target} | {met.strip()} |")
            out.append("")
        if s.measures:
            out += [
                "| command | median s | CPU s | runs | peak RSS MB |",
                "|---|---|---|---|---|",
            ]
            for m in s.measures:
                cpu = f"{m.cpu_median:.3f}" if m.cpu_median is not None else ""
                out.append(
                    f"| {m.label} | {m.median:.3f} | {cpu} | {len(m.seconds)} "
                    f"| {m.peak_rss_mb:.0f} |"
                )
            out.append("")
        for n in s.notes:
            out += [n, ""]
    return "\n".join(out)


def _commit() -> str:
    """The commit measured (with ``+changes`` when the work tree differs from it)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "src"],
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit"
    return head + (" +changes" if dirty else "")


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
    ap.add_argument(
        "--no-control", action="store_true", help="skip the load control around each section"
    )
    args = ap.parse_args(argv)
    h = Harness(quick=args.quick)
    _compile_sources()
    control = None if args.no_control else LoadControl(h)
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
        if control:
            control.start(h.section.control)
        mod.run(h)
        if control:
            control.end(h.section.control)
        h.section.notes.append(
            f"_Section measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f" in {time.perf_counter() - started:.0f} s on {_commit()}._"
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
