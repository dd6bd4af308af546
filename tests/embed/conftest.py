"""Tests of search by meaning run with sockets blocked except loopback (the default model
must need no network; the OpenAI-compatible client talks to a stub on 127.0.0.1), and
with a small deterministic embedder where the model itself is not under test."""

from __future__ import annotations

import hashlib
import re
import socket
from collections.abc import Sequence

import numpy as np
import orjson
import pytest


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    real = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and host not in ("127.0.0.1", "::1", "localhost")
            and "/" not in host
        ):
            raise OSError(f"network blocked in tests: {address!r}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


class WordHash:
    """A bag of words hashed into 64 dims: texts sharing words are near."""

    def __init__(self, name: str = "wordhash-64", dims: int = 64) -> None:
        self.model_name = name
        self.dims = dims
        self.calls = 0
        self.texts: list[str] = []

    def embed(self, text: str):
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]):
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dims] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        return (out / norms).astype(np.float32)


def record(ident: str, text: str, speaker: str = "Alice", ts: str = "2024-03-06T10:00:00Z") -> dict:
    return {
        "textChunks": [text], "metadata": {"speaker": speaker, "listeners": []}, "tags": [],
        "timestamp": ts, "source_id": f"t#{ident}", "id": ident, "format": "jsonl",
    }  # fmt: skip


def write_store(path, records) -> None:
    with open(path, "wb") as f:
        for r in records:
            f.write(orjson.dumps(r) + b"\n")


def append_store(path, records) -> None:
    with open(path, "ab") as f:
        for r in records:
            f.write(orjson.dumps(r) + b"\n")
