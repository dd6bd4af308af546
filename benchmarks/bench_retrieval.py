"""Search by meaning (issue 37): recall on the retrieval set, and embedding speed.

Discovered by ``benchmarks/run.py`` (``TITLE`` and ``run(h)``), and runnable alone:
``python benchmarks/bench_retrieval.py`` prints the figures. Recall@10 and MRR per kind
of question come from ``benchmarks/retrieval/evaluate.py`` on convo's own labelled set;
embedding speed is ``embed_store`` on one core (a child process pinned to one CPU, its
numerical libraries held to one thread) over the set's messages repeated with fresh ids.
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
        f"{len(questions)} questions (benchmarks/retrieval/). Each cell: recall@10 / MRR.",
        ev.table(scores),
    ]
    return rows, notes


def run(h) -> None:
    rows, notes = measure(h.quick)
    for claim, value, target, met in rows:
        print(f"  {claim}: {value}", flush=True)
        h.row(claim, value, target, met)
    for note in notes:
        h.note(note)


if __name__ == "__main__":
    found, text = measure("--quick" in sys.argv)
    print("| claim | measured | target | met |\n|---|---|---|---|")
    for claim, value, target, met in found:
        print(f"| {claim} | {value} | {target} | {'yes' if met else 'no'} |")
    print("\n\n".join(text))
