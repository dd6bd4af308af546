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
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class Tokenizer:
    """``vocab``, ``ranks``: dicts, or ``convo.embed.bpe_table``'s tables read in place
    (then ``ranks`` is given whole, with ``longest``, and ``merges`` is not needed)."""

    def __init__(self, vocab: Mapping[str, int], merges: list[Any], specials: dict[str, int],
                 unk: str | None, fuse_unk: bool, byte_fallback: bool, *,
                 ranks: Mapping[str, int] | None = None, longest: int | None = None) -> None:  # fmt: skip
        self.vocab = vocab
        # "a b" strings (or [a, b] pairs, in newer files), in rank order.
        self.merges: list[str] = (
            merges if not merges or isinstance(merges[0], str) else list(map(" ".join, merges))
        )
        self._ranks = ranks  # every merge's rank, made on first need when not given
        self._passes = 0  # texts encoded with only the ranks they need (``_ranks_for``)
        self.longest = max(map(len, vocab), default=0) if longest is None else longest
        self.specials = specials
        self.split = (
            re.compile("|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))
            if specials
            else None
        )
        self.unk = unk if unk in vocab else None
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback

    @property
    def ranks(self) -> Mapping[str, int]:
        """``"a b" -> rank`` of every merge (built in C, not a loop: 10 to 20 ms)."""
        if self._ranks is None:
            self._ranks = dict(zip(self.merges, itertools.count()))
        return self._ranks

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without a start token (``add_special_tokens=False``)."""
        pieces: list[str | int] = []
        at = 0
        if self.split is not None:
            for m in self.split.finditer(text):
                pieces += [self._word(text[at : m.start()]), self.specials[m.group()]]
                at = m.end()
        pieces.append(self._word(text[at:]))
        ranks = self._ranks_for([p for p in pieces if isinstance(p, str)])
        out: list[int] = []
        for p in pieces:
            if isinstance(p, int):
                out.append(p)
            elif p:
                out += [self.vocab[s] for s in self._merged(self._symbols(p), ranks)]
        return out

    @staticmethod
    def _word(piece: str) -> str:
        """The piece as the normaliser makes it: ``▁`` before it and for each space."""
        return "▁" + piece.replace(" ", "▁") if piece else ""

    def _ranks_for(self, words: list[str]) -> Mapping[str, int]:
        """The ranks of the merges ``words`` can need: when every character of them is a
        token and the full table is not made yet, only the merges ``a b`` whose ``a``,
        ``b`` and ``ab`` are tokens and ``ab`` is written in a word (each symbol of a word is
        a run of its characters then, and a merge's result is a token: any pair the merging
        looks up is among them), found by one pass in C over the merges (a few ms: a
        search's one query); else, and from the second text on, all."""
        if (
            self._ranks is not None
            or self._passes
            or any(ch not in self.vocab for w in words for ch in w)
        ):
            return self.ranks
        self._passes += 1
        wanted: set[str] = set()
        vocab, longest = self.vocab, self.longest
        for w in words:
            for i in range(len(w)):
                for j in range(i + 2, min(len(w), i + longest) + 1):
                    whole = w[i:j]
                    if whole in vocab:
                        wanted.update(
                            f"{whole[:k]} {whole[k:]}"
                            for k in range(1, len(whole))
                            if whole[:k] in vocab and whole[k:] in vocab
                        )
        flags = list(map(wanted.__contains__, self.merges))
        found = itertools.compress(self.merges, flags)
        return dict(zip(found, itertools.compress(itertools.count(), flags), strict=False))

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

    def _merged(self, symbols: list[str], ranks: Mapping[str, int]) -> list[str]:
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
                    rank = ranks.get(a + " " + b)
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

    return from_config(orjson.loads(path.read_bytes()))


def from_config(config: dict[str, Any]) -> Tokenizer | None:
    """The tokenizer of a ``tokenizers`` file's parsed JSON, or None (as ``load``)."""
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
