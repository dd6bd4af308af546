"""``convo.embed.serve``: the OpenAI-compatible endpoint answers as OpenAI's clients expect."""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

from convo.embed.serve import make_server


class Fake:
    model_name = "fake-3"
    dims = 3

    def embed(self, text):
        return self.embed_batch([text])[0]

    def embed_batch(self, texts):
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


@pytest.fixture
def url():
    server = make_server("127.0.0.1", 0, Fake())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _post(url: str, body: object) -> tuple[int, dict]:
    req = urllib.request.Request(url + "/embeddings", data=json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_floats_base64_models_and_errors(url):
    status, out = _post(url, {"input": ["ab", "c"], "model": "fake-3"})
    assert status == 200 and out["model"] == "fake-3"
    assert [d["embedding"] for d in out["data"]] == [[2.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
    assert [d["index"] for d in out["data"]] == [0, 1]
    status, out = _post(url, {"input": "abcd", "model": "fake-3", "encoding_format": "base64"})
    raw = base64.b64decode(out["data"][0]["embedding"])
    assert np.frombuffer(raw, dtype="<f4").tolist() == [4.0, 1.0, 0.0]
    with urllib.request.urlopen(url + "/models", timeout=10) as r:
        assert json.loads(r.read())["data"][0]["id"] == "fake-3"
    status, out = _post(url, {"input": "x", "model": "text-embedding-3-small"})
    assert status == 404 and "'fake-3'" in out["error"]["message"]
    for bad in ({"model": "fake-3"}, {"input": [1, 2], "model": "fake-3"}, {"input": []}):
        assert _post(url, bad)[0] == 400
