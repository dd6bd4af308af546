"""Shell completion of values from the store's index (issue 35 §19)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DATA, saved_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("complete") / "store.jsonl"
    return saved_store(path, SAMPLE_DATA / "email", index=True)


def _complete(store, *words: str) -> list[str]:
    line = ["convo", "--store", str(store), *words]
    env = {**os.environ, "_CONVO_COMPLETE": "complete_bash",
           "COMP_WORDS": " ".join(line), "COMP_CWORD": str(len(line) - 1)}  # fmt: skip
    script = Path(sys.executable).parent / "convo"  # the completion variable names the script
    out = subprocess.run([str(script)], env=env, capture_output=True, timeout=60)
    return [v for v in out.stdout.decode().split("\n") if v]


def test_speakers_tags_and_threads_complete_from_the_index(store):
    assert "Alice Smith <alice@example.org>" in _complete(store, "list", "-s", "Ali")
    assert _complete(store, "query", "--tag", "sec") == ["security"]
    assert "<auth-1@example.org>" in _complete(store, "show", "--thread", "<auth")
    assert _complete(store, "rm", "--speaker", "nobody-at-all") == []


def test_without_an_index_nothing_is_completed(tmp_path):
    missing = tmp_path / "none.jsonl"
    assert _complete(missing, "list", "-s", "a") == []
    assert not (tmp_path / "none.jsonl.index.sqlite").exists()
