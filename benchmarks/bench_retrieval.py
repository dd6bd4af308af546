"""Search by meaning (issue 37): recall on the retrieval set, and embedding speed.

Discovered by ``benchmarks/run.py`` (``TITLE`` and ``run(h)``), and runnable alone:
``python benchmarks/bench_retrieval.py`` prints the figures. Recall@10 and MRR per kind
of question come from ``benchmarks/retrieval/evaluate.py`` on convo's own labelled set;
embedding speed is ``embed_store`` on one core (a child process pinned to one CPU, its
numerical libraries held to one thread) over the set's messages repeated with fresh ids.
Under ``make bench`` only: ``convo search`` (hybrid, the default once a store has
vectors) over stores of 100k and 1M messages (the set repeated, indexed, with random
vectors of the default model's size: a search's time does not depend on their values),
each in a fresh process, timed and its memory sampled as every command is
(``Harness.time_cmd``). Every figure goes through ``Store.search``, what users get.
The same targets over held-out questions on the real corpus (``benchmarks/retrieval/
heldout.py``), when the corpus is there (``$CONVO_CORPUS``, else ``shared/corpus``
beside the checkout).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TITLE = "Search by meaning: retrieval set and embedding speed"
COPIES = 300  # the set's 169 messages x 300 = about 50,000 messages to embed
ONE_THREAD = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
SPEED = """
import sys, time
from convo.embed import embed_store, make
model = make(None)
t0 = time.perf_counter()
r = embed_store(sys.argv[1], model)
print(r.added, time.perf_counter() - t0)
"""


def _evaluate():
    sys.path.insert(0, str(HERE / "retrieval"))
    import evaluate  # benchmarks/retrieval/evaluate.py

    return evaluate


def _copies(path: Path, messages: Path, n: int) -> None:
    import orjson

    lines = messages.read_bytes().splitlines()
    with open(path, "wb") as f:
        for c in range(n):
            for line in lines:
                record = orjson.loads(line)
                record["id"] = f"{record['id']}#{c}"
                f.write(orjson.dumps(record) + b"\n")


def embed_speed(folder: Path, n: int) -> tuple[int, float]:
    """(messages, seconds) of ``embed_store`` on one core over ``n`` copies of the set."""
    ev = _evaluate()
    store = folder / "speed.jsonl"
    _copies(store, ev.MESSAGES, n)
    argv = [sys.executable, "-c", SPEED, str(store)]
    if hasattr(os, "sched_setaffinity"):
        argv = ["taskset", "-c", "0", *argv]
    out = subprocess.run(
        argv, capture_output=True, text=True, check=True, env={**os.environ, **ONE_THREAD}
    )
    added, seconds = out.stdout.split()
    return int(added), float(seconds)


def synthetic_vectors(store: Path, ids: list[str]) -> None:
    """The store's vectors without embedding it: one random unit row of the default
    model's size per id, catalogued as made by it (what a search reads: its time does
    not depend on the rows' values; kept when already made)."""
    import sqlite3

    import numpy as np

    from convo.embed.vectors import DDL, paths
    from convo.embed.wordllama import DIMS, MODEL

    matrix, catalogue = paths(store)
    if catalogue.exists():
        from convo.embed.quantized import upgrade

        upgrade(store)  # vectors made before their int8 copy existed: given it now
        return
    n = len(ids)
    rng = np.random.default_rng(37)
    with open(matrix, "wb") as f:
        for start in range(0, n, 65536):
            rows = rng.standard_normal((min(65536, n - start), DIMS), dtype=np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            f.write(rows.tobytes())
    tmp = catalogue.with_suffix(".tmp")
    conn = sqlite3.connect(tmp)
    conn.executescript(DDL)
    conn.executemany(
        "INSERT INTO messages VALUES (?, x'00', ?, 1)", ((i, r) for r, i in enumerate(ids))
    )
    meta = {"model": MODEL, "dims": DIMS, "rows": n, "choice": "wordllama"}
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [(k, str(v)) for k, v in meta.items()])
    conn.commit()
    conn.close()
    tmp.rename(catalogue)
    from convo.embed.quantized import upgrade

    upgrade(store)  # the int8 copy a search scans, as `convo embed` writes it


def search_store(folder: Path, n: int) -> Path:
    """About ``n`` messages (the set's, repeated with fresh ids), indexed, with vectors
    (``synthetic_vectors``); cached under ``folder``."""
    import orjson

    ev = _evaluate()
    base = [orjson.loads(line)["id"] for line in ev.MESSAGES.read_bytes().splitlines()]
    copies = max(1, round(n / len(base)))
    store = folder / f"search-{n}.jsonl"
    if not store.exists():
        tmp = folder / f"search-{n}.tmp"
        _copies(tmp, ev.MESSAGES, copies)
        tmp.rename(store)
    cli = [sys.executable, "-m", "convo", "--store", str(store)]
    subprocess.run([*cli, "index"], check=True, capture_output=True)
    synthetic_vectors(store, [f"{i}#{c}" for c in range(copies) for i in base])
    return store


