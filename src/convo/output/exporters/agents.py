"""Agent-framework exporters: OpenAI, Anthropic, AgentScope, AutoGen, LangMem, Jianmu, TypeAgent.

``X_items(record, state)`` gives the JSON values of one record (the streaming form);
``to_X(messages)`` the whole result. The rules are in ``convo.output.exporters``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from convo.core.record import ConversationMessage, parse_record
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

# OpenAI ----------------------------------------------------------------------------------


def openai_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    orig = original(rec, "openai")
    if orig is not None:
        return [orig]
    r, bs = role(rec), blocks(rec)
    out: list[dict[str, Any]] = []
    for b in bs:
        if b["type"] == "tool_result":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(b.get("tool_use_id") or ""),
                    "content": result_text(b.get("content")),
                }
            )
    if r == "tool":
        return out or [{"role": "tool", "tool_call_id": "", "content": text(rec)}]
    rest = [b for b in bs if b["type"] not in ("tool_result", "thinking")]
    if not rest and out:
        return out
    msg: dict[str, Any] = {"role": r}
    calls = [b for b in rest if b["type"] == "tool_use"]
    content = [b for b in rest if b["type"] != "tool_use"]
    if r == "user" and any(b["type"] != "text" for b in content):
        msg["content"] = [_openai_part(b) for b in content]
    else:
        msg["content"] = (
            "\n".join(b.get("text", "") if b["type"] == "text" else media_text(b) for b in content)
            if content
            else (None if calls else "")
        )
    n = name(rec)
    if n:
        msg["name"] = n
    if calls and r == "assistant":
        msg["tool_calls"] = [
            {
                "id": str(b.get("id") or ""),
                "type": "function",
                "function": {"name": str(b.get("name") or ""), "arguments": arguments_text(b)},
            }
            for b in calls
        ]
    out.append(msg)
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


def _anthropic_block(b: dict[str, Any]) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "thinking":
        return {k: v for k, v in b.items() if k in ("type", "thinking", "signature")}
    if t == "tool_use":
        return {"type": "tool_use", "id": b.get("id", ""), "name": b.get("name", ""),
                "input": b.get("input") if isinstance(b.get("input"), dict) else {}}  # fmt: skip
    if t == "tool_result":
        out = {"type": "tool_result", "tool_use_id": str(b.get("tool_use_id") or "")}
        content = b.get("content")
        out["content"] = content if isinstance(content, str | list) else result_text(content)
        if b.get("is_error"):
            out["is_error"] = True
        return out
    if t == "image" and (b.get("url") or b.get("data")):
        source = (
            {"type": "url", "url": b["url"]}
            if b.get("url")
            else {
                "type": "base64",
                "media_type": b.get("media_type") or "image/png",
                "data": b["data"],
            }
        )
        return {"type": "image", "source": source}
    return {"type": "text", "text": media_text(b)}


def to_anthropic(messages: Iterable[ConversationMessage | Record]) -> dict[str, Any]:
    """An Anthropic Messages request body: ``{"system"?, "messages"}``."""
    system: list[Any] = []
    out: list[dict[str, Any]] = []
    merge_tool = False
    for m in messages:
        rec = as_record(m)
        orig = original(rec, "anthropic")
        extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
        if extra.get("claude_code") == "summary":
            continue  # a Claude Code session title, not a turn of the conversation
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
            system.append(orig if isinstance(orig, str | list) else text(rec))
            merge_tool = False
            continue
        if isinstance(orig, dict) and orig.get("role") in ("user", "assistant"):
            out.append(orig)
            merge_tool = False
            continue
        content = [_anthropic_block(b) for b in blocks(rec)]
        if r == "tool":
            if merge_tool:
                out[-1]["content"].extend(content)
            else:
                out.append({"role": "user", "content": content})
                merge_tool = True
            continue
        out.append({"role": r, "content": content})
        merge_tool = False
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


def _agentscope_block(b: dict[str, Any], rec: Record, tools: ToolNames) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "thinking":
        return {"type": "thinking", "thinking": b.get("thinking", "")}
    if t == "tool_use":
        inp = b.get("input")
        return {"type": "tool_use", "id": str(b.get("id") or ""), "name": str(b.get("name") or ""),
                "input": inp if isinstance(inp, dict) else {}}  # fmt: skip
    if t == "tool_result":
        content = b.get("content")
        output: Any = (
            [
                _agentscope_block(x, rec, tools)
                for x in content
                if isinstance(x, dict) and "type" in x
            ]
            if isinstance(content, list)
            else result_text(content)
        )
        out = {"type": "tool_result", "id": str(b.get("tool_use_id") or ""),
               "name": tools.of(b, rec), "output": output}  # fmt: skip
        if b.get("is_error"):
            out["is_error"] = True
        return out
    if t in ("image", "audio", "video") and (b.get("url") or b.get("data")):
        source = (
            {"type": "url", "url": b["url"]}
            if b.get("url")
            else {
                "type": "base64",
                "media_type": b.get("media_type") or "application/octet-stream",
                "data": b["data"],
            }
        )
        return {"type": t, "source": source}
    return {"type": "text", "text": media_text(b)}


def agentscope_items(rec: Record, tools: ToolNames) -> list[dict[str, Any]]:
    bs = blocks(rec)
    tools.learn(bs)
    orig = original(rec, "agentscope")
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


def autogen_items(rec: Record, tools: ToolNames) -> list[dict[str, Any]]:
    bs = blocks(rec)
    tools.learn(bs)
    orig = original(rec, "autogen")
    if orig is not None:
        return [orig]
    source = name(rec) or speaker(rec) or role(rec)
    rid = str(rec.get("id") or "")
    created = timestamp(rec)
    out: list[dict[str, Any]] = []

    def event(kind: str, content: Any, suffix: str) -> None:
        out.append({"id": rid + suffix if out else rid, "source": source, "models_usage": None,
                    "metadata": {}, "created_at": created, "content": content, "type": kind})  # fmt: skip

    thoughts = texts_of(bs, "thinking")
    calls = [b for b in bs if b["type"] == "tool_use"]
    results = [b for b in bs if b["type"] == "tool_result"]
    rest = [b for b in bs if b["type"] not in ("thinking", "tool_use", "tool_result")]
    if calls:
        thoughts += [b.get("text", "") if b["type"] == "text" else media_text(b) for b in rest]
        rest = []
    if thoughts:
        event("ThoughtEvent", "\n".join(thoughts), "#thought")
    if calls:
        event("ToolCallRequestEvent", [{"id": str(b.get("id") or ""), "arguments": arguments_text(b),
                                        "name": str(b.get("name") or "")} for b in calls], "#calls")  # fmt: skip
    if results:
        event("ToolCallExecutionEvent", [{"content": result_text(b.get("content")),
                                          "name": tools.of(b, rec),
                                          "call_id": str(b.get("tool_use_id") or ""),
                                          "is_error": bool(b.get("is_error"))} for b in results],
              "#results")  # fmt: skip
    if rest and any(b["type"] == "image" for b in rest):
        event("MultiModalMessage", [_autogen_part(b) for b in rest], "#content")
    elif rest or not out:
        body = "\n".join(b.get("text", "") if b["type"] == "text" else media_text(b) for b in rest)
        event("TextMessage", body, "#content")
    return out


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
        return [orig]
    items = openai_items(rec)
    if rec.get("id"):
        last = len(items) - 1
        for i, item in enumerate(items):
            item["id"] = str(rec["id"]) if i == last else f"{rec['id']}#{i}"
    return items


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
        tid = rec.get("thread") if isinstance(rec.get("thread"), str) else "default"
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
