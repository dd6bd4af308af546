"""convo's embedder behind an OpenAI-compatible ``/v1/embeddings`` endpoint, so tools
that speak only that API (TypeAgent's own, opening a database convo built: see
docs/typeagent.md) embed with the same model, offline.

``make_server(host, port, embedder)`` answers ``POST /v1/embeddings`` (``input``: a string
or a list of strings; ``model``: the embedder's ``model_name``, anything else is a 404
naming it, so a tool configured for another model fails rather than mixing vectors;
``encoding_format``: ``float`` or ``base64``, little-endian float32 as OpenAI's clients
decode it) and ``GET /v1/models``. One request at a time (the embedder is not shared
between threads); no key is checked, so it listens on 127.0.0.1 unless told otherwise.
Bodies over ``MAX_BODY`` bytes are refused.
"""

from __future__ import annotations

import base64
import json
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from convo.embed.protocol import Embedder

MAX_BODY = 16 * 1024 * 1024
PATHS = ("/v1/embeddings", "/embeddings")


class _Handler(BaseHTTPRequestHandler):
    embedder: Embedder  # set on the subclass make_server creates

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: the command says where it listens

    def _send(self, status: int, value: Any) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        self._send(status, {"error": {"message": message, "type": "invalid_request_error"}})

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.embedder.model_name, "object": "model", "owned_by": "convo"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._error(404, f"no such path {self.path!r}")

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in PATHS:
            return self._error(404, f"no such path {self.path!r}; POST /v1/embeddings")
        size = int(self.headers.get("Content-Length") or 0)
        if size > MAX_BODY:
            return self._error(413, f"request body over {MAX_BODY} bytes")
        try:
            body = json.loads(self.rfile.read(size) or b"{}")
        except ValueError:
            return self._error(400, "the body is not JSON")
        texts = body.get("input") if isinstance(body, dict) else None
        texts = [texts] if isinstance(texts, str) else texts
        if not texts or not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return self._error(400, "input must be a string or a non-empty list of strings")
        name = self.embedder.model_name
        if body.get("model") != name:
            return self._error(404, f"model {body.get('model')!r} is not served; use {name!r}")
        self._send(200, _answer(self.embedder.embed_batch(texts), name, body))


def _answer(vectors: Any, name: str, body: dict[str, Any]) -> dict[str, Any]:
    as_b64 = body.get("encoding_format") == "base64"
    data = [
        {
            "object": "embedding",
            "index": i,
            "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode()
            if as_b64
            else v.tolist(),
        }
        for i, v in enumerate(vectors)
    ]
    return {
        "object": "list",
        "data": data,
        "model": name,
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


def make_server(host: str, port: int, embedder: Embedder) -> HTTPServer:
    """An HTTP server (not yet serving: ``serve_forever()``) of ``embedder``'s vectors."""
    handler = type("Handler", (_Handler,), {"embedder": embedder})
    return HTTPServer((host, port), handler)
