"""A byte-pair tokenizer in plain Python, for the few short texts of a search.

The default model's tokenizer (``convo.embed.wordllama``) is a ``tokenizers`` JSON file:
LLaMA 2's byte-pair model (32,000 tokens, 61,249 merges, byte fallback), a normaliser
that puts ``▁`` before the text and for every space, no pre-tokenizer, and three special
tokens. The ``tokenizers`` library takes longer to import and to read that file (about
0.2 s) than a search takes to rank a million messages; this reads it in a tenth of that
and gives the same ids, by the library's own steps:

1. the text is split around the special tokens as written (``<s>``), each one id;
2. each other piece, when not empty, gets ``▁`` before it and ``▁`` for each space;
3. each piece is one word: every character its token, or its UTF-8 bytes' tokens
   (``<0x0A>``) when it has none (else the unknown token, a run of them one); then the
   pair of adjacent tokens with the lowest merge rank, the leftmost of equals, is merged,
   again and again while any pair has a merge (a heap, as the library's ``merge_all``).

``load`` returns None for a file of any other shape (the caller then uses the library).
``tests/embed/test_bpe.py`` checks the ids against the library's on random texts.
"""

from __future__ import annotations

import heapq
import itertools
import re
from pathlib import Path
from typing import Any


class Tokenizer:
    def __init__(self, vocab: dict[str, int], merges: list[Any], specials: dict[str, int],
                 unk: str | None, fuse_unk: bool, byte_fallback: bool) -> None:  # fmt: skip
        self.vocab = vocab
        # "a b" strings (or [a, b] pairs, in newer files), by rank: built in C, not a loop.
        named = merges if not merges or isinstance(merges[0], str) else map(" ".join, merges)
        self.ranks = dict(zip(named, itertools.count()))
        self.specials = specials
        self.split = (
            re.compile("|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))
            if specials
            else None
        )
        self.unk = unk if unk in vocab else None
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without a start token (``add_special_tokens=False``)."""
        out: list[int] = []
        at = 0
        if self.split is not None:
            for m in self.split.finditer(text):
                out += self._piece(text[at : m.start()])
                out.append(self.specials[m.group()])
                at = m.end()
        out += self._piece(text[at:])
        return out

    def _piece(self, piece: str) -> list[int]:
        if not piece:
            return []
        symbols = self._symbols("▁" + piece.replace(" ", "▁"))
        return [self.vocab[s] for s in self._merged(symbols)]

    def _symbols(self, word: str) -> list[str]:
        """The word's characters as tokens, else their bytes' tokens, else the unknown
        token (held back until a known character comes, as the library does)."""
        out: list[str] = []
        pending = False
        for ch in word:
            if ch in self.vocab:
                if pending:
                    out.append(self.unk)  # type: ignore[arg-type]  # pending: not None
                    pending = False
                out.append(ch)
                continue
            if self.byte_fallback:
                codes = [f"<0x{b:02X}>" for b in ch.encode("utf-8", "surrogatepass")]
                if all(c in self.vocab for c in codes):
                    out += codes
                    continue
            if self.unk is not None:
                if pending and not self.fuse_unk:
                    out.append(self.unk)
                pending = True
        if pending:
            out.append(self.unk)  # type: ignore[arg-type]
        return out

    def _merged(self, symbols: list[str]) -> list[str]:
        """The symbols merged by rank: a heap of (rank, position) of mergeable adjacent
        pairs, stale entries passed over, as the library's ``Word::merge_all``."""
        n = len(symbols)
        if n < 2:
            return symbols
        sym: list[str | None] = list(symbols)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        heap: list[tuple[int, int, str]] = []

        def push(i: int) -> None:
            j = nxt[i]
            if j < n:
                a, b = sym[i], sym[j]
                if a is not None and b is not None:
                    rank = self.ranks.get(a + " " + b)
                    if rank is not None:
                        heapq.heappush(heap, (rank, i, a + b))

        for i in range(n - 1):
            push(i)
        while heap:
            _, i, merged = heapq.heappop(heap)
            a = sym[i]
            j = nxt[i]
            b = sym[j] if j < n else None
            if a is None or b is None or a + b != merged:
                continue  # stale: a side of the pair was merged since
            sym[i], sym[j] = merged, None
            nxt[i] = nxt[j]
            if nxt[i] < n:
                prv[nxt[i]] = i
            if prv[i] >= 0:
                push(prv[i])
            push(i)
        return [s for s in sym if s is not None]


NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ],
}


def load(path: Path) -> Tokenizer | None:
    """The tokenizer of a ``tokenizers`` JSON file of the shape above, or None."""
    import orjson

    config = orjson.loads(path.read_bytes())
    if not _of_shape(config):
        return None
    model = config["model"]
    added = config.get("added_tokens") or []
    return Tokenizer(
        model["vocab"], model["merges"], {t["content"]: t["id"] for t in added},
        model.get("unk_token"), bool(model.get("fuse_unk")), bool(model.get("byte_fallback")),
    )  # fmt: skip


def _of_shape(config: dict[str, Any]) -> bool:
    """A byte-pair model with nothing this module does not do: no pre-tokenizer, the
    normaliser above, no dropout or affixes, special tokens matched as written."""
    model = config.get("model") or {}
    plain_model = model.get("type") == "BPE" and not any(
        model.get(k)
        for k in ("dropout", "continuing_subword_prefix", "end_of_word_suffix", "ignore_merges")
    )
    added = config.get("added_tokens") or []
    plain_added = not any(
        t.get(k) for t in added for k in ("normalized", "single_word", "lstrip", "rstrip")
    )
    return (
        plain_model
        and plain_added
        and config.get("normalizer") == NORMALIZER
        and config.get("pre_tokenizer") is None
    )
