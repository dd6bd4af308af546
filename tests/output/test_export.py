"""Exporters on hand-made records in the chat importers' convention, and ``convo export``."""

from __future__ import annotations

import csv
import io
import json
import re

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.cli.app import app
from convo.core.errors import ConvoError
from convo.core.record import ConversationMessage
from convo.memory.messages import ai, human, system, tool
from convo.output import exporters as ex
from convo.output.exporters.common import TYPEAGENT_KEYS


def rec(i, role, text, blocks=None, fmt="convo", **kw):
    extra = dict(kw.pop("extra", {}))
    if blocks is not None:
        extra["blocks"] = blocks
    r = {"textChunks": [text], "metadata": {"speaker": kw.pop("speaker", role), "listeners": []},
         "tags": [], "timestamp": kw.pop("timestamp", f"2024-03-06T10:00:0{i}Z"),
         "source_id": f"chat.json#{i}", "id": f"m{i}", "format": fmt, "role": role, **kw}  # fmt: skip
    if extra:
        r["extra"] = extra
    return r


CONVO = [
    rec(0, "system", "Be brief."),
    rec(1, "user", "Weather in Paris?", [
        {"type": "text", "text": "Weather in Paris?"},
        {"type": "image", "url": "https://x.test/p.png"},
        {"type": "image", "media_type": "image/png", "data": "iVBORw0K"},
    ], speaker="alice", extra={"name": "alice"}),
    rec(2, "assistant", "Let me check.", [
        {"type": "thinking", "thinking": "I need the tool"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "call_1", "name": "weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "call_2", "name": "raw", "input": {}, "input_raw": "not json"},
    ]),
    rec(3, "tool", "18C", [{"type": "tool_result", "tool_use_id": "call_1", "content": "18C", "is_error": False}]),
    rec(4, "tool", "boom", [{"type": "tool_result", "tool_use_id": "call_2", "content": [{"type": "text", "text": "boom"}], "is_error": True}]),
    rec(5, "assistant", "It is 18C <b>&</b>."),
]  # fmt: skip


def test_openai():
    out = ex.to_openai(CONVO)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    user = out[1]
    assert user["name"] == "alice"
    assert user["content"][1] == {"type": "image_url", "image_url": {"url": "https://x.test/p.png"}}
    assert user["content"][2]["image_url"]["url"] == "data:image/png;base64,iVBORw0K"
    calls = out[2]["tool_calls"]
    assert calls[0] == {"id": "call_1", "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"Paris"}'}}  # fmt: skip
    assert calls[1]["function"]["arguments"] == "not json"  # the raw string kept
    assert out[2]["content"] == "Let me check."  # thinking omitted
    assert out[3] == {"role": "tool", "tool_call_id": "call_1", "content": "18C"}
    assert out[4] == {"role": "tool", "tool_call_id": "call_2", "content": "boom"}
    assert all(
        isinstance(json.loads(c["function"]["arguments"] if c["id"] == "call_1" else "{}"), dict)
        for c in calls
    )


def test_openai_tool_results_inside_a_user_turn():
    r = rec(1, "user", "x", [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        {"type": "text", "text": "and now?"},
    ])  # fmt: skip
    assert ex.to_openai([r]) == [
        {"role": "tool", "tool_call_id": "t1", "content": "ok"},
        {"role": "user", "content": "and now?"},
    ]


def test_anthropic():
    body = ex.to_anthropic(CONVO)
    assert body["system"] == "Be brief."
    msgs = body["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant"]
    assert msgs[0]["content"][1] == {
        "type": "image",
        "source": {"type": "url", "url": "https://x.test/p.png"},
    }
    assert msgs[0]["content"][2]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": "iVBORw0K",
    }
    assert msgs[1]["content"][0] == {"type": "thinking", "thinking": "I need the tool"}
    assert msgs[1]["content"][2]["input"] == {"city": "Paris"}
    results = msgs[2]["content"]  # both tool results in one user turn
    assert [b["tool_use_id"] for b in results] == ["call_1", "call_2"]
    assert results[1]["is_error"] is True and "is_error" not in results[0]


def test_agentscope_matches_msg_from_dict_fields():
    """Fields and block types of AgentScope's Msg.to_dict/from_dict and _message_block.py."""
    out = ex.to_agentscope(CONVO)
    block_fields = {
        "text": ({"type", "text"}, set()),
        "thinking": ({"type", "thinking"}, set()),
        "tool_use": ({"type", "id", "name", "input"}, set()),
        "tool_result": ({"type", "id", "output", "name"}, {"is_error"}),
        "image": ({"type", "source"}, set()),
        "audio": ({"type", "source"}, set()),
        "video": ({"type", "source"}, set()),
    }
    for msg in out:
        assert {"name", "content", "role"} <= set(msg)  # from_dict's required keys
        assert set(msg) <= {
            "id",
            "name",
            "role",
            "content",
            "metadata",
            "timestamp",
            "generate_reason",
        }
        assert msg["role"] in ("user", "assistant", "system")
        assert isinstance(msg["name"], str) and isinstance(msg["metadata"], dict)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}", msg["timestamp"])
        assert isinstance(msg["content"], str | list)
        for b in msg["content"] if isinstance(msg["content"], list) else []:
            required, optional = block_fields[b["type"]]
            assert required <= set(b) <= required | optional
            if "source" in b:
                src = b["source"]
                assert src["type"] in ("url", "base64")
                assert (
                    {"url"} <= set(src)
                    if src["type"] == "url"
                    else {"media_type", "data"} <= set(src)
                )
            if b["type"] == "tool_use":
                assert isinstance(b["input"], dict)
            if b["type"] == "tool_result":
                assert isinstance(b["output"], str | list)
    assert out[0] == {"id": "m0", "name": "system", "role": "system", "content": "Be brief.",
                      "metadata": {}, "timestamp": "2024-03-06 10:00:00.000"}  # fmt: skip
    assert out[1]["name"] == "alice"
    tool_msgs = out[3:5]
    assert [m["role"] for m in tool_msgs] == ["system", "system"]
    assert tool_msgs[0]["content"][0]["name"] == "weather"  # looked up from the tool_use
    assert tool_msgs[1]["content"][0]["output"] == [{"type": "text", "text": "boom"}]
    assert out[5]["content"] == "It is 18C <b>&</b>."


