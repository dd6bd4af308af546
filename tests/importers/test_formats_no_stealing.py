"""The new formats take no file from an existing one.

Every file (and folder) of ../shared/corpus and sample_data/ is detected by a registry
holding only the built-in formats and by one holding the built-ins plus this wave's new
formats; both must give the same answer (a format name, or "not recognised"), unless the
file is a new format's own (none of the corpus files is yet).
"""

from __future__ import annotations

from pathlib import Path

from formats_helpers import FIXTURES, fresh_registry, new_modules

from conftest import ROOT, corpus_dir
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.registry import Registry


def _inputs() -> list[Path]:
    out: list[Path] = []
    for root in (corpus_dir(), ROOT / "sample_data"):
        if root.is_dir():
            out += sorted(p for p in root.rglob("*") if not p.name.startswith("."))
    return out


def _detect(reg: Registry, path: Path) -> str:
    try:
        return reg.detect(Source(path)).name
    except InputError as e:  # the message lists the formats tried, which differ
        return "not recognised" if "not recognised" in str(e) else f"error: {e}"


def test_no_existing_file_changes_format():
    before = Registry()
    after = fresh_registry(*new_modules())
    changed = {}
    for path in _inputs():
        old, new = _detect(before, path), _detect(after, path)
        if old != new:
            changed[str(path)] = (old, new)
    assert changed == {}


def test_every_new_fixture_is_detected_as_its_format():
    reg = fresh_registry(*new_modules())
    wrong: dict[str, str] = {}
    expected = {
        "claude_ai": "claude-ai",
        "sharegpt": "sharegpt",
        "hf_chat": "hf-chat",
        "openai_responses": "openai-responses",
        "gemini": "gemini",
        "langchain": "langchain",
        "vercel_ai": "vercel-ai",
        "mastodon": "mastodon",
        "twitter_dm": "twitter-dm",
        "irc": "irc",
        "matrix": "matrix",
    }
    by_file = {
        "completion.json": "openai-completion",
        "batch_output.jsonl": "openai-completion",
        "thread_messages.json": "openai-assistants",
    }
    by_file["Space AAAAtea/messages.json"] = "google-chat"
    by_file["DM xyz/messages.json"] = "google-chat"
    for name, fmt in list(by_file.items())[-2:]:
        got = _detect(reg, FIXTURES / "google_chat" / "Groups" / name)
        if got != fmt:
            wrong[name] = got
        del by_file[name]
    for name, fmt in by_file.items():
        got = _detect(reg, FIXTURES / "openai_api" / name)
        if got != fmt:
            wrong[name] = got
    for folder, name in expected.items():
        for path in sorted((FIXTURES / folder).iterdir()):
            if path.name.startswith("plain-") or path.name in ("actor.json", "account.js"):
                continue  # a file of an existing format, kept as a counter-example
            got = _detect(reg, path)
            if got != name:
                wrong[path.name] = got
    assert wrong == {}
