"""Regenerate the screenshots of the web view and the report under docs/images/.

    PYTHONPATH=src python tools/web_screenshots.py

Builds a store from sample_data/ in a temporary folder, writes ``convo report`` for it,
serves it with ``convo.web.server`` on a free loopback port and photographs the report,
a search and a thread in headless Chromium (Playwright on Debian's ``chromium``, as the
browser tests do: tests/web/browser.py).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.web.browser import browser_page

    from convo.store import Store
    from convo.web.api import Api
    from convo.web.server import make_server

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.jsonl"
        report = Path(tmp) / "report.html"
        convo = [sys.executable, "-m", "convo", "--store", str(store)]
        subprocess.run([*convo, "ingest", "--save", str(ROOT / "sample_data")], check=False,
                       capture_output=True)  # fmt: skip
        subprocess.run([*convo, "report", "--tz", "UTC", "-o", str(report)], check=True)
        server = make_server(Api(Store(store)), "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            with browser_page() as (page, _events):
                page.set_viewport_size({"width": 1100, "height": 1400})
                page.goto(report.as_uri())
                page.screenshot(path=str(OUT / "report.png"), full_page=False)
                page.set_viewport_size({"width": 1100, "height": 800})
                page.goto(base + "/search?q=jwt+tag%3Asecurity")
                page.wait_for_selector("#hits li")
                page.screenshot(path=str(OUT / "search.png"))
                page.goto(base + "/thread?id=%3Cauth-1%40example.org%3E")
                page.wait_for_selector("#thread article")
                page.screenshot(path=str(OUT / "thread.png"))
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    main()
