"""The needle scan's candidate lines: a name's needle only as a whole word."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from convo.query.filters import Filters
from convo.query.prefilter import LineStarts, Needles


def _expected(low: bytes, needle: bytes) -> dict[int, int]:
    """Lines holding ``needle`` with no word byte on either side, by a plain regex."""
    word = re.compile(rb"(?<![a-z0-9_])" + re.escape(needle) + rb"(?![a-z0-9_])")
    out, at = {}, 0
    for line in low.split(b"\n"):
        if word.search(line):
            out[at] = at + len(line)
        at += len(line) + 1
    return out


def _starts(name: str) -> LineStarts:
    return LineStarts(Needles.of(Filters(speakers=[name])))


def test_word_needles_skip_longer_words():
    low = b'{"a":"went wen"}\n{"a":"owen"}\n{"a":"wen_x"}\n{"a":"x.wen"}\n{"a":"wenwen"}\n'
    assert _starts("Wen").lines(low, low, 0, len(low)) == _expected(low, b"wen")
    assert list(_starts("Wen").lines(low, low, 0, len(low))) == [0, 44]  # "went wen" and "x.wen"


def test_an_address_needle_is_a_word_of_its_local_part():
    # The domain's words are on the lines of everyone at that domain: no needle there.
    assert _starts("quinn.smith@example.org").starts == [b"quinn"]
    assert _starts("Quinn Smith <quinn@example.org>").starts == [b"quinn"]
    assert _starts("@example.org").starts == [b"example"]  # no local part: the domain


def test_an_address_query_matches_the_same_records_with_its_local_needle(tmp_path, runner):
    from convo.cli.app import app

    lines = [
        '{"metadata":{"speaker":"quinn.smith@example.org"},"textChunks":["a"]}',
        '{"metadata":{"speaker":"ann@example.org"},"textChunks":["quinn"]}',
        '{"metadata":{"speaker":"Quinn Smith Example Org"},"textChunks":["b"]}',
    ]
    store = tmp_path / "s.jsonl"
    store.write_text("\n".join(lines) + "\n")
    got = runner.invoke(app, ["query", "-s", "quinn.smith@example.org", str(store), "-f", "jsonl"])
    assert got.exit_code == 0, got.output
    assert got.output.splitlines() == [lines[0], lines[2]]


@given(
    st.text(alphabet="wentaW _.\n", max_size=200),
    st.sampled_from(["wen", "Wen", "aa", "a", "went"]),
)
def test_property_word_lines_equal_a_word_regex(text, name):
    low = text.lower().encode()
    starts = _starts(name)
    needle = starts.starts[0]
    assert starts.lines(low, low, 0, len(low)) == _expected(low, needle)


@given(st.text(alphabet="budgetB x{}\n\u00e9", max_size=200), st.text(alphabet="ab\n", max_size=4))
def test_property_text_word_lines_equal_a_line_test(text, lead):
    """The lines a ``--text`` word's block pass looks at (its regex, one match per line)
    are the lines holding the word, with their first hit."""
    from convo.query.rawtext import TextWord

    body, head = text.encode(), lead.encode()
    buf = head + body
    low = buf.lower()
    found = TextWord(b"budget").block(buf, low, len(head), len(buf))
    assert found is not None
    want, at = [], len(head)
    for line in low[len(head) :].split(b"\n"):
        if b"budget" in line:
            want.append((at, at + len(line), at + line.find(b"budget")))
        at += len(line) + 1
    assert list(zip(found.starts, found.ends, strict=True)) == [(s, e) for s, e, _ in want]
    assert TextWord(b"budget")._holding(low, len(head), len(buf))[2] == [h for *_, h in want]


@given(
    st.lists(
        st.sampled_from(
            [b'{"textChunks":["a"],"m":{}}', b'{"textChunks":[]}', b'{"x":1}', b"", b"}",
             b'{"textChunks":["}\\n"]}', b' {"textChunks":[]}', b'{"textChunks":["a"]', b"{}"]
        ),
        min_size=1, max_size=8,
    ),
    st.integers(0, 3),
)  # fmt: skip
def test_property_layout_is_a_test_of_every_line(lines, lead):
    """One regex pass over a span's newlines says what a test of every line says."""
    from convo.query.rawtext import TEXT_KEY, layout

    body = b"\n".join(lines) + b"\n"
    buf = b"}x\n"[:lead] + body
    every = all(
        line.startswith(TEXT_KEY) and line.endswith(b"}") for line in body.split(b"\n")[:-1]
    )
    assert layout(buf, lead, len(buf)) == every


@given(st.binary(min_size=1, max_size=20))
def test_property_in_key_is_an_occurrence_at_some_place_of_the_key(needle):
    """A word may start in a line's text key exactly when some line opening with the key
    holds it at a place inside the key."""
    from convo.query.rawtext import TEXT_KEY, in_key

    key = TEXT_KEY.lower()
    line = key + b"\x00" * len(needle)  # what follows the key: anything, here no word byte
    starts = {i for i in range(len(key)) if line.startswith(needle, i)}
    tails = {i for i in range(len(key)) if needle.startswith(key[i:])}
    assert in_key(needle) == bool(starts | tails)
