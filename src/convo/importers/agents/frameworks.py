"""One agent-framework message object to its ``Parts``, per framework.

``classify`` tells the framework of one dict; its converter here finds the speaker,
role, content blocks and ``extra``; ``convo.importers.agents.finish.convert`` turns that
into a message within a ``Thread`` (which knows the conversation id and the two
parties, for listeners). The conventions (speaker, role, listeners, ids, ``extra``) are
documented in ``convo.importers.agents.reader``; Claude Code's envelopes are read in
``convo.importers.agents.claude_code``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from convo.importers.agents.blocks import (
    dumps,
    jianmu_body,
    normalise_block,
    normalise_content,
    normalise_result,
    tool_use_block,
)
from convo.importers.agents.classify import (
    ACT_ROLES,
    MESSAGE_KEYS,
    ROLE_MAP,
    autogen_wrapped,
    is_claude_code,
)
from convo.importers.agents.claude_code import claude_code_parts
from convo.importers.agents.keyed_parts import haystack_message, kernel_message, kernel_time
from convo.importers.agents.parts import NotMessage, Parts

# AutoGen fields that are not type-specific (everything else is copied to extra).
_AUTOGEN_COMMON = frozenset({"source", "content", "id", "created_at", "type"})


# -- per-framework converters ----------------------------------------------------------


def _role(obj: dict[str, Any], extra: dict[str, Any], fallback: str) -> tuple[str | None, str]:
    """(mapped role, speaker-default) from ``role``; the source spelling kept when mapped."""
    raw = obj.get("role")
    if raw is None:
        return fallback, fallback
    if not isinstance(raw, str):
        raise NotMessage(f"role is {type(raw).__name__}, not a string")
    role = ROLE_MAP.get(raw.lower())
    if role != raw:
        extra["original_role"] = raw
    return role, (role if raw.lower() in ACT_ROLES and role else raw)


def _named(obj: dict[str, Any], extra: dict[str, Any], default: str) -> str:
    name = obj.get("name")
    if isinstance(name, str) and name:
        extra["name"] = name
        return name
    return default


def _need_content(obj: dict[str, Any], what: str) -> None:
    if not any(k in obj for k in MESSAGE_KEYS):
        raise NotMessage(f"{what} without content")


def openai_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    obj = haystack_message(obj)
    kernel = kernel_message(obj)
    if kernel is not None:
        return _kernel_parts(kernel, fallback_role)
    _need_content(obj, "a chat message")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    blocks = _openai_content(obj, role)
    if isinstance(obj.get("refusal"), str) and obj["refusal"]:
        blocks.append({"type": "refusal", "refusal": obj["refusal"]})
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        blocks.extend(tool_use_block(c) for c in calls if isinstance(c, dict))
    if isinstance(obj.get("function_call"), dict):
        blocks.append(tool_use_block(obj["function_call"]))
    if isinstance(obj.get("audio"), dict):
        blocks.append({"type": "audio", **obj["audio"]})
    speaker = _named(obj, extra, speaker if role != "tool" else "tool")
    return Parts(speaker, role, blocks, extra, id=obj.get("id"))


def _kernel_parts(obj: dict[str, Any], fallback_role: str) -> Parts:
    """A Semantic Kernel message (``keyed_parts.kernel_message``): its items as blocks,
    the author's name the speaker, the model and finish reason in ``extra``."""
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    blocks = [normalise_block(item) for item in obj["items"]]
    speaker = _named(obj, extra, speaker if role != "tool" else "tool")
    for key in ("ai_model_id", "model_id", "finish_reason", "status"):
        if obj.get(key) not in (None, ""):
            extra[key] = obj[key]
    return Parts(speaker, role, blocks, extra, timestamp=kernel_time(obj))


def _openai_content(obj: dict[str, Any], role: str | None) -> list[dict[str, Any]]:
    """A chat message's content as blocks: a tool's answer as ``tool_result`` blocks."""
    content = obj.get("content")
    responses = obj.get("tool_responses")  # AutoGen 0.2: the results of several calls
    if role == "tool" and isinstance(responses, list) and responses:
        return [_tool_response(r) for r in responses]
    if role == "tool" and (obj.get("tool_call_id") or obj.get("role") == "function"):
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": obj.get("tool_call_id"),
            "content": normalise_result(content),
            "is_error": bool(obj.get("is_error", False)),
        }
        if isinstance(obj.get("name"), str):
            result["name"] = obj["name"]
        return [result]
    return normalise_content(content)


