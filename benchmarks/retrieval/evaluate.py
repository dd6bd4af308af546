"""The retrieval set's evaluator: recall@k and MRR per kind of question, for keyword
search, search by meaning and the two fused.

The set (``messages.jsonl``, ``questions.json`` beside this file) is convo's own:
conversations written for it in the shapes convo imports (mail threads, chat, meeting
transcripts, agent sessions, a support forum), and questions of four kinds, each with
the ids of the messages that answer it: ``paraphrase`` (shares almost no words with the
answer), ``person`` ("what did PERSON say about TOPIC"), ``exact`` (an error string, a
version, a ticket number, a Message-ID) and ``typo``.

The modes are ``Store.search``'s (``convo.store.searching``), run as a user runs them:

- ``fts``: BM25 over the words of the question (question words left out), a message
  whose id is a token of the question first (a pasted Message-ID).
- ``semantic``: the nearest in meaning.
- ``hybrid``: keyword and meaning fused (``convo.store.meaning``), the default search
  of a store with vectors.

A question counts as found at rank r when any of its answers is the r-th hit:
recall@k is the share found in the first k, MRR the mean of 1/r (0 when not in the
first ``DEPTH``).

    python benchmarks/retrieval/evaluate.py [--model NAME] [--k 10]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MESSAGES = HERE / "messages.jsonl"
QUESTIONS = HERE / "questions.json"
MODES = ("fts", "semantic", "hybrid")
KINDS = ("paraphrase", "person", "exact", "typo")
DEPTH = 50  # hits each list gives the fusion, and the depth MRR looks at


@dataclass
class Score:
    found: list[int] = field(default_factory=list)  # rank of the first answer, 0: none

    def recall(self, k: int) -> float:
        return sum(1 for r in self.found if 0 < r <= k) / len(self.found) if self.found else 0.0

    @property
    def mrr(self) -> float:
        return sum(1 / r for r in self.found if r) / len(self.found) if self.found else 0.0


def rankings(store: Path, question: str, embedder) -> dict[str, list[str]]:
    """The ids each mode ranks for ``question``, best first."""
    from convo.core import fields
    from convo.store import Store

    st = Store(store, embedder=embedder)
    out = {}
    for mode in MODES:
        hits = st.search(question, mode=mode, limit=DEPTH)
        out[mode] = [i for h in hits if (i := fields.record_id(h.record))]
    return out


def evaluate(store: Path, questions: list[dict], embedder) -> dict[str, dict[str, Score]]:
    """``{mode: {kind or "all": Score}}`` over ``questions`` on the embedded ``store``."""
    scores: dict[str, dict[str, Score]] = {m: {} for m in MODES}
    for q in questions:
        answers = set(q["answers"])
        for mode, ranked in rankings(store, q["question"], embedder).items():
            rank = next((n for n, i in enumerate(ranked, 1) if i in answers), 0)
            for key in (q["kind"], "all"):
                scores[mode].setdefault(key, Score()).found.append(rank)
    return scores


def embedded_store(folder: Path, embedder) -> tuple[Path, float]:
    """The set's messages copied into ``folder`` as a store, embedded; and the seconds
    the embedding took."""
    from convo.embed import embed_store

    store = folder / "retrieval.jsonl"
    shutil.copyfile(MESSAGES, store)
    t0 = time.perf_counter()
    embed_store(store, embedder)
    return store, time.perf_counter() - t0


def table(scores: dict[str, dict[str, Score]], k: int = 10) -> str:
    head = "| mode | " + " | ".join(f"{kind} R@{k} / MRR" for kind in (*KINDS, "all")) + " |"
    lines = [head, "|" + "---|" * (len(KINDS) + 2)]
    for mode in MODES:
        cells = []
        for kind in (*KINDS, "all"):
            s = scores[mode].get(kind, Score())
            cells.append(f"{s.recall(k):.2f} / {s.mrr:.2f}")
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="an embedder name (default: convo's)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--show", action="store_true", help="print each missed question")
    args = parser.parse_args(argv)
    from convo.embed import make

    embedder = make(args.model)
    questions = json.loads(QUESTIONS.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        store, _ = embedded_store(Path(tmp), embedder)
        scores = evaluate(store, questions, embedder)
        if args.show:
            _show(store, questions, embedder, args.k)
    print(f"{embedder.model_name}: {len(questions)} questions")
    print(table(scores, args.k))
    return 0


def _show(store: Path, questions: list[dict], embedder, k: int) -> None:
    for q in questions:
        ranked = rankings(store, q["question"], embedder)["hybrid"][:k]
        if not set(q["answers"]) & set(ranked):
            print(f"missed {q['kind']}: {q['question']!r} -> {ranked[:3]}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
