"""The check of an indexed read's candidates decides on a line's bytes what the parsed
record's check decides (``store.select._check``: ``query.rawtext.TextWord`` and
``TextPhrase`` before the parse), on lines in convo's layout and Python's
``json.dumps`` one, with escapes, non-ASCII letters whose case fold is ASCII, subjects,
several chunks and chunks that are not strings; and through the index, a store's count
and lines are the scan's."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.index.helpers import write_store
from typer.testing import CliRunner

from convo.cli.app import app
from convo.index import refresh
from convo.query.filters import checks
from convo.query.matches import Match
from convo.query.model import build
from convo.store.select import _check, _text_words

WORDS = ["quinn", "wrote", "budget", "ab", "a", "x1", "chunks", "ss", "k", "é"]
PIECES = [*WORDS, "Quinn", "QUINN", "Wrote", "budgets", "xbudget", "ß", "ſ", "\u212a", "é",
          "naïve", "日本", "quinn wrote", "Quinn  Wrote", "ab x1", "budget ab", "\\", '"', "\n", "\t", " ", "  ", ",", "-", "İ", "Straße"]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


def record(chunks: list[object], speaker: str = "Ana", **extra: object) -> dict[str, object]:
    """A record with its keys in the order convo writes them."""
    made = {"textChunks": chunks, "metadata": {"speaker": speaker}, "tags": []}
    return {**made, "timestamp": "2024-01-01T00:00:00Z", "id": "m0", **extra}


@st.composite
def lines(draw) -> bytes:
    chunks: list[object] = draw(st.lists(TEXTS, min_size=1, max_size=3))
    if draw(st.integers(0, 9)) == 0:
        chunks.append(draw(st.sampled_from([1, None, True])))
    extra = {}
    if draw(st.booleans()):
        extra["subject"] = draw(TEXTS)
    r = record(chunks, draw(st.sampled_from(["Quinn Wrote <q@x.org>", "Ana"])), **extra)
    layout = draw(st.sampled_from(["convo", "dumps", "text_chunks"]))
    if layout == "convo":
        return orjson.dumps(r)
    if layout == "text_chunks":
        r = {"text_chunks": r.pop("textChunks"), **r}
    return json.dumps(r).encode()


QUERIES = st.one_of(
    st.sampled_from(['"quinn wrote"', '"ab x1"', '"budget ab"', 'quinn "quinn wrote"']),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(lambda w: " ".join(w)),
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=3).map(lambda w: f'"{" ".join(w)}"'),
    st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS)).map(lambda w: f'{w[0]} "{w[1]} {w[0]}"'),
)  # fmt: skip


@settings(max_examples=300)
@given(lines(), QUERIES)
def test_the_bytes_decide_as_the_parsed_record(line, text):
    query = build(text)
    plain = checks(query.filters())
    expected = all(c(orjson.loads(line)) for c in plain)
    assert _check(query)(Match(line, None, "s")) == expected


def test_a_plain_line_is_decided_without_a_parse():
    line = orjson.dumps(record(["This is urgent, Quinn  wrote."], subject="Re: budget"))
    for text, expected in (
        ("quinn", True),
        ('"quinn wrote"', True),
        ("budget", True),
        ("rollback", False),
    ):
        words = _text_words(build(text))
        assert words is not None
        assert [w.decide(line, line.lower(), 0, len(line)) for w in words] == [expected]


def test_text_words_and_phrases_are_decided_on_bytes_and_the_rest_parsed():
    assert _text_words(build("quinn")) is not None
    assert _text_words(build('quinn "quinn wrote"')) is not None
    assert _text_words(build('"quinn, wrote"')) is None  # a word JSON may hold otherwise
    assert _text_words(build("quinn from:ana")) is None
    assert _text_words(build("quinn OR wrote")) is None
    assert _text_words(build("text:quinn")) is None  # the text only, not the subject


def run(store: Path, *argv: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["--store", str(store), *argv], env=env)


@settings(max_examples=30)
@given(st.lists(lines(), max_size=12), QUERIES, st.booleans())
def test_indexed_text_reads_are_the_scans(items, text, count):
    argv = ["query", "-f", "jsonl", text, *(["--count"] if count else [])]
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        scanned = run(path, *argv, env={"CONVO_NO_INDEX": "1"})
        assert refresh(path).available
        indexed = run(path, *argv)
        assert (indexed.exit_code, indexed.stdout) == (scanned.exit_code, scanned.stdout)
