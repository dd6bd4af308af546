"""An OpenAI-compatible ``/v1/embeddings`` client (Ollama, llama.cpp's server, vLLM, a
hosted model), with the standard library's ``urllib`` only.

Configured by environment: ``CONVO_EMBED_URL`` (the API's base, default
``http://127.0.0.1:11434/v1``, Ollama's), ``CONVO_EMBED_MODEL`` (or ``--model
openai:MODEL``), and ``CONVO_EMBED_API_KEY`` (else ``OPENAI_API_KEY``; none is sent when
neither is set). The dimensions are those of the first answer. A failed request is one
``InputError`` naming the URL and what it said, never a traceback.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

from convo.core.errors import InputError, UsageError
from convo.embed.protocol import Vectors, normalised

DEFAULT_URL = "http://127.0.0.1:11434/v1"
BATCH = 128
TIMEOUT = 120.0
HINT = "set CONVO_EMBED_URL to the server's /v1 base and CONVO_EMBED_MODEL to its model"


class OpenAIEmbedder:
    def __init__(self, model: str | None = None, url: str | None = None) -> None:
        model = model or os.environ.get("CONVO_EMBED_MODEL")
        if not model:
            raise UsageError("no model named for the OpenAI-compatible embedder", hint=HINT)
        self._model = model
        base = url or os.environ.get("CONVO_EMBED_URL") or DEFAULT_URL
        self._url = base.rstrip("/") + "/embeddings"
        self._key = os.environ.get("CONVO_EMBED_API_KEY") or os.environ.get("OPENAI_API_KEY")
        self._dims = 0

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def dims(self) -> int:
        if not self._dims:
            self.embed("dimensions")
        return self._dims

    def embed(self, text: str) -> Vectors:
        return self.embed_batch([text])[0]

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            rows.extend(self._post(list(texts[start : start + BATCH])))
        if not rows:
            return np.zeros((0, self._dims), dtype=np.float32)
        out = normalised(np.asarray(rows, dtype=np.float32))
        self._dims = out.shape[1]
        return out

    def _post(self, texts: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self._model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            said = e.read(300).decode("utf-8", "replace").strip()
            raise InputError(
                f"the embedding server said {e.code}: {said}", where=self._url, hint=HINT
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            raise InputError(
                f"no answer from the embedding server ({reason})", where=self._url, hint=HINT
            ) from None
        return _vectors(answer, len(texts), self._url)


def _vectors(answer: object, expected: int, url: str) -> list[list[float]]:
    """The rows of an embeddings answer in input order (``data[].index``, else as listed)."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        raise InputError(
            f"the embedding server's answer has no data for {expected} inputs", where=url, hint=HINT
        )
    items = sorted(data, key=lambda d: d.get("index", 0) if isinstance(d, dict) else 0)
    rows = [d.get("embedding") if isinstance(d, dict) else None for d in items]
    if not all(isinstance(r, list) and r and len(r) == len(rows[0]) for r in rows):  # type: ignore[arg-type]
        raise InputError(
            "the embedding server's answer has malformed embeddings", where=url, hint=HINT
        )
    return rows  # type: ignore[return-value]
