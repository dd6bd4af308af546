"""The MCP tools cut a message's text at ``TEXT_LIMIT``, but no other value: a speaker
of a megabyte (a base64 image read as a name) or a message heard by 100,000 listeners
made each answer naming them that size (7 MB for three messages)."""

from __future__ import annotations

import json

import orjson
import pytest

from convo.index.state import refresh
from convo.mcp.calls import Archive
from convo.mcp.tools import TEXT_LIMIT
from convo.store import Store

from .helpers import record

HUGE = "data:image/png;base64," + "QUFB" * 300_000


@pytest.fixture
def archive(tmp_path):
    path = tmp_path / "s.jsonl"
    many = [f"listener{i}" for i in range(100_000)]
    rows = [
        record(
            n,
            metadata={"speaker": HUGE, "listeners": many},
            tags=[HUGE] * 3,
            subject=HUGE,
            thread="t",
        )
        for n in range(3)
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    assert refresh(path, create=True).available
    return Archive(Store(path, tz="UTC"))


@pytest.mark.parametrize(
    "tool, args",
    [("query", {}), ("search", {"text": "message"}), ("get_thread", {"id": "t"}),
     ("get_message", {"id": "m1"}), ("people", {}), ("stats", {}), ("knowledge", {})],
)  # fmt: skip
def test_every_answer_is_bounded(archive, tool, args):
    out = archive.call(tool, args)
    assert len(json.dumps(out)) < 200_000


def test_a_message_says_what_was_left_out(archive):
    (msg, *_) = archive.call("query", {})["messages"]
    assert len(msg["listeners"]) == 50 and msg["listeners_total"] == 100_000
    assert msg["speaker"] == HUGE[:TEXT_LIMIT] + "…" and msg["id"] == "m0"