def test_autogen():
    out = ex.to_autogen(CONVO)
    types = [m["type"] for m in out]
    assert types == ["TextMessage", "MultiModalMessage", "ThoughtEvent", "ToolCallRequestEvent",
                     "ToolCallExecutionEvent", "ToolCallExecutionEvent", "TextMessage"]  # fmt: skip
    for m in out:
        assert {"source", "models_usage", "metadata", "content", "type", "id", "created_at"} <= set(
            m
        )
    assert out[1]["content"] == [
        "Weather in Paris?",
        "[image] https://x.test/p.png",
        {"data": "iVBORw0K"},
    ]
    assert out[2]["content"] == "I need the tool\nLet me check."
    assert out[3]["content"][0] == {
        "id": "call_1",
        "arguments": '{"city":"Paris"}',
        "name": "weather",
    }
    assert out[4]["content"] == [
        {"content": "18C", "name": "weather", "call_id": "call_1", "is_error": False}
    ]
    assert out[5]["content"][0]["is_error"] is True
    assert len({m["id"] for m in out}) == len(out)


def test_langmem_threads():
    recs = [rec(0, "user", "a", thread="t1"), rec(1, "assistant", "b", thread="t2"),
            rec(2, "user", "c", thread="t1"), rec(3, "user", "d")]  # fmt: skip
    threads = ex.to_langmem(recs)
    assert [t["id"] for t in threads] == ["t1", "t2", "default"]
    assert [m["content"] for m in threads[0]["messages"]] == ["a", "c"]
    assert threads[0]["messages"][0] == {"role": "user", "content": "a", "id": "m0",
                                         "metadata": {"timestamp": "2024-03-06T10:00:00Z"}}  # fmt: skip
    assert all(t["metadata"] == {} for t in threads)


