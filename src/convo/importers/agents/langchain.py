"""LangChain ``messages_to_dict`` output (``langchain``).

Shape (langchain-ai/langchain ``libs/core/langchain_core/messages/base.py``:
``message_to_dict(m) = {"type": m.type, "data": m.model_dump()}``; the message classes
in ``messages/{human,ai,system,tool,chat,function}.py``): ``{"type": "human"|"ai"|
"system"|"tool"|"function"|"chat"|"AIMessageChunk"..., "data": {"content": str | [blocks],
"additional_kwargs", "response_metadata", "type", "name", "id", "example"?,
"tool_calls": [{"name", "args", "id", "type": "tool_call"}], "invalid_tool_calls",
"usage_metadata", "tool_call_id", "artifact", "status", "role" (chat)}}``. A JSON array
of them (streamed), JSONL (one message, or one array, a line), or one message.

The same messages serialized by ``langchain_core.load.dumpd`` / ``dumps`` (LangSmith
run inputs and outputs, LangGraph checkpoints, ``langchain_core/load/serializable.py``
``to_json``): ``{"lc": 1, "type": "constructor", "id": ["langchain", "schema",
"messages", "HumanMessage"], "kwargs": {"content", "type"?, "id"?, "tool_calls"...}}``;
the class name gives the type (``AIMessageChunk`` as ``ai``) and ``kwargs`` are the
``data`` (``_from_constructor``).

Decisions:
- speaker = ``data.name`` else the type as spelled (``human``, ``ai``, ``tool``; a chat
  message's ``role``); role: human → user, ai → assistant, system → system,
  tool/function → tool (``*MessageChunk`` types as their message). Listeners: a user
  turn → the ai side (``ai``), an assistant turn → ``human``, a tool result → ``ai``.
- Text: a string content as is; content blocks one chunk each (``[tool_use NAME] {...}``,
  ``[image] URL``... as the agent readers write them); ``tool_calls`` not already among
  the blocks become ``[tool_use NAME] {...}`` chunks; ``invalid_tool_calls`` are kept in
  ``extra``. A tool message is ``[tool_result NAME] ...`` (NAME its ``name``, else the
  call's; `` error`` for ``status: error``), its ``replyTo`` the ai message that made the
  call.
- Private reasoning (``thinking`` / ``reasoning`` blocks, ``additional_kwargs.
  reasoning_content``) goes to ``extra.thinking``, never the text (``[thinking]``
  chunks with ``ImportOptions.include_thinking``, ``--include-thinking``).
- id = ``langchain:<data.id>`` when set (a short one, unique only in its file:
  ``langchain:<file>:<data.id>``, docs/ids.md; else the content hash); thread = the file
  (``FILE#line-N`` for a JSONL line holding an array). No times: the epoch sentinel,
  with one warning a source. ``response_metadata``, ``usage_metadata``,
  ``additional_kwargs`` and ``artifact`` go to ``extra``.
- langchain-core 1.0's standard content blocks (``messages/content.py``, an AI
  message's ``content`` when ``response_metadata.output_version`` is ``"v1"``):
  ``tool_call`` / ``tool_call_chunk`` / ``server_tool_call`` blocks are
  ``[tool_use NAME] {...}`` chunks (once: the same call in ``tool_calls`` is not
  repeated), ``server_tool_result`` a ``[tool_result ID] ...`` chunk, ``text-plain`` its
  text, ``reasoning`` goes to ``extra.thinking``; an image, audio or file given as
  ``base64`` with a ``mime_type`` is ``[image image/png, N bytes]``.
- A ``RemoveMessage`` (``{"type": "remove", "data": {"id"}}``: LangGraph's instruction
  to delete message ``id`` from a state, found in saved states) is not a message: it is
  skipped and counted in one warning a source.
- Anything else that is not ``{"type", "data": {...}}`` (or its ``dumpd`` form) is
  rejected with its location.
- Memory is flat with the input: the map of tool call ids to the message that made
  them (a tool result's ``replyTo``) is a ``convo.core.spillmap.SpillMap``.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.importers.agents.blocks import (
    block_chunk,
    normalise_content,
    normalise_result,
    tool_use_block,
)
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "langchain"
ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool"}
CHAT_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}
LISTENERS = {"user": ["ai"], "assistant": ["human"], "tool": ["ai"]}
_TYPE = re.compile(r'"type"\s*:\s*"(human|ai|system|tool|function|chat|\w+MessageChunk)"')


def _kind(spelled: str) -> str:
    """``AIMessageChunk`` → ``ai``; the message types as they are."""
    if spelled.endswith("MessageChunk"):
        return spelled[: -len("MessageChunk")].lower()
    return spelled


_CLASSES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
}
# langchain-core 1.0 standard blocks that are tool calls (``messages/content.py``).
_CALL_BLOCKS = ("tool_call", "tool_call_chunk", "server_tool_call", "server_tool_call_chunk")


def _from_constructor(obj: Any) -> Any:
    """A ``dumpd`` message (``{"lc": 1, "type": "constructor", "id": [..., CLASS],
    "kwargs"}``) as ``{"type", "data"}``; anything else as it is."""
    if not isinstance(obj, dict) or obj.get("lc") != 1 or obj.get("type") != "constructor":
        return obj
    path, kwargs = obj.get("id"), obj.get("kwargs")
    if not isinstance(path, list) or not path or not isinstance(kwargs, dict):
        return obj
    cls = as_str(path[-1])
    kind = _CLASSES.get(cls.removesuffix("Chunk"))
    if kind is None:
        return obj
    return {"type": cls if cls.endswith("Chunk") else kind, "data": kwargs}


def _is_message(obj: Any) -> bool:
    obj = _from_constructor(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), dict):
        return False
    kind = _kind(as_str(obj.get("type")))
    return (kind in ROLES or kind == "chat") and "content" in obj["data"]


def sniff(source: Source) -> int:
    text = json_head_with(source, '"data"') or json_head_with(source, '"constructor"')
    if not text:
        return 0
    values = sample_values(text)
    items = [x for v in values for x in (v if isinstance(v, list) else [v])][:60]
    if items:
        return 90 if sum(map(_is_message, items)) * 2 >= len(items) else 0
    return 85 if _TYPE.search(text) and '"additional_kwargs"' in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read; reasoning goes to extra, or to ``[thinking]`` chunks with
    ``ctx.options.include_thinking``."""
    include_thinking = ctx.options.include_thinking
    calls: SpillMap[str, str] = SpillMap()  # tool call id -> the message that made it
    try:
        n, removes = yield from _messages(source, ctx, calls, include_thinking)
    finally:
        calls.close()
    if removes:
        ctx.warn(
            source.name,
            f"skipped {counted(removes, 'RemoveMessage entry', 'RemoveMessage entries')} "
            "(LangGraph's instructions to delete a message by id: not messages)",
        )
    if n:
        ctx.warn(source.name, "LangChain messages carry no times: messages get the epoch sentinel")


