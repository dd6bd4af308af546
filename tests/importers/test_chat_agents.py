"""Agent-framework chat formats: goldens, losslessness, detection, coercion, properties."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, SAMPLE_DATA, assert_golden, records
from convo.core.errors import ConvoError, RecordError, StrictAbort
from convo.core.fields import original, plain_original
from convo.core.io import Source
from convo.importers.agents.blocks import THINKING, parse_arguments
from convo.importers.agents.reader import message_from_object, read_agent_messages
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest, read_messages

CHAT = SAMPLE_DATA / "chat"
SAMPLES = {
    "openai": "openai.json",
    "anthropic": "anthropic.json",
    "agentscope": "agentscope.json",
    "langmem": "langmem.json",
    "autogen": "autogen.json",
    "jianmu": "jianmu.json",
}


def _ingest(name: str, monkeypatch, **options) -> list[dict]:
    monkeypatch.chdir(ROOT)
    opts = ImportOptions(**options)
    return [m.serialize() for m in read_messages(f"sample_data/chat/{name}", options=opts)]


def _input_messages(name: str) -> list[dict]:
    """The message objects of a sample file, in order (conversations flattened)."""
    path = CHAT / name
    text = path.read_text()
    if name.endswith(".jsonl"):
        values = [json.loads(x) for x in text.splitlines() if x.strip()]
    else:
        data = json.loads(text)
        values = data if isinstance(data, list) else [data]
    out = []
    for v in values:
        out.extend(v["messages"] if isinstance(v, dict) and "messages" in v else [v])
    return out


# -- goldens ---------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_golden(fmt, monkeypatch):
    recs = _ingest(SAMPLES[fmt], monkeypatch)
    assert {r["format"] for r in recs} == {fmt}
    assert_golden(f"chat/agent-{fmt}.jsonl", recs)


def test_golden_claude_code(monkeypatch):
    recs = _ingest("claude-code-session.jsonl", monkeypatch)
    assert_golden("chat/agent-claude-code.jsonl", recs)
    # The summary line (a conversation title, no time) is no message: no 1970 record.
    # the tool's result (a user turn in the Messages API) is the tool's, not the user's
    assert [r["metadata"]["speaker"] for r in recs] == ["user", "assistant", "tool", "assistant"]
    assert [r["role"] for r in recs] == ["user", "assistant", "tool", "assistant"]
    assert recs[2]["extra"]["original_role"] == "user"
    assert {r["thread"] for r in recs} == {"sess-42"}
    assert recs[1]["replyTo"] == recs[0]["id"] == "6f1c2a10-0000-4000-8000-000000000001"
    assert recs[0]["timestamp"] == "2025-01-10T09:00:00Z"


def test_golden_claude_code_session_as_claude_code_writes_it(monkeypatch):
    """A session file as Claude Code writes it (``~/.claude/projects/P/SESSION.jsonl``):
    ``summary`` lines first (titles of the branch ending at ``leafUuid``, one of another
    file), a Task subagent's ``isSidechain`` lines, an ``isMeta`` caveat, ``/compact``
    with its ``compact_boundary`` and ``isCompactSummary`` lines, a file-history-snapshot.
    """
    monkeypatch.chdir(ROOT)
    rejects: list = []
    warnings: list = []
    name = "tests/fixtures/agents/claude-code/7d3c1f0a-5b2e-4c8d-9a61-2f4e8b0c1d23.jsonl"
    ing = Ingest(on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in ing.messages([name])]
    assert_golden("chat/agent-claude-code-session.jsonl", recs)
    assert not rejects
    assert all(not r["timestamp"].startswith("1970") for r in recs)
    # The titles ride on the first message, as the conversation's metadata.
    assert recs[0]["extra"]["conversation"]["summaries"][0] == {
        "summary": "Fix flaky checkout test",
        "leafUuid": "00000000-0000-4000-8000-000000000009",
    }
    who = [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["tags"]) for r in recs]
    assert who == [
        ("user", ["assistant"], []),
        ("assistant", ["user"], []),
        ("assistant", ["subagent"], ["sidechain"]),  # the Task prompt: the agent's
        ("subagent", ["assistant"], ["sidechain"]),
        ("tool", ["assistant"], []),  # the Task tool's result: the subagent is no party
        ("system", [], ["meta"]),  # Claude Code's caveat, not the user's words
        ("user", ["assistant"], []),
        ("system", [], ["compact"]),
        ("system", [], ["compact-summary"]),
        ("assistant", ["user"], []),
    ]
    boundary = recs[7]
    assert boundary["replyTo"] == recs[6]["id"]  # its logicalParentUuid
    assert boundary["extra"]["compact"] == {"trigger": "manual", "preTokens": 15500}
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "skipped: Claude Code file-history-snapshot entry (not a message)"
    ]


def test_claude_code_summary_without_a_message_after_it_is_said(tmp_path):
    """A file of summary lines only (Claude Code writes such files): no message, and
    the titles not imported are said."""
    p = tmp_path / "s.jsonl"
    p.write_text(
        '{"type":"summary","summary":"A","leafUuid":"u1"}\n'
        '{"type":"summary","summary":"B","leafUuid":"u2"}\n'
    )
    warnings: list = []
    recs = list(Ingest(format_name="anthropic", on_warning=warnings.append).messages([p]))
    assert recs == []
    assert any("2 conversation titles" in w for w in warnings)


def test_claude_code_bookkeeping_is_one_warning_a_kind(tmp_path):
    """A real session holds hundreds of file-history snapshots: one warning a kind, with
    how many and where the first was, not one a line."""
    snap = '{"type":"file-history-snapshot","messageId":"m%d","snapshot":{},"isSnapshotUpdate":false}\n'
    user = (
        '{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":"user","uuid":"u1",'
        '"message":{"role":"user","content":"hi"},"timestamp":"2025-10-01T10:00:01.000Z"}\n'
    )
    progress = '{"parentUuid":"u1","sessionId":"s1","type":"progress","data":{},"uuid":"p1"}\n'
    p = tmp_path / "s.jsonl"
    p.write_text(snap % 0 + user + "".join(snap % k for k in range(1, 40)) + progress)
    warnings: list = []
    recs = list(Ingest(format_name="anthropic", on_warning=warnings.append).messages([p]))
    assert [m.text_chunks for m in recs] == [["hi"]]
    assert sorted(w.split(": ", 1)[1] for w in warnings) == [
        "skipped 40: Claude Code file-history-snapshot entry (not a message), the first here",
        "skipped: Claude Code progress entry (not a message)",
    ]
    assert any(w.startswith(f"{p}:1:") and "snapshot" in w for w in warnings)


# -- nothing lost ----------------------------------------------------------------------


def _tool_ids(messages: list[dict]) -> tuple[set, set]:
    """(tool-call ids, tool-result ids) found anywhere in the input messages."""
    calls, results = set(), set()

    def walk(v, parent_key=None):
        if isinstance(v, dict):
            kind = v.get("type")
            if kind == "tool_use" or (parent_key == "tool_calls" and "id" in v):
                calls.add(v["id"])
            if kind == "tool_result":
                results.add(v.get("tool_use_id") or v.get("id"))
            if v.get("tool_call_id"):
                results.add(v["tool_call_id"])
            if "call_id" in v:
                results.add(v["call_id"])
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, parent_key)

    walk(messages)
    return calls, results


def record_blocks(rec: dict) -> list[dict]:
    """The stored blocks, else one text block a chunk (what a record without them means)."""
    extra = rec.get("extra", {})
    if "blocks" in extra:
        return extra["blocks"]
    return [{"type": "text", "text": c} for c in rec["textChunks"]]


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_lossless(fmt, monkeypatch):
    name = SAMPLES[fmt]
    recs = _ingest(name, monkeypatch)
    recs = [r for r in recs if not r.get("extra", {}).get("system_prompt")]
    inputs = _input_messages(name)
    # every message, verbatim, in order (a plain one stood for by the record itself)
    assert [original(r, fmt) for r in recs] == inputs
    assert all(r.get("extra", {}).get("original") != plain_original(r.get("role"), r["textChunks"])
               for r in recs)  # fmt: skip
    # every role
    for rec, obj in zip(recs, inputs, strict=True):
        if "role" in obj:
            assert rec.get("extra", {}).get("original_role", rec["role"]) == obj["role"]
        if isinstance(obj.get("name"), str):
            assert rec["extra"]["name"] == obj["name"] == rec["metadata"]["speaker"]
        shown = [b for b in record_blocks(rec) if b["type"] not in THINKING]  # --include-thinking
        assert len(rec["textChunks"]) == max(1, len(shown))
    # every tool call and tool result, in the blocks and in the chunks
    calls, results = _tool_ids(inputs)
    blocks = [b for r in recs for b in record_blocks(r)]
    assert calls <= {b.get("id") for b in blocks if b["type"] == "tool_use"}
    assert results <= {b.get("tool_use_id") for b in blocks if b["type"] == "tool_result"}
    chunks = "\n".join(c for r in recs for c in r["textChunks"])
    names = {b["id"]: b["name"] for b in blocks if b["type"] == "tool_use" and b.get("name")}
    for b in blocks:
        if b["type"] == "tool_use":
            assert f"[tool_use {b['name']}]" in chunks
        if b["type"] == "tool_result" and b["tool_use_id"]:  # named by the call it answers
            label = b.get("name") or names.get(b["tool_use_id"]) or b["tool_use_id"]
            assert f"[tool_result {label}" in chunks


def test_anthropic_system_prompt_and_blocks(monkeypatch):
    recs = _ingest("anthropic.json", monkeypatch)
    first = recs[0]
    assert first["role"] == "system" and first["textChunks"] == [
        "You are a careful research assistant."
    ]
    assert first["extra"]["original"] == {"system": "You are a careful research assistant."}
    assert first["extra"]["conversation"]["model"] == "claude-sonnet-4-5"
    assistant = recs[2]
    assert assistant["textChunks"] == [
        "Let me search.",
        '[tool_use search] {"query":"JWT revocation paper"}',
    ]  # private reasoning stays in extra.blocks (--include-thinking makes it a chunk)
    assert assistant["extra"]["blocks"][0]["type"] == "thinking"
    user = recs[5]["extra"]["blocks"]
    assert user[0] == {
        "type": "tool_result", "tool_use_id": "toolu_02", "content": "HTTP 404", "is_error": True,
    }  # fmt: skip
    assert user[2]["type"] == "image" and user[2]["media_type"] == "image/png"
    assert user[3] == {"type": "image", "url": "https://example.org/cover.jpg"}
    assert recs[5]["textChunks"][0] == "[tool_result fetch error] HTTP 404"  # named by its call


def test_thinking_is_a_chunk_only_when_asked(monkeypatch):
    """Claude Code and Anthropic thinking blocks follow the rule of every agent reader:
    private reasoning in ``extra.blocks``, a ``[thinking]`` chunk with --include-thinking
    (a message without an id hashes the text shown, as a Gemini request does)."""
    plain = _ingest("anthropic.json", monkeypatch)
    asked = _ingest("anthropic.json", monkeypatch, include_thinking=True)
    assert asked[2]["textChunks"][0] == "[thinking] I should search first."
    assert asked[2]["textChunks"][1:] == plain[2]["textChunks"]
    assert asked[4]["textChunks"][0] == "[redacted_thinking]"
    assert not any(c.startswith("[") and "thinking]" in c for r in plain for c in r["textChunks"])


def test_openai_arguments_and_roles(monkeypatch):
    recs = _ingest("openai.json", monkeypatch)
    assert recs[0]["role"] == "system" and recs[0]["extra"]["original_role"] == "developer"
    calls = recs[2]["extra"]["blocks"]
    assert calls[0]["input"] == {"city": "Paris", "day": "tomorrow"}
    assert calls[1]["input"] == {"city": "Berlin"}  # double-encoded in the source
    legacy = recs[10]["extra"]["blocks"][0]
    assert legacy["input"] == {} and legacy["input_raw"] == '{"to": "Paris"'
    assert recs[11]["role"] == "tool" and recs[11]["extra"]["original_role"] == "function"
    assert recs[1]["metadata"] == {"speaker": "Alice", "listeners": ["assistant"]}
    assert recs[2]["metadata"] == {"speaker": "assistant", "listeners": ["Alice"]}
    # identical "ok" messages are both kept, with distinct ids
    media = recs[12]["extra"]["blocks"]
    assert [b["type"] for b in media] == ["audio", "file", "image"]
    assert media[2] == {"type": "image", "media_type": "image/png", "data": "iVBORw0KGgo="}
    assert recs[12]["textChunks"] == [
        "[audio wav, 15 bytes]",
        "[file itinerary.pdf]",
        "[image image/png, 9 bytes]",
    ]
    assert recs[13]["textChunks"] == recs[14]["textChunks"] == ["ok"]
    assert recs[13]["id"] != recs[14]["id"]


def test_autogen_type_fields_in_extra(monkeypatch):
    recs = _ingest("autogen.json", monkeypatch)
    handoff = next(r for r in recs if r["extra"]["type"] == "HandoffMessage")
    assert handoff["metadata"]["listeners"] == ["hotel_agent"]
    assert handoff["extra"]["target"] == "hotel_agent" and handoff["extra"]["context"] == []
    request = next(r for r in recs if r["extra"]["type"] == "ToolCallRequestEvent")
    assert request["extra"]["models_usage"] == {"prompt_tokens": 52, "completion_tokens": 20}
    assert request["id"] == "7d3e5c1a-1f2b-4c3d-9e4f-5a6b7c8d9e03"
    execution = next(r for r in recs if r["extra"]["type"] == "ToolCallExecutionEvent")
    assert execution["role"] == "tool"
    assert recs[0]["timestamp"] == "2025-03-01T12:00:00Z"
    assert recs[0]["extra"]["conversation"] == {"stop_reason": "Stop message received"}
    thought = next(r for r in recs if r["extra"]["type"] == "ThoughtEvent")
    assert thought["extra"]["blocks"] == [
        {"type": "thinking", "thinking": "I should check flights first."}
    ]


def test_agentscope_naive_times_use_tz(monkeypatch):
    from convo.core.timestamps import get_zone

    utc = _ingest("agentscope.json", monkeypatch)
    berlin = _ingest("agentscope.json", monkeypatch, tz=get_zone("Europe/Berlin"))
    assert utc[0]["timestamp"] == "2024-05-02T14:30:05Z"
    assert berlin[0]["timestamp"] == "2024-05-02T12:30:05Z"
    assert utc[0]["metadata"] == {"speaker": "Alice", "listeners": ["Friday"]}
    assert utc[0]["id"] == "b3b1a2c4d5e6f708192a3b4c"  # long ids kept as they are


def test_langmem_threads(monkeypatch):
    recs = _ingest("langmem.json", monkeypatch)
    assert [r["thread"] for r in recs] == ["thread-7"] * 3 + ["thread-8"] * 2
    assert recs[0]["extra"]["user_id"] == "user-alice"
    assert recs[0]["extra"]["conversation"] == {"id": "thread-7", "metadata": {"topic": "diet"}}
    assert recs[2]["timestamp"] == "2024-06-01T08:15:30Z"  # epoch seconds
    assert recs[4]["timestamp"] == "2024-06-02T07:00:02Z"  # +02:00 offset
    assert recs[4]["metadata"]["listeners"] == ["Bob"]


def test_jianmu_to_text(monkeypatch):
    recs = _ingest("jianmu.json", monkeypatch)
    assert recs[1]["textChunks"] == ["Who wrote the deployment runbook?"]
    # Jianmu's to_text: a dict without a string text/content/data/value is str(dict)
    # a result is named by the call it answers (``tc_9``, ``grep_docs`` in the message before)
    expected = "[tool_result grep_docs] runbook.md: author Bob\n{'value': 2}\nlines matched"
    assert recs[3]["textChunks"] == [expected]
    assert recs[3]["metadata"]["speaker"] == "grep_docs"
    assert recs[4]["textChunks"] == ["Bob wrote it (runbook.md)."]
    assert recs[0]["id"] == "jianmu:jianmu.json:jm-0001"  # short ids: unique in their file


# -- detection -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_detect_file(fmt):
    assert registry.detect(Source(CHAT / SAMPLES[fmt])).name == fmt


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_stdin_detection(fmt, runner):
    from convo.cli.app import app

    data = (CHAT / SAMPLES[fmt]).read_bytes()
    result = runner.invoke(app, ["ingest", "-", "-o", "-"], input=data)
    assert result.exit_code == 0, result.output
    recs = records(result.stdout)
    assert recs and {r["format"] for r in recs} == {fmt}
    assert all(r["source_id"].startswith("stdin#") for r in recs)


def test_stdin_claude_code_jsonl(runner):
    from convo.cli.app import app

    data = (CHAT / "claude-code-session.jsonl").read_bytes()
    result = runner.invoke(app, ["ingest", "-o", "-"], input=data)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in records(result.stdout)} == {"anthropic"}


def _head_format(text: str) -> str | None:
    path = ROOT / "tests" / ".tmp-detect.json"
    try:
        path.write_text(text)
        try:
            return registry.detect(Source(path)).name
        except ConvoError:
            return None
    finally:
        path.unlink()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]', "openai"),
        ('{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}', "openai"),
        ('[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", '
         '"input": {}}]}]', "anthropic"),
        ('{"type": "TextMessage", "source": "a", "content": "hi"}\n', "autogen"),
        ('{"name": "A", "role": "user", "content": "hi", "timestamp": "2024-01-01 10:00:00.000"}',
         "agentscope"),
        ('{"id": "t", "metadata": {}, "messages": [{"role": "user", "content": "hi"}]}', "langmem"),
        ('{"role": "user", "content": "hi", "tool": null}', "jianmu"),
        # not ours: convo records, ChatGPT export, Discord export, plain objects
        ('{"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}, "tags": [], '
         '"extra": {"original": {"role": "user", "content": "hi"}}}\n', "jsonl"),
        ('[{"title": "t", "mapping": {"a": {"message": {"author": {"role": "user"}, '
         '"content": {"content_type": "text", "parts": ["hi"]}}}}}]', None),
        ('{"guild": {}, "messages": [{"id": "1", "content": "hi", "author": {"name": "A"}}]}',
         None),
        ('{"silly": "this"}', None),
    ],
)  # fmt: skip
def test_detection_by_content(text, expected):
    assert _head_format(text) == expected


def test_truncated_head_uses_markers():
    msgs = [{"role": "user", "content": "x" * 1000, "metadata": {"user_id": "u"}}] * 100
    text = json.dumps({"id": "t", "messages": msgs})
    assert len(text) > 65536
    assert _head_format(text) == "langmem"


# -- coercion --------------------------------------------------------------------------


def _read(tmp_path, text: str, fmt: str = "openai", **options) -> tuple[list, ImportContext]:
    path = tmp_path / "in.jsonl"
    path.write_text(text)
    seen: list = []
    ctx = ImportContext(Source(path), ImportOptions(**options), on_reject=seen.append)
    return list(read_agent_messages(ctx.source, ctx, fmt)), ctx


BAD = '{"role": "user", "content": "hi"}\n{"silly": "this"}\n42\n{"role": "assistant", "content": "yo"}\n'


def test_default_rejects_non_messages(tmp_path):
    msgs, ctx = _read(tmp_path, BAD)
    assert [m.text for m in msgs] == ["hi", "yo"]
    assert ctx.rejected == 2


def test_strict_aborts(tmp_path):
    with pytest.raises(StrictAbort):
        _read(tmp_path, BAD, strict=True)


def test_lenient_wraps(tmp_path):
    msgs, ctx = _read(tmp_path, BAD, lenient=True)
    assert ctx.rejected == 0
    assert [m.text for m in msgs] == ["hi", '{"silly":"this"}', "42", "yo"]
    assert msgs[1].role == "user" and msgs[1].extra["lenient"] is True


def test_cli_exit_codes(runner, tmp_path):
    from convo.cli.app import app

    path = tmp_path / "chat.jsonl"
    path.write_text(BAD)
    assert runner.invoke(app, ["ingest", str(path), "-o", "-"]).exit_code == 1
    assert runner.invoke(app, ["ingest", str(path), "-o", "-", "--lenient"]).exit_code == 0
    result = runner.invoke(app, ["ingest", str(path), "-o", "-", "--strict"])
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_broken_document_is_one_located_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"role": "user", "content": "hi"},\n {"role": ')
    ctx = ImportContext(Source(path))
    with pytest.raises(ConvoError) as e:
        list(read_agent_messages(ctx.source, ctx, "openai"))
    assert str(path) in str(e.value)


# -- library API -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "fmt"),
    [
        ({"role": "user", "content": "hi"}, "openai"),
        ({"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}]}, "anthropic"),
        ({"type": "assistant", "sessionId": "s", "uuid": "u",
          "message": {"role": "assistant", "content": "hi"}}, "anthropic"),
        ({"__module__": "agentscope.message", "__name__": "Msg", "name": "A", "role": "user",
          "content": "hi"}, "agentscope"),
        ({"role": "user", "content": "hi", "metadata": {"user_id": "u"}}, "langmem"),
        ({"type": "StopMessage", "source": "a", "content": "bye"}, "autogen"),
        ({"role": "user", "content": {"value": "hi"}, "tool": None}, "jianmu"),
    ],
)  # fmt: skip
def test_message_from_object_detects(obj, fmt):
    msg = message_from_object(obj)
    assert msg.format == fmt
    assert original(msg.serialize(), fmt) == obj
    assert msg.text_chunks


def test_message_from_object_errors():
    for bad in ({"silly": "this"}, {"textChunks": ["x"]}, {"messages": []}):
        with pytest.raises(RecordError):
            message_from_object(bad)
    with pytest.raises(RecordError):
        message_from_object({"role": "user", "content": "x"}, fmt="nope")


def test_message_from_object_fallback_role_and_bytes():
    msg = message_from_object({"content": "hi"}, fallback_role="assistant")
    assert msg.role == "assistant" and msg.speaker == "assistant"
    msg = message_from_object({"role": "user", "content": b"caf\xc3\xa9", "tool": None})
    assert msg.text_chunks == ["café"]
    orjson.dumps(msg.serialize())  # the original is made JSON-safe


def test_parse_arguments():
    assert parse_arguments('{"a": 1}') == {"input": {"a": 1}}
    assert parse_arguments('"{\\"a\\": 1}"') == {"input": {"a": 1}}
    assert parse_arguments("nope") == {"input": {}, "input_raw": "nope"}
    assert parse_arguments('"just text"') == {"input": {}, "input_raw": '"just text"'}
    assert parse_arguments({"a": 1}) == {"input": {"a": 1}}


# -- properties ------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["role", "content", "type", "text", "name", "source", "id", "tool_calls", "function",
             "arguments", "input", "messages", "timestamp", "metadata", "tool", "created_at",
             "sessionId", "message", "summary", "data", "url", "image_url", "call_id"]
        ),
        inner,
        max_size=6,
    ),
    max_leaves=20,
)  # fmt: skip


@given(_json, st.sampled_from([None, "openai", "anthropic", "agentscope", "langmem", "autogen",
                               "jianmu"]))  # fmt: skip
def test_property_message_from_object(obj, fmt):
    if not isinstance(obj, dict):
        obj = {"content": obj}
    try:
        msg = message_from_object(obj, fmt=fmt)
    except RecordError:
        return
    assert msg.text_chunks and all(isinstance(c, str) for c in msg.text_chunks)
    orjson.dumps(msg.serialize())


@given(st.lists(_json, max_size=5), st.booleans(), st.sampled_from(sorted(SAMPLES)))
def test_property_reader(values, as_jsonl, fmt):
    import tempfile
    from pathlib import Path

    text = "\n".join(json.dumps(v) for v in values) if as_jsonl else json.dumps(values)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.json"
        path.write_text(text)
        ctx = ImportContext(Source(path))
        try:
            for msg in read_agent_messages(ctx.source, ctx, fmt):
                orjson.dumps(msg.serialize())
        except ConvoError:
            pass


@given(st.one_of(st.text(max_size=200), st.lists(_json, max_size=4).map(json.dumps)))
def test_property_sniff_never_raises(text):
    from convo.importers.agents.detect import _guess_text

    scores = _guess_text(text)
    assert all(0 <= v <= 100 for v in scores.values())


AGENT_FORMATS = ["openai", "anthropic", "agentscope", "langmem", "autogen", "jianmu"]
KEYS = ["role", "content", "name", "type", "source", "tool", "tool_calls", "tool_call_id",
        "metadata", "messages", "id", "timestamp", "created_at", "user", "target", "system",
        "sessionId", "message", "text", "input", "function"]  # fmt: skip
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=150, deadline=None)
@given(JSON_VALUES)
def test_property_agent_importers_arbitrary_json(value):
    """Issue 20: any JSON value, through the library call and a file of every agent format,
    raises nothing but convo's own errors; what is not imported is rejected."""
    for fmt in AGENT_FORMATS:
        if isinstance(value, dict):
            with contextlib.suppress(ConvoError):
                orjson.dumps(message_from_object(value, fmt=fmt).serialize())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "any.json"
        path.write_bytes(orjson.dumps(value))
        for fmt in AGENT_FORMATS:
            rejected: list = []
            with contextlib.suppress(ConvoError):
                for msg in read_messages(path, format=fmt, on_reject=rejected.append):
                    orjson.dumps(msg.serialize())


@pytest.mark.parametrize("depth", [300, 600, 900])
@pytest.mark.parametrize("fmt", AGENT_FORMATS)
def test_deep_messages_are_rejected_located(tmp_path, runner, fmt, depth):
    """Issue 20: JSON 300-900 levels deep inside a message is one located rejection (the
    limit is 200 levels, convo.importers.agents.blocks.MAX_DEPTH); the rest imports."""
    from convo.cli.app import app

    deep = b'{"a":' * depth + b'"x"' + b"}" * depth
    ok = b'{"type": "TextMessage", "source": "u", "role": "user", "content": "fine"}'
    bad = ok.replace(b'"fine"', b"[" + deep + b"]")
    path = tmp_path / "deep.jsonl"
    path.write_bytes(ok + b"\n" + bad + b"\n" + ok + b"\n")
    r = runner.invoke(app, ["ingest", "--from", fmt, str(path), "-o", "-"])
    assert r.exit_code == 1, r.output
    assert "deep.jsonl:2" in r.stderr and "levels deep" in r.stderr
    assert len(r.stdout.splitlines()) == 2 and "Traceback" not in r.output
