"""A real browser for the web tests: Debian's chromium driven by Playwright.

Playwright cannot download its own browsers here, so it launches ``/usr/bin/chromium``
(or ``$CONVO_CHROMIUM``); ``.ci/run`` installs the package with apt when it is missing.
Without a browser the tests fail, saying how to get one: they never skip silently.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

TIMEOUT_MS = 5_000


def chromium_path() -> str:
    path = os.environ.get("CONVO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        pytest.fail(
            "no chromium for the browser tests: apt-get install chromium (.ci/run does), "
            "or set CONVO_CHROMIUM to a Chromium binary",
            pytrace=False,
        )
    return path


@dataclass
class Events:
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


@contextlib.contextmanager
def browser_page() -> Iterator[tuple[object, Events]]:
    """A fresh page and what it logged: console errors, every request, every dialog."""
    from playwright.sync_api import sync_playwright

    events = Events()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda m: m.type == "error" and events.console_errors.append(m.text))
            page.on("pageerror", lambda e: events.console_errors.append(str(e)))
            page.on("request", lambda r: events.requests.append(r.url))

            def dialog(d) -> None:
                events.dialogs.append(d.message)
                d.dismiss()

            page.on("dialog", dialog)
            yield page, events
        finally:
            browser.close()