def _tool_response(response: Any) -> dict[str, Any]:
    """One of AutoGen 0.2's ``tool_responses`` (``{tool_call_id, role, content}``)."""
    r = response if isinstance(response, dict) else {"content": response}
    return {"type": "tool_result", "tool_use_id": r.get("tool_call_id"),
            "content": normalise_result(r.get("content")), "is_error": False}  # fmt: skip


def langmem_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    """An ``OpenAIMessage`` (metadata user_id/timestamp) or a LangMem ``Message`` (id,
    content, timestamp, user): the user's name (or id) speaks, as role user."""
    user = obj.get("user")
    if "role" not in obj and isinstance(user, dict):
        fallback_role = "user"
    parts = openai_parts(obj, fallback_role)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        parts.timestamp = meta.get("timestamp")
        if meta.get("user_id") is not None:
            parts.extra["user_id"] = meta["user_id"]
    if obj.get("timestamp") is not None:
        parts.timestamp = obj["timestamp"]
    if isinstance(user, dict):
        parts.extra["user"] = user
        who = user.get("name") or user.get("id")
        if isinstance(who, str) and who and "name" not in parts.extra:
            parts.speaker = who
    return parts


def anthropic_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    if is_claude_code(obj):
        return claude_code_parts(obj, anthropic_parts)
    if "content" not in obj:
        raise NotMessage("a message without content")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    blocks = normalise_content(obj.get("content"))
    speaker = _named(obj, extra, speaker)
    if role == "user" and blocks and all(b.get("type") == "tool_result" for b in blocks):
        # results sent in a user turn are the tool's (docs/formats.md, "Tool results")
        extra.setdefault("original_role", "user")
        role = "tool"
        speaker = speaker if "name" in extra else "tool"
    return Parts(speaker, role, blocks, extra, id=obj.get("id"))


def agentscope_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    if "content" not in obj:
        raise NotMessage("an AgentScope Msg without content")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    speaker = _named(obj, extra, speaker)
    blocks = normalise_content(obj.get("content"))
    _keep_metadata(obj.get("metadata"), extra)
    if role != "tool" and blocks and all(b.get("type") == "tool_result" for b in blocks):
        # Msg("system", [ToolResultBlock], "system"): role tool, the speaker as named
        extra.setdefault("original_role", obj.get("role"))
        role = "tool"
    return Parts(speaker, role, blocks, extra, timestamp=obj.get("timestamp"), id=obj.get("id"))


