"""The default model: WordLlama's ``l2_supercat`` at 256 dimensions, offline.

Its weights (16 MB) and tokenizer ship inside the ``wordllama`` wheel, so nothing is
downloaded at run time. ``WordLlama.load()`` looks for them in a cache folder, not in
its package, so the package folder is passed as that cache, with downloads disabled.
A static model: a text's vector is the pooled vectors of its tokens, about 25,000
short messages a second on one core (BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from convo.embed.protocol import Vectors, normalised

MODEL = "wordllama-l2_supercat-256"
DIMS = 256
BATCH = 256


class WordLlamaEmbedder:
    def __init__(self) -> None:
        import wordllama

        folder = Path(wordllama.__file__).parent
        self._model: Any = wordllama.WordLlama.load(
            config="l2_supercat", dim=DIMS, cache_dir=folder, disable_download=True
        )

    @property
    def model_name(self) -> str:
        return MODEL

    @property
    def dims(self) -> int:
        return DIMS

    def embed(self, text: str) -> Vectors:
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        if not texts:
            return np.zeros((0, DIMS), dtype=np.float32)
        # Texts of like length together: a batch is padded to its longest text, and
        # pooling over padding cost a third of the time on mixed chat and mail.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        pooled = self._model.embed([texts[i] for i in order], norm=False, batch_size=BATCH)
        out = np.empty_like(pooled)
        out[order] = pooled
        return normalised(out)
