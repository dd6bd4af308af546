"""Every record convo writes loads unchanged in TypeAgent 0.5.0, and knowledge agrees.

TypeAgent 0.5.0 needs Python >= 3.12 while convo supports 3.11, so the check runs
TypeAgent in its own virtualenv (the ``typeagent_python`` fixture of
``tests/compat/conftest.py``), which fails, never skips, when it cannot be made.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from convo.analysis.knowledge.extract import extract
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.pipeline.ingest import read_messages

ROOT = Path(__file__).resolve().parents[2]

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
