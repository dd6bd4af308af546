"""The registry, the default model (offline), and the OpenAI-compatible client against a
stub server on 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import threading

import numpy as np
import pytest

from convo.core.errors import InputError, UsageError
from convo.embed import embedders, make, unavailable
from convo.embed.protocol import EmbedderSpec

from .conftest import WordHash


class _Stub(http.server.BaseHTTPRequestHandler):
    seen: list[dict] = []
    status = 200

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Stub.seen.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        if _Stub.status != 200:
            self.send_response(_Stub.status)
            self.end_headers()
            self.wfile.write(b'{"error": "model not found"}')
            return
        data = [
            {"index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ]
        data.reverse()  # the answer's order is by "index", not as listed
        out = json.dumps({"data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Stub.seen.clear()
    _Stub.status = 200
    monkeypatch.setenv("CONVO_EMBED_URL", f"http://127.0.0.1:{httpd.server_port}/v1/")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CONVO_EMBED_API_KEY", "k-123")
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_openai_compatible_client(server):
    model = make("openai:nomic-embed-text")
    assert model.model_name == "nomic-embed-text"
    out = model.embed_batch(["a", "abc"])
    assert out.dtype == np.float32 and out.shape == (2, 3)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert out[1, 0] > out[0, 0]  # rows in input order
    assert model.dims == 3
    sent = _Stub.seen[0]
    assert sent["path"] == "/v1/embeddings" and sent["auth"] == "Bearer k-123"
    assert sent["body"] == {"model": "nomic-embed-text", "input": ["a", "abc"]}


def test_openai_errors_are_one_line(server, monkeypatch):
    _Stub.status = 404
    with pytest.raises(InputError, match=r"said 404: .*model not found") as e:
        make("openai:missing").embed("x")
    assert "CONVO_EMBED_URL" in str(e.value)
    monkeypatch.setenv("CONVO_EMBED_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(InputError, match="no answer from the embedding server"):
        make("openai:m").embed("x")
    monkeypatch.delenv("CONVO_EMBED_MODEL", raising=False)
    with pytest.raises(UsageError, match="no model named"):
        make("openai")


def test_third_party_embedders_register_like_formats():
    embedders.register(EmbedderSpec("hashy", "test", lambda option: WordHash(option or "h", 8)))
    try:
        assert make("hashy:v2").model_name == "v2"
        assert "hashy" in embedders.names()
    finally:
        embedders.unregister("hashy")
    with pytest.raises(UsageError, match="unknown embedding model 'hashy'"):
        make("hashy")


def test_a_missing_package_says_what_to_install():
    def factory(option):
        import convo_no_such_model_package  # noqa: F401

        raise AssertionError

    embedders.register(EmbedderSpec("absent", "test", factory))
    try:
        with pytest.raises(
            UsageError, match=r"cannot load \(convo_no_such_model_package\); .* -m pip install"
        ):
            make("absent")
    finally:
        embedders.unregister("absent")


def test_the_default_model_loads_offline():
    pytest.importorskip("wordllama")
    assert unavailable() is None
    model = make()
    out = model.embed_batch(["we keep login state in signed cookies", "pizza on friday", ""])
    assert out.shape == (3, model.dims) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out[:2], axis=1), 1.0)
    q = model.embed("where do we store the session of a logged-in user?")
    assert q @ out[0] > q @ out[1]


def test_the_default_model_matches_wordllamas_own_loader():
    wordllama = pytest.importorskip("wordllama")
    from pathlib import Path

    reference = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )
    texts = ["short", "", "  ", "日本語のテキスト", "a much longer message " * 40] + [
        f"message {i} about {'x ' * (i % 17)}" for i in range(150)
    ]
    model = make()
    for batch in (texts, texts[:5]):  # the large-batch path and the few-texts path
        ours = model.embed_batch(batch)
        theirs = reference.embed(batch, norm=False)
        norms = np.linalg.norm(theirs, axis=1, keepdims=True)
        norms[norms == 0] = 1
        assert np.allclose(ours, theirs / norms, atol=1e-5)