def _messages(
    source: Source, ctx: ImportContext, calls: SpillMap[str, str], include_thinking: bool
) -> Generator[ConversationMessage, None, tuple[int, int]]:
    """The messages; returns (messages read, RemoveMessage entries skipped)."""
    n = removes = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        thread = ctx.thread_of(
            where if isinstance(sample, list) and loc.startswith("line-") else source.name
        )
        items = sample if isinstance(sample, list) else [sample]
        for k, obj in enumerate(items, 1):
            here = sub(ctx, where, f"msg-{k}") if isinstance(sample, list) else where
            if _is_remove(obj):
                removes += 1
                continue
            if not _is_message(obj):
                ctx.reject(here, "not a LangChain message dict ({type, data})", obj)
                continue
            n += 1
            yield _message(
                _from_constructor(obj), here, (thread, source.name), calls, include_thinking
            )
    return n, removes


def _is_remove(obj: Any) -> bool:
    obj = _from_constructor(obj)
    return (
        isinstance(obj, dict) and obj.get("type") == "remove" and isinstance(obj.get("data"), dict)
    )


def _message(
    obj: dict[str, Any],
    loc: str,
    where: tuple[str, str],
    calls: SpillMap[str, str],
    include: bool,
) -> ConversationMessage:
    """One message; ``where`` = its thread and the source's name."""
    thread, source_name = where
    data = obj["data"]
    spelled = _kind(as_str(obj.get("type")))
    role = CHAT_ROLES.get(as_str(data.get("role"))) if spelled == "chat" else ROLES.get(spelled)
    speaker = as_str(data.get("name")) or (
        as_str(data.get("role")) if spelled == "chat" else spelled
    )
    chunks, thinking = _chunks(data, include)
    if role == "tool":
        chunks = _result_chunks(data, chunks, calls)
    mid = as_str(data.get("id"))
    rec_id = file_local_id(NAME, mid, source_name) if mid else None
    _note_calls(data, rec_id, calls)
    kwargs = {
        k: v for k, v in as_dict(data.get("additional_kwargs")).items() if k != "reasoning_content"
    }
    return message(
        chunks,
        speaker=speaker or spelled,
        listeners=LISTENERS.get(role or "", []),
        id=rec_id,
        source_id=loc,
        format=NAME,
        thread=thread,
        reply_to=calls.get(as_str(data.get("tool_call_id"))),
        role=role,
        extra={
            "type": as_str(obj.get("type")),
            "thinking": thinking,
            "tool_calls": as_list(data.get("tool_calls")),
            "invalid_tool_calls": as_list(data.get("invalid_tool_calls")),
            "tool_call_id": as_str(data.get("tool_call_id")),
            "status": as_str(data.get("status")) if data.get("status") != "success" else None,
            "artifact": data.get("artifact"),
            "additional_kwargs": kwargs,
            "response_metadata": as_dict(data.get("response_metadata")),
            "usage_metadata": as_dict(data.get("usage_metadata")),
        },
    )


