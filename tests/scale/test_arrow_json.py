"""The Parquet export's fast read (``arrow_json``: Arrow's JSON reader on blocks of lines)
writes the files, counts the lines and reports the bad lines and rejects of the plain
read (records parsed one by one, ``common.validated``, ``parquet.arrow_batch``)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.analysis import parallel
from convo.core.ranges import Range
from convo.output.exporters import parquet_parallel
from convo.output.exporters.arrow_json import json_batch
from convo.output.exporters.parquet import arrow_schema
from convo.query.filters import Filters

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = ("format", "month")


def _export(store: Path, root: Path, fast: bool) -> tuple[tuple, dict[str, bytes]]:
    """Round 1 and round 2 of ``parquet_parallel`` on the whole file, in this process."""
    parquet_parallel.FAST = fast
    root.mkdir()
    spill = root / ".spill"
    spill.mkdir()
    task = parallel.RangeTask(Range(str(store), 0, store.stat().st_size), Filters())
    spilled = parquet_parallel.spill_range(
        parquet_parallel.SpillTask(task, 0, str(root), str(spill), PARTITIONS)
    )
    parquet_parallel.write_partitions(
        parquet_parallel.WriteTask(str(root), PARTITIONS, list(spilled.runs.items()))
    )
    shutil.rmtree(spill)
    files = {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }
    return (spilled.count, spilled.lines, spilled.reports, list(spilled.runs)), files


@pytest.fixture(autouse=True)
def _in_this_process(monkeypatch):
    # a worker's setup would make pandas unimportable in the test process
    monkeypatch.setattr(parquet_parallel, "_worker_setup", lambda: None)
    monkeypatch.setattr(parquet_parallel, "FAST", True)


TEXT = st.text(
    st.one_of(
        st.sampled_from('ab \n\t"\\/{}[]éß東京🎉\u202e\x1b\x00'),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=8,
)
GOOD_STAMP = st.sampled_from(["2024-03-01T10:00:00Z", "2016-12-31T23:59:59Z"])
STAMP = st.sampled_from([
    "2024-03-01T10:00:00Z", "1970-01-01T00:00:00Z", "1970-01-01T00:01:40Z",
    "2024-02-30T10:00:00Z", "2024-13-01T10:00:00Z", "0000-01-01T00:00:00Z",
    "2024-03-01T23:59:60Z", "٢٠٢٤-03-01T10:00:00Z", "2024-03-01", "0999-03-01T10:00:00Z", "",
])  # fmt: skip
MAYBE = st.one_of(st.none(), TEXT)
RECORD = st.fixed_dictionaries(
    {"textChunks": st.lists(TEXT, min_size=1, max_size=3), "timestamp": STAMP},
    optional={
        "metadata": st.fixed_dictionaries(
            {}, optional={"speaker": MAYBE, "listeners": st.lists(TEXT, max_size=2)}
        ),
        "tags": st.lists(TEXT, max_size=2), "source_id": MAYBE, "id": MAYBE,
        "format": st.sampled_from(["slack", "mbox", "", None]), "thread": MAYBE,
        "replyTo": MAYBE, "role": st.sampled_from(["user", "assistant", "x", None]),
        "subject": MAYBE,
    },
)  # fmt: skip
# convo's own layout: every key the fast read takes (it cannot tell a missing list from
# a null one, so a record without one takes the plain read)
CLEAN = st.fixed_dictionaries(
    {
        "textChunks": st.lists(TEXT, min_size=1, max_size=3), "timestamp": GOOD_STAMP,
        "metadata": st.fixed_dictionaries(
            {"listeners": st.lists(TEXT, max_size=2)}, optional={"speaker": MAYBE}
        ),
        "tags": st.lists(TEXT, max_size=2),
    },
    optional={
        "source_id": MAYBE, "id": MAYBE, "format": st.sampled_from(["slack", "mbox", ""]),
        "thread": MAYBE, "replyTo": MAYBE, "role": st.sampled_from(["user", "x", None]),
        "subject": MAYBE,
    },
)  # fmt: skip
ODD = st.sampled_from([
    b"not json", b"", b"  ", b"[1]", b'{"textChunks": ["a"]} {"textChunks": ["b"]}',
    b'{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z", "extra": {"k": [1]}}',
    b'{"textChunks": [], "metadata": {}}', b'{"textChunks": null, "tags": null}',
    b'{"textChunks": ["a", null], "timestamp": "2024-03-01T10:00:00Z"}',
    b'{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z", "id": 5}',
    b'{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z", "id": "a", "id": "b"}',
    b'{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z", "metadata": null}',
    b'{"textChunks": ["\\ud800"], "timestamp": "2024-03-01T10:00:00Z"}',
    b'{"textChunks": ["\xff"], "timestamp": "2024-03-01T10:00:00Z"}',
    b'\xef\xbb\xbf{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z"}',
    b' {"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z"}',
])  # fmt: skip


def _line(draw_item) -> bytes:
    kind, value = draw_item
    if kind == "convo":
        return orjson.dumps(value)
    if kind == "foreign":  # Python's json.dumps: spaces, \\u escapes, the other spelling
        value = {("text_chunks" if k == "textChunks" else k): v for k, v in value.items()}
        return json.dumps(value).encode()
    if kind == "escaped":
        return json.dumps(value, separators=(",", ":")).encode()
    return value


LINES = st.lists(
    st.one_of(
        *[st.tuples(st.just("convo"), CLEAN)] * 6, st.tuples(st.just("convo"), RECORD),
        st.tuples(st.just("foreign"), RECORD), st.tuples(st.just("escaped"), RECORD),
        st.tuples(st.just("odd"), ODD),
    ),
    min_size=1, max_size=14,
)  # fmt: skip


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(LINES, st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.sampled_from([64, 300, 4096]))
def test_the_fast_read_exports_what_the_plain_one_does(
    tmp_path_factory, monkeypatch, lines, newline, last_newline, block
):
    monkeypatch.setattr(parquet_parallel, "FAST_BLOCK", block)
    tmp = tmp_path_factory.mktemp("x")
    store = tmp / "s.jsonl"
    data = newline.join(map(_line, lines))
    store.write_bytes(data + (newline if last_newline else b""))
    fast = _export(store, tmp / "fast", True)
    plain = _export(store, tmp / "plain", False)
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]


def test_a_bom_inside_the_file_is_a_bad_line_at_every_block_size(tmp_path, monkeypatch):
    clean = b'{"textChunks": ["a"], "timestamp": "2024-03-01T10:00:00Z", "metadata": {"listeners": []}, "tags": []}'
    store = tmp_path / "s.jsonl"
    store.write_bytes(clean + b"\n\xef\xbb\xbf" + clean + b"\n" + clean + b"\n")
    for block in (16, len(clean) + 1, 4096):
        monkeypatch.setattr(parquet_parallel, "FAST_BLOCK", block)
        fast = _export(store, tmp_path / f"fast{block}", True)
        plain = _export(store, tmp_path / f"plain{block}", False)
        assert fast == plain
        assert fast[0][0] == 2 and fast[0][2][0][0] == 2  # line 2: bad


def test_convo_records_take_the_fast_read(tmp_path, monkeypatch):
    """The benchmark's records are read by Arrow (no block falls back), and the export
    is the plain one's, byte for byte."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_query

    store = tmp_path / "store.jsonl"
    bench_query.generate(store, 3_000)
    data = store.read_bytes()
    assert json_batch(data, arrow_schema()) is not None
    monkeypatch.setattr(parquet_parallel, "FAST_BLOCK", 100_000)
    fast = _export(store, tmp_path / "fast", True)
    plain = _export(store, tmp_path / "plain", False)
    assert fast == plain
    assert fast[0][0] == 3_000 and len(fast[1]) > 10


