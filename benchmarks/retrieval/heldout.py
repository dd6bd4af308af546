"""Search by meaning on real conversations: the held-out questions over the shared corpus.

``tests/corpus/retrieval_questions.json`` holds questions of the retrieval set's four
kinds (``paraphrase``, ``person``, ``exact``, ``typo``) about the corpus of real files
(mail lists, chat exports, forum dumps, meeting transcripts and subtitles written by
other people; ``$CONVO_CORPUS``, else ``shared/corpus`` beside the checkout). Each
answer is named by the message's source key relative to the corpus, ``FILE#KEY`` as the
importers write ``source_id``, so the file holds no text of the corpus beyond the
questions. They were written from reading the corpus, in two rounds: round 1 before any
ranking was looked at (its misses were then diagnosed, and what generalised changed, on
the condition that the project's own set, ``evaluate.py``, held or rose too); round 2
after those changes, asked of no ranking until the final measurement, so it stays a
check of whether they generalise.

The corpus is ingested the way a user does (``convo ingest --save``), embedded with the
chosen model, and each question asked through ``Store.search`` in each mode, as
``evaluate.py`` does for the project's set.

    python benchmarks/retrieval/heldout.py [--model NAME] [--show]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
QUESTIONS = ROOT / "tests" / "corpus" / "retrieval_questions.json"


def corpus_dir() -> Path:
    """Where the corpus is: ``$CONVO_CORPUS``, else ``shared/corpus`` beside the checkout."""
    return Path(os.environ.get("CONVO_CORPUS") or ROOT.parent / "shared" / "corpus")


def ingested(folder: Path, corpus: Path) -> Path:
    """The corpus saved to a store in ``folder`` by ``convo ingest --save``."""
    store = folder / "corpus.jsonl"
    argv = [sys.executable, "-m", "convo", "--store", str(store), "ingest", "--save", str(corpus)]
    env = {**os.environ, "CONVO_NO_STDIN": "1"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    if not store.exists():
        raise RuntimeError(f"ingesting {corpus} saved nothing: {done.stderr[-2000:]}")
    return store


def keys(store: Path, corpus: Path) -> dict[str, str]:
    """``{FILE#KEY: id}`` for the store's messages: their ``source_id`` made relative to
    the corpus (the first message of a key, as every reader keeps the first)."""
    import orjson

    prefix = str(corpus.resolve()) + os.sep
    out: dict[str, str] = {}
    with open(store, "rb") as f:
        for line in f:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            source, ident = record.get("source_id"), record.get("id")
            if isinstance(source, str) and isinstance(ident, str):
                out.setdefault(source.removeprefix(prefix), ident)
    return out


def resolved(questions: list[dict], by_key: dict[str, str]) -> list[dict]:
    """The questions with their answers as message ids; a key no message has is an
    error naming it (an importer changed its keys: the question file needs updating)."""
    missing = sorted({a for q in questions for a in q["answers"] if a not in by_key})
    if missing:
        raise KeyError(f"answer keys not in the ingested corpus: {missing[:5]}")
    return [{**q, "answers": [by_key[a] for a in q["answers"]]} for q in questions]


def evaluate_corpus(
    folder: Path, embedder, corpus: Path | None = None, rounds: tuple[int, ...] = (1, 2)
):
    """``(scores, questions, store)``: the held-out questions of ``rounds`` asked of the
    corpus, saved and embedded under ``folder``; ``scores`` as ``evaluate.evaluate``
    gives them."""
    sys.path.insert(0, str(HERE))
    import evaluate  # benchmarks/retrieval/evaluate.py

    from convo.embed import embed_store

    corpus = corpus or corpus_dir()
    store = ingested(folder, corpus)
    embed_store(store, embedder)
    asked = [q for q in json.loads(QUESTIONS.read_text()) if q.get("round", 1) in rounds]
    questions = resolved(asked, keys(store, corpus))
    return evaluate.evaluate(store, questions, embedder), questions, store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="an embedder name (default: convo's)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--show", action="store_true", help="print each missed question")
    parser.add_argument("--round", type=int, action="append", help="only this round (1, 2)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import evaluate

    from convo.embed import make

    corpus = corpus_dir()
    if not corpus.is_dir():
        print(f"corpus not found at {corpus} (set CONVO_CORPUS)", file=sys.stderr)
        return 1
    embedder = make(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        rounds = tuple(args.round or (1, 2))
        scores, questions, store = evaluate_corpus(Path(tmp), embedder, corpus, rounds)
        if args.show:
            evaluate._show(store, questions, embedder, args.k)
    print(
        f"{embedder.model_name}: {len(questions)} held-out questions (rounds {rounds}) over {corpus}"
    )
    print(evaluate.table(scores, args.k))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
