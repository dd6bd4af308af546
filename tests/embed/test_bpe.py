"""convo.embed.bpe gives the ids the tokenizers library gives for the default model's
tokenizer file: on texts drawn from letters, digits, spaces, punctuation, special tokens
as written, control characters, accents, CJK and emoji."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("wordllama")

from convo.embed import bpe  # noqa: E402
from convo.embed.wordllama import TOKENIZER, package_folder  # noqa: E402

PATH = package_folder() / TOKENIZER
PLAIN = bpe.load(PATH)
CONFIG = orjson.loads(PATH.read_bytes())
LIBRARY = tokenizers.Tokenizer.from_file(str(PATH))
LIBRARY.no_padding()
LIBRARY.no_truncation()

PIECES = st.sampled_from(
    ["<s>", "</s>", "<unk>", "<0x0A>", "  ", " ", "\n", "\t", "▁", "the", "ing", "login",
     "ECONNRESET-4411", "v2.14.3", "<a1@mail.example>", "I'm", "état", "日本語", "🎉", "\u200b"]
)  # fmt: skip
TEXTS = st.lists(
    st.one_of(PIECES, st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)),
    max_size=12,
).map("".join)


def first_text(text: str) -> list[int]:
    """The ids of a fresh tokenizer's first text: made with only the merges it can need."""
    fresh = bpe.from_config(CONFIG)
    assert fresh is not None
    ids = fresh.encode(text)
    assert fresh._ranks is None or any(ch not in fresh.vocab for ch in "▁" + text)
    return ids


def library(text: str) -> list[int]:
    return LIBRARY.encode(text, add_special_tokens=False).ids


def test_the_default_tokenizer_file_is_of_the_shape_read():
    assert PLAIN is not None


@pytest.mark.parametrize(
    "text",
    ["", " ", "what did we decide about storing login state?", "<s>hi</s><unk><unk>x",
     "tab\there\nnew line", "a" * 300, "  two  spaces  ", "\x00\x01 control", "🎉🎉 ünï"],
)  # fmt: skip
def test_known_texts(text):
    assert PLAIN is not None and PLAIN.encode(text) == library(text)
    assert first_text(text) == library(text)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_the_same_ids_as_the_library(text):
    assert PLAIN is not None and PLAIN.encode(text) == library(text)


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_a_first_text_gets_the_same_ids_from_the_merges_it_needs(text):
    assert first_text(text) == library(text)


def test_a_file_of_another_shape_is_left_to_the_library(tmp_path):

    config = orjson.loads(PATH.read_bytes())
    config["pre_tokenizer"] = {"type": "Whitespace"}
    other = tmp_path / "t.json"
    other.write_bytes(orjson.dumps(config))
    assert bpe.load(other) is None
