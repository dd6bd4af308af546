"""convo.embed.bpe_table: the tokenizer read from its compiled table gives the JSON
tokenizer's ids (convo.embed.bpe, itself checked against the tokenizers library in
test_bpe.py), and the table is made once, kept current and never needed."""

from __future__ import annotations

import os

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.embed import bpe, bpe_table

# A small byte-pair tokenizer of the shape convo.embed.bpe reads: byte fallback, an
# unknown token, three special tokens, merges that build words in more than one way.
CHARS = ["▁", "a", "b", "c", "d", "é", "日", "x", "y"]
MERGES = ["a b", "▁ a", "b c", "ab c", "▁a b", "c d", "▁ab c", "x y", "xy x", "▁ x", "d d"]
SMALL = {
    "model": {
        "type": "BPE", "unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True,
        "vocab": {}, "merges": MERGES,
    },
    "added_tokens": [{"id": 0, "content": "<unk>"}, {"id": 1, "content": "<s>"},
                     {"id": 2, "content": "</s>"}],
    "normalizer": bpe.NORMALIZER,
    "pre_tokenizer": None,
}  # fmt: skip
_VOCAB = ["<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256)), *CHARS]
_VOCAB += [m.replace(" ", "") for m in MERGES if m.replace(" ", "") not in _VOCAB]
SMALL["model"]["vocab"] = {t: i for i, t in enumerate(_VOCAB)}

TEXTS = st.lists(
    st.one_of(
        st.sampled_from(["ab", "abc", "abcd", " ", "  ", "<s>", "</s>", "xyx", "dd", "é日"]),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=8),
    ),
    max_size=10,
).map("".join)


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "tokenizer.json"
    source.write_bytes(orjson.dumps(SMALL))
    return source


def test_the_table_is_made_once_then_read(small):
    first = bpe_table.load(small)
    cached = bpe_table.cache_file(small)
    assert cached.exists() and first is not None
    assert isinstance(first.vocab, dict)  # the first time: the JSON tokenizer
    again = bpe_table.load(small)
    assert again is not None and isinstance(again.vocab, bpe_table.Table)
    assert list(cached.parent.iterdir()) == [cached]  # no temporary file left


def tabled(plain: bpe.Tokenizer) -> bpe.Tokenizer:
    """``plain`` with its vocabulary and ranks in tables, as ``bpe_table`` reads them."""
    Table = bpe_table.Table
    return bpe.Tokenizer(
        Table(*Table.parts(plain.vocab)), [], plain.specials, plain.unk, plain.fuse_unk,
        plain.byte_fallback, ranks=Table(*Table.parts(plain.ranks)), longest=plain.longest,
    )  # fmt: skip


SMALL_PLAIN = bpe.from_config(SMALL)
assert SMALL_PLAIN is not None
SMALL_TABLED = tabled(SMALL_PLAIN)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_the_table_gives_the_json_tokenizers_ids(text):
    assert SMALL_TABLED.encode(text) == bpe.from_config(SMALL).encode(text)  # type: ignore[union-attr]


def test_the_tables_hold_the_dicts(small):
    plain = bpe.from_config(SMALL)
    assert plain is not None
    bpe_table.load(small)
    table = bpe_table.load(small)
    assert table is not None
    assert dict(table.vocab) == plain.vocab and dict(table.ranks) == dict(plain.ranks)
    assert (table.specials, table.unk, table.fuse_unk, table.byte_fallback, table.longest) == (
        plain.specials, plain.unk, plain.fuse_unk, plain.byte_fallback, plain.longest
    )  # fmt: skip
    for missing in ("", "zz", "a c", "\udcff", "▁▁"):
        assert missing not in table.vocab and table.ranks.get(missing) is None
        with pytest.raises(KeyError):
            table.vocab[missing]


def test_a_changed_source_is_read_again(small):
    bpe_table.load(small)
    changed = {**SMALL, "model": {**SMALL["model"], "merges": MERGES[:3]}}
    small.write_bytes(orjson.dumps(changed))
    os.utime(small, ns=(1, 1))  # another size and time
    assert isinstance(bpe_table.load(small).vocab, dict)  # type: ignore[union-attr]
    table = bpe_table.load(small)
    assert table is not None and dict(table.ranks) == {m: i for i, m in enumerate(MERGES[:3])}
    assert table.encode("abcd") == bpe.from_config(changed).encode("abcd")  # type: ignore[union-attr]


