"""Every record convo writes loads unchanged in TypeAgent 0.5.0, and knowledge agrees.

TypeAgent 0.5.0 needs Python >= 3.12 while convo supports 3.11, so the check runs
TypeAgent in its own virtualenv from a Python 3.12+ found on the machine. It skips, saying
why, when no such Python exists or the package cannot be installed.

The virtualenv lives outside the work tree, in a per-user cache shared by checkouts:
``$CONVO_TEST_CACHE/typeagent-0.5.0``, else ``$XDG_CACHE_HOME/convo-tests/...``, else
``~/.cache/convo-tests/...``. It is built in a temporary folder beside it and renamed into
place when complete, so two test runs at once never see a half-made one. Delete the folder
to rebuild it.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from convo.analysis.knowledge.extract import extract
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.pipeline.ingest import read_messages

ROOT = Path(__file__).resolve().parents[2]


def _cache_dir() -> Path:
    explicit = os.environ.get("CONVO_TEST_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "convo-tests"


VENV = _cache_dir() / "typeagent-0.5.0"

CHECK = r"""
import sys, orjson
from pydantic import TypeAdapter
from typeagent.knowpro.universal_message import ConversationMessage
from typeagent.knowpro.knowledge_schema import KnowledgeResponse
ka = TypeAdapter(KnowledgeResponse)
out = []
for line in open(sys.argv[1], "rb"):
    rec = orjson.loads(line)
    msg = ConversationMessage.deserialize(rec)
    out.append({"serialized": msg.serialize(), "knowledge": ka.dump_python(msg.get_knowledge(), by_alias=True)})
sys.stdout.buffer.write(orjson.dumps(out))
"""


def _python312() -> str | None:
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")))
    candidates += [shutil.which(f"python3.{m}") for m in range(12, 16)]
    for c in candidates:
        if not c or not os.access(c, os.X_OK):
            continue
        ok = subprocess.run(
            [c, "-c", "import sys; assert sys.version_info >= (3, 12)"], capture_output=True
        )
        if ok.returncode == 0:  # pyenv shims exist for versions that are not selected
            return c
    return None


@pytest.fixture(scope="session")
def typeagent_python() -> str:
    py = VENV / "bin" / "python"
    if py.exists() and (VENV / ".ok").exists():
        return str(py)
    base = _python312()
    if base is None:
        pytest.skip("TypeAgent 0.5.0 needs Python >= 3.12 and none was found")
    VENV.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix="typeagent-build-", dir=VENV.parent))
    try:
        subprocess.run([base, "-m", "venv", str(build)], check=True)
        r = subprocess.run(
            [str(build / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "typeagent==0.5.0", "orjson"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if r.returncode != 0:
            pytest.skip(f"could not install typeagent==0.5.0: {r.stderr.strip()[-300:]}")
        (build / ".ok").touch()
        shutil.rmtree(VENV, ignore_errors=True)  # an unfinished one (no .ok)
        # Only bin/python is run, and a moved virtualenv's python still finds its packages.
        build.rename(VENV)
    except OSError:
        if not (VENV / ".ok").exists():  # another run did not win the rename either
            raise
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return str(py)


def _records(tmp_path: Path) -> list[dict]:
    hand = [
        ConversationMessage(["only text"]),
        ConversationMessage(["x"], ConversationMessageMeta("Alice")),
        ConversationMessage(
            ["x", "y"],
            ConversationMessageMeta("Bob <b@x.org>", ["Alice", "Carol"]),
            ["t"],
            "2024-03-06T10:02:30Z",
            source_id="s#1",
            id="<m@x>",
            format="mbox",
            thread="<r@x>",
            reply_to="<r@x>",
            role="user",
            subject="S",
            extra={"attachments": [{"name": "a.pdf"}]},
        ),
        ConversationMessage(["ünïcödé 🎉", "\x1b[31m"], ConversationMessageMeta("Zoë", [])),
    ]
    recs = [m.serialize() for m in hand]
    sample = ROOT / "sample_data"
    if any(sample.iterdir()):
        recs += [m.serialize() for m in read_messages(sample)]
    return recs


def test_typeagent_loads_every_record_and_agrees_on_knowledge(typeagent_python, tmp_path):
    recs = _records(tmp_path)
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    r = subprocess.run([typeagent_python, "-c", CHECK, str(path)], capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    results = orjson.loads(r.stdout)
    assert len(results) == len(recs)
    for rec, res in zip(recs, results, strict=True):
        core = {k: rec[k] for k in ("textChunks", "metadata", "tags", "timestamp", "source_id")}
        assert res["serialized"] == core
        ours = ConversationMessage.deserialize(rec).get_knowledge().to_dict()
        assert res["knowledge"] == ours, rec
        assert res["knowledge"] == extract(rec, metadata_only=True).to_dict()  # --metadata-only


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
