"""Agent-framework exporters: OpenAI, Anthropic, AgentScope, AutoGen, LangMem, Jianmu, TypeAgent.

``X_items(record, state)`` gives the JSON values of one record (the streaming form);
``to_X(messages)`` the whole result. The rules are in ``convo.output.exporters``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from convo.core import fields
from convo.core.record import ConversationMessage, parse_record
from convo.core.timestamps import EPOCH_STR
from convo.importers.agents.blocks import THINKING
from convo.memory.messages import to_dict
from convo.output.exporters.common import (
    TYPEAGENT_KEYS,
    Record,
    ToolNames,
    arguments_text,
    as_record,
    blocks,
    data_url,
    extra_of,
    joined_text,
    media_source,
    media_text,
    name,
    original,
    result_text,
    role,
    speaker,
    text,
    texts_of,
    timestamp,
)

Blocks = list[dict[str, Any]]

# OpenAI ----------------------------------------------------------------------------------


def _openai_result(b: dict[str, Any]) -> dict[str, Any]:
    tool_call_id = str(b.get("tool_use_id") or "")
    return {"role": "tool", "tool_call_id": tool_call_id, "content": result_text(b.get("content"))}


def _openai_call(b: dict[str, Any]) -> dict[str, Any]:
    function = {"name": str(b.get("name") or ""), "arguments": arguments_text(b)}
    return {"id": str(b.get("id") or ""), "type": "function", "function": function}


def _openai_message(rec: Record, r: str, rest: list[dict[str, Any]]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": r}
    calls = [b for b in rest if b["type"] == "tool_use"]
    content = [b for b in rest if b["type"] != "tool_use"]
    if r == "user" and any(b["type"] != "text" for b in content):
        msg["content"] = [_openai_part(b) for b in content]
    else:
        msg["content"] = joined_text(content) if content else (None if calls else "")
    n = name(rec)
    if n:
        msg["name"] = n
    if calls and r == "assistant":
        msg["tool_calls"] = [_openai_call(b) for b in calls]
    return msg


def openai_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    orig = original(rec, "openai")
    if orig is not None:
        return [orig]
    r, bs = role(rec), blocks(rec)
    out = [_openai_result(b) for b in bs if b["type"] == "tool_result"]
    if r == "tool":
        return out or [{"role": "tool", "tool_call_id": "", "content": text(rec)}]
    rest = [b for b in bs if b["type"] != "tool_result" and b["type"] not in THINKING]
    if not rest and out:
        return out
    out.append(_openai_message(rec, r, rest))
    return out


def _openai_part(b: dict[str, Any]) -> dict[str, Any]:
    if b["type"] == "text":
        return {"type": "text", "text": b.get("text", "")}
    if b["type"] == "image" and data_url(b):
        return {"type": "image_url", "image_url": {"url": data_url(b)}}
    return {"type": "text", "text": media_text(b)}


def to_openai(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """OpenAI chat completions ``messages``."""
    return [item for m in messages for item in openai_items(as_record(m))]


# Anthropic -------------------------------------------------------------------------------


def _anthropic_tool_result(b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": str(b.get("tool_use_id") or "")}
    content = b.get("content")
    out["content"] = content if isinstance(content, str | list) else result_text(content)
    if b.get("is_error"):
        out["is_error"] = True
    return out


def _anthropic_image(b: dict[str, Any]) -> dict[str, Any]:
    if b.get("url") or b.get("data"):
        return {"type": "image", "source": media_source(b, "image/png")}
    return {"type": "text", "text": media_text(b)}


_ANTHROPIC_BLOCKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "text": lambda b: {"type": "text", "text": b.get("text", "")},
    "thinking": lambda b: {k: v for k, v in b.items() if k in ("type", "thinking", "signature")},
    "redacted_thinking": lambda b: {"type": "redacted_thinking", "data": b.get("data", "")},
    "tool_use": lambda b: {"type": "tool_use", "id": b.get("id", ""), "name": b.get("name", ""),
                           "input": b.get("input") if isinstance(b.get("input"), dict) else {}},
    "tool_result": _anthropic_tool_result,
    "image": _anthropic_image,
}  # fmt: skip


def _anthropic_block(b: dict[str, Any]) -> dict[str, Any]:
    convert = _ANTHROPIC_BLOCKS.get(b["type"])
    return convert(b) if convert else {"type": "text", "text": media_text(b)}


def _anthropic_turn(rec: Record) -> tuple[str, Any]:
    """What one record adds: ("skip", None), ("system", prompt), ("message", the source's
    message), ("tool", result blocks) or ("turn", a message built from the blocks)."""
    orig = original(rec, "anthropic")
    extra = extra_of(rec)
    if extra.get("claude_code") == "summary":
        return "skip", None  # a Claude Code session title, not a turn of the conversation
    if (
        isinstance(orig, dict)
        and extra.get("claude_code")
        and isinstance(orig.get("message"), dict)
    ):
        orig = orig["message"]  # a Claude Code envelope: the Messages API object inside
    r = role(rec)
    if r == "system":
        if isinstance(orig, dict) and "system" in orig:
            orig = orig["system"]  # the importer keeps the request's system value
        return "system", orig if isinstance(orig, str | list) else text(rec)
    if isinstance(orig, dict) and orig.get("role") in ("user", "assistant"):
        return "message", orig
    content = [_anthropic_block(b) for b in blocks(rec)]
    if r == "tool":
        return "tool", content
    return "turn", {"role": r, "content": content}


def to_anthropic(messages: Iterable[ConversationMessage | Record]) -> dict[str, Any]:
    """An Anthropic Messages request body: ``{"system"?, "messages"}``."""
    system: list[Any] = []
    out: list[dict[str, Any]] = []
    merge_tool = False
    for m in messages:
        kind, value = _anthropic_turn(as_record(m))
        if kind == "skip":
            continue
        if kind == "system":
            system.append(value)
        elif kind == "tool" and merge_tool:
            out[-1]["content"].extend(value)  # consecutive results share one user message
        elif kind == "tool":
            out.append({"role": "user", "content": value})
        else:
            out.append(value)
        merge_tool = kind == "tool"
    body: dict[str, Any] = {}
    if len(system) == 1:
        body["system"] = system[0]  # a string, or the source's list of blocks
    elif system:
        body["system"] = "\n\n".join(x if isinstance(x, str) else result_text(x) for x in system)
    body["messages"] = out
    return body


# AgentScope ------------------------------------------------------------------------------


def agentscope_time(ts: str) -> str:
    return f"{ts[:10]} {ts[11:19]}.000" if len(ts) >= 19 else "1970-01-01 00:00:00.000"


def _agentscope_result(b: dict[str, Any], rec: Record, tools: ToolNames) -> dict[str, Any]:
    content = b.get("content")
    output: Any = result_text(content)
    if isinstance(content, list):
        parts = [x for x in content if isinstance(x, dict) and "type" in x]
        output = [_agentscope_block(x, rec, tools) for x in parts]
    out = {"type": "tool_result", "id": str(b.get("tool_use_id") or ""),
           "name": tools.of(b, rec), "output": output}  # fmt: skip
    if b.get("is_error"):
        out["is_error"] = True
    return out


def _agentscope_tool_use(b: dict[str, Any]) -> dict[str, Any]:
    inp = b.get("input")
    return {"type": "tool_use", "id": str(b.get("id") or ""), "name": str(b.get("name") or ""),
            "input": inp if isinstance(inp, dict) else {}}  # fmt: skip


def _agentscope_block(b: dict[str, Any], rec: Record, tools: ToolNames) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t in ("thinking", "redacted_thinking"):  # redacted: nothing readable in it
        return {"type": "thinking", "thinking": b.get("thinking", "")}
    if t == "tool_use":
        return _agentscope_tool_use(b)
    if t == "tool_result":
        return _agentscope_result(b, rec, tools)
    if t in ("image", "audio", "video") and (b.get("url") or b.get("data")):
        return {"type": t, "source": media_source(b, "application/octet-stream")}
    return {"type": "text", "text": media_text(b)}


def _learned(rec: Record, fmt: str, tools: ToolNames) -> tuple[Blocks, Any]:
    """The record's blocks (their tool names learned) and its ``fmt`` original, if any."""
    bs = blocks(rec)
    tools.learn(bs)
    return bs, original(rec, fmt)


