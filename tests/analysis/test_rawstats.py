"""Stats read from raw bytes (analysis.rawstats) equal the stats of the parsed records."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from convo.analysis import parallel, rawstats
from convo.analysis.parallel import RangeReport, RangeTask
from convo.analysis.stats import Stats, compute, stats_of_range
from convo.core.people import People
from convo.core.ranges import Range
from convo.query.filters import Filters

# Spaces of every kind str.split knows, the characters JSON escapes, and some text.
SPACES = [" ", "  ", "\u00a0", "\u2028", "\u3000", "\u2009", "\u202f", "\x85", "\u1680", "\u205f",
          "\t", "\n", "\x1c", "’", "“", "\u200b"]  # fmt: skip
WORDS = ["a", "bé", "ΣΑΣ", "日本語", "🎉", '"q"', "back\\slash", "x,y", "],[", '","', "{}", ""]
NAMES = [None, "", "Ann", "(none)", "Bob <b@x.org>", 'quo"te', "é", "null"]
STAMPS = ["2024-05-01T10:00:00Z", "1970-01-01T00:00:05Z", "2021-02-03T04:05:06Z",
          "2023-01-01T00:00:00+02:00", "2019-13-01T00:00:00Z", None, 7]  # fmt: skip

text = st.lists(st.sampled_from(WORDS + SPACES), max_size=8).map("".join)
record = st.fixed_dictionaries(
    {
        "textChunks": st.lists(text, max_size=3),
        "metadata": st.fixed_dictionaries(
            {"speaker": st.sampled_from(NAMES), "listeners": st.lists(st.sampled_from(NAMES[1:]))}
        ),
        "tags": st.lists(st.sampled_from(["ci", "Ops", "ops", "", "é", "a b"]), max_size=3),
        "timestamp": st.sampled_from(STAMPS),
        "source_id": st.sampled_from([None, "s#1", ""]),
        "id": st.sampled_from(["m1", "m2"]),
        "format": st.sampled_from([None, "", "slack", "mbox", "(none)"]),
    },
    optional={"subject": st.sampled_from(["Re: x ", None]), "extra": st.just({"to": ["a"]})},
)
# Lines convo's layout can be damaged into: each must be read as the parser reads it.
DAMAGE = [
    lambda b: b,
    lambda b: b[:-1] + b',"format":"dup"}',
    lambda b: b[:-1] + b',"tags":["late"]}',
    lambda b: b[:-1] + b',"timestamp":"2000-01-01T00:00:00Z"}',
    lambda b: b.replace(b'"Ann"', b'"A\xffnn"'),
    lambda b: b + b"\r",
    lambda b: b.replace(b"a", b"\x01a", 1),
    lambda b: b[: len(b) // 2],
    lambda b: b"",
    lambda b: b"[1]",
    lambda b: b.replace(b'{"textChunks"', b'{ "textChunks"'),
    lambda b: b.replace(b'"timestamp"', b'"timestamp":"x","timestamp"'),
    lambda b: b.replace(b'"tags"', b'"extra":{"textChunks":[]},"tags"'),
]
lines = st.lists(
    st.tuples(record, st.sampled_from(range(len(DAMAGE))), st.booleans()), min_size=1, max_size=30
)


def _write(path, items) -> list[bytes]:
    out = []
    for rec, damage, keep in items:
        out.append(DAMAGE[damage if not keep else 0](orjson.dumps(rec)))
    path.write_bytes(b"\n".join(out) + b"\n")
    return out


def _expected(raw_lines: list[bytes], people=None) -> tuple[dict, list[int]]:
    """One pass of Stats.add over what orjson parses, and the bad lines' numbers."""
    records, bad = [], []
    for n, raw in enumerate(raw_lines, 1):
        try:
            value = orjson.loads(raw.rstrip(b"\r"))
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            records.append(value if people is None else people.canonical_record(value))
        elif raw.strip():
            bad.append(n)
    return compute(records).to_json(), bad


