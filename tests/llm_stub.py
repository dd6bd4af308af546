"""A local stub of an OpenAI-compatible chat endpoint, for the LLM extractor's tests
(``http.server`` in a thread, on 127.0.0.1)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD = {
    "entities": [
        {"name": "Dave", "type": ["person"]},
        {"name": "deploy pipeline", "type": ["software", "pipeline"], "facets": [
            {"name": "state", "value": "broken"}, {"name": "weight", "value": {"amount": 4, "units": "kg"}},
        ]},
    ],
    "actions": [
        {"verbs": ["fix"], "verb_tense": "future", "subject_entity_name": "Dave",
         "object_entity_name": "deploy pipeline"},
        {"verbs": ["break"], "verbTense": "past", "subjectEntityName": "none",
         "objectEntityName": "deploy pipeline", "params": ["twice", {"name": "when", "value": "today"}]},
    ],
    "inverse_actions": [],
    "topics": ["deploy pipeline failure", "  "],
}  # fmt: skip


class Stub:
    """A chat endpoint whose answer is ``reply`` (a function of the request body):
    ``(status, body bytes)``; ``delay`` seconds before answering."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict, dict]] = []  # (headers, body)
        self.reply = lambda body: (200, completion(json.dumps(GOOD)))
        self.delay = 0.0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                body = json.loads(self.rfile.read(length))
                stub.requests.append((dict(self.headers), body | {"path": self.path}))
                if stub.delay:
                    time.sleep(stub.delay)
                status, data = stub.reply(body)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up waiting
                    pass

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(content: str) -> bytes:
    return json.dumps(
        {"choices": [{"message": {"role": "assistant", "content": content}}]}
    ).encode()