def test_jianmu_and_typeagent():
    out = ex.to_jianmu(CONVO)
    # Jianmu's Message.to_dict(): id, role, content, then only the fields that are set
    assert out[0] == {"id": "m0", "role": "system", "content": "Be brief.",
                      "metadata": {"timestamp": "2024-03-06T10:00:00Z"}}  # fmt: skip
    assert out[1]["name"] == "alice" and isinstance(out[1]["content"], list)
    ta = ex.to_typeagent(CONVO)
    assert all(list(r) == ["textChunks", "metadata", "tags", "timestamp", "source_id"] for r in ta)
    m = ConversationMessage.deserialize(CONVO[1])
    assert ta[1] == {k: v for k, v in m.serialize().items() if k in TYPEAGENT_KEYS}


def test_jianmu_keeps_the_speaker_of_another_format_and_reads_its_blocks_back(tmp_path):
    """convo export --to jianmu of the sample store, read back: 36 of 142 speakers kept
    (AutoGen's "planner" became "assistant": only extra.name was written as the name),
    and a thinking block or an image came back as its Python repr in the text."""
    from convo.pipeline.ingest import read_messages

    recs = [rec(1, "assistant", "Flights found.", speaker="planner"),
            rec(2, "assistant", "Let me check.", CONVO[2]["extra"]["blocks"][:2]),
            rec(3, "user", "Look", [{"type": "text", "text": "Look"},
                                    {"type": "image", "url": "https://x.test/p.png"}])]  # fmt: skip
    out = ex.to_jianmu(recs)
    assert out[0]["name"] == "planner"
    path = tmp_path / "export.json"
    path.write_text(json.dumps(out))
    back = [m.serialize() for m in read_messages(path, format="jianmu")]
    assert back[0]["metadata"]["speaker"] == "planner"
    assert back[1]["textChunks"] == ["Let me check."]  # the thinking stays out of the text
    assert back[2]["textChunks"] == ["Look", "[image] https://x.test/p.png"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "agentscope", "autogen", "langmem"])
def test_a_block_typed_by_an_object_exports(fmt):
    """A tool result's content block whose ``type`` is an object or a list (a damaged
    store) was an internal error (``unhashable type``) since a block a format cannot
    carry is written as the text convo reads for it: now that text."""
    bad = [{"type": {"a": 1}, "text": "x"}, {"type": ["image"]}]
    r = rec(1, "tool", "x", [{"type": "tool_result", "tool_use_id": "t1", "content": bad}])
    assert ex.registry.get(fmt).export([r])


def test_jianmu_content_typed_by_an_object_reads(tmp_path):
    """A Jianmu message whose content is a list with a block typed by an object: an
    internal error (``unhashable type``) since typed blocks are read back; now the
    content is read as Jianmu's ``to_text`` reads it."""
    from convo.pipeline.ingest import read_messages

    path = tmp_path / "export.json"
    path.write_text(json.dumps([{"id": "j1", "role": "user", "content": [{"type": {"x": 1}}]},
                                {"id": "j2", "role": "user", "content": [{"type": ["text"]}]}]))  # fmt: skip
    assert len(list(read_messages(path, format="jianmu"))) == 2


