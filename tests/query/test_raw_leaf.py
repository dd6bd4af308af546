"""A negated leaf decided a block at a time (``query/rawleaf.py``) answers what a parse
and the exact check answer, on convo's layout and Python's ``json.dumps`` layouts (with
and without ``ensure_ascii``, ``text_chunks`` or ``textChunks``), escaped keys and words,
odd spacing and later duplicates: the lines of ``test_raw_decisions``."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.query.test_raw_decisions import (
    HOSTILE,
    PLAIN,
    PY_HOSTILE,
    PY_PLAIN,
    _line,
    _python_layout,
    assert_exact,
)

from convo.query.compiled import Compiled
from convo.query.language import parse
from convo.query.linescan import BlockScan
from convo.query.tree import to_filters

QUERIES = [
    "NOT tag:urgent",
    "NOT tag:URGENT",
    "-tag:calm",
    "NOT tag:budget-review",
    "NOT from:wen",
    "NOT from:Quinn",
    "NOT from:kelvin",
    "NOT from:went",
    "NOT NOT NOT tag:urgent",
]


def _filters(query: str) -> dict:
    """The query's ``Filters`` as the keyword arguments ``assert_exact`` takes."""
    flt = to_filters(parse(query))
    return {name: getattr(flt, name) for name in flt._fields}


def test_the_leaf_path_is_taken_for_a_negated_tag_or_speaker_only():
    for q in QUERIES:
        assert Compiled.of(to_filters(parse(q))).leaf is not None, q
    for q in ["tag:urgent", "NOT NOT tag:urgent", "NOT format:slack", "role:user",
              "NOT role:user", "NOT budget", "NOT tag:urgent budget", "NOT tag:caf\u00e9",
              'NOT tag:a\\b']:  # fmt: skip
        assert Compiled.of(to_filters(parse(q))).leaf is None, q


@pytest.mark.parametrize("query", QUERIES)
def test_hostile_lines_decide_as_a_parse(query):
    filters = _filters(query)
    for plain, hostile in ((PLAIN, HOSTILE), (PY_PLAIN, PY_HOSTILE)):
        for line in hostile:
            assert_exact([line], filters)
            assert_exact([plain, line, plain], filters)
            assert_exact([plain] * 5 + [line] * 3, filters)


def test_lines_without_the_needle_are_not_parsed(monkeypatch):
    parsed = []
    check = BlockScan.check

    def counted(self, raw, *args):
        parsed.append(raw)
        return check(self, raw, *args)

    monkeypatch.setattr(BlockScan, "check", counted)
    for plain, tags in ((PLAIN, b'"tags":[]'), (PY_PLAIN, b'"tags": []')):
        tagged = plain.replace(tags, tags[:-1] + b'"URGENT"]')
        assert tagged != plain
        lines = [plain] * 30 + [tagged] + [plain] * 30
        parsed.clear()
        assert_exact(lines, _filters("NOT tag:urgent"))
        # only the tagged line, in each of the four scans with the record wanted or not
        # (wanted: the 60 matches are parsed to be handed on)
        assert parsed.count(tagged) == 4 and len(parsed) <= 4 + 2 * 60


_QUERY = st.sampled_from(QUERIES)


@given(st.lists(_line(), min_size=1, max_size=12), _QUERY)
def test_property_equals_a_parse(lines, query):
    assert_exact(lines, _filters(query))


@given(_line(), _QUERY, st.integers(1, 40), st.sampled_from(["orjson", "python", "renamed"]))
def test_property_a_block_of_one_layout_equals_a_parse(line, query, copies, layout):
    """Many lines of one layout (the block is then proven records and decided at once),
    one line of any layout among them."""
    if layout == "orjson":
        try:
            same = orjson.dumps(orjson.loads(line))
        except orjson.JSONDecodeError:
            same = PLAIN
    else:
        same = _python_layout(line, rename=layout == "renamed")
    filters = _filters(query)
    assert_exact([same] * copies + [line] + [same] * copies, filters)
    assert_exact([same] * copies, filters)


@pytest.mark.parametrize("plain", [PLAIN, PY_PLAIN], ids=["convo", "json.dumps"])
@pytest.mark.parametrize(
    ("query", "tail"),
    [
        ("NOT tag:urgent", b', "tags": ["\\u0075rgent"]}'),  # the tag, escaped
        ("NOT tag:urgent", b', "t\\u0061gs": ["\\u0075rgent"]}'),  # and its key
        ("NOT tag:urgent", b', "tags": ["urgen\\u0074"]}'),
        ("NOT from:wen", b', "metadata": {"speaker": "W\\u0065n"}}'),
        ("NOT from:kelvin", b', "metadata": {"speaker": "\\u212aelvin"}}'),
        ("NOT from:kelvin", b', "metadata": {"speaker": "\\u212Aelvin"}}'),
        ("NOT from:kelvin", ', "metadata": {"speaker": "\u212aelvin"}}'.encode()),
        ("NOT tag:urgent", b', "t\\u0065xtChunks": 5}'),  # no longer a record
        ("NOT tag:urgent", b', "t\\u0065xt_chunks": 5}'),
        # The escape of a case-fold letter that cannot spell the needle ("ſ" in a
        # tag, "ǰ" before a name): looked for only when one can (``ASCII_ESCAPE``).
        ("NOT tag:urgent", b', "tags": ["urgent\\u017f"]}'),
        ("NOT tag:urgents", b', "tags": ["urgent\\u017f"]}'),  # "ſ" folds to "s"
        ("NOT tag:urgents", b', "tags": ["urgent\\u017F"]}'),
        ("NOT from:wen", b', "metadata": {"speaker": "\\u01f0 Wen"}}'),
        ("NOT from:Quinn", b', "metadata": {"speaker": "\\u017f Quinn"}}'),
    ],
)
def test_escapes_in_a_proven_block_are_parsed(plain, query, tail):
    """A line whose needle or key is spelled with an escape, among lines of its layout:
    only the escape says so (the raw needle is absent)."""
    line = plain[:-1] + tail
    assert_exact([plain] * 20 + [line] + [plain] * 20, _filters(query))
