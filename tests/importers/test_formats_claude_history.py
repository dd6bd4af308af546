"""Claude Code's prompt history (``convo.importers.agents.claude_history``).

The fixture follows the shape Claude Code's users' tools read (the module docstring):
``display``, ``pastedContents`` (a text paste held whole, an image, a large paste held
by ``contentHash``), ``timestamp`` in ms, ``project``, ``sessionId`` (absent on the
older lines); a torn line and a session line among them.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.agents import claude_history
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

PATH = FIXTURES / "claude_history" / "history.jsonl"
SESSION = "7d3c1f0a-5b2e-4c8d-9a61-2f4e8b0c1d23"  # the Claude Code session fixture's


def test_golden():
    recs, _, _ = run(claude_history.read, PATH)
    assert_golden("formats/claude_history/history.jsonl", recs)


def test_each_prompt_a_user_record_of_its_session():
    recs, rejects, warnings = run(claude_history.read, PATH)
    assert [r.where for r in rejects] == ["history.jsonl:5", "history.jsonl:6"]
    assert not warnings
    assert len(recs) == 8 and len({r["id"] for r in recs}) == 8  # the two /clear too
    assert {r["role"] for r in recs} == {"user"}
    assert all(r["metadata"] == {"speaker": "user", "listeners": ["assistant"]} for r in recs)
    assert recs[0]["timestamp"] == "2025-04-30T09:00:00Z"
    # no sessionId (the older lines): the project is the conversation
    assert recs[0]["thread"] == "claude-code:/Users/ann/shop"
    assert {r["thread"] for r in recs[1:7]} == {SESSION}
    assert recs[0]["extra"] == {"project": "/Users/ann/shop"}


def test_pastes_are_searchable_or_kept():
    recs, _, _ = run(claude_history.read, PATH)
    trace, shot = recs[2], recs[3]
    assert trace["textChunks"][0] == "fix this trace [Pasted text #1 +3 lines]"
    assert trace["textChunks"][1].endswith("KeyError: 'sku'")
    assert "pasted" not in trace["extra"]  # its text is in the record
    assert shot["textChunks"] == [
        "what is in this screenshot? [Image #1] and [Pasted text #2 +400 lines]"
    ]
    assert shot["extra"]["pasted"] == [
        {"key": "1", "id": 1, "type": "image"},
        {"key": "2", "id": 2, "type": "text", "contentHash": "9f2c4e1ab7d05e33"},
    ]


def test_commands_are_tagged_paths_are_not():
    recs, _, _ = run(claude_history.read, PATH)
    tags = {r["textChunks"][0]: r["tags"] for r in recs}
    assert tags["/model opus"] == ["prompt-log", "command"]
    assert tags["/clear "] == ["prompt-log", "command"]
    assert tags["/Users/ann/shop/cart.py has a bug near line 12"] == ["prompt-log"]


def test_detected_under_any_name_and_not_as_a_session(tmp_path):
    assert registry.detect(Source(PATH)).name == "claude-history"
    renamed = tmp_path / "prompts.jsonl"
    renamed.write_bytes(PATH.read_bytes())
    assert registry.detect(Source(renamed)).name == "claude-history"
    session = ROOT / "tests/fixtures/agents/claude-code" / f"{SESSION}.jsonl"
    assert registry.detect(Source(session)).name == "anthropic"
    reg = fresh_registry(claude_history)
    assert detect_name(reg, PATH) == "claude-history"


def test_a_prompt_joins_its_session_in_a_store(tmp_path):
    """A ~/.claude folder's history and session: the prompts are threads of the session."""
    session = ROOT / "tests/fixtures/agents/claude-code" / f"{SESSION}.jsonl"
    recs = [m.serialize() for m in Ingest().messages([str(session), str(PATH)])]
    threads = {r["thread"] for r in recs if r["format"] == "anthropic"}
    assert SESSION in threads
    assert sum(r["thread"] == SESSION for r in recs if r["format"] == "claude-history") == 6


def test_a_subagents_metadata_is_recognised_and_holds_no_message(tmp_path, runner):
    """Claude Code 2.1 keeps a subagent's transcript and metadata beside the session:
    ``<session>/subagents/agent-<id>.jsonl`` and ``agent-<id>.meta.json``. Ingesting the
    project folder counted the metadata as an unreadable conversation file (exit 1)."""
    import json

    from convo.cli.app import app

    sub = tmp_path / "s-1" / "subagents"
    sub.mkdir(parents=True)
    line = {
        "type": "user", "uuid": "u-1", "parentUuid": None, "isSidechain": True,
        "sessionId": "s-1", "timestamp": "2026-06-15T10:00:12.000Z", "agentId": "a1",
        "message": {"role": "user", "content": "List the jobs in src/jobs."},
    }  # fmt: skip
    (sub / "agent-a1.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    meta = sub / "agent-a1.meta.json"
    meta.write_text(
        json.dumps({"agentType": "Explore", "description": "List jobs", "toolUseId": "toolu_1"}),
        encoding="utf-8",
    )
    assert registry.detect(Source(meta)).name == "claude-history"
    assert run(claude_history.read, meta)[0] == []
    result = runner.invoke(app, ["ingest", str(tmp_path), "-o", "-"])
    assert result.exit_code == 0, result.stderr
    assert "not recognised" not in result.stderr
    assert [json.loads(x)["format"] for x in result.stdout.splitlines()] == ["anthropic"]