@pytest.mark.parametrize(
    "fmt", ["openai", "anthropic", "agentscope", "autogen", "langmem", "jianmu"]
)
def test_same_format_is_lossless_from_original(fmt):
    original_user = {"role": "user", "content": "hi", "weird_key": [1, 2], "id": "orig-1"}
    if fmt == "autogen":
        original_user = {
            "type": "StopMessage",
            "source": "bob",
            "content": "stop",
            "metadata": {"a": "b"},
        }
    r = rec(1, "user", "hi", fmt=fmt, extra={"original": original_user})
    other = rec(2, "user", "hi", fmt="openai" if fmt != "openai" else "anthropic",
                extra={"original": {"role": "user", "content": "ignored"}})  # fmt: skip
    out = ex.registry.get(fmt).export([r, other])
    if fmt == "anthropic":
        out = out["messages"]
    elif fmt == "langmem":
        out = out[0]["messages"]
    if fmt in ("jianmu", "langmem"):  # the record's time, which this original lacks, is kept
        original_user = {**original_user, "metadata": {"timestamp": r["timestamp"]}}
    assert out[0] == original_user
    assert out[-1] != {"role": "user", "content": "ignored"}  # another format's original unused


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "agentscope", "langmem"])
def test_a_block_a_format_cannot_carry_keeps_its_text(fmt):
    """An AutoGen memory block ("[memory] Alice prefers quiet hotels") was exported as
    "[memory]", its content lost; a refusal as "[refusal]". Each is now the text convo
    reads for it."""
    recs = [
        rec(1, "assistant", "[memory] Alice prefers quiet hotels",
            [{"type": "memory", "content": "Alice prefers quiet hotels", "mime_type": "text/plain"}]),
        rec(2, "assistant", "[refusal] I cannot help", [{"type": "refusal", "refusal": "I cannot help"}]),
    ]  # fmt: skip
    out = json.dumps(ex.registry.get(fmt).export(recs))
    assert "Alice prefers quiet hotels" in out and "I cannot help" in out


def test_redacted_thinking_is_thinking():
    """OpenAI, LangMem and AutoGen leave thinking out, but a redacted_thinking block was
    written as the text "[redacted_thinking]", which a re-import then showed as the
    message's text; Anthropic, whose block it is, wrote it as that text too."""
    r = rec(1, "assistant", "Hello", [{"type": "redacted_thinking", "data": "EmwKAhgB"},
                                      {"type": "text", "text": "Hello"}])  # fmt: skip
    for fmt in ("openai", "langmem", "autogen"):
        assert "redacted" not in json.dumps(ex.registry.get(fmt).export([r])), fmt
    blocks = ex.to_anthropic([r])["messages"][0]["content"]
    assert blocks[0] == {"type": "redacted_thinking", "data": "EmwKAhgB"}


