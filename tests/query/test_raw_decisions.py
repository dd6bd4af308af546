"""Every raw-byte shortcut of the scan answers what a parse and the exact checks answer.

The lines here are valid JSON built to mislead a reader of bytes: duplicate keys with a
space before the colon (orjson keeps the last), keys nested in other objects, escapes,
case-fold letters, odd spacing and key orders. Each is scanned one line at a time and in
blocks (where block-wide shortcuts apply), with and without the parsed record wanted.
"""

from __future__ import annotations

import io
import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from convo.core.fields import is_record
from convo.query.filters import Filters
from convo.query.prefilter import ASCII_ESCAPE, CASEFOLD_ASCII, RESPELLING
from convo.query.rawtext import _only_harmless_escapes
from convo.query.scan import Selector, select

BASE = (
    b'{"textChunks":["we need a budget"],"metadata":{"speaker":"Quinn Smith <q@x.org>",'
    b'"listeners":["Bob"]},"tags":["urgent"],"timestamp":"2020-01-01T00:00:00Z",'
    b'"source_id":"s","id":"i","format":"jsonl"'
)
PLAIN = (
    b'{"textChunks":["nothing here"],"metadata":{"speaker":"Bob Jones <bob@x.org>",'
    b'"listeners":[]},"tags":[],"timestamp":"2010-01-01T00:00:00Z","source_id":"s",'
    b'"id":"j","format":"jsonl"}'
)
# A later duplicate key (the one orjson keeps), maybe with a space before its colon; text
# arrays that are not flat strings; keys in another case.
HOSTILE = [
    BASE + b',"timestamp":"1990-01-01T00:00:00Z"}',
    BASE + b',"timestamp":"1990-01-01T00:00:00Z","id":"k"}',
    BASE + b',"timestamp":5}',
    BASE + b',"textChunks":["calm"]}',
    BASE + b',"TextChunks":["calm"]}',
    b'{"textChunks":["x",["budget"]],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[]}',
    b'{"textChunks":[{"a":"budget"}],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[]}',
    b'{"textChunks":[1,"budget"],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[]}',
    b'{"TEXTCHUNKS":["budget"],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[]}',
    b'{"textChunks":["calm"],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[],'
    b'"SUBJECT":"budget"}',
    b'{"textChunks":["calm"],"metadata":{"speaker":"Quinn","listeners":["budget"]},'
    b'"tags":["budget"],"subject":"Budget"}',
    BASE + b',"timestamp" :"1990-01-01T00:00:00Z"}',
    BASE + b',"x":"a\x01b"}',  # a raw control byte: not JSON, reported, never passed on
    BASE.replace(b"budget", b"bud\x1fget budget") + b"}",
    BASE + b',"metadata" :{"speaker" :"Bob"}}',
    BASE + b',"metadata" :{"speaker":"Bob"}}',
    BASE + b',"tags" :["calm"]}',
    BASE + b',"textChunks" :["calm"]}',
    BASE + b',"subject" :"budget"}',
    BASE + b',"subject":"calm","subject" :"budget"}',
    BASE,  # cut short (no closing brace): not JSON, so parsed and reported, not passed on
    BASE.replace(b"we need", b"a ] b") + b"}",  # a bracket in a string: still a plain array
    b'{"textChunks":["x",1],"metadata":{"speaker":"Quinn","listeners":[]},"tags":[]}',
    # A later duplicate spelled with an escape (it wins, as any later one)
    BASE + b',"metadat\\u0061":{"speaker":"Bob"}}',
    BASE + b',"t\\u0061gs":["calm"]}',
    BASE + b',"tim\\u0065stamp":"1990-01-01T00:00:00Z"}',
    BASE + b',"t\\u0065xtChunks":["calm"]}',
    BASE + b',"subj\\u0065ct":"budget"}',
    # metadata's speaker key spaced or escaped, another object's after it: the speaker
    # is metadata's (the raw speaker check must not read the other one)
    b'{"textChunks":["x"],"metadata":{"speaker" :"Quinn Smith","listeners":[]},"tags":[],'
    b'"extra":{"speaker":"Bob"}}',
    b'{"textChunks":["x"],"metadata":{"sp\\u0065aker":"Quinn Smith","listeners":[]},'
    b'"tags":[],"extra":{"speaker":"Bob"}}',
]
FILTERS = [
    {"speakers": ["quinn"]},
    {"speakers": ["bob"]},
    {"tags": ["urgent"]},
    {"tags": ["calm"]},
    {"since": "2019-01-01T00:00:00Z"},
    {"until": "2019-01-01T00:00:00Z"},
    {"texts": ["budget"]},
    {"texts": ["calm"]},
    {"texts": ["chunks"]},
    {"texts": ["1]"]},
    {"speakers": ["quinn"], "tags": ["urgent"]},  # speaker and tag decided together
    {"speakers": ["bob"], "tags": ["calm"]},
    {"speakers": ["quinn"], "tags": ["urgent"], "since": "2019-01-01T00:00:00Z"},
    {"speakers": ["quinn"], "texts": ["budget"], "since": "2019-01-01T00:00:00Z"},
]