QUESTION = "what did we decide about storing login state?"


def search_latency(h, folder: Path, n: int) -> list[tuple[str, str, str, bool | None]]:
    """``convo search`` (hybrid, the default with vectors) over a store of about ``n``
    messages in a fresh process, as a user runs it: start-up, the index's keyword lists,
    the model, the vectors' scan (simsimd's, no numpy: convo.embed.simd) and the fusion;
    median and peak memory."""
    store = search_store(folder, n)
    argv = [sys.executable, "-m", "convo", "--store", str(store), "search", QUESTION, "-f", "jsonl"]
    m = h.time_cmd(f"convo search (hybrid) over {n:,} messages", argv, repeat=7)
    target = 0.15 if n <= 100_000 else 0.5
    return [
        (f"hybrid `convo search` over {n:,} messages, whole command, p50", f"{m.median * 1000:.0f} ms",
         f"≤ {target * 1000:.0f} ms", m.median <= target),
        (f"CPU (user+sys) of that search over {n:,} messages, p50", f"{(m.cpu_median or 0.0) * 1000:.0f} ms",
         "", None),
        (f"peak memory of that search over {n:,} messages", f"{m.peak_rss_mb:.0f} MB", "≤ 300 MB",
         m.peak_rss_mb <= 300),
    ]  # fmt: skip