def test_constructed_messages_export():
    msgs = [system("sys"), human("hi", name="Bob"), ai("", tool_calls=[{"id": "c", "name": "f", "input": {"x": 1}}]),
            tool("3", tool_call_id="c", name="f")]  # fmt: skip
    out = ex.to_openai(msgs)
    assert out[1] == {"role": "user", "content": "hi", "name": "Bob"}
    assert out[2]["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"x":1}'}
    assert out[2]["content"] is None
    assert out[3] == {"role": "tool", "tool_call_id": "c", "content": "3"}


def test_markdown_escapes_html():
    md = ex.to_markdown(CONVO)
    assert md.startswith("# Conversation")
    assert "**alice** · 2024-03-06 10:00:01 UTC" in md
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in md and "<b>" not in md


def test_markdown_cannot_forge_a_header():
    """Issue 13: a message body or a speaker name never becomes a heading or emphasis."""
    forged = rec(1, "user", "ok\n### **Mallory** → Bob\n<img src=x onerror=alert(1)>")
    forged["metadata"]["speaker"] = "Eve\n### **Mallory**"
    md = ex.to_markdown([forged])
    headers = [line for line in md.splitlines() if line.startswith("#")]
    assert headers == [
        "# Conversation",
        "### **Eve \\#\\#\\# \\*\\*Mallory\\*\\*** · 2024-03-06 10:00:01 UTC",
    ]
    assert "<img" not in md and "&lt;img" in md
    assert "\\#\\#\\# \\*\\*Mallory\\*\\* → Bob" in md


def test_markdown_heads_a_thread_with_its_root():
    """Issue 18: the root is the thread's heading; replies are headed below it."""
    root = rec(1, "user", "Shall we?", speaker="alice", thread="m1", subject="Plan <v2>")
    reply = rec(2, "user", "Yes.", speaker="bob", thread="m1", subject="Re: Plan")
    orphan = rec(3, "user", "Late.", speaker="carol", thread="gone")
    headers = [
        line for line in ex.to_markdown([root, reply, orphan]).splitlines() if line.startswith("#")
    ]
    assert headers == [
        "# Conversation",
        "## Plan &lt;v2&gt;",
        "### **bob** · 2024-03-06 10:00:02 UTC",
        "## Thread gone",
        "### **carol** · 2024-03-06 10:00:03 UTC",
    ]
    assert "\n**alice** · 2024-03-06 10:00:01 UTC\n\nShall we?" in ex.to_markdown([root])


def test_csv_escapes_formulas_in_every_cell():
    """Issue 13: no cell of the CSV export starts a spreadsheet formula."""
    evil = rec(1, "user", '=HYPERLINK("http://x","y")', thread="+cmd", subject="@SUM(1)")
    evil["metadata"]["speaker"] = "-2+3"
    rows = list(csv.reader(io.StringIO(ex.to_csv([evil]))))
    for cell in rows[1]:
        assert not cell.startswith(("=", "+", "-", "@")), cell
    assert '\'=HYPERLINK("http://x","y")' in rows[1]


def test_csv():
    rows = list(csv.reader(io.StringIO(ex.to_csv([*CONVO, rec(6, "user", "=1+1")]))))
    assert rows[0][:3] == ["timestamp", "speaker", "role"]
    assert rows[2][1] == "alice" and rows[2][7] == "Weather in Paris?"
    assert rows[-1][7] == "'=1+1"


def test_html_is_standalone_and_escaped():
    hostile = rec(
        6, "user", "<script>alert(1)</script>", speaker="<img src=x>", thread="t<1>", replyTo="m5"
    )
    page = ex.to_html([*CONVO, rec(5, "assistant", "root", thread="t<1>"), hostile])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<img" not in page and "Thread t&lt;1&gt;" in page
    assert 'class="reply' in page
    assert '<time datetime="2024-03-06T10:00:01Z">' in page


def test_vtt():
    recs = [rec(0, "user", "Hi <there> & you", speaker="Alice <a@x>"),
            rec(1, "user", "second\n\nparagraph", speaker="Bob", timestamp="2024-03-06T10:00:04Z"),
            rec(2, "user", "cue", speaker="Bob", extra={"start": "00:01:00.500", "end": 61.75})]  # fmt: skip
    vtt = ex.to_vtt(recs)
    assert vtt.startswith("WEBVTT\n")
    assert "00:00:00.000 --> 00:00:04.000\n<v Alice &lt;a@x&gt;>Hi &lt;there&gt; &amp; you" in vtt
    assert "<v Bob>second\nparagraph" in vtt  # no blank line inside a cue
    assert "00:01:00.500 --> 00:01:01.750" in vtt
    import webvtt

    captions = webvtt.from_buffer(io.StringIO(vtt))
    assert len(captions) == 3


# the command line --------------------------------------------------------------------------


@pytest.fixture
def records_file(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in CONVO))
    return path


def test_cli_agentscope_pipeline(runner, records_file):
    """`convo ingest chat.jsonl | convo export --to agentscope` on convo records."""
    r = runner.invoke(app, ["ingest", str(records_file), "-o", "-"])
    assert r.exit_code == 0, r.output
    r2 = runner.invoke(app, ["export", "--to", "agentscope"], input=r.stdout)
    assert r2.exit_code == 0, r2.output
    data = json.loads(r2.stdout)
    assert data == ex.to_agentscope(CONVO)