def expected(lines: list[bytes], filters: dict) -> tuple[list[bytes], list[int]]:
    """What the exact checks select from the parsed lines, and the lines that are not
    records (by number)."""
    records, bad = [], []
    for number, raw in enumerate(lines, 1):
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None
        if is_record(record):
            records.append((raw, record))
        elif raw.strip():
            bad.append(number)
    wanted = list(select([r for _, r in records], Filters(**filters)))
    return [raw for raw, r in records if any(r is w for w in wanted)], bad


class Part:
    """Bytes as a raw JSONL source; ``reopenable``: a needle scan need not count lines
    (as for a regular file), which is where the block-wide text pass runs."""

    name = "mem"

    def __init__(self, data: bytes, reopenable: bool):
        self.data = data
        self.reopenable = reopenable

    def open(self):
        return io.BytesIO(self.data)


def scanned(
    lines: list[bytes], filters: dict, need_record: bool, reopenable: bool = True
) -> tuple[list[bytes], list[int]]:
    """The raw matches and the numbers of the lines reported as bad."""
    data = b"\n".join(lines) + b"\n"
    sel = Selector(Filters(**filters))
    bad: list[int] = []
    part = Part(data, reopenable)
    got = [
        m.raw
        for b in sel.batches([part], lambda e, line: bad.append(line.number), need_record)
        for m in b
    ]
    return got, bad


def assert_exact(lines: list[bytes], filters: dict) -> None:
    """The same matches as a parse; a line that is not a record is reported when it does
    not open an object (a line that opens one is reported only when it may match: the
    scan never parses what the bytes rule out), and no record is reported."""
    want, bad = expected(lines, filters)
    odd = {n for n in bad if not lines[n - 1].lstrip().startswith(b"{")}
    for need_record in (False, True):
        for reopenable in (False, True):
            got, reported = scanned(lines, filters, need_record, reopenable)
            assert got == want, (filters, need_record, reopenable)
            assert odd <= set(reported) <= set(bad), (filters, need_record, reopenable)


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:50])
def test_hostile_lines_decide_as_a_parse(filters):
    for line in HOSTILE:
        assert_exact([line], filters)
        assert_exact([PLAIN, line, PLAIN], filters)  # within a block of canonical lines
        assert_exact([line] * 3, filters)


def _py(raw: bytes, rename: bool = True) -> bytes:
    """A line of ``BASE``'s kind as Python's ``json.dumps`` writes it, without its closing
    brace (``raw`` without one either), ``text_chunks`` for ``textChunks`` when ``rename``."""
    record = orjson.loads(raw + b"}")
    if rename:
        record = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
    return json.dumps(record).encode()[:-1]


