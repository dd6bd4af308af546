"""The whole corpus of real files, saved to a store and embedded with the default model:
every message gets vectors (mojibake, control characters, empty cues, long mails in
chunks), the check passes, a re-run embeds nothing, and search by meaning answers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from convo.core import fields
from convo.index.rows import iter_spans, parse

pytest.importorskip("wordllama")


def test_the_corpus_embeds_and_searches(corpus, tmp_path):
    from convo.embed import check_vectors, embed_store, semantic, similar

    store = tmp_path / "store.jsonl"
    subprocess.run(
        [sys.executable, "-m", "convo", "--store", str(store), "ingest", "--save", str(corpus)],
        capture_output=True, timeout=300, env={**os.environ, "CONVO_NO_STDIN": "1"},
    )  # fmt: skip
    with open(store, "rb") as f:
        records = {r["id"]: r for _, _, line in iter_spans(f) if (r := parse(line))}
    assert len(records) > 1000
    result = embed_store(store)
    assert result.added == len(records) and result.chunks >= len(records) - 50
    report = check_vectors(store)
    assert report is not None and report.ok, report.problems
    assert embed_store(store).unchanged == len(records)
    hits = semantic(store, "problem with fonts when drawing text on an image", limit=5)
    assert any("font" in fields.searchable_text(records[h.id]).lower() for h in hits)
    some = hits[0].id
    assert some not in {h.id for h in similar(store, some, limit=5)}
