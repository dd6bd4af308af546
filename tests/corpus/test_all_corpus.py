"""Every real file in ../shared/corpus imports, or fails with one clear, located line.

Per-family tests (test_<family>_corpus.py) check what each file yields; this one checks
the promise for every file and folder at once, through the real command line.
"""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from conftest import corpus_dir

FAMILIES = ("vtt", "srt", "mbox", "eml", "chat", "forum")


def _inputs() -> list[str]:
    root = corpus_dir()
    if not root.is_dir():
        return []
    out = []
    for fam in FAMILIES:
        folder = root / fam
        if folder.is_dir():
            out += sorted(str(p.relative_to(root)) for p in folder.iterdir())
    return out


@pytest.mark.parametrize("rel", _inputs() or ["(corpus absent)"])
def test_imports_or_fails_cleanly(corpus, rel):
    path = corpus / rel
    r = subprocess.run(
        [sys.executable, "-m", "convo", "ingest", str(path), "-o", "-"],
        capture_output=True, timeout=120, env={**os.environ, "CONVO_NO_STDIN": "1"},
    )  # fmt: skip
    err = r.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err
    assert r.returncode in (0, 1, 2), err
    for line in err.splitlines():
        assert line.startswith("convo: "), line
    if r.returncode == 2:
        errors = [x for x in err.splitlines() if x.startswith("convo: error: ")]
        assert len(errors) == 1, err
        assert str(path) in errors[0] or rel in errors[0], errors[0]  # located
        assert "internal error" not in errors[0]
    else:
        for line in r.stdout.splitlines():
            rec = orjson.loads(line)
            assert rec["textChunks"] and rec["id"] and rec["format"]
            assert len(rec["timestamp"]) == 20 and rec["timestamp"].endswith("Z")