PY_BASE = _py(BASE)
PY_PLAIN = _py(PLAIN[:-1]) + b"}"
# Python's layout, misleading: later duplicates (spaced or not), the other spelling of
# the text array (which wins), a timestamp key in a nested object.
PY_HOSTILE = [
    *(
        base + tail
        for base in (PY_BASE, _py(BASE, rename=False))
        for tail in (
            b', "timestamp": "1990-01-01T00:00:00Z"}', b', "timestamp" : "1990-01-01T00:00:00Z"}',
            b',"timestamp":"1990-01-01T00:00:00Z"}', b', "timestamp": 5}',
            b', "textChunks": ["calm"]}', b', "textChunks": null}', b', "textChunks": 5}',
            b', "text_chunks": "calm"}',
            b', "x": {"timestamp": "1990-01-01T00:00:00Z"}}', b', "x": "}"}', b"}",
            b', "metadata": {"speaker": "Bob"}}', b', "tags": ["calm"]}',
            b', "x": {"speaker": "Bob"}}', b', "x": {"speaker":"Bob"}}',
            b', "x": {"speaker" : "Quinn"}}', b', "x": ["speaker", "Quinn"]}',
        )
    ),
    _py(BASE).replace(b'"text_chunks": [', b'"text_chunks": 7, "x": ['),
]  # fmt: skip


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:50])
def test_hostile_python_lines_decide_as_a_parse(filters):
    for line in PY_HOSTILE:
        assert_exact([line], filters)
        assert_exact([PY_PLAIN, line, PY_PLAIN], filters)
        assert_exact([line] * 3, filters)


# -- property: every shortcut equals a parse, one line at a time and in whole blocks ------

_WORDS = [
    "budget", "Budget", "BUDGET", "budgets", "bud get", "wen", "Went", "WEN", "wen_x", "Chunk",
]  # fmt: skip
_ODD = [
    "Stra\u00dfe", "\u212aelvin", "w\u1e97", "caf\u00e9", "[x]", "{y}", 'say "hi"', "a\\b", "a]",
    "\u1e98", "\u00e9budget", "x\u4e2d9b",
]  # fmt: skip
_SPEAKERS = [
    "Wen Li <wen.li@x.org>", "Went Smith", "Quinn", "quinn_a", "Zo\u00eb Wen", None, 7,
    "w\u00e9n", "\u212aelvin Wen", "Li, Wen", "(Wen)", "x.wen@y.org", "Owen", "2wen", "wen2",
    "\u2014Wen", "\u00e9Wen", "Wen\u00e9", "\u4e2dWen",
]  # fmt: skip
_CHUNKS = [
    ["budget"], ["x", ["budget"]], [{"t": "budget"}], [1, "budget"], "budget", None, [],
    ["budget", 1], ["a chunk", 1],
]  # fmt: skip
_TIMES = ["2018-01-01T00:00:00Z", "2017-12-31T23:59:59Z", "2019-06-01T00:00:00+02:00", None]