def _cpu_ms(pid: int) -> float | None:
    """User+sys CPU milliseconds so far of process ``pid`` (all its threads), from
    /proc; None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def warm_search(folder: Path, n: int, rounds: int = 20) -> list[tuple[str, str, str, bool | None]]:
    """The same search answered by a process that stays up: ``convo serve`` on the store
    (its ``/api/search`` is ``Store.search``, hybrid, the ids ``convo search -f jsonl``
    gives), asked ``rounds`` times after one warm-up request; the median wall time of a
    request from this process, and the server's CPU per search (its /proc counters over
    the rounds). What a resident search costs, beside the fresh process's rows."""
    import statistics
    import time
    import urllib.parse
    import urllib.request

    store = search_store(folder, n)
    argv = [sys.executable, "-m", "convo", "--store", str(store), "serve", "--port", "0"]
    server = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = server.stderr.readline() if server.stderr else ""
        url = line.partition("serving ")[2].partition(" ")[0]
        if not url.startswith("http://"):
            raise RuntimeError(f"convo serve did not start: {line}")
        ask = f"{url}api/search?" + urllib.parse.urlencode({"q": QUESTION, "limit": 20})
        local = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
        with local.open(ask, timeout=120) as r:  # warm-up: numpy, the model
            r.read()
        walls = []
        before = _cpu_ms(server.pid)
        for _ in range(rounds):
            t0 = time.perf_counter()
            with local.open(ask, timeout=120) as r:
                r.read()
            walls.append(time.perf_counter() - t0)
        after = _cpu_ms(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    cpu = (
        ""
        if before is None or after is None
        else f" (server CPU {(after - before) / rounds:.0f} ms a search)"
    )
    return [
        (f"the same search answered by a resident `convo serve` over {n:,} messages, p50 of {rounds}",
         f"{statistics.median(walls) * 1000:.0f} ms{cpu}", "", None),
    ]  # fmt: skip


FLOOR = {  # what every search process does before its own work, cumulatively
    "interpreter start": "pass",
    "interpreter + numpy's import (not paid by a search of fewer than 500k rows)": "import numpy",
    "interpreter + simsimd + the default model and the query's vector, no numpy": (
        "import simsimd; from convo.embed import make; from convo.embed.nearest import"
        f" query_vector; query_vector(make(None), {QUESTION!r})"
    ),
}


def search_floor(h) -> list[tuple[str, str, str, bool | None]]:
    """The part of a search's time that is not its search: a fresh interpreter, numpy's
    import (what a search paid before convo.embed.simd) and the default model's load with
    the query's vector as a search makes it (no numpy), each a whole command, in turn, 7
    rounds; medians."""
    runs = {f"floor: {label}": [sys.executable, "-c", code] for label, code in FLOOR.items()}
    with_env = {"OPENBLAS_NUM_THREADS": "1"}
    measures = {label: [] for label in runs}
    cpus: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(7):
        for label, argv in runs.items():
            m = h.time_cmd(label, argv, repeat=1, env=with_env)
            h.section.measures.remove(m)
            measures[label] += m.seconds
            cpus[label] += m.cpu
    import statistics

    return [
        (f"{label}, p50", f"{statistics.median(measures[label]) * 1000:.0f} ms "
         f"(CPU {statistics.median(cpus[label]) * 1000:.0f} ms)", "", None)
        for label in runs
    ]  # fmt: skip


def measure(quick: bool = False) -> tuple[list[tuple[str, str, str, bool | None]], list[str]]:
    from convo.embed import make

    ev = _evaluate()
    model = make(None)
    questions = json.loads(ev.QUESTIONS.read_text())
    rows: list[tuple[str, str, str, bool | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store, _ = ev.embedded_store(Path(tmp), model)
        scores = ev.evaluate(store, questions, model)
        hybrid, fts = scores["hybrid"], scores["fts"]
        r_all, r_para = hybrid["all"].recall(10), hybrid["paraphrase"].recall(10)
        rows.append(("hybrid recall@10, all questions", f"{r_all:.2f}", "≥ 0.85", r_all >= 0.85))
        rows.append(("hybrid recall@10, paraphrases", f"{r_para:.2f}", "≥ 0.75", r_para >= 0.75))
        exact_h, exact_f = hybrid["exact"].recall(10), fts["exact"].recall(10)
        rows.append(
            (
                "hybrid recall@10 on exact tokens, against fts",
                f"{exact_h:.2f} vs {exact_f:.2f}",
                "not below fts",
                exact_h >= exact_f,
            )
        )
        n, seconds = embed_speed(Path(tmp), 30 if quick else COPIES)
        rate = n / seconds
        rows.append(
            (
                "`embed_store` messages/s on one core",
                f"{rate:,.0f} ({n:,} in {seconds:.1f} s)",
                "≥ 2,000",
                rate >= 2000,
            )
        )
    notes = [
        f"Model: {model.model_name} ({model.dims} dims). Set: {sum(1 for _ in ev.MESSAGES.open())} messages, "
        f"{len(questions)} questions (benchmarks/retrieval/), ranked by `Store.search` in each "
        "mode. Each cell: recall@10 / MRR.",
        ev.table(scores),
    ]
    return rows, notes


def heldout_rows() -> tuple[list[tuple[str, str, str, bool | None]], list[str]]:
    """The issue's targets over the held-out questions on the real corpus
    (``benchmarks/retrieval/heldout.py``): both rounds together in the rows, each round's
    table in the notes; none, with a note saying why, when the corpus is absent."""
    sys.path.insert(0, str(HERE / "retrieval"))
    import heldout

    from convo.embed import make

    corpus = heldout.corpus_dir()
    if not corpus.is_dir():
        return [], [f"Held-out questions on the real corpus: not measured (no corpus at {corpus})."]
    ev = _evaluate()
    model = make(None)
    rows: list[tuple[str, str, str, bool | None]] = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for rounds in ((1, 2), (1,), (2,)):
            folder = Path(tmp) / "-".join(map(str, rounds))
            folder.mkdir()
            scores, questions, _ = heldout.evaluate_corpus(folder, model, corpus, rounds)
            label = " and ".join(map(str, rounds))
            notes.append(
                f"Held-out questions on the real corpus, round {label} ({len(questions)} "
                "questions; tests/corpus/retrieval_questions.json). Each cell: recall@10 / MRR.\n\n"
                + ev.table(scores)
            )
            if rounds != (1, 2):
                continue
            hybrid, fts = scores["hybrid"], scores["fts"]
            r_all, r_para = hybrid["all"].recall(10), hybrid["paraphrase"].recall(10)
            exact_h, exact_f = hybrid["exact"].recall(10), fts["exact"].recall(10)
            n = len(questions)
            rows += [
                (f"held out, real corpus ({n} questions): hybrid recall@10, all", f"{r_all:.2f}",
                 "≥ 0.85", r_all >= 0.85),
                (f"held out, real corpus ({n} questions): hybrid recall@10, paraphrases",
                 f"{r_para:.2f}", "≥ 0.75", r_para >= 0.75),
                (f"held out, real corpus ({n} questions): hybrid recall@10 on exact tokens, against fts",
                 f"{exact_h:.2f} vs {exact_f:.2f}", "not below fts", exact_h >= exact_f),
            ]  # fmt: skip
    return rows, notes


def run(h) -> None:
    rows, notes = measure(h.quick)
    held_rows, held_notes = heldout_rows()
    rows += held_rows
    notes += held_notes
    for n in (h.scale(100_000), h.scale(1_000_000)):
        rows += search_latency(h, h.data_dir, n)
        rows += warm_search(h.data_dir, n)
    rows += search_floor(h)
    for claim, value, target, met in rows:
        print(f"  {claim}: {value}", flush=True)
        h.row(claim, value, target, met)
    for note in notes:
        h.note(note)


if __name__ == "__main__":
    found, text = measure("--quick" in sys.argv)
    held_rows, held_notes = heldout_rows()
    found += held_rows
    text += held_notes
    print("| claim | measured | target | met |\n|---|---|---|---|")
    for claim, value, target, met in found:
        print(f"| {claim} | {value} | {target} | {'yes' if met else 'no'} |")
    print("\n\n".join(text))
