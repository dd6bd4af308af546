"""An id the store holds for another message: saved under its content hash, never dropped.

Mail test suites reuse one ``Message-ID`` for different mails; a hand-joined export or a
tool numbering from 1 can do the same. Before this rule, the second such message was
counted a duplicate and lost with no word (``store.dedup``, docs/ids.md).
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from convo.cli.app import app
from convo.core.idset import IdStamps
from convo.core.stamps import other_message
from convo.core.stamps import record_stamp as stamp
from convo.store import Store
from convo.store.dedup import NEW, OTHER, SAME, HeldIds

MAIL = """From: {sender}
To: someone@example.org
Date: {date}
Subject: {subject}
Message-ID: <reused@example.org>

{body}
"""


def mail(
    folder,
    name,
    *,
    sender="ann@example.org",
    date="Mon, 1 Jan 2024 10:00:00 +0000",
    subject="one",
    body="first body",
):
    path = folder / name
    path.write_text(MAIL.format(sender=sender, date=date, subject=subject, body=body))
    return path


@pytest.fixture
def mails(tmp_path):
    a = mail(tmp_path, "a.eml")
    b = mail(
        tmp_path,
        "b.eml",
        sender="cy@example.net",
        date="Tue, 2 Jan 2024 11:00:00 +0000",
        subject="two",
        body="second body",
    )
    return a, b


def records(path):
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def save(runner, store, *files):
    r = runner.invoke(app, ["--store", str(store), "ingest", "--save", *map(str, files)])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("index", ["1", "0"], ids=["index", "no-index"])
def test_another_message_under_a_stored_id_is_saved_under_its_content_hash(
    runner, tmp_path, mails, monkeypatch, index
):
    if index == "0":
        monkeypatch.setenv("CONVO_NO_INDEX", "1")
    store = tmp_path / "s.jsonl"
    a, b = mails
    assert "new 1, duplicates 0" in save(runner, store, a)
    out = save(runner, store, b)
    assert "new 1, duplicates 0" in out
    assert "1 message saved under its content hash" in out
    held = records(store)
    assert [r["textChunks"] for r in held] == [["first body"], ["second body"]]
    assert held[0]["id"] == "<reused@example.org>"
    assert held[1]["id"].startswith("h:")
    # a re-ingest of either adds nothing and says nothing of content hashes
    for f in (b, a, b):
        out = save(runner, store, f)
        assert "new 0, duplicates 1" in out and "content hash" not in out
    assert len(records(store)) == 2


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_two_sources_of_one_ingest(runner, tmp_path, mails, jobs):
    """The sources of one run are held to the same rule (``core.stamps.RunIds``), in one
    process and in workers: the same ids as two saves give."""
    store = tmp_path / "s.jsonl"
    out = tmp_path / "out.jsonl"
    r = runner.invoke(
        app, ["ingest", "--jobs", jobs, "-o", str(out), *map(str, mails), str(mails[0])]
    )
    assert r.exit_code == 0, r.output
    assert r.output.count("an id an earlier input gave another message") == 1
    ids = [x["id"] for x in records(out)]
    assert ids[0] == ids[2] == "<reused@example.org>" and ids[1].startswith("h:")
    said = save(runner, store, *mails)
    assert "new 2, duplicates 0" in said and "1 message saved under its content hash" in said
    assert [x["id"] for x in records(store)] == ids[:2]
    assert "new 0, duplicates 2" in save(runner, store, *reversed(mails))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"body": "first body, edited"}, "an edit keeps its time"),
        ({"date": "Mon, 1 Jan 2024 12:00:00 +0200"}, "one instant in another zone"),
        ({"date": "Mon, 1 Jan 2024 13:00:00 +0000"}, "a time rendered otherwise, same text"),
        ({"sender": "Ann <ann@example.org>", "subject": "Re: one"}, "other headers"),
    ],
)
def test_the_same_message_again_is_a_duplicate(runner, tmp_path, change, why):
    store = tmp_path / "s.jsonl"
    first = mail(tmp_path, "a.eml")
    (tmp_path / "again").mkdir()
    again = mail(tmp_path / "again", "a.eml", **change)
    save(runner, store, first)
    assert "new 0, duplicates 1" in save(runner, store, again), why
    assert records(store)[0]["textChunks"] == ["first body"]  # the store keeps the one it has


def test_an_undated_message_is_not_told_apart_by_time(tmp_path):
    base = {
        "id": "m1",
        "format": "jsonl",
        "source_id": "x#1",
        "metadata": {"speaker": "a", "listeners": []},
        "tags": [],
    }
    dated = dict(base, timestamp="2024-01-01T00:00:00Z", textChunks=["one"])
    undated = dict(base, timestamp="1970-01-01T00:00:00Z", textChunks=["two"])
    st_ = Store(tmp_path / "s.jsonl")
    result = st_.append(
        [("m1", orjson.dumps(dated) + b"\n"), ("m1", orjson.dumps(undated) + b"\n")]
    )
    assert (result.added, result.duplicates, result.renamed) == (1, 1, 0)


def test_the_store_api_renames_and_reports(tmp_path):
    base = {
        "format": "jsonl",
        "source_id": "x#1",
        "metadata": {"speaker": "a", "listeners": []},
        "tags": [],
    }
    one = dict(base, id="m1", timestamp="2024-01-01T00:00:00Z", textChunks=["one"])
    two = dict(base, id="m1", timestamp="2024-02-01T00:00:00Z", textChunks=["two"])
    store = Store(tmp_path / "s.jsonl")
    added = []
    result = store.append(
        [("m1", orjson.dumps(r) + b"\n") for r in (one, two, two)], on_added=added.append
    )
    assert (result.added, result.duplicates, result.renamed) == (2, 1, 1)
    assert added[0] == "m1" and added[1].startswith("h:")
    assert any("content hash" in n for n in result.notes)
    assert [r["id"] for r in records(store.path)] == added


def test_compact_renames_another_message_and_drops_a_repeat(runner, tmp_path, mails):
    out = tmp_path / "joined.jsonl"  # joined by hand: each file ingested on its own
    parts = []
    for n, f in enumerate([*mails, mails[0]]):
        part = tmp_path / f"part{n}.jsonl"
        r = runner.invoke(app, ["ingest", "-o", str(part), str(f)])
        assert r.exit_code == 0, r.output
        parts.append(part.read_bytes())
    out.write_bytes(b"".join(parts))
    assert [x["id"] for x in records(out)] == ["<reused@example.org>"] * 3
    r = runner.invoke(app, ["--store", str(out), "compact"])
    assert r.exit_code == 0, r.output
    assert "dropped 0 unreadable lines and 1 repeated id" in r.output
    assert "gave 1 message whose id another message had" in r.output
    held = records(out)
    assert [x["textChunks"] for x in held] == [["first body"], ["second body"]]
    assert held[1]["id"].startswith("h:")
    # the renamed message is the one a save of b.eml would give: nothing new
    assert "new 0, duplicates 2" in save(runner, out, *mails)


def test_verdicts():
    held = HeldIds()
    a = stamp({"timestamp": "2024-01-01T00:00:00Z", "textChunks": ["a"]})
    a_later_ms = stamp({"timestamp": "2024-01-01T00:00:00.250Z", "textChunks": ["a"]})
    b = stamp({"timestamp": "2024-01-02T00:00:00Z", "text_chunks": ["b"]})
    assert held.admit("x", a) == NEW
    assert held.admit("x", a_later_ms) == SAME
    assert held.admit("x", b) == OTHER
    assert not other_message(0, b) and not other_message(b, 0)


@given(
    st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, (1 << 64) - 1)), max_size=300)
)
def test_id_stamps_is_a_dict(ops):
    """``IdStamps.setdefault`` answers as ``dict.setdefault`` does (across growth)."""
    ids, plain = IdStamps(capacity=4), {}
    for n, (key, value) in enumerate(ops):
        rid = f"{key}{n % 37}"
        expected = plain.get(rid)
        plain.setdefault(rid, value)
        assert ids.setdefault(rid, value) == expected
        assert ids.get(rid) == plain[rid]
    assert len(ids) == len(plain)


def _record(rid, when, text, **kw):
    return {
        "id": rid,
        "format": "jsonl",
        "source_id": "x#1",
        "metadata": {"speaker": "a", "listeners": []},
        "tags": [],
        "timestamp": when,
        "textChunks": [text],
        **kw,
    }


def _write(path, recs):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    return path


def test_compact_with_an_index_gives_the_index_the_new_id(runner, tmp_path):
    """The index follows a compaction's rename: its row names the content hash (and the
    thread a record without one takes from its id), as a rebuild would."""
    from convo.index.check import check

    store = _write(
        tmp_path / "s.jsonl",
        [
            _record("X", "2024-01-01T10:00:00Z", "a"),
            _record("Y", "2024-01-01T10:00:00Z", "y"),
            _record("X", "2024-02-01T10:00:00Z", "b", source_id=None),
        ],
    )
    assert runner.invoke(app, ["--store", str(store), "index"]).exit_code == 0
    r = runner.invoke(app, ["--store", str(store), "compact"])
    assert r.exit_code == 0, r.output
    assert "gave 1 message" in r.output and "(index: updated)" in r.output
    assert records(store)[2]["id"].startswith("h:")
    result = check(store)
    assert result.ok, result.problems
    # the renamed message, saved again under its content hash: nothing new
    again = Store(store).append([(records(store)[2]["id"], store.read_bytes().splitlines(True)[2])])
    assert (again.added, again.duplicates) == (0, 1)


@pytest.mark.parametrize(
    "other",
    [
        {"textChunks": ["b", 5]},  # a record (textChunks a list) convo validate rejects
        {"metadata": "nobody"},
    ],
    ids=["non-string-chunk", "metadata-not-an-object"],
)
def test_compact_of_a_repeated_id_on_a_record_that_cannot_be_renamed(runner, tmp_path, other):
    """A repeat that is another message but not a valid one has no content hash: it is
    dropped as a repeated id (kept in <store>.torn), as before the rule; compact does
    not stop on it."""
    store = _write(
        tmp_path / "s.jsonl",
        [
            _record("X", "2024-01-01T10:00:00Z", "a"),
            _record("X", "2024-02-01T10:00:00Z", "b", **other),
        ],
    )
    r = runner.invoke(app, ["--store", str(store), "compact"])
    assert r.exit_code == 0, r.output
    assert "dropped 0 unreadable lines and 1 repeated id" in r.output
    assert [x["textChunks"] for x in records(store)] == [["a"]]
    assert b'"b"' in (tmp_path / "s.jsonl.torn").read_bytes()


_TIMES = [
    "2024-01-01T10:00:00Z",
    "2024-01-01T10:00:05Z",
    "2024-02-01T10:00:00Z",
    EPOCH := "1970-01-01T00:00:00Z",
]
# what a store written by another tool may hold: one instant in another zone or precision,
# an unreadable time, a time that is not a string
_FOREIGN_TIMES = [
    *_TIMES,
    "2024-01-01T12:00:00+02:00",
    "2024-01-01T10:00:00.700Z",
    "yesterday",
    "1970-01-01T05:00:00+05:00",
    1704103200,
]
_records = st.builds(
    _record, st.sampled_from(["X", "Y"]), st.sampled_from(_TIMES), st.sampled_from("ab")
)
_foreign = st.builds(
    _record, st.sampled_from(["X", "Y"]), st.sampled_from(_FOREIGN_TIMES), st.sampled_from("ab")
)


def _saved(tmp, before, saves, index):
    """``(results, store bytes)`` of ``saves`` on a store holding ``before``."""
    import os

    path = _write(tmp / f"{index}.jsonl", before)
    old = os.environ.get("CONVO_NO_INDEX")
    os.environ["CONVO_NO_INDEX"] = "0" if index else "1"
    try:
        results = []
        for batch in saves:
            r = Store(path).append([(x["id"], orjson.dumps(x) + b"\n") for x in batch])
            results.append((r.added, r.duplicates, r.renamed))
    finally:
        os.environ.pop("CONVO_NO_INDEX") if old is None else os.environ.update(CONVO_NO_INDEX=old)
    return results, path.read_bytes()


@given(
    before=st.lists(_foreign, max_size=4),
    saves=st.lists(st.lists(_records, min_size=1, max_size=4), min_size=1, max_size=3),
)
def test_the_index_and_the_scan_decide_alike(tmp_path_factory, before, saves):
    """A save decides a held id the same whether the index answers (one lookup, the
    stored line read when the times differ) or the store is read line by line."""
    tmp = tmp_path_factory.mktemp("paths")
    assert _saved(tmp, before, saves, True) == _saved(tmp, before, saves, False)
