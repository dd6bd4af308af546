"""embed_store, semantic, similar and check_vectors on a small store with WordHash."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.errors import InputError, UsageError
from convo.embed import check_vectors, embed_store, semantic, similar
from convo.embed.chunks import WORDS, chunks
from convo.embed.vectors import VectorFile, paths

from .conftest import WordHash, append_store, record, write_store

TEXTS = {
    "m1": "we keep the login state in signed cookies",
    "m2": "the deploy failed with ECONNRESET again",
    "m3": "pizza for lunch on friday",
    "m4": "budget review moved to next quarter",
}


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.jsonl"
    write_store(path, [record(i, t) for i, t in TEXTS.items()])
    return path


def test_embeds_then_only_what_is_new(store):
    model = WordHash()
    first = embed_store(store, model)
    assert (first.added, first.unchanged, first.chunks, first.dims) == (4, 0, 4, 64)
    again = embed_store(store, model)
    assert (again.added, again.unchanged, again.chunks) == (0, 4, 0)
    append_store(store, [record("m5", "cookies for the login state")])
    model.texts.clear()
    third = embed_store(store, model)
    assert (third.added, third.unchanged) == (1, 4)
    assert model.texts == ["Alice: cookies for the login state"]


def test_changed_and_removed_messages(store):
    model = WordHash()
    embed_store(store, model)
    records = [record(i, t) for i, t in TEXTS.items() if i != "m3"]
    records[0] = record("m1", "sessions live in redis now")
    write_store(store, records)
    result = embed_store(store, model)
    assert (result.changed, result.removed, result.unchanged) == (1, 1, 2)
    hits = semantic(store, "redis sessions", limit=5, embedder=model)
    assert hits[0].id == "m1"
    assert "m3" not in {h.id for h in hits}
    report = check_vectors(store)
    assert report is not None and report.ok and report.checked == 3


def test_semantic_and_candidates_restrict_before_ranking(store):
    model = WordHash()
    embed_store(store, model)
    assert semantic(store, "login cookies", limit=1, embedder=model)[0].id == "m1"
    # m3 is far from the query, but it is the only candidate: it is found.
    hits = semantic(store, "login cookies", ["m3"], limit=5, embedder=model)
    assert [h.id for h in hits] == ["m3"]
    assert semantic(store, "login cookies", [], limit=5, embedder=model) == []
    assert semantic(store, "login cookies", ["nope"], limit=5, embedder=model) == []


def test_similar_leaves_the_message_out(store):
    model = WordHash()
    append_store(store, [record("m5", "the login state is kept in cookies that are signed")])
    embed_store(store, model)
    hits = similar(store, "m1", limit=2)
    assert hits[0].id == "m5" and "m1" not in {h.id for h in hits}
    with pytest.raises(UsageError, match="has no vectors"):
        similar(store, "missing", limit=2)


def test_a_long_message_scores_by_its_best_chunk(store):
    filler = " ".join(f"filler{i}" for i in range(WORDS * 6))
    text = filler + " quarterly budget review" * 30
    append_store(store, [record("long", text)])
    model = WordHash()
    result = embed_store(store, model)
    assert result.chunks == 4 + len(chunks(text)) and len(chunks(text)) > 3
    hits = semantic(store, "quarterly budget review", limit=1, embedder=model)
    assert hits[0].id == "long"
    whole = float(model.embed(text) @ model.embed("quarterly budget review"))
    assert hits[0].score > whole + 0.3


def test_another_model_is_one_clear_error(store):
    embed_store(store, WordHash())
    with pytest.raises(UsageError, match=r"made by wordhash-64 \(64 dims\), not other") as e:
        embed_store(store, WordHash("other", 64))
    assert "--rebuild" in str(e.value)
    with pytest.raises(UsageError, match="made by wordhash-64"):
        semantic(store, "x", embedder=WordHash("other", 64))
    rebuilt = embed_store(store, WordHash("other", 32), rebuild=True)
    assert (rebuilt.added, rebuilt.dims) == (4, 32)


def test_no_store_and_no_vectors(tmp_path, store):
    with pytest.raises(InputError, match="no store yet"):
        embed_store(tmp_path / "none.jsonl", WordHash())
    with pytest.raises(UsageError, match="no vectors yet"):
        semantic(store, "x", embedder=WordHash())
    assert check_vectors(store) is None


def test_check_finds_what_is_not_embedded_and_broken_rows(store):
    model = WordHash()
    embed_store(store, model)
    append_store(store, [record("m9", "something new")])
    report = check_vectors(store)
    assert report is not None and not report.ok
    assert "1 message not embedded: m9" in report.problems[0]
    embed_store(store, model)
    matrix, _ = paths(store)
    data = bytearray(matrix.read_bytes())
    data[:4] = np.float32(7.0).tobytes()
    matrix.write_bytes(bytes(data))
    report = check_vectors(store)
    assert report is not None and any("broken vectors" in p for p in report.problems)


def test_an_interrupted_append_is_cut_off(store):
    model = WordHash()
    embed_store(store, model)
    matrix, _ = paths(store)
    with open(matrix, "ab") as f:
        f.write(b"\x01" * 100)  # a run killed after writing rows, before committing them
    append_store(store, [record("m5", "new words here")])
    embed_store(store, model)
    vf = VectorFile.existing(store)
    assert vf is not None
    assert matrix.stat().st_size == vf.rows * vf.dims * 4
    vf.close()
    assert check_vectors(store).ok  # type: ignore[union-attr]


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from([f"r{i}" for i in range(30)])), st.integers(1, 8))
def test_every_hit_is_a_candidate(tmp_path_factory, chosen, limit):
    path = tmp_path_factory.mktemp("p") / "s.jsonl"
    words = ["login", "cookie", "deploy", "budget", "pizza", "redis", "error", "quarter"]
    write_store(
        path, [record(f"r{i}", " ".join(words[j % 8] for j in range(i, i + 3))) for i in range(30)]
    )
    model = WordHash()
    embed_store(path, model)
    hits = semantic(path, "login budget", sorted(chosen), limit=limit, embedder=model)
    assert {h.id for h in hits} <= chosen
    assert len(hits) == min(limit, len(chosen))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_embed_on_save_only_when_the_store_is_set_to(store):
    from convo.embed import embed_on_save

    assert embed_on_save(store) is None  # no vectors at all
    model = WordHash()
    embed_store(store, model)
    append_store(store, [record("m5", "new words")])
    assert embed_on_save(store) is None  # vectors, but not set to
    embed_store(store, model, on_save=True)  # embeds m5, records the setting
    append_store(store, [record("m6", "more words")])
    # The vectors were made by an object, not a --model choice: the default model is
    # tried and refused as another model (one clear error, never other vectors mixed in).
    with pytest.raises(UsageError, match="made by wordhash-64"):
        embed_on_save(store)
    embed_store(store, model, on_save=False)
    append_store(store, [record("m7", "and more")])
    assert embed_on_save(store) is None


def test_a_damaged_catalogue_is_one_error_with_the_fix(store):
    model = WordHash()
    embed_store(store, model)
    _, catalogue = paths(store)
    catalogue.write_bytes(b"this is not a database" * 100)
    for call in (lambda: embed_store(store, model), lambda: semantic(store, "x", embedder=model)):
        with pytest.raises(UsageError, match="catalogue is damaged") as e:
            call()
        assert "convo embed --rebuild" in str(e.value)
    report = check_vectors(store)
    assert report is not None and not report.ok and "damaged" in report.problems[0]
    assert embed_store(store, model, rebuild=True).added == 4


def test_a_second_writer_is_refused_while_one_runs(store):
    from convo.embed.vectors import Writer

    model = WordHash()
    embed_store(store, model)
    vf = VectorFile(store, write=True)
    writer = Writer(vf)
    try:
        with pytest.raises(UsageError, match="another `convo embed` is writing"):
            embed_store(store, model)
    finally:
        writer.close()
        vf.close()
    assert embed_store(store, model).unchanged == 4


def test_messages_without_text_have_no_vectors_and_are_never_hits(store):
    append_store(store, [record("empty", "   "), record("e2", "")])
    model = WordHash()
    result = embed_store(store, model)
    assert (result.added, result.chunks) == (6, 4)
    assert embed_store(store, model).unchanged == 6
    hits = semantic(store, "login", limit=10, embedder=model)
    assert {"empty", "e2"}.isdisjoint(h.id for h in hits)
    assert semantic(store, "login", ["empty", "e2"], limit=10, embedder=model) == []
    assert check_vectors(store).ok  # type: ignore[union-attr]


def test_without_the_extra_search_says_so(monkeypatch):
    import importlib.util

    from convo.embed import unavailable

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "wordllama" else real(name, *a),
    )
    why = unavailable()
    assert (
        why is not None
        and "-m pip install" in why
        and "convo-tools[" not in why
        and "keyword only" in why
    )
    assert unavailable("openai") is None
    assert "unknown embedding model" in (unavailable("nope") or "")
    from convo.embed import make

    with pytest.raises(UsageError, match=r"cannot load \(wordllama\); .* -m pip install"):
        make()


def test_without_a_model_the_one_that_made_the_vectors(store):
    from convo.embed import embedders
    from convo.embed.protocol import EmbedderSpec

    made: list[str | None] = []

    def factory(option):
        made.append(option)
        return WordHash(f"hash-{option}", 16)

    embedders.register(EmbedderSpec("hash", "test", factory))
    try:
        assert embed_store(store, "hash:a").dims == 16
        append_store(store, [record("m5", "new words")])
        assert embed_store(store).added == 1  # hash:a again, not the default model
        assert semantic(store, "new words", limit=1)[0].id == "m5"
        assert made == ["a", "a", "a"]
        with pytest.raises(UsageError, match="made by hash-a"):
            embed_store(store, "hash:b")
    finally:
        embedders.unregister("hash")


def test_a_missing_or_cut_vectors_file_is_one_error_with_the_fix(store):
    model = WordHash()
    embed_store(store, model)
    matrix, _ = paths(store)
    data = matrix.read_bytes()
    matrix.write_bytes(data[:-10])
    for call in (lambda: semantic(store, "x", embedder=model), lambda: embed_store(store, model)):
        with pytest.raises(UsageError, match=r"shorter than its catalogue says \(4 rows\)"):
            call()
    matrix.unlink()
    with pytest.raises(UsageError, match="vectors file is missing") as e:
        similar(store, "m1")
    assert "convo embed --rebuild" in str(e.value)
    report = check_vectors(store)
    assert report is not None and "missing" in report.problems[0]
    assert embed_store(store, model, rebuild=True).added == 4


def test_a_run_reads_only_what_was_appended(store, monkeypatch):
    from convo.embed import chunks as chunking

    model = WordHash()
    embed_store(store, model)
    starts: list[int] = []
    real = chunking.texts_of

    def spy(f, start=0, progress=None, **kw):
        starts.append(start)
        return real(f, start, progress, **kw)

    monkeypatch.setattr(chunking, "texts_of", spy)
    size = store.stat().st_size
    again = embed_store(store, model)
    assert (again.unchanged, again.added, starts) == (4, 0, [])  # as the last run left it
    append_store(store, [record("m5", "cookies for the login state")])
    grown = embed_store(store, model)
    assert (grown.added, grown.unchanged, starts) == (1, 4, [size])
    # Rewritten (a new file renamed over it, as rm and compact do): read whole.
    records = [record(i, t) for i, t in TEXTS.items() if i != "m2"]
    tmp = store.with_name("new.jsonl")
    write_store(tmp, [*records, record("m5", "cookies for the login state")])
    tmp.replace(store)
    rewritten = embed_store(store, model)
    assert (rewritten.removed, rewritten.unchanged, starts[-1]) == (1, 4, 0)
    assert check_vectors(store).ok  # type: ignore[union-attr]


def test_an_edit_the_append_test_misses_is_found_by_check_and_mended(tmp_path):
    import orjson

    store = tmp_path / "s.jsonl"
    filler = [record(f"a{i}", "filler words " * 30) for i in range(400)]
    later = [record(f"b{i}", "other filler " * 30) for i in range(400)]
    write_store(store, [*filler, record("mid", "pizza for lunch on friday"), *later])
    model = WordHash()
    embed_store(store, model)
    # Edited in place in the middle (past the first and before the last 64 KiB, which
    # the append test sums), and grown: as for the index, the test cannot see it.
    data = bytearray(store.read_bytes())
    at = data.index(b"pizza for lunch")
    data[at : at + 5] = b"pasta"
    data += b"".join(orjson.dumps(record(f"c{i}", "more")) + b"\n" for i in range(3))
    with open(store, "r+b") as f:
        f.write(bytes(data))
    assert embed_store(store, model).changed == 0
    report = check_vectors(store)
    assert report is not None
    assert report.problems[0].startswith("1 message embedded from an older text: mid")
    assert embed_store(store, model).changed == 1  # the check made this run read it all
    assert check_vectors(store).ok  # type: ignore[union-attr]
