"""``convo serve``: the local web view, on the standard library's ``http.server``.

Why the standard library and not Starlette: the view is read-only, local, for one person,
and its answers are ``Store`` calls that take a lock anyway; ``ThreadingHTTPServer`` does
that with no new dependency, no event loop and nothing to install with convo. The page
(``convo/web/static``: plain HTML, CSS and one script, no build step, no CDN) calls the
JSON API under ``/api/`` (``convo.web.api``), which is the only data it gets.

Safety, for a page that shows untrusted text:
- it binds to 127.0.0.1 unless told otherwise (the command warns), and on loopback
  answers only requests whose ``Host`` is the loopback address or ``localhost`` with
  its port (a DNS-rebinding page cannot read the archive);
- GET and HEAD only: nothing changes the store;
- every response carries a Content-Security-Policy allowing only this origin's script,
  style and API (no inline script, no frames, no other host), ``nosniff`` and
  ``no-referrer``; the script writes message text with ``textContent`` only.

Page addresses (``/``, ``/search?q=``, ``/thread?id=``, ``/message?id=``,
``/person?name=``) all serve the one page, which reads its address, so a link to a message
or a thread can be shared with anyone on the machine.
"""

from __future__ import annotations

import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from convo.core.errors import ConvoError
from convo.web.api import Api

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGES = frozenset(("/", "/search", "/thread", "/message", "/person"))
STATIC = {
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def _asset(name: str) -> bytes:
    return resources.files("convo.web").joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    server: Server
    server_version = "convo"
    sys_version = ""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if not self._host_allowed():
            self._send(HTTPStatus.MISDIRECTED_REQUEST, b"unknown host\n", "text/plain")
            return
        if url.path.startswith("/api/"):
            self._api(url.path, dict(parse_qsl(url.query)))
        elif url.path in PAGES:
            self._send(HTTPStatus.OK, _asset("index.html"), "text/html; charset=utf-8")
        elif url.path == "/favicon.ico":  # none: an empty answer, not a 404 in the console
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        elif url.path in STATIC:
            name, kind = STATIC[url.path]
            self._send(HTTPStatus.OK, _asset(name), kind)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")

    do_HEAD = do_GET

    def _not_allowed(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only\n", "text/plain")

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed

    def _host_allowed(self) -> bool:
        if not self.server.loopback_only:
            return True
        host = self.headers.get("Host", "")
        name, _, port = host.rpartition(":")
        return name in LOOPBACK and port == str(self.server.server_address[1])

    def _api(self, route: str, params: dict[str, str]) -> None:
        try:
            body: Any = self.server.api.answer(route, params)
            status = HTTPStatus.OK
        except LookupError as e:
            body, status = {"error": str(e) or "not found"}, HTTPStatus.NOT_FOUND
        except ConvoError as e:
            body, status = {"error": e.what, "hint": e.hint}, HTTPStatus.BAD_REQUEST
        except Exception as e:  # a bug: one line on stderr and a 500, the server goes on
            sys.stderr.write(f"convo serve: {route}: {type(e).__name__}: {e}\n")
            body, status = {"error": "internal error"}, HTTPStatus.INTERNAL_SERVER_ERROR
        self._send(status, orjson.dumps(body), "application/json")

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write("convo serve: " + format % args + "\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: Api, *, verbose: bool = False):
        super().__init__(address, Handler)
        self.api = api
        self.verbose = verbose
        self.loopback_only = address[0] in LOOPBACK


def make_server(api: Api, host: str = "127.0.0.1", port: int = 8642, *, verbose=False) -> Server:
    """A server for ``api`` bound to ``host:port`` (port 0: any free port)."""
    return Server((host, port), api, verbose=verbose)