@pytest.mark.parametrize("read", [64, 1 << 20])  # many blocks, or one
@given(items=lines)
def test_raw_stats_equal_parsed_stats(tmp_path_factory, read, items):
    path = tmp_path_factory.mktemp("raw") / "store.jsonl"
    raw_lines = _write(path, items)
    task = RangeTask(Range(str(path), 0, path.stat().st_size), Filters())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "READ_BYTES", read)
        stats, report = stats_of_range(task)
    want, bad = _expected(raw_lines)
    assert stats.to_json() == want
    assert [b[0] for b in report.bad] == bad
    assert report.lines == len(raw_lines)


def test_people_map_raw_speakers(tmp_path):
    people = People.of(
        {"people": {"ann": {"name": "Ann Lee", "names": ["Bob <b@x.org>"], "addresses": []}}}
    )
    items = [({"textChunks": ["w w"], "metadata": {"speaker": s, "listeners": []}, "tags": [],
               "timestamp": "2024-01-01T00:00:00Z", "source_id": None, "id": "m", "format": "x"},
              0, True) for s in ["Ann", "Bob <b@x.org>", "", None, "Cy"]]  # fmt: skip
    path = tmp_path / "store.jsonl"
    raw_lines = _write(path, items)
    task = RangeTask(Range(str(path), 0, path.stat().st_size), Filters(), people)
    stats, _ = stats_of_range(task)
    assert stats.to_json() == _expected(raw_lines, people)[0]


def test_a_clean_block_is_counted_in_one_pass(tmp_path):
    """The benchmark store's layout: every line of a block taken at once, none parsed."""
    rec = {"textChunks": ["one two", "three"], "metadata": {"speaker": "Ann", "listeners": []},
           "tags": ["ci"], "timestamp": "2024-01-01T00:00:00Z", "source_id": None, "id": "m",
           "format": "slack", "subject": "s"}  # fmt: skip
    block = b"".join(orjson.dumps(rec) + b"\n" for _ in range(3))
    raw = rawstats.RawStats()
    assert raw.block(block, 3)
    s = raw.to_stats().to_json()
    assert (s["messages"], s["words"], s["speakers"][0]["name"]) == (3, 9, "Ann")
    assert not rawstats.RawStats().block(block.replace(b"one", b"o\\u006ee"), 3)


@pytest.mark.parametrize("space", SPACES)
def test_words_split_like_str_split(space):
    chunks = ["a" + space + "b", space, "", space + "c" + space]
    raw = orjson.dumps(chunks)[1:-1]
    if rawstats.clean(raw):
        assert rawstats.words(raw, True) == len(" ".join(chunks).split())
    else:  # escaped or raw control: the line is parsed instead
        assert rawstats.LINE.fullmatch(raw) is None


def test_merge_of_raw_and_parsed_tallies_is_exact():
    stats = Stats()
    stats.merge(rawstats.RawStats().to_stats())
    assert stats.to_json() == Stats().to_json()
    assert RangeReport().lines == 0


def test_a_date_that_does_not_exist_is_undated(tmp_path):
    """``2019-13-01T...`` has the canonical form but no day: undated, not a crash."""
    rec = {"textChunks": ["a b"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
           "timestamp": "2019-13-01T00:00:00Z", "source_id": None, "id": "m", "format": "x"}  # fmt: skip
    good = dict(rec, timestamp="2024-01-01T00:00:00Z")
    s = compute([rec, good]).to_json()
    assert (s["messages"], s["undated"], s["first"], s["last"]) == (
        2, 1, "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z",
    )  # fmt: skip
    path = tmp_path / "store.jsonl"
    path.write_bytes(orjson.dumps(rec) + b"\n" + orjson.dumps(good) + b"\n")
    stats, _ = stats_of_range(RangeTask(Range(str(path), 0, path.stat().st_size), Filters()))
    assert stats.to_json() == s