@pytest.mark.parametrize("damage", [b"", b"not marshal", b"\xe9" * 100, "truncated"])
def test_a_damaged_table_is_made_again(small, damage):
    bpe_table.load(small)
    cached = bpe_table.cache_file(small)
    data = cached.read_bytes()
    cached.write_bytes(data[: len(data) // 2] if damage == "truncated" else damage)
    assert bpe_table.load(small).encode("abc d") == bpe.from_config(SMALL).encode("abc d")  # type: ignore[union-attr]
    assert cached.read_bytes() == data


def test_another_users_table_is_not_read(small, monkeypatch):
    bpe_table.load(small)
    assert isinstance(bpe_table.load(small).vocab, bpe_table.Table)  # type: ignore[union-attr]
    monkeypatch.setattr(os, "getuid", lambda: os.stat(small).st_uid + 1)
    assert isinstance(bpe_table.load(small).vocab, dict)  # type: ignore[union-attr]


def test_a_lookup_ends_in_a_full_table():
    """Slots all taken (a changed file): a missing key is missing, not a endless probe."""
    keys, starts, values, slots, probes = bpe_table.Table.parts({"a": 1, "b": 2})
    full = bytes(slots).replace(b"\xff\xff\xff\xff", (0).to_bytes(4, "little"))
    table = bpe_table.Table(keys, starts, values, full, probes)
    assert "zz" not in table and table.get("zz") is None


@pytest.mark.parametrize("cut", ["keys", "starts", "slots"])
def test_parts_of_the_wrong_size_are_refused(cut):
    keys, starts, values, slots, probes = bpe_table.Table.parts({"a": 1, "bc": 2})
    parts = {"keys": keys, "starts": starts, "values": values, "slots": slots}
    parts[cut] = parts[cut][:-4]
    with pytest.raises(ValueError):
        bpe_table.Table(*parts.values(), probes)


def test_an_unwritable_cache_is_no_error(small, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    for _ in range(2):
        tok = bpe_table.load(small)
        assert tok is not None and tok.encode("abc") == bpe.from_config(SMALL).encode("abc")  # type: ignore[union-attr]


def test_a_file_of_another_shape_is_left_to_the_library(small):
    small.write_bytes(orjson.dumps({**SMALL, "pre_tokenizer": {"type": "Whitespace"}}))
    assert bpe_table.load(small) is None
    assert not bpe_table.cache_file(small).exists()


@pytest.fixture(scope="module")
def default_model(tmp_path_factory):
    """The default model's tokenizer, from JSON and from its table."""
    pytest.importorskip("wordllama")
    from convo.embed.wordllama import TOKENIZER, package_folder

    path = package_folder() / TOKENIZER
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        bpe_table.load(path)
        table = bpe_table.load(path)
    plain = bpe.load(path)
    assert table is not None and plain is not None
    assert isinstance(table.vocab, bpe_table.Table) and isinstance(table.ranks, bpe_table.Table)
    return plain, table


REAL_TEXTS = st.lists(
    st.one_of(
        st.sampled_from(["<s>", "</s>", "<unk>", "<0x0A>", "  ", " ", "\n", "\t", "▁", "the",
                         "ing", "login", "ECONNRESET-4411", "v2.14.3", "<a1@mail.example>",
                         "I'm", "état", "日本語", "🎉", "\u200b", "\udcff"]),
        st.text(st.characters(), max_size=12),
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(text=REAL_TEXTS)
def test_the_default_models_table_gives_the_json_tokenizers_ids(default_model, text):
    plain, table = default_model
    assert table.encode(text) == plain.encode(text)


def test_a_query_with_a_current_table_parses_no_json(default_model, monkeypatch, tmp_path):
    """What a search does with the table made: the default model's query vector without
    the tokenizer's JSON (from_config is what reads it)."""
    from convo.embed.wordllama import WordLlamaEmbedder

    text = "what did we decide about storing login state?"
    expected = WordLlamaEmbedder().embed_query(text)  # makes the table (the session's cache)

    def no_json(config):
        raise AssertionError("the tokenizer's JSON was parsed")

    monkeypatch.setattr(bpe, "from_config", no_json)
    model = WordLlamaEmbedder()
    assert model.embed_query(text) == expected
    assert isinstance(model._plain.vocab, bpe_table.Table)


def test_an_embed_run_leaves_the_table_made(tmp_path, monkeypatch):
    """So the first search after `convo embed` does not make it."""
    pytest.importorskip("wordllama")
    from convo.embed.build import embed_store
    from convo.embed.wordllama import TOKENIZER, package_folder

    from .conftest import record, write_store

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    store = tmp_path / "s.jsonl"
    # more texts than the plain tokenizer takes: embedded by the tokenizers library
    write_store(store, [record(f"m{i}", f"message number {i}") for i in range(80)])
    assert not bpe_table.cache_file(package_folder() / TOKENIZER).exists()
    embed_store(store, "wordllama")
    assert bpe_table.cache_file(package_folder() / TOKENIZER).exists()
