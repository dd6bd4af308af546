"""The shortcuts of the first pass of knowledge give what the plain rules give.

``text.body`` tests all chunks at once, ``text.may_be_marked`` finds ``_HINT`` without a
pattern, ``analysed.analyse`` skips ``scan`` for a text without marks, and a
``Conversation`` remembers the mail people it has learnt; none may change a result.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import text
from convo.analysis.knowledge.body_analysis import (
    _MARKER,
    BROADCAST,
    Analysis,
    analyse,
    message_body,
    said_of,
    with_side,
)
from convo.analysis.knowledge.entities import find
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.keyphrases import candidates
from convo.core import fields

PIECES = ["a", "wW", "W", "w", ".", "www.", "WwW.", "@", "#", ":", "//", "-", "--", ">",
          "wrote:", "WROTE:", "[", "[image]", "\n", "\t", " ", "é", "İ", "🎉", "?",
          "x.org", "bob@x.org", "@here", "#tag"]  # fmt: skip
TEXT = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
CHUNK = st.one_of(TEXT, TEXT.map(lambda t: "[tool_use x] " + t), st.integers(0, 3), st.none())


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_may_be_marked_is_the_hint_pattern(t):
    assert text.may_be_marked(t) == (text._HINT.search(t) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(CHUNK, max_size=5))
def test_body_is_the_chunk_by_chunk_body(chunks):
    assert text.body(chunks) == text._body_by_chunk(chunks)


def _scanned(record: dict, listeners: list[str]) -> Analysis:
    """``analyse`` with ``scan`` run on every text (the plain rule)."""
    body = _MARKER.sub("", message_body(record))
    if not body:
        return with_side(record, Analysis([], [], [], [], [], [], [], []))
    marked = text.scan(body)
    mentions = [m for m in marked.mentions if m.casefold() not in BROADCAST]
    asked = text.questions(body) if listeners else []
    named = find(marked.plain)
    return with_side(record, Analysis(marked.urls, marked.emails, mentions, marked.hashtags, asked,
                    candidates(marked.plain), named,
                    said_of(record, marked.plain, named, listeners, mentions)))  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(CHUNK, max_size=4), st.lists(st.sampled_from(["bob", "Ann"]), max_size=2))
def test_analyse_is_the_scanned_analysis(chunks, listeners):
    record = {"textChunks": chunks, "metadata": {"listeners": listeners}}
    assert analyse(record) == _scanned(record, listeners)
    assert analyse(record, listeners) == _scanned(record, listeners)


MAIL = ["Alice Smith <alice@x.org>", "alice@x.org", "ALICE@X.ORG", "<alice@x.org>",
        "Al <alice@x.org>", "Bob <bob@x.org>", "bob@x.org", "carol", "", "\"Q, R\" <q@r.io>",
        "Name <>", "user"]  # fmt: skip
PEOPLE = st.sampled_from(MAIL)
RECORD = st.fixed_dictionaries(
    {
        "metadata": st.fixed_dictionaries(
            {"speaker": PEOPLE, "listeners": st.lists(PEOPLE, max_size=3)}
        ),
        "format": st.sampled_from(["mbox", "eml", "slack"]),
        "textChunks": st.lists(st.sampled_from(["hi @bob", "a plan", "x@y.org"]), max_size=2),
    }
)


def _state(conv: Conversation) -> tuple:
    return conv._names, conv._aliases, conv.name_words, conv.wanted


@settings(max_examples=200, deadline=None)
@given(st.lists(RECORD, max_size=12))
def test_remembered_mail_people_change_nothing(records):
    remembering, plain = Conversation(), Conversation()
    for r in records:
        assert remembering.observe_record(r) == plain.observe_record(r)
        plain._displays.clear()  # the plain rule: every value learnt again
        plain._meta_seen.clear()
    assert _state(remembering) == _state(plain)
    names = [remembering.mailperson(x) for x in MAIL]
    assert names == [plain.mailperson(x) for x in MAIL]


def test_remembered_mail_people_are_bounded(monkeypatch):
    from convo.analysis.knowledge import extract

    monkeypatch.setattr(extract, "_DISPLAYS_MAX", 4)
    conv = Conversation()
    for i in range(20):
        conv.observe_record({"metadata": {"speaker": f"P{i} <p{i}@x.org>"}, "format": "mbox"})
    assert len(conv._displays) <= 4
    assert conv.mailperson("p3@x.org") == "P3"
    assert "_displays" in conv.__getstate__() and not conv.__getstate__()["_displays"]


ANALYSIS = st.builds(
    Analysis,
    *[st.lists(st.sampled_from(["x", "y.org"]), max_size=2) for _ in range(5)],
    st.lists(st.lists(st.sampled_from(["ab", "cd"]), min_size=1, max_size=3).map(" ".join)),
    st.lists(st.lists(st.sampled_from(["Paris", "place"]), min_size=2, max_size=2), max_size=2),
    st.lists(st.lists(st.sampled_from(["", "fix", "past"]), min_size=4, max_size=4), max_size=2),
)


@settings(max_examples=200, deadline=None)
@given(ANALYSIS)
def test_spooled_analysis_comes_back(a):
    assert Analysis.load(orjson.loads(orjson.dumps(a.dump()))) == a


VALUE = st.one_of(st.none(), st.integers(0, 1), st.text("ab", max_size=2),
                  st.lists(st.one_of(st.text("ab", max_size=2), st.integers(0, 1)), max_size=3))  # fmt: skip
META = st.one_of(
    VALUE,
    st.dictionaries(st.sampled_from(["speaker", "listeners", "recipients"]), VALUE),
)


@settings(max_examples=300, deadline=None)
@given(META)
def test_people_are_speaker_and_listeners(meta):
    record = {"metadata": meta}
    assert fields.people(record) == (fields.speaker(record), fields.listeners(record))
    assert fields.people({}) == (None, [])


LINE = st.sampled_from([b'{"id":"a","n":1}', b'{"id":"b"}\r', b'{"id":"c"}\r\r', b"", b"  ",
                        b"[1, 2]", b"not json", b'{"id": "d"', b'"x"', b'{"i\\u0064":"e"}'])  # fmt: skip


class _TakesNothing:
    """A ``parallel.RawReader`` that declines every block and line (the offered path)."""

    def block(self, block: bytes, lines: int) -> bool:
        return False

    def take(self, line: bytes) -> bool:
        return False


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans())
def test_range_lines_read_what_range_records_read(tmp_path_factory, lines, newline):
    """No reader (``convo knowledge``'s parse-all path, nothing counted nor offered) and
    a reader that takes nothing both read the records, lines and bad lines of
    ``range_records``."""
    from convo.analysis.parallel import RangeReport, RangeTask, range_lines, range_records
    from convo.core.ranges import Range
    from convo.query.filters import Filters

    path = tmp_path_factory.mktemp("lines") / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if newline else b""))
    task = RangeTask(Range(str(path), 0, path.stat().st_size), Filters())
    fast, offered, plain = RangeReport(), RangeReport(), RangeReport()
    want = list(range_records(task, plain))
    assert list(range_lines(task, fast, None)) == want
    assert list(range_lines(task, offered, _TakesNothing())) == want
    assert fast == plain
    assert offered == plain