def agentscope_items(rec: Record, tools: ToolNames) -> list[dict[str, Any]]:
    bs, orig = _learned(rec, "agentscope", tools)
    if orig is not None:
        return [orig]
    r = role(rec)
    content: Any = [_agentscope_block(b, rec, tools) for b in bs]
    if all(b["type"] == "text" for b in content) and r != "tool":
        content = "\n".join(b["text"] for b in content)
    meta = extra_of(rec).get("metadata")
    return [
        {
            "id": str(rec.get("id") or ""),
            "name": name(rec) or speaker(rec) or ("system" if r == "tool" else r),
            "role": "system" if r == "tool" else r,
            "content": content,
            "metadata": meta if isinstance(meta, dict) else {},
            "timestamp": agentscope_time(timestamp(rec)),
        }
    ]


def to_agentscope(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """AgentScope ``Msg.to_dict()`` dicts (what ``Msg.from_dict`` loads)."""
    tools = ToolNames()
    return [item for m in messages for item in agentscope_items(as_record(m), tools)]


# AutoGen ---------------------------------------------------------------------------------


def _autogen_call(b: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(b.get("id") or ""), "arguments": arguments_text(b),
            "name": str(b.get("name") or "")}  # fmt: skip


def _autogen_result(b: dict[str, Any], rec: Record, tools: ToolNames) -> dict[str, Any]:
    return {"content": result_text(b.get("content")), "name": tools.of(b, rec),
            "call_id": str(b.get("tool_use_id") or ""), "is_error": bool(b.get("is_error"))}  # fmt: skip


def _autogen_split(bs: Blocks) -> tuple[list[str], Blocks, Blocks, Blocks]:
    """(thoughts, tool calls, tool results, the rest); text beside tool calls is reasoning."""
    thoughts = texts_of(bs, "thinking")
    calls = [b for b in bs if b["type"] == "tool_use"]
    results = [b for b in bs if b["type"] == "tool_result"]
    rest = [b for b in bs if b["type"] not in ("tool_use", "tool_result", *THINKING)]
    if calls:
        thoughts += [b.get("text", "") if b["type"] == "text" else media_text(b) for b in rest]
        rest = []
    return thoughts, calls, results, rest


def _autogen_contents(
    rec: Record, bs: list[dict[str, Any]], tools: ToolNames
) -> list[tuple[str, Any, str]]:
    """The events of one record as (type, content, id suffix), in AutoGen's order."""
    thoughts, calls, results, rest = _autogen_split(bs)
    events: list[tuple[str, Any, str]] = []
    if thoughts:
        events.append(("ThoughtEvent", "\n".join(thoughts), "#thought"))
    if calls:
        events.append(("ToolCallRequestEvent", [_autogen_call(b) for b in calls], "#calls"))
    if results:
        items = [_autogen_result(b, rec, tools) for b in results]
        events.append(("ToolCallExecutionEvent", items, "#results"))
    if any(b["type"] == "image" for b in rest):
        events.append(("MultiModalMessage", [_autogen_part(b) for b in rest], "#content"))
    elif rest or not events:
        events.append(("TextMessage", joined_text(rest), "#content"))
    return events


def autogen_items(rec: Record, tools: ToolNames) -> list[dict[str, Any]]:
    bs, orig = _learned(rec, "autogen", tools)
    if orig is not None:
        return [orig]
    source = name(rec) or speaker(rec) or role(rec)
    rid = str(rec.get("id") or "")
    created = timestamp(rec)
    return [
        {"id": rid + suffix if i else rid, "source": source, "models_usage": None,
         "metadata": {}, "created_at": created, "content": content, "type": kind}
        for i, (kind, content, suffix) in enumerate(_autogen_contents(rec, bs, tools))
    ]  # fmt: skip


def _autogen_part(b: dict[str, Any]) -> Any:
    if b["type"] == "text":
        return b.get("text", "")
    if b["type"] == "image" and isinstance(b.get("data"), str):
        return {"data": b["data"]}
    return media_text(b)


def to_autogen(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """AutoGen agentchat ``type``-discriminated message and event dumps."""
    tools = ToolNames()
    return [item for m in messages for item in autogen_items(as_record(m), tools)]


# LangMem ---------------------------------------------------------------------------------


def _langmem_message(rec: Record) -> list[dict[str, Any]]:
    orig = original(rec, "langmem")
    if orig is not None:
        return [_langmem_time(orig, timestamp(rec))]
    items = openai_items(rec)
    meta = _langmem_metadata(rec)
    last = len(items) - 1
    for i, item in enumerate(items):
        if rec.get("id"):
            item["id"] = str(rec["id"]) if i == last else f"{rec['id']}#{i}"
        if meta:
            item["metadata"] = dict(meta)
    return items


def _langmem_time(orig: Any, stamp: str) -> Any:
    """A source message given back, with the record's time when the source held none (a
    time set after the import, by the message store): a ``Message``'s ``timestamp``, an
    ``OpenAIMessage``'s ``metadata.timestamp``."""
    if not isinstance(orig, dict) or stamp == EPOCH_STR or "timestamp" in orig:
        return orig
    meta = orig.get("metadata")
    if isinstance(meta, dict) and "timestamp" in meta:
        return orig
    if "role" not in orig and isinstance(orig.get("user"), dict):
        return {**orig, "timestamp": stamp}
    return {**orig, "metadata": {**(meta if isinstance(meta, dict) else {}), "timestamp": stamp}}


def _langmem_metadata(rec: Record) -> dict[str, Any]:
    """An ``OpenAIMessage``'s ``metadata``: the message's own, its ``user_id`` and its
    ``timestamp`` (left out when it is the epoch sentinel, a time the source did not have)."""
    extra = extra_of(rec)
    own = extra.get("metadata")
    meta = dict(own) if isinstance(own, dict) else {}
    if extra.get("user_id") is not None:
        meta.setdefault("user_id", extra["user_id"])
    stamp = timestamp(rec)
    if stamp != EPOCH_STR:
        meta.setdefault("timestamp", stamp)
    return meta


def _thread_metadata(rec: Record) -> dict[str, Any]:
    """The thread's own ``metadata``: kept by the importer on its first message."""
    conversation = extra_of(rec).get("conversation")
    meta = conversation.get("metadata") if isinstance(conversation, dict) else None
    return dict(meta) if isinstance(meta, dict) else {}


def to_langmem(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """LangMem threads ``{id, messages, metadata}``, one per ``thread``."""
    threads: dict[str, dict[str, Any]] = {}
    for m in messages:
        rec = as_record(m)
        tid = fields.string(rec, "thread") or "default"
        thread = threads.get(tid)
        if thread is None:
            thread = {"id": tid, "messages": [], "metadata": _thread_metadata(rec)}
            threads[tid] = thread
        thread["messages"].extend(_langmem_message(rec))
    return list(threads.values())


# Jianmu ----------------------------------------------------------------------------------


def jianmu_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    return [to_dict(rec)]


def to_jianmu(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """Jianmu ``Message.to_dict()`` dicts (shape documented in docs/export.md)."""
    return [item for m in messages for item in jianmu_items(as_record(m))]


# TypeAgent -------------------------------------------------------------------------------


def typeagent_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    where = str(rec.get("source_id") or rec.get("id") or "record")
    data = parse_record(rec, where).serialize()
    return [{k: data[k] for k in TYPEAGENT_KEYS}]


def to_typeagent(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """TypeAgent ``ConversationMessage.serialize()`` dicts, exactly its keys."""
    return [item for m in messages for item in typeagent_items(as_record(m))]