@pytest.mark.parametrize("fmt", ex.registry.export_names())
def test_cli_every_format(runner, records_file, fmt, tmp_path):
    if ex.registry.get(fmt).kind == "dataset":  # a folder: read back, record for record
        out = tmp_path / "ds"
        r = runner.invoke(app, ["export", "--to", fmt, "-o", str(out), str(records_file)])
        assert r.exit_code == 0, r.output
        if fmt == "sqlite":  # a database, not a folder convo reads back
            import sqlite3

            count = sqlite3.connect(out).execute("SELECT COUNT(*) FROM messages").fetchone()
            assert count == (len(CONVO),)
            return
        back = runner.invoke(app, ["list", "-f", "jsonl", str(out)])
        assert len(back.stdout.splitlines()) == len(CONVO)
        return
    r = runner.invoke(app, ["export", "--to", fmt, str(records_file)])
    assert r.exit_code == 0, r.output
    expected = ex.registry.get(fmt).export(CONVO)
    if ex.registry.get(fmt).kind == "document":
        assert r.stdout == expected
    else:
        assert json.loads(r.stdout) == expected


def test_cli_jsonl_filters_and_output(runner, records_file, tmp_path):
    r = runner.invoke(
        app, ["export", "--to", "openai", "--jsonl", "--speaker", "alice", str(records_file)]
    )
    assert r.exit_code == 0
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(lines) == 1 and lines[0]["name"] == "alice"
    out = tmp_path / "out.json"
    r = runner.invoke(
        app, ["export", "--to", "langmem", "-n", "2", "-o", str(out), str(records_file)]
    )
    assert r.exit_code == 0 and r.stdout == ""
    assert len(json.loads(out.read_text())[0]["messages"]) == 2


def test_cli_errors(runner, records_file, tmp_path):
    r = runner.invoke(app, ["export", "--to", "nope", str(records_file)])
    assert r.exit_code == 2 and "unknown export format 'nope'" in r.stderr
    r = runner.invoke(app, ["export", "--to", "csv", "--format", "json", str(records_file)])
    assert r.exit_code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        orjson.dumps(CONVO[0]) + b"\nnot json\n" + orjson.dumps({"textChunks": 3}) + b"\n"
    )
    r = runner.invoke(app, ["export", "--to", "openai", str(bad)])
    assert r.exit_code == 1
    assert json.loads(r.stdout) == [{"role": "system", "content": "Be brief."}]
    assert "bad.jsonl:2" in r.stderr and "bad.jsonl:3" in r.stderr
    r = runner.invoke(app, ["export", "--to", "openai", str(tmp_path / "missing.jsonl")])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_cli_empty_selection(runner, records_file):
    r = runner.invoke(app, ["export", "--to", "openai", "-s", "nobody", str(records_file)])
    assert r.exit_code == 0 and json.loads(r.stdout) == []


# hostile records: exporters return or raise a ConvoError, nothing else ------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["type", "text", "id", "name", "input", "content", "tool_use_id", "url", "data", "thinking"]), c, max_size=4),
    max_leaves=12,
)  # fmt: skip
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result", "image", "audio", "file"])},
    optional={k: _json for k in ("text", "thinking", "id", "name", "input", "input_raw", "content", "tool_use_id", "url", "data", "media_type", "is_error")},
)  # fmt: skip


@given(
    role=st.sampled_from(["system", "user", "assistant", "tool", None, 3]),
    blocks=st.lists(_block, max_size=4) | _json,
    extra=st.dictionaries(st.sampled_from(["name", "start", "end", "metadata", "thread_metadata"]), _json, max_size=3),
    meta=_json,
)  # fmt: skip
def test_property_exporters_never_crash(role, blocks, extra, meta):
    r = {"textChunks": ["x"], "metadata": meta, "role": role, "id": "i", "format": "convo",
         "timestamp": "2024-01-01T00:00:00Z", "extra": {**extra, "blocks": blocks}}  # fmt: skip
    for exporter in ex.registry.exporters():
        try:
            out = exporter.export([r, r])
        except ConvoError:
            continue
        if exporter.kind == "agent":
            orjson.dumps(out)


