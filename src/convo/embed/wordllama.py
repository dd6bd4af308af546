"""The default model: WordLlama's ``l2_supercat`` at 256 dimensions, offline.

Its weights (16 MB of float16 token vectors) and its tokenizer ship inside the
``wordllama`` wheel, so nothing is downloaded at run time. A static model: a text's
vector is the mean of its tokens' vectors, normalised.

The files are read here (weights with numpy, the tokenizer by ``_encode``), not
through the package's ``WordLlama.load()``: that looks for them in a download cache
rather than its own folder, and importing it brings pydantic, requests and its training
configuration, about a second before a search can start. The weights are memory-mapped, so a query reads only
the rows of its tokens; a large batch is summed from a float32 copy (``_summed``).
``tests/embed/test_embedders.py`` checks the vectors against ``WordLlama.load()``'s.
"""

from __future__ import annotations

import importlib.util
import json
import math
import mmap
import operator
import struct
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from convo.embed.protocol import Vectors, normalised

MODEL = "wordllama-l2_supercat-256"
DIMS = 256
FEW = 64  # fewer texts than this are pooled from the float16 rows directly
GROUP = 64  # texts padded to a common length and summed together
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"


def package_folder() -> Path:
    """The installed ``wordllama`` package's folder, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("No module named 'wordllama'", name="wordllama")
    return Path(next(iter(spec.submodule_search_locations)))


def load_weights(path: Path) -> Any:
    """The token vectors of a safetensors file, memory-mapped (its header is a JSON
    object of name -> dtype, shape, byte offsets after the header)."""
    import numpy as np

    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(size))[TENSOR]
    dtype = {"F16": np.float16, "F32": np.float32}[entry["dtype"]]
    start, _ = entry["data_offsets"]
    return np.memmap(
        path, dtype=dtype, mode="r", offset=8 + size + start, shape=tuple(entry["shape"])
    )


class Rows:
    """The token vectors of a safetensors file read without numpy: ``row(i)``, token
    ``i``'s values as floats (ids past the last row read the last, as ``embed`` clips)."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            entry = json.loads(f.read(size))[TENSOR]
            self.count, dims = entry["shape"]
            code = {"F16": "e", "F32": "f"}[entry["dtype"]]
            self.format = f"<{dims}{code}"
            self.width = struct.calcsize(self.format)
            self.start = 8 + size + entry["data_offsets"][0]
            self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    def row(self, i: int) -> tuple[float, ...]:
        i = min(max(i, 0), self.count - 1)
        return struct.unpack_from(self.format, self.map, self.start + i * self.width)


class WordLlamaEmbedder:
    def __init__(self) -> None:
        self._folder = package_folder()
        self._matrix: Any = None  # the weights memory-mapped by numpy, on first batch
        self._rows: Rows | None = None  # the same file read without numpy (embed_query)
        self._table: Any = None
        self._library: Any = None  # the tokenizers library's tokenizer, made on first use
        self._plain: Any = False  # convo.embed.bpe's (None: the file is not of its shape)

    @property
    def model_name(self) -> str:
        return MODEL

    @property
    def dims(self) -> int:
        return DIMS

    def embed(self, text: str) -> Vectors:
        return self.embed_batch([text])[0]

    @property
    def _weights(self) -> Any:
        if self._matrix is None:
            self._matrix = load_weights(self._folder / WEIGHTS)
        return self._matrix

    def embed_query(self, text: str) -> array:
        """``embed(text)`` without numpy (a search's query: numpy's import was most of a
        fresh search's start-up), as an ``array('f')``: the token rows read from the
        file, summed in float32 in token order as ``embed`` sums them (each sum rounded
        to float32), then normalised in float64 and rounded to float32; within float32
        rounding of ``embed``'s (``tests/embed/test_simd.py``)."""
        if self._rows is None:
            self._rows = Rows(self._folder / WEIGHTS)
        rows = self._rows
        total = array("f", bytes(4 * DIMS))
        for token in self._encode([text])[0]:
            total = array("f", map(operator.add, total, rows.row(token)))
        norm = math.sqrt(math.fsum(v * v for v in total))
        return array("f", [v / norm for v in total]) if norm else total

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        last = self._weights.shape[0] - 1
        ids = [np.clip(np.asarray(e, dtype=np.int64), 0, last) for e in self._encode(texts)]
        if len(ids) < FEW:
            out = np.zeros((len(ids), DIMS), dtype=np.float32)
            for row, these in enumerate(ids):
                if len(these):
                    out[row] = self._weights[these].sum(axis=0, dtype=np.float32)
            return normalised(out)
        return normalised(self._summed(ids))

    def _encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids: a few texts by ``convo.embed.bpe`` (a search's query,
        without the library's 0.2 s of start-up; its tables read from the user's cache,
        ``convo.embed.bpe_table``), many by the ``tokenizers`` library (faster per text,
        on every core); the same ids either way."""
        if len(texts) < FEW:
            plain = self.prepare_query()
            if plain is not None:
                return [plain.encode(t) for t in texts]
        if self._library is None:
            from tokenizers import Tokenizer

            self._library = Tokenizer.from_file(str(self._folder / TOKENIZER))
            self._library.no_padding()
            self._library.no_truncation()
        return [e.ids for e in self._library.encode_batch(list(texts), add_special_tokens=False)]

    def prepare_query(self) -> Any:
        """The tokenizer of a few texts (``convo.embed.bpe``'s, its tables from the user's
        cache, ``convo.embed.bpe_table``: made there the first time), or None when the
        file is not of its shape. ``convo embed`` calls it, so a first search finds the
        tables made."""
        if self._plain is False:
            from convo.embed import bpe_table

            self._plain = bpe_table.load(self._folder / TOKENIZER)
        return self._plain

    def _summed(self, ids: list[Any]) -> Vectors:
        """Each text's token vectors summed: texts of like length in groups of ``GROUP``,
        padded to the group's longest with the id of a zero row, gathered and summed in
        one step (four times ``np.add.reduceat`` over the tokens end to end, measured)."""
        import numpy as np

        table = self._float32()
        pad = table.shape[0] - 1
        lengths = np.fromiter((len(t) for t in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        out = np.empty((len(ids), DIMS), dtype=np.float32)
        for at in range(0, len(order), GROUP):
            group = order[at : at + GROUP]
            grid = np.full((len(group), max(1, int(lengths[group].max()))), pad, dtype=np.int64)
            for row, i in enumerate(group.tolist()):
                grid[row, : lengths[i]] = ids[i]
            out[group] = table[grid].sum(axis=1)
        return out

    def _float32(self) -> Any:
        """The token vectors as float32 with a zero row after them (32 MB, made on the
        first large batch: float16 rows summed cost three times as much)."""
        import numpy as np

        if self._table is None:
            table = np.zeros((self._weights.shape[0] + 1, DIMS), dtype=np.float32)
            table[:-1] = self._weights
            self._table = table
        return self._table
