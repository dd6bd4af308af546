"""Search by meaning on the real corpus: the held-out questions
(``retrieval_questions.json``) name messages that exist, and hybrid search answers them
at least as well as each half alone, and as well as keyword search on exact tokens.

The recall figures and their targets are the benchmark's (``benchmarks/retrieval/
heldout.py``, BENCHMARKS.md); this test keeps the set usable and the fusion's ordering
of the modes."""

from __future__ import annotations

import json
import re
import sys

import pytest
from tests.conftest import ROOT

pytest.importorskip("wordllama")
sys.path.insert(0, str(ROOT / "benchmarks" / "retrieval"))

KINDS = {"paraphrase", "person", "exact", "typo"}


def _questions() -> list[dict]:
    import heldout  # benchmarks/retrieval/heldout.py

    return json.loads(heldout.QUESTIONS.read_text())


def test_the_question_file_is_well_formed():
    questions = _questions()
    assert len(questions) >= 60
    assert {q["kind"] for q in questions} == KINDS
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["question"].strip() and q["answers"], q["id"]
        assert all("#" in a or ":" in a for a in q["answers"]), q["id"]  # FILE#KEY
        assert q["round"] in (1, 2), q["id"]


def test_an_answer_key_no_message_has_is_one_clear_error():
    import heldout

    q = {"id": "x", "kind": "exact", "question": "q", "answers": ["mbox/a.mbox#msg-9"], "round": 1}
    assert heldout.resolved([q], {"mbox/a.mbox#msg-9": "<id>"})[0]["answers"] == ["<id>"]
    with pytest.raises(KeyError, match=re.escape("mbox/a.mbox#msg-9")):
        heldout.resolved([q], {})


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    from tests.conftest import corpus_dir

    corpus = corpus_dir()
    if not corpus.is_dir():
        pytest.skip(f"corpus not found at {corpus} (set CONVO_CORPUS)")
    import heldout

    from convo.embed import make

    return heldout.evaluate_corpus(tmp_path_factory.mktemp("heldout"), make(None), corpus)


def test_every_answer_is_a_message_and_exact_answers_hold_their_token(asked):
    from convo.core import fields
    from convo.store import Store

    _, questions, store = asked  # resolving raised if a key named no message
    st = Store(store)
    for q in questions:
        if q["kind"] != "exact":
            continue
        for ident in q["answers"]:
            [hit] = st.search(f"id:{json.dumps(ident)}", limit=1)
            text = fields.searchable_text(hit.record)
            pasted_id = q["question"] == ident  # a Message-ID is the id, not the text
            assert pasted_id or re.search(re.escape(q["question"]), text, re.I), q["id"]


def test_hybrid_answers_at_least_as_well_as_either_half(asked):
    scores, _, _ = asked
    hybrid, fts, semantic = scores["hybrid"], scores["fts"], scores["semantic"]
    assert hybrid["all"].recall(10) >= max(fts["all"].recall(10), semantic["all"].recall(10))
    assert hybrid["exact"].recall(10) >= fts["exact"].recall(10)