@st.composite
def _line(draw) -> bytes:
    chunks = draw(st.lists(st.sampled_from(_WORDS + _ODD), max_size=3))
    record: dict = {
        "textChunks": [" ".join(chunks)] if draw(st.booleans()) else chunks,
        "metadata": {
            "speaker": draw(st.sampled_from(_SPEAKERS)),
            "listeners": draw(st.lists(st.sampled_from(["wen", "Budget Bob"]), max_size=2)),
        },
        "tags": draw(st.lists(st.sampled_from(["urgent", "budget-review", "URGENT"]), max_size=2)),
        "timestamp": draw(st.sampled_from(_TIMES)),
        "source_id": "s",
        "id": "i",
        "format": "jsonl",
    }
    if draw(st.booleans()):
        record["subject"] = draw(st.sampled_from(["Re: budget", "hello", "", "BUDGET\u1e97"]))
    if draw(st.booleans()):
        record["extra"] = {"timestamp": "1999-01-01T00:00:00Z", "subject": "budget"}
        if draw(st.booleans()):  # a speaker key that is not metadata's
            record["extra"]["speaker"] = draw(st.sampled_from(_SPEAKERS))
    if draw(st.integers(0, 5)) == 0:  # text of another shape: nested, not strings, absent
        record["textChunks"] = draw(st.sampled_from(_CHUNKS))
    style = draw(st.sampled_from(STYLES))
    if style in ("python", "escaped"):  # Python's json.dumps defaults, maybe text_chunks
        if draw(st.booleans()):
            record = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
        line = json.dumps(record).encode()
        if style == "escaped":  # ASCII letters of keys and words as escapes
            for plain, escaped in _ESCAPED:
                if draw(st.booleans()):
                    line = line.replace(plain, escaped)
    elif style == "spaced":
        line = json.dumps(record, ensure_ascii=False).encode()
    elif style == "ascii":
        line = json.dumps(record, separators=(",", ":")).encode()  # \u escapes
    elif style == "reordered":
        line = orjson.dumps(dict(reversed(list(record.items()))))
    else:
        line = orjson.dumps(record)
    if draw(st.integers(0, 5)) == 0:  # a later duplicate (orjson keeps it), maybe spaced
        key = draw(st.sampled_from(["timestamp", "subject", "textChunks", "tags", "metadata"]))
        value = draw(st.sampled_from(_DUPLICATES[key]))
        colon = draw(st.sampled_from([b":", b" :"]))
        line = line[:-1] + b',"' + key.encode() + b'"' + colon + orjson.dumps(value) + b"}"
    if draw(st.integers(0, 9)) == 0:  # not an object (or spaced): the raw decisions
        # assume valid JSON in a line that opens an object (canonical.py's docstring)
        line = draw(st.sampled_from([b"x", b" ", b"[1]"])) + line[1:]
        if line.startswith(b" "):
            line = b" {" + line[1:]
    return line


STYLES = ["orjson", "orjson", "orjson", "spaced", "ascii", "reordered", "python", "escaped"]
# Inside strings only (keys and words), so the line stays valid JSON.
_ESCAPED = [
    (b"speaker", b"sp\\u0065aker"), (b"timestamp", b"tim\\u0065stamp"),
    (b"textChunks", b"t\\u0065xtChunks"), (b"urgent", b"\\u0075rgent"),
    (b"udget", b"udg\\u0065t"), (b"Wen", b"W\\u0065n"), (b"tags", b"t\\u0061gs"),
    (b"Kelvin", b"\\u212Aelvin"), (b"Stra", b"Str\\u0061"),
    # Escapes of case-fold letters that spell no letter of most needles ("ſ", "ǰ"):
    # looked for only when they may (``prefilter.LineStarts.escape_pattern``).
    (b"urgent", b"urgent\\u017f"), (b"udget", b"udget\\u017F"), (b"Wen", b"\\u01f0Wen"),
    (b"Quinn", b"Quinn\\u017f"), (b"Went", b"\\u017fWent"),
]  # fmt: skip

_DUPLICATES = {
    "timestamp": ["2020-01-01T00:00:00Z", "2010-01-01T00:00:00Z", 5],
    "subject": ["budget", "calm", None],
    "textChunks": [["budget"], ["calm"], "budget"],
    "tags": [["urgent"], ["calm"]],
    "metadata": [{"speaker": "Wen"}, {"speaker": "Bob"}, None],
}


