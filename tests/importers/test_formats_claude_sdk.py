"""The Claude Agent SDK's messages: ``claude -p --output-format stream-json`` (and
``json``), the SDK's ``query()`` saved, claude-code-action's execution file (a JSON array
of them). They were "format not recognised" (no ``sessionId``/``parentUuid``)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

STREAM = ROOT / "tests/fixtures/agents/claude-sdk/stream-json.jsonl"
SESSION = "3b9e0c4a-7d21-4f6e-9a85-c1d2e3f4a5b6"


def _read(path, **kw):
    warnings: list = []
    rejects: list = []
    ing = Ingest(on_warning=warnings.append, on_reject=rejects.append, **kw)
    recs = [m.serialize() for m in ing.messages([str(path)])]
    assert not rejects
    return recs, [w.split(": ", 1)[1] for w in warnings]


def test_stream_json_reads_as_a_claude_code_session():
    assert registry.detect(Source(STREAM)).name == "anthropic"
    recs, warnings = _read(STREAM)
    who = [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["role"]) for r in recs]
    assert who == [
        ("assistant", ["user"], "assistant"),
        ("assistant", ["user"], "assistant"),
        ("assistant", ["subagent"], "user"),  # the Task's prompt (parent_tool_use_id)
        ("subagent", ["assistant"], "assistant"),
        ("tool", ["assistant"], "tool"),
        ("assistant", ["user"], "assistant"),
        ("assistant", ["user"], "assistant"),
    ]
    assert recs[4]["textChunks"] == ["[tool_result Task] kettle/heat.py:12"]
    assert {r["thread"] for r in recs} == {SESSION}
    ids = [r["id"] for r in recs]
    assert len(set(ids)) == len(ids) and ids[0] == "0a1b2c3d-0000-4000-8000-000000000003"
    assert all(r["timestamp"].startswith("1970") for r in recs)  # the stream has no time
    # init, the partial message and the result repeating the answer: skipped, said
    assert "skipped: Claude Code system init entry (not a message)" in warnings
    assert "skipped: Claude Code stream_event entry (not a message)" in warnings
    assert any(w.startswith("skipped: Claude Code result (its text repeats") for w in warnings)


def test_an_execution_file_array_without_uuids_keeps_every_block_apart(tmp_path):
    """The first SDK versions wrote no ``uuid``: a message's blocks (one a line) share
    the API's message id, which must not make them one record."""
    values = [json.loads(x) for x in STREAM.read_text().splitlines()]
    for v in values:
        v.pop("uuid")
    path = tmp_path / "claude-execution-output.json"
    path.write_text(json.dumps(values, indent=2))
    recs, _ = _read(path)
    assert len(recs) == 7
    assert len({r["id"] for r in recs}) == 7
    assert recs[0]["textChunks"] == ["Let me look at the boil loop."]


def test_a_result_alone_is_the_answer_and_a_failed_run_a_notice(tmp_path):
    """``--output-format json`` writes only the result: its text is the answer."""
    one = tmp_path / "out.json"
    one.write_text(json.dumps({
        "type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
        "result": "Done: heat() is called.", "session_id": SESSION, "total_cost_usd": 0.01,
    }))  # fmt: skip
    recs, _ = _read(one)
    assert [(r["metadata"]["speaker"], r["textChunks"], r["tags"]) for r in recs] == [
        ("assistant", ["Done: heat() is called."], ["result"])
    ]
    assert recs[0]["extra"]["original"]["total_cost_usd"] == 0.01
    failed = tmp_path / "failed.jsonl"
    failed.write_text(json.dumps({
        "type": "result", "subtype": "error_max_turns", "is_error": True, "num_turns": 9,
        "session_id": SESSION,
    }) + "\n")  # fmt: skip
    recs, _ = _read(failed)
    assert [(r["metadata"]["speaker"], r["role"], r["textChunks"], r["tags"]) for r in recs] == [
        ("claude-code", "system", ["[error error_max_turns]"], ["error"])
    ]


def test_a_tool_result_whose_call_id_is_an_object_keeps_the_file(tmp_path):
    """A ``tool_use_id`` that is an object or a list (hostile or damaged output) was an
    internal error (``unhashable type``, naming the result by its call) that stopped the
    whole file: the result is read as one whose call is unknown (``?``)."""
    path = tmp_path / "stream.jsonl"
    path.write_text(
        STREAM.read_text().replace('"tool_use_id":"toolu_01Task"', '"tool_use_id":{"x":1}')
    )
    recs, _ = _read(path)
    assert len(recs) == 7
    assert recs[4]["textChunks"] == ["[tool_result ?] kettle/heat.py:12"]


def test_many_assistant_messages_in_a_row_are_kept_in_pieces():
    """Each assistant message's text was added to one string kept to tell a repeated
    result by, copying it all again: 40,000 assistant messages in a row took 66 s to
    import instead of 1.4 (quadratic). The pieces are kept apart and joined only when a
    result comes (no timing here: speed is the benchmarks'); a result that repeats them
    is still skipped, and only Claude Code's lines are kept at all."""
    from convo.importers.agents import finish
    from convo.importers.agents.parts import NotMessage, Parts, Thread

    said = Parts("assistant", "assistant", [{"type": "text", "text": "word " * 40}],
                 {"claude_code": {}})  # fmt: skip
    thread = Thread()
    for _ in range(3):
        finish._check_repeat(said, thread)
    assert thread.said == ["word" * 40] * 3 and thread.said_size == 3 * 160
    result = Parts("assistant", "assistant", [], {"claude_code": {}}, repeats="word " * 40 * 3)
    with pytest.raises(NotMessage, match="repeats the last answer"):
        finish._check_repeat(result, thread)
    other = Thread()
    finish._check_repeat(Parts("assistant", "assistant", said.blocks, {}), other)
    assert other.said == []  # another format's answer is not held