def _stamp(parts: tuple[int, int, int, int, int, int]) -> str:
    return "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format(*parts)


STAMP_SHAPED = st.tuples(
    st.one_of(st.integers(0, 9999), st.sampled_from([0, 1, 1900, 2000, 2023, 2024, 9999])),
    st.integers(0, 19), st.integers(0, 39), st.integers(0, 29), st.integers(0, 69),
    st.integers(0, 69),
).map(_stamp)  # fmt: skip
ANY_STAMP = st.one_of(
    STAMP_SHAPED,
    STAMP,
    st.sampled_from([
        "2023-02-29T10:00:00Z", "2024-02-29T10:00:00Z", "1900-02-29T00:00:00Z",
        "2000-02-29T00:00:00Z", "2024-04-31T10:00:00Z", "2024-03-01T24:00:00Z",
        "2024-03-01T10:60:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
        "2024-03-01T10:00:00+00:00", "2024-03-01 10:00:00Z", "2024-03-01T10:00:00.5Z",
        "2024-03-01T10:00Z", "+2024-03-01T10:00:00Z", "2024-03-01T10:00:00z",
    ]),
    TEXT,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_STAMP, min_size=1, max_size=4))
def test_the_block_timestamp_check_is_plainly_valids(stamps):
    """``arrow_json._canonical`` (a pattern, then Arrow's ISO 8601 cast) says yes to a
    block's timestamps exactly when ``common.plainly_valid``'s check takes every one."""
    import pyarrow as pa

    from convo.output.exporters import arrow_json, common

    assert arrow_json._canonical(pa, pa.array(stamps, pa.string())) == all(
        map(common._canonical, stamps)
    )
