"""Claude Code 2.1 session lines (``~/.claude/projects/P/SESSION.jsonl``), as real
sessions of 2.1.2xx hold them: ``attachment`` lines (a ``queued_command`` is a prompt
typed while the agent worked; hook output), ``system`` lines without ``content``
(``turn_duration``, ``stop_hook_summary``), ``custom-title`` and ``pr-link``, and a
``session_id`` beside the ``sessionId`` on assistant lines. Every one of those but the
last was rejected (a typed prompt lost among them)."""

from __future__ import annotations

from conftest import ROOT
from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

SESSION = "5e8f2a1c-3b4d-4c6e-9f70-8a1b2c3d4e5f"
PATH = ROOT / "tests/fixtures/agents/claude-code-2.1" / f"{SESSION}.jsonl"


def test_claude_code_2_1_session():
    assert registry.detect(Source(PATH)).name == "anthropic"
    rejects: list = []
    warnings: list = []
    ing = Ingest(on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in ing.messages([str(PATH)])]
    assert not rejects
    got = [(r["metadata"]["speaker"], r["role"], r["tags"], r["textChunks"]) for r in recs]
    assert got == [
        ("user", "user", [], ["Why does the kettle click off early?"]),
        ("assistant", "assistant", [], [""]),  # thinking only: in extra
        ("assistant", "assistant", [], ['[tool_use Grep] {"pattern":"cutoff","path":"kettle"}']),
        ("tool", "tool", [], ["[tool_result Grep] kettle/thermo.py:8: CUTOFF = 90"]),
        ("user", "user", ["queued"], ["it is an electric kettle, 1.7 l"]),  # typed mid-turn
        ("assistant", "assistant", [], ["CUTOFF is 90 C in kettle/thermo.py: water boils at 100 C, so raise it."]),
        ("system", "system", ["queued"], ["<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"]),
        ("system", "system", [], ["We found the kettle's cutoff at 90 C; next: raise it to 100 C."]),
    ]  # fmt: skip
    # a session file's line, session_id or not: its time, thread, uuid and parent
    assert {r["thread"] for r in recs} == {SESSION}
    assert recs[2]["timestamp"] == "2026-07-25T11:20:04Z"
    assert recs[2]["replyTo"] == recs[1]["id"] == "a0000000-0000-4000-8000-000000000002"
    assert recs[4]["replyTo"] == recs[3]["id"]
    said = sorted(w.split(": ", 1)[1] for w in warnings)
    assert said == [
        "skipped: Claude Code attachment hook_success entry (not a message)",
        "skipped: Claude Code custom-title entry (not a message)",
        "skipped: Claude Code pr-link entry (not a message)",
        "skipped: Claude Code system stop_hook_summary entry (not a message)",
        "skipped: Claude Code system turn_duration entry (not a message)",
    ]


def test_a_turn_without_its_message_is_still_rejected(tmp_path):
    """Only lines that are no turn are skipped: a user line whose message is damaged is
    rejected with its line, as before."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"user","sessionId":"s1","parentUuid":null,"uuid":"u1","message":"error"}\n'
    )
    rejects: list = []
    assert list(Ingest(format_name="anthropic", on_reject=rejects.append).messages([path])) == []
    assert [r.reason for r in rejects] == [
        "not a message (anthropic): a Claude Code 'user' entry without a message object"
    ]


QUEUE = ROOT / "tests/fixtures/agents/claude-code-queue/7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.jsonl"


def test_prompts_typed_while_the_agent_worked():
    """The prompt queue as real sessions log it: 2.1.39 (marot/spotter
    ``test/fixtures/transcripts``: ``enqueue`` with the text, ``remove`` without it, the
    prompt in no other line, recalled by the compaction's summary) and 2.1.28x
    (``remove`` with its ``content`` and ``reason`` ``absorbed_mid_turn``; a
    ``queued_command`` attachment; a prompt taken back). The typed prompts were lost,
    counted only as skipped queue lines."""
    rejects: list = []
    warnings: list = []
    ing = Ingest(on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in ing.messages([str(QUEUE)])]
    assert not rejects
    queued = [
        (r["textChunks"], r["timestamp"], r["extra"]["claude_code"])
        for r in recs
        if "queued" in r["tags"]
    ]
    assert queued == [
        (["check again"], "2026-02-11T20:51:12Z", "queue-operation"),  # absorbed (2.1.39)
        (["use the 1.7 l model"], "2026-09-24T23:09:10Z", "queue-operation"),  # absorbed_mid_turn
        (["commit it"], "2026-09-24T23:10:00Z", "attachment"),  # its attachment, once
    ]  # fmt: skip
    assert all(r["metadata"]["speaker"] == "user" for r in recs if "queued" in r["tags"])
    # the task notification queued, then delivered as a turn of its own: once
    assert sum("<task-notification>" in r["textChunks"][0] for r in recs) == 1
    said = [w.split(": ", 1)[1] for w in warnings]
    assert any(s.startswith("1 queued prompt taken back") for s in said)  # "never mind"
    assert any(s.startswith("1 queued prompt never delivered") for s in said)  # "and push"
