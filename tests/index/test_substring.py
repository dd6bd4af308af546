"""Text words through the full-text index: the candidates never miss a message.

``index.substring.candidates`` must select every message whose case-folded text holds
each word (the exact check then decides): hypothesis draws texts mixing ASCII,
punctuation, diacritics, combining marks, CJK and every kind of ``folding.SPECIAL``
character, and words cut from their case folding or made up.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.index.helpers import rec, write_store

from convo.index import refresh
from convo.index.folding import SPECIAL, pieces, special_chars, tokens, unfolded
from convo.index.substring import candidates

_CHARS = "ßẞİıﬁﬆé\u0301ΐςΣͅŉ日本ᏸႠ\u212aÅǅ🎉\u00a0"  # fmt: skip
ALPHABET = st.sampled_from([*"abcsSIiK-_.'% \n", *_CHARS])
TEXTS = st.text(ALPHABET, max_size=12)


def test_special_is_what_the_tokenizer_says():
    """SQLite's unicode61 tables are fixed; a new Python's case folding may differ."""
    assert special_chars() == "".join(
        chr(c) for c in range(0x110000) if c < 0xD800 or c >= 0xE000
        if __import__("re").fullmatch(f"[{SPECIAL}]", chr(c))
    )  # fmt: skip


@given(st.text(ALPHABET, max_size=8))
def test_ascii_pieces_are_the_tokenizers(word):
    word = word.casefold()
    if word.isascii():
        assert pieces(word) == tokens([word])[0]


def _candidates(path: Path, words: list[str], column: str | None) -> set[str]:
    conn = sqlite3.connect(str(path) + ".index.sqlite")
    try:
        found = candidates(conn, words, column)
        cond, params = found if found is not None else ("1", ())
        return {i for (i,) in conn.execute(f"SELECT id FROM messages m WHERE {cond}", params)}
    finally:
        conn.close()


@given(
    st.lists(st.tuples(TEXTS, st.one_of(st.none(), TEXTS)), min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 12), st.integers(1, 5)), max_size=2),
    st.lists(TEXTS, max_size=1),
    st.sampled_from([None, "text"]),
)
def test_candidates_hold_every_match(texts, cuts, made_up, column):
    records = [rec(i, text=t, **({"subject": s} if s else {})) for i, (t, s) in enumerate(texts)]
    words = []
    for which, start, size in cuts:  # a piece of one text's folding: it surely matches
        text, subject = texts[which % len(texts)]
        source = (text if column or not subject or start % 2 else subject).casefold()
        words += source[start : start + size].split()
    words += [w for m in made_up for w in m.casefold().split()]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", records)
        assert refresh(path).available
        got = _candidates(path, words, column)
    for r, (text, subject) in zip(records, texts, strict=True):
        pieces_ = [text.casefold()] if column else [text.casefold(), (subject or "").casefold()]
        if all(any(w in p for p in pieces_) for w in words):
            assert r["id"] in got, (r, words, unfolded(text))