def test_anthropic_system_original_is_kept():
    blocks = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    r = rec(0, "system", "Be brief.", fmt="anthropic", extra={"original": {"system": blocks}})
    assert ex.to_anthropic([r])["system"] == blocks


def _nested(depth):
    """A value ``depth`` levels deep, built as JSON text (orjson writes only 254 levels)."""
    return orjson.loads(b'{"a":' * depth + b'"x"' + b"}" * depth)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(JSON_VALUES | st.dictionaries(st.sampled_from(
    ["textChunks", "metadata", "extra", "role", "id", "timestamp", "thread", "format", "tags"]),
    JSON_VALUES, max_size=6), max_size=3))  # fmt: skip
def test_property_every_exporter_arbitrary_json(items):
    """Issue 20: arbitrary JSON values as records raise only convo's own errors."""
    for exporter in ex.registry.exporters():
        try:
            exporter.export(items)
        except ConvoError:
            continue


@pytest.mark.parametrize("depth", [300, 600, 900])
def test_deep_records_are_refused_not_crashing(runner, tmp_path, depth):
    """Issue 20: a record nested 300-900 levels deep is rejected, located; the rest exports."""
    deep = rec(1, "user", "deep", extra={"blocks": [_nested(depth)]})
    assert all(e.kind for e in ex.registry.exporters())
    for exporter in ex.registry.exporters():
        if exporter.kind == "dataset":
            continue  # written by `convo export -o DIR`, whose record check is below
        with pytest.raises(ConvoError, match="levels deep"):
            exporter.export([deep])
    path = tmp_path / "deep.jsonl"
    head = orjson.dumps(rec(1, "user", "deep", extra={"blocks": ["HOLE"]}))
    line = head.replace(b'"HOLE"', b'{"a":' * depth + b'"x"' + b"}" * depth)
    path.write_bytes(orjson.dumps(CONVO[0]) + b"\n" + line + b"\n")
    r = runner.invoke(app, ["export", "--to", "openai", str(path)])
    assert r.exit_code == 1 and "deep.jsonl:2" in r.stderr and "levels deep" in r.stderr
    assert json.loads(r.stdout) == [{"role": "system", "content": "Be brief."}]


def test_typeagent_db_says_what_it_needs(runner, records_file, tmp_path, monkeypatch):
    """Without a Python that has TypeAgent (3.11 here), one line says what to install;
    the database itself is tested against the real package in tests/compat/."""
    monkeypatch.setattr("convo.typeagent.run.typeagent_python", lambda: None)
    out = tmp_path / "conv.db"
    r = runner.invoke(app, ["export", "--to", "typeagent-db", "-o", str(out), str(records_file)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "needs TypeAgent" in r.stderr and "CONVO_TYPEAGENT_PYTHON" in r.stderr
    assert not out.exists()
    r = runner.invoke(app, ["export", "--to", "typeagent-db", str(records_file)])
    assert r.exit_code == 2 and "-o FILE" in r.stderr
    missing = str(tmp_path / "no-such-python")
    monkeypatch.setattr("convo.typeagent.run.typeagent_python", lambda: missing)
    r = runner.invoke(app, ["export", "--to", "typeagent-db", "-o", str(out), str(records_file)])
    assert r.exit_code == 2 and "cannot run" in r.stderr, r.stderr
    r = runner.invoke(
        app, ["export", "--to", "typeagent-db", "-o", str(out), "-s", "nobody", str(records_file)]
    )
    assert r.exit_code == 0 and "no messages match" in r.stderr and not out.exists()


def test_an_export_to_a_file_says_how_many_it_wrote(tmp_path):
    """Every export to -o says its count, as the dataset exports do (html was silent)."""
    from typer.testing import CliRunner

    from convo.cli.app import app

    out = tmp_path / "t.html"
    r = CliRunner().invoke(app, ["export", "--to", "html", "-o", str(out), "sample_data/email"])
    assert r.exit_code == 0, r.output
    assert f"exported 5 messages -> {out}" in r.stderr and out.read_text().startswith("<!DOCTYPE")
