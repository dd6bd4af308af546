"""rm, tag add|rm and compact: the store rewritten atomically, the index following."""

from __future__ import annotations

import orjson
import pytest
from tests.index.helpers import IndexQuery, count, ids, lookup, rec, write_store

from convo.core.errors import UsageError
from convo.index import check, refresh, search, status
from convo.store import Store
from convo.store.rewrite import compact, remove, tag


@pytest.fixture
def store(tmp_path):
    path = write_store(
        tmp_path / "s.jsonl", [rec(i, speaker="Bob" if i % 3 else "Alice") for i in range(12)]
    )
    refresh(path)
    return path


def _all_ids(path):
    return [
        orjson.loads(x)["id"] for x in path.read_bytes().splitlines() if x.strip().startswith(b"{")
    ]


def test_rm_by_id(store):
    result = remove(Store(store), ids=["m2", "m5"])
    assert (result.matched, result.changed, result.index) == (2, 2, "updated")
    assert "m2" not in _all_ids(store) and len(_all_ids(store)) == 10
    assert status(store).fresh and check(store).ok
    assert ids(lookup(store, IndexQuery(speakers=["bob"])))[:2] == ["m1", "m4"]
    assert [h.record["id"] for h in search(store, "number")[0]].count("m2") == 0


def test_rm_by_filter_and_dry_run(store):
    alice = lambda r: r["metadata"]["speaker"] == "Alice"  # noqa: E731
    before = store.read_bytes()
    dry = remove(Store(store), matcher=alice, dry_run=True)
    assert dry.matched == 4 and dry.changed == 0 and store.read_bytes() == before
    assert check(store).ok
    remove(Store(store), matcher=alice)
    assert count(store, IndexQuery(speakers=["alice"])) == 0
    assert check(store).ok


def test_rm_needs_a_selection(store):
    with pytest.raises(UsageError):
        remove(Store(store))


def test_tag_add_and_rm(store):
    result = tag(Store(store), add=["Urgent"], ids=["m1", "m3"])
    assert result.changed == 2
    assert ids(lookup(store, IndexQuery(tags=["urgent"]))) == ["m1", "m3"]
    assert check(store).ok
    assert tag(Store(store), add=["urgent"], ids=["m1"]).changed == 0  # already there
    tag(Store(store), remove=["URGENT"], ids=["m1"])
    assert ids(lookup(store, IndexQuery(tags=["urgent"]))) == ["m3"]
    assert check(store).ok


def test_compact_drops_torn_bad_and_duplicate_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        orjson.dumps(rec(1)) + b"\nnot json\n\n" + orjson.dumps(rec(2)) + b"\n"
        + orjson.dumps(rec(1, text="again")) + b"\n" + b'{"id": "torn'
    )  # fmt: skip
    refresh(path)
    result = compact(Store(path))
    assert (result.dropped_bad, result.dropped_duplicates) == (2, 1)
    assert _all_ids(path) == ["m1", "m2"]
    assert b"not json" in (tmp_path / "s.jsonl.torn").read_bytes()
    assert status(path).fresh and check(path).ok


def test_without_an_index_the_rewrite_still_works(tmp_path):
    path = write_store(tmp_path / "s.jsonl", [rec(1), rec(2)])
    result = remove(Store(path), ids=["m1"])
    assert result.changed == 1 and result.index == "no index"
    assert _all_ids(path) == ["m2"]


def test_a_stale_index_is_rebuilt_after(store):
    with open(store, "ab") as f:
        f.write(orjson.dumps(rec(40)) + b"\n")
    remove(Store(store), ids=["m40"])
    assert check(store).ok


def test_bom_and_crlf_lines_keep_offsets(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + orjson.dumps(rec(1))
        + b"\r\n"
        + orjson.dumps(rec(2))
        + b"\r\n"
        + orjson.dumps(rec(3))
        + b"\n"
    )
    refresh(path)
    tag(Store(path), add=["x"], ids=["m1"])
    remove(Store(path), ids=["m2"])
    assert check(path).ok
    assert ids(lookup(path, IndexQuery())) == ["m1", "m3"]


def test_rewrites_pass_their_lines_through_a_progress_track(store):
    seen: list[int] = []

    def track(lines):
        for item in lines:
            seen.append(item[0])
            yield item

    st = Store(store)
    n = len(store.read_bytes().splitlines())
    assert st.remove("from:nobody", track=track).matched == 0 and len(seen) == n
    seen.clear()
    st.tag("from:alice", add=["t"], dry_run=True, track=track)
    assert seen == []  # the index answered the dry run: no line read
    st.tag("from:alice", add=["t"], track=track)
    assert len(seen) == n
    seen.clear()
    st.compact(dry_run=True, track=track)
    assert len(seen) == n


def _with_bad_lines(path, n: int):
    bad = [b"not json %d " % i + b"x" * 200 for i in range(n)]
    return write_store(path, [rec(1), *bad, rec(1, text="again"), rec(2)])


def test_compact_keeps_every_dropped_line_and_rm_keeps_none(tmp_path):
    path = _with_bad_lines(tmp_path / "s.jsonl", 50)
    (tmp_path / "s.jsonl.torn").write_bytes(b"an earlier torn tail\n")
    remove(Store(path), ids=["m2"])
    assert (tmp_path / "s.jsonl.torn").read_bytes() == b"an earlier torn tail\n"
    result = compact(Store(path))
    assert (result.dropped_bad, result.dropped_duplicates) == (50, 1)
    torn = (tmp_path / "s.jsonl.torn").read_bytes().splitlines()
    assert torn[0] == b"an earlier torn tail" and len(torn) == 1 + 50 + 1
    assert torn[-1] == orjson.dumps(rec(1, text="again"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".s.jsonl.lock",
        "s.jsonl",
        "s.jsonl.torn",
    ]


def test_compact_whose_torn_append_fails_changes_nothing(tmp_path, monkeypatch):
    """The dropped lines go to ``.torn`` before the rename: when that append fails half-way
    the store is the old one and ``.torn`` is cut back (it never ends in half a line)."""
    import errno
    import shutil

    path = _with_bad_lines(tmp_path / "s.jsonl", 30)
    torn = tmp_path / "s.jsonl.torn"
    torn.write_bytes(b"earlier\n")
    before = path.read_bytes()

    def full(src, dst, *a):
        dst.write(src.read(100))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shutil, "copyfileobj", full)
    with pytest.raises(Exception, match="no space left"):
        compact(Store(path))
    assert path.read_bytes() == before and torn.read_bytes() == b"earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".s.jsonl.lock",
        "s.jsonl",
        "s.jsonl.torn",
    ]


def test_compact_memory_is_flat_with_the_dropped_lines(tmp_path):
    """The dropped lines were a list until the rename (about 250 bytes a line here)."""
    import tracemalloc

    def peak(n: int) -> int:
        folder = tmp_path / str(n)
        folder.mkdir()
        path = _with_bad_lines(folder / "s.jsonl", n)
        tracemalloc.start()
        try:
            compact(Store(path))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(100)  # imports and caches
    small, big = peak(12_000), peak(60_000)  # both many 1 MiB blocks the copy reads
    assert big < small + 200_000, (small, big)  # a list: about 12 MB more