_FILTERS = st.sampled_from(
    [
        {"texts": ["budget"]},
        {"texts": ["BUDGET"]},
        {"texts": ["wen"]},
        {"texts": ["strasse"]},
        {"texts": ["kelvin"]},
        {"texts": ["chunk"]},  # in every line's key: its first hit says nothing of the text
        {"texts": ["1]"]},  # a hit that runs past the array's end is not in a string
        {"texts": ["data"]},  # in every line's "metadata"
        {"texts": ["e9b"]},  # in the escape of "ébudget" (json.dumps), not in its text
        {"speakers": ["wen"]},
        {"speakers": ["Went"]},
        {"speakers": ["kelvin"]},
        {"speakers": ["quinn"]},
        {"listeners": ["wen"]},
        {"tags": ["urgent"]},
        {"tags": ["urgents"]},  # "urgent\u017f" folds to it: its escape is looked for
        {"texts": ["budgets"]},
        {"since": "2018-01-01T00:00:00Z"},
        {"until": "2018-01-01T00:00:00Z"},
        {"since": "2018-01-01T00:00:00Z", "texts": ["budget"]},
        {"speakers": ["wen"], "tags": ["urgent"]},
        {"speakers": ["quinn"], "since": "2018-01-01T00:00:00Z"},
        {"tags": ["urgent"], "until": "2018-01-01T00:00:00Z"},
        {"speakers": ["wen"], "texts": ["budget"], "since": "2018-01-01T00:00:00Z"},
    ]
)


@given(st.lists(_line(), min_size=1, max_size=12), _FILTERS)
def test_property_shortcuts_equal_a_parse(lines, filters):
    assert_exact(lines, filters)


@given(_line(), _FILTERS, st.integers(1, 40))
def test_property_a_block_of_one_layout_equals_a_parse(line, filters, copies):
    """Many lines alike: the block-wide passes (time, text) answer for all of them."""
    try:
        canonical = orjson.dumps(orjson.loads(line))
    except orjson.JSONDecodeError:
        canonical = PLAIN
    assert_exact([canonical] * copies + [line] + [canonical] * copies, filters)


