"""``rows.row_of`` (the build's inlined field reads) agrees with ``convo.core.fields``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from convo.core import fields
from convo.index.rows import row_of

ANY = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=8), st.sampled_from(["", "tool"]),
    st.lists(st.one_of(st.text(max_size=5), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)  # fmt: skip
KEYS = ["id", "timestamp", "thread", "format", "role", "subject", "tags", "textChunks",
        "text_chunks", "metadata"]  # fmt: skip
META_KEYS = ["speaker", "listeners", "recipients"]


@st.composite
def hostile(draw):
    r = draw(st.dictionaries(st.sampled_from(KEYS), ANY, max_size=8))
    if draw(st.booleans()):
        r["metadata"] = draw(st.dictionaries(st.sampled_from(META_KEYS), ANY, max_size=3))
    return r


@given(hostile())
def test_row_of_reads_fields_as_the_accessors_do(r):
    row = row_of(r)
    assert row.id == fields.record_id(r)
    assert row.timestamp == fields.timestamp(r)
    assert row.speaker == (fields.speaker(r) or None)
    assert row.thread == fields.conversation(r)
    assert row.format == fields.string(r, "format")
    assert row.role == fields.role(r)
    assert row.subject == fields.string(r, "subject")
    assert row.listeners == [x for x in fields.listeners(r) if x]
    assert row.tags == fields.tags(r)
    assert row.text == fields.text(r)


CJK_TEXT = st.text(
    st.one_of(
        st.sampled_from("東京タワーへ行く서울に日本語 abc,é-"),
        st.characters(blacklist_categories=("Cs",)),
    ),  # JSON text has no lone surrogates
    max_size=12,
)


def _tokens(conn, text: str) -> list[tuple[str, int]]:
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t (rowid, x) VALUES (1, ?)", (text,))
    return conn.execute("SELECT term, offset FROM v ORDER BY offset").fetchall()


@given(CJK_TEXT)
def test_cjk_characters_are_tokens_of_their_own(text):
    """``space_cjk`` gives FTS5 the tokens of one space around each run of CJK characters
    and one between them (the spelling the index was first built with)."""
    import re
    import sqlite3

    from convo.index.rows import _CJK_CHARS, space_cjk
    from convo.index.schema import TOKENIZER

    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    runs = re.sub(f"[{_CJK_CHARS}]+", lambda m: " " + " ".join(m.group()) + " ", text)
    assert _tokens(conn, space_cjk(text)) == _tokens(conn, runs)
    assert {t for t, _ in _tokens(conn, space_cjk(text))} >= set(
        re.findall(f"[{_CJK_CHARS}]", text)
    )
