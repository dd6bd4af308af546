"""The hand-written checks of an indexed read's start-up equal the patterns they stand
for (docs/startup.md, "Third pass": an indexed read imports no ``re``)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.cli.fast import plain_int
from convo.cli.words import PATHLIKE, pathlike
from convo.core.errors import UsageError
from convo.query.field_table import _like
from convo.query.language import tokens

PATHLIKE_RE = re.compile(PATHLIKE.pattern, re.IGNORECASE)
# Words built from the pieces the pattern cares about, ASCII and not.
PIECES = st.sampled_from(
    ["x", "a.b", ".", "/", ":", '"', "(", ")", " ", "\t", "\x1c", "\x85", "ſ", "K", "É",
     "json", "JSONL", "Mbox", "gz", ".gz", ".GZ", ".zip", "parquet", "txt", "-", "_", "%", "\\"]
)  # fmt: skip
WORDS = st.one_of(st.lists(PIECES, max_size=6).map("".join), st.text(max_size=12))


@settings(max_examples=400, deadline=None)
@given(WORDS)
def test_pathlike_is_the_pattern(word):
    assert pathlike(word) == (PATHLIKE_RE.fullmatch(word) is not None)


def test_pathlike_examples():
    for word in ("x.json", "X.JSONL.gz", "dir/", "a/b:c", "..json", "x.ſon", "inbox.mbox"):
        assert pathlike(word) == (PATHLIKE_RE.fullmatch(word) is not None), word
    assert pathlike("chat.json") and pathlike("a/b") and pathlike("x.JSON.GZ")
    assert not pathlike("format:mbox") and not pathlike(".json") and not pathlike("x.gz")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.from_regex(r"-?[0-9]{0,20}", fullmatch=True), st.text(max_size=22)))
def test_plain_int_is_the_pattern(value):
    assert plain_int(value) == (re.fullmatch(r"-?[0-9]{1,18}", value) is not None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab_%\\\\é ", max_size=12))
def test_like_escape_is_the_substitution(word):
    assert _like(word) == "%" + re.sub(r"([\\%_])", r"\\\1", word) + "%"


_FIELD = re.compile(r"([A-Za-z_]+):(.*)", re.S)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["from", "FORMAT", "tag", "x_y", "é", "1", ":", "a", "mbox", "_"]),
        min_size=1, max_size=4,
    ).map("".join)
)  # fmt: skip
def test_a_field_is_read_as_the_pattern_read_it(word):
    """A word is a field exactly when the language's old pattern matched it; a field
    unknown or empty is the usage error it was."""
    m = _FIELD.fullmatch(word)
    try:
        got = tokens(word)
    except UsageError as e:
        assert m is not None, word
        assert f"{m[1]}:" in str(e)
        return
    assert [t.kind for t in got] == (["field"] if m else ["word"]), word
    if m:
        assert got[0].value == m[2]