def _autogen_calls(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    if not isinstance(content, list):
        return None
    return [tool_use_block(c) if isinstance(c, dict) else normalise_block(c) for c in content]


def _autogen_code_result(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A ``CodeExecutionEvent``'s ``result``: a ``CodeResult`` dumps as ``{exit_code,
    output}`` (its text, as the event's ``to_text``), a failing exit code an error."""
    result = obj.get("result")
    if content is not None:
        return None
    if isinstance(result, dict) and isinstance(result.get("output"), str):
        code = result.get("exit_code")
        output, failed = result["output"], isinstance(code, int) and code != 0
    elif isinstance(result, str):
        output, failed = result, False
    else:
        return None
    return [{"type": "tool_result", "tool_use_id": None, "name": "code_execution",
             "content": output, "is_error": failed}]  # fmt: skip


def _each(convert_item: Callable[[Any], dict[str, Any]]):
    def blocks(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
        return [convert_item(c) for c in content] if isinstance(content, list) else None

    return blocks


def _thought(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    return [{"type": "thinking", "thinking": content}] if isinstance(content, str) else None


def _autogen_default(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return normalise_content(content)
    if content is None:
        return []
    # StructuredMessage, SelectSpeakerEvent, custom types: the JSON of the content
    return [{"type": "text", "text": dumps(content)}]


def autogen_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    inner = autogen_wrapped(obj)
    if inner is None:
        return _autogen_message(obj)
    parts = _autogen_message(inner)  # a container model's message field
    parts.extra["container"] = {k: v for k, v in obj.items() if k != "message"}
    return parts


def _autogen_message(obj: dict[str, Any]) -> Parts:
    kind, source = obj.get("type"), obj.get("source")
    if not isinstance(kind, str) or not isinstance(source, str):
        raise NotMessage("an AutoGen message needs a string 'type' and 'source'")
    content = obj.get("content")
    extra: dict[str, Any] = {"type": kind}
    extra.update({k: v for k, v in obj.items() if k not in _AUTOGEN_COMMON})
    role = "user" if source.lower() == "user" else "assistant"
    special = _AUTOGEN_CONTENT.get(kind)
    blocks = special(content, obj) if special else None
    if blocks is None:
        blocks = _autogen_default(content)
    elif kind == "ToolCallExecutionEvent":
        role = "tool"
    if kind == "UserInputRequestedEvent":
        role = "user"
        blocks = blocks or [{"type": "user_input_requested", "request_id": obj.get("request_id")}]
    target = obj.get("target")
    listeners = [target] if kind == "HandoffMessage" and isinstance(target, str) else None
    return Parts(
        source,
        role,
        blocks,
        extra,
        timestamp=obj.get("created_at"),
        id=obj.get("id"),
        listeners=listeners,
    )


def _autogen_result(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return normalise_block(item)
    block = {
        "type": "tool_result",
        "tool_use_id": item.get("call_id"),
        "content": normalise_result(item.get("content")),
        "is_error": bool(item.get("is_error", False)),
    }
    if item.get("name") is not None:
        block["name"] = item["name"]
    return block


def _autogen_media(item: Any) -> dict[str, Any]:
    if isinstance(item, dict) and "data" in item and "type" not in item:
        return {"type": "image", "data": item["data"]}  # autogen_core.Image dumps as {"data"}
    return normalise_block(item)


def _autogen_memory(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return normalise_block(item)
    body = item.get("content")
    return {
        "type": "memory",
        "content": body if isinstance(body, str) else dumps(body),
        "mime_type": item.get("mime_type"),
    }


_AUTOGEN_CONTENT: dict[str, Callable[[Any, dict[str, Any]], list[dict[str, Any]] | None]] = {
    "ToolCallRequestEvent": _autogen_calls,
    "ToolCallExecutionEvent": _each(_autogen_result),
    "ThoughtEvent": _thought,
    "MultiModalMessage": _each(_autogen_media),
    "MemoryQueryEvent": _each(_autogen_memory),
    "CodeExecutionEvent": _autogen_code_result,
}


def jianmu_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    _need_content(obj, "a Jianmu Message")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    tool = obj.get("tool")
    if tool is not None:
        extra["tool"] = tool
    blocks, text = jianmu_body(obj.get("content"), as_text=role == "tool")
    if role == "tool" and (obj.get("tool_call_id") or tool):
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": obj.get("tool_call_id"),
                "content": text,
                "is_error": False,
            }
        )
        if isinstance(tool, str):
            blocks[-1]["name"] = tool
    elif text:
        blocks.append({"type": "text", "text": text})
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        blocks.extend(tool_use_block(c) for c in calls if isinstance(c, dict))
    default = (tool if isinstance(tool, str) and tool else "tool") if role == "tool" else speaker
    speaker = _named(obj, extra, default)
    meta = obj.get("metadata")
    stamp = meta.get("timestamp") if isinstance(meta, dict) else None
    _keep_metadata(meta, extra)
    return Parts(speaker, role, blocks, extra, timestamp=stamp, id=obj.get("id"))


def _keep_metadata(meta: Any, extra: dict[str, Any]) -> None:
    """A message's own ``metadata`` (AgentScope, Jianmu), for export to other formats."""
    if isinstance(meta, dict) and meta:
        extra["metadata"] = meta


CONVERTERS: dict[str, Callable[[dict[str, Any], str], Parts]] = {
    "openai": openai_parts,
    "anthropic": anthropic_parts,
    "agentscope": agentscope_parts,
    "langmem": langmem_parts,
    "autogen": autogen_parts,
    "jianmu": jianmu_parts,
}