def _python_layout(line: bytes, rename: bool) -> bytes:
    """The record of ``line`` as Python's ``json.dumps`` writes it (``PLAIN``'s when
    ``line`` is not JSON), ``textChunks`` renamed ``text_chunks`` when ``rename``."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        record = orjson.loads(PLAIN)
    if rename and isinstance(record, dict):
        record = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
    return json.dumps(record).encode()


@given(_line(), _FILTERS, st.integers(1, 40), st.booleans())
def test_property_a_block_of_python_layout_equals_a_parse(line, filters, copies, rename):
    """Many lines as Python's ``json.dumps`` writes them (the block-wide time pass reads
    that layout too), one line of any layout among them."""
    python = _python_layout(line, rename)
    assert_exact([python] * copies + [line] + [python] * copies, filters)
    assert_exact([python] * copies, filters)


@given(st.binary(max_size=40), st.integers(0, 3 << 18), st.integers(0, 1 << 18))
def test_property_has_control_equals_a_byte_test(piece, before, after):
    """The control-byte check of a whole block (in cache-sized windows) sees a raw
    control byte wherever it is, windows' edges included."""
    from convo.query.rawkeys import has_control

    buf = b"a" * before + piece + b"\t\n\r" * (after // 3)
    assert has_control(buf) == any(b < 0x20 and b not in b"\t\n\r" for b in piece)


@given(st.binary(max_size=60), st.integers(0, 3))
def test_property_lower_checked_is_the_lowering_and_the_control_check(buf, lead):
    from convo.query.rawkeys import has_control, lower_checked

    buf = b"Ab\t\r\n" * lead + buf
    assert lower_checked(buf) == (buf.lower(), has_control(buf))


@given(
    st.text(alphabet="ab\u1e97\u00df\u00e9\u1e96", max_size=30),
    st.lists(st.sampled_from(["\u1e97", "\u00df", "\ufb01", "a"]), max_size=3),
    st.integers(0, 5),
    st.integers(0, 5),
)
def test_property_holds_any_is_a_find_of_each(text, pieces, start, cut):
    """The lead-byte memchr before each find changes no answer."""
    from convo.query.rawtext import holds_any

    buf, wanted = text.encode(), [p.encode() for p in pieces]
    end = max(start, len(buf) - cut)
    assert holds_any(buf, wanted, start, end) == any(p in buf[start:end] for p in wanted)


# -- other writers' layouts: Python's json.dumps (spaces, \u escapes, text_chunks) ---------

_PYTHON_SPEAKERS = ["\u2014Wen", "x\u2014Wen Li", "\u00e9Wen", "Wen\u00e9", "Zo\u00eb Wen", "Went"]


@pytest.mark.parametrize("chunks", ["textChunks", "text_chunks"])
@pytest.mark.parametrize("speaker", _PYTHON_SPEAKERS)
def test_a_word_after_an_escape_is_a_whole_word(speaker, chunks):
    """``json.dumps`` writes "—Wen" as ``\\u2014Wen``: the byte before the name is a hex
    digit (a word byte), yet the name's word starts there."""
    record = {
        chunks: [f"{speaker} caf\u00e9 budget"], "metadata": {"speaker": speaker, "listeners": []},
        "tags": ["urgent"], "timestamp": "2020-01-01T00:00:00Z", "id": "i",
    }  # fmt: skip
    line = json.dumps(record).encode()
    for filters in ({"speakers": ["wen"]}, {"speakers": ["wen"], "tags": ["urgent"]}):
        assert_exact([line], filters)
        assert_exact([PLAIN, line, PLAIN], filters)


def test_respelling_escapes_are_those_of_ascii_and_case_fold_letters():
    """``prefilter.RESPELLING`` matches exactly the escapes of a character that is ASCII
    or whose case fold holds ASCII, its hex digits in any case."""
    for cp in range(0x10000):
        want = cp < 0x80 or chr(cp) in CASEFOLD_ASCII
        for digits in (f"{cp:04x}", f"{cp:04X}", f"{cp:04x}"[:3] + f"{cp:04X}"[3:]):
            assert bool(RESPELLING.fullmatch(b"\\u" + digits.encode())) is want, digits


def test_ascii_escapes_are_those_of_ascii_characters():
    """``prefilter.ASCII_ESCAPE`` matches exactly the escapes of an ASCII character
    (the only ones that can spell a key), its hex digits in any case."""
    for cp in range(0x10000):
        for digits in (f"{cp:04x}", f"{cp:04X}"):
            escape = b"\\u" + digits.encode()
            assert bool(ASCII_ESCAPE.match(escape)) is (cp < 0x80), digits


_ESCAPE_BYTES = st.lists(
    st.sampled_from([b"\\", b"u", b"00", b"0", b"7", b"e9", b"df", b"DF", b"17f", b"212a",
                     b"fb0", b"1e9", b"a", b'"', b" "]),
    max_size=14,
).map(b"".join)  # fmt: skip


@given(_ESCAPE_BYTES, st.integers(0, 6), st.integers(0, 6))
def test_property_only_harmless_escapes_is_its_definition(buf, lead, cut):
    """``rawtext._only_harmless_escapes`` (one regex pass) answers what its definition
    does: every backslash opens ``\\u`` and no escape may spell ASCII (``RESPELLING``)."""
    start, end = min(lead, len(buf)), max(min(lead, len(buf)), len(buf) - cut)
    want = buf.count(b"\\", start, end) == buf.count(b"\\u", start, end) and not (
        RESPELLING.search(buf, start, end)
    )
    assert _only_harmless_escapes(buf, start, end) is bool(want)


@pytest.mark.parametrize("rename", [False, True])
@pytest.mark.parametrize("word", ["e9b", "budget", "caf", "u00e9"])
def test_a_word_in_an_escape_is_not_in_the_text(word, rename):
    """``json.dumps`` writes "ébudget" as ``\\u00e9budget``: "e9b" is in its bytes but
    not in its text; "budget" is in both. One line and whole blocks of them."""
    lines = [
        _python_layout(orjson.dumps({**orjson.loads(PLAIN), "textChunks": [text]}), rename)
        for text in ("\u00e9budget", "caf\u00e9", "e9b \u00e9", "\u00e9e9b")
    ]
    filters = {"texts": [word]}
    for line in lines:
        assert_exact([line], filters)
        assert_exact([line] * 5, filters)
    assert_exact(lines * 3, filters)