def _result_chunks(data: dict[str, Any], chunks: list[str], calls: SpillMap[str, str]) -> list[str]:
    """A tool message's text as every agent reader labels a result: ``[tool_result NAME]``."""
    called = as_str(data.get("tool_call_id"))
    label = as_str(data.get("name")) or calls.get(f"name:{called}") or called or "?"
    flag = " error" if data.get("status") == "error" else ""
    return [f"[tool_result {label}{flag}] " + "\n".join(chunks)]


def _note_calls(data: dict[str, Any], rec_id: str | None, calls: SpillMap[str, str]) -> None:
    """Remember the message that made each tool call, and the call's name."""
    for call in as_list(data.get("tool_calls")):
        cid, name = as_str(as_dict(call).get("id")), as_str(as_dict(call).get("name"))
        if cid and rec_id:
            calls.set(cid, rec_id)
        if cid and name:
            calls.set(f"name:{cid}", name)


def _chunks(data: dict[str, Any], include: bool) -> tuple[list[str], list[str]]:
    chunks: list[str] = []
    thinking: list[str] = []
    reasoning = as_str(as_dict(data.get("additional_kwargs")).get("reasoning_content"))
    if reasoning:
        thinking.append(reasoning)
    seen: set[str] = set()
    content = data.get("content")
    blocks = normalise_content(content) if isinstance(content, list) else []
    for block in map(_standard_block, blocks):
        kind = as_str(block.get("type"))
        if kind in ("thinking", "reasoning"):
            thinking += _thought_texts(block)
            continue
        if kind == "tool_use" and as_str(block.get("id")):
            seen.add(as_str(block.get("id")))
        chunks.append(block_chunk(block))
    if isinstance(content, str):
        chunks.append(content)
    for call in as_list(data.get("tool_calls")):
        c = as_dict(call)
        if as_str(c.get("id")) not in seen:
            chunks.append(block_chunk(tool_use_block(c)))
    if include:
        chunks = [f"[thinking] {t}" for t in thinking] + chunks
        thinking = []
    return [c for c in chunks if c.strip()], thinking


def _standard_block(block: dict[str, Any]) -> dict[str, Any]:
    """A langchain-core 1.0 standard block as the shared normalised shape (others as
    they are): tool calls as ``tool_use``, a server tool's result as ``tool_result``,
    ``text-plain`` as text, ``base64`` data as ``data`` with its ``mime_type``."""
    kind = as_str(block.get("type"))
    if kind in _CALL_BLOCKS:
        return tool_use_block(block)
    if kind == "server_tool_result":
        return {
            "type": "tool_result",
            "tool_use_id": block.get("tool_call_id"),
            "content": normalise_result(block.get("output")),
            "is_error": block.get("status") == "error",
        }
    if kind == "text-plain":
        return {"type": "text", "text": as_str(block.get("text"))}
    if kind in ("image", "audio", "video", "file") and "base64" in block:
        out = {k: v for k, v in block.items() if k not in ("base64", "mime_type")}
        return {**out, "data": block["base64"], "media_type": block.get("mime_type")}
    return block


def _thought_texts(block: dict[str, Any]) -> list[str]:
    """An Anthropic ``thinking`` block, or an OpenAI ``reasoning`` block with summaries."""
    if isinstance(block.get("thinking"), str):
        return [block["thinking"]]
    texts = [as_str(as_dict(s).get("text")) for s in as_list(block.get("summary"))]
    if isinstance(block.get("reasoning"), str):
        texts.append(block["reasoning"])
    return [t for t in texts if t]


DESCRIPTION = "LangChain messages_to_dict output ({type: human|ai|tool, data: {...}})"
EXAMPLE = (
    '[{"type": "human", "data": {"content": "Hi", "type": "human"}}, '
    '{"type": "ai", "data": {"content": "Hello!", "type": "ai"}}]'
)
FIELDS = Fields(
    speaker="`data.name`, else the type as spelled (`human`, `ai`, `tool`; a chat "
    "message's `role`)",
    listeners="a user turn → `ai`, an assistant turn → `human`, a tool result → `ai`",
    time="no times: the epoch sentinel, with one warning a source",
    zone="none",
    thread="the file's name without its folder (`FILE#line-N` for a JSONL line "
    "holding an array; a generic name with its folder, docs/ids.md)",
    id="`langchain:<id>` (`data.id`); a short one `langchain:<file>:<id>`; none: " + CONTENT_HASH,
    scope="long ids: the world; short ids: the file (its name)",
    reply_to="a tool message: the ai message that made the call",
    extra="`type`, `response_metadata`, `usage_metadata`, `additional_kwargs`, `artifact`, "
    "`tool_calls`, `invalid_tool_calls`, `tool_call_id`, `status`; reasoning in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
