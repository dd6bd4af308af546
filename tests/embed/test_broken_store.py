"""``embed`` over a store with broken lines: half a line at the end, invalid JSON in the
middle, a repeated id: each counted and reported, nothing embedded twice, and the
vectors match the store as ``--check`` reads it (an id's first record)."""

from __future__ import annotations

import orjson

from convo.cli.app import app
from convo.embed import check_vectors, embed_store
from convo.embed import chunks as chunking
from convo.embed.vectors import VectorFile

from .conftest import WordHash, append_store, record, write_store


def _embedded(store) -> dict[str, bytes]:
    vf = VectorFile.existing(store)
    assert vf is not None
    try:
        return dict(vf.conn.execute("SELECT id, digest FROM messages").fetchall())
    finally:
        vf.close()


def _broken(path) -> None:
    write_store(path, [record("m1", "first text of m1"), record("m2", "about cats")])
    with open(path, "ab") as f:
        f.write(b"{not json at all\n")
        f.write(b'{"textChunks": ["no id"], "metadata": {}}\n')
    append_store(path, [record("m1", "a later m1"), record("m3", "about dogs")])
    with open(path, "ab") as f:
        f.write(b'{"textChunks": ["half a li')


def test_broken_lines_are_counted_and_nothing_is_embedded_twice(tmp_path):
    store = tmp_path / "s.jsonl"
    _broken(store)
    model = WordHash()
    r = embed_store(store, model)
    assert (r.added, r.not_records, r.repeated, r.torn) == (3, 2, 1, True)
    assert len(model.texts) == 3 and "Alice: a later m1" not in model.texts
    digest = chunking.digest(chunking.message_text(record("m1", "first text of m1")))
    assert _embedded(store)["m1"] == digest  # the first record counts, as the index's
    check = check_vectors(store)
    assert check is not None and check.ok and check.checked == 3


def test_a_repeated_id_appended_later_is_not_a_change(tmp_path):
    """Appended to a store as the last run left it, a later record of an embedded id was
    embedded as a change; ``--check`` (the first record counts) then found it "embedded
    from an older text" after every run."""
    store = tmp_path / "s.jsonl"
    write_store(store, [record("m1", "first text of m1"), record("m2", "about cats")])
    model = WordHash()
    embed_store(store, model)
    append_store(store, [record("m1", "a later m1"), record("m4", "new one")])
    model.texts.clear()
    r = embed_store(store, model)
    assert (r.added, r.changed, r.repeated, r.unchanged) == (1, 0, 1, 2)
    assert model.texts == ["Alice: new one"]
    check = check_vectors(store)
    assert check is not None and check.ok, check.problems


def test_a_repeat_in_a_later_batch_is_checked_as_the_first(tmp_path, monkeypatch):
    """``--check`` read each batch alone: an id repeated a batch later was found
    "embedded from an older text", and the run it asked for did not change that."""
    monkeypatch.setattr(chunking, "BATCH", 2)
    store = tmp_path / "s.jsonl"
    write_store(store, [record(f"m{i}", f"text {i}") for i in range(5)])
    append_store(store, [record("m0", "later text of m0")])
    r = embed_store(store, WordHash())
    assert (r.added, r.repeated) == (5, 1)
    check = check_vectors(store)
    assert check is not None and check.ok and check.checked == 5, check.problems


def test_cli_reports_what_it_passed_over(runner, tmp_path, monkeypatch):
    from convo.embed import registry

    monkeypatch.setattr(registry, "make", lambda choice=None: WordHash())
    store = tmp_path / "s.jsonl"
    _broken(store)
    r = runner.invoke(app, ["--store", str(store), "embed", "-m", "wordhash"])
    assert r.exit_code == 0, r.output
    assert "embedded 3 new" in r.output
    assert "passed over 2 lines that are not records" in r.output
    assert "1 later record of an id already read" in r.output
    assert "a last line without its newline" in r.output
    lines = store.read_bytes().splitlines()
    assert orjson.loads(lines[0])["id"] == "m1"  # the store itself is left as it was
