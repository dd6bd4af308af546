"""Letta (MemGPT) agent files (``letta``): ``*.af``.

Shapes (letta-ai/letta, ``letta/serialize_schemas/pydantic_agent_schema.py`` and
``letta/schemas/agent_file.py``; the example files of ``tests/test_agent_files/``):
- v1 (2025, ``AgentSchema``): one agent, ``{"agent_type", "core_memory": [blocks],
  "created_at", ..., "in_context_message_indices": [...], "messages": [...], "name",
  "system", "tools", "version"}``.
- v2 (``AgentFileSchema``): ``{"agents": [{"id": "agent-0", "name", "system",
  "in_context_message_ids", "messages", "block_ids", ...}], "groups", "blocks": [...],
  "files", "sources", "tools", "mcp_servers", "metadata", "created_at"}``, ids
  renumbered in the file (``agent-0``, ``message-3``, ``block-1``).

A message: ``role`` (system, user, assistant, tool), ``content`` (a list of ``text``,
``image``, ``tool_call``, ``tool_return``, ``reasoning``, ``redacted_reasoning``,
``omitted_reasoning``, ``summarized_reasoning`` parts; a string in older files),
``name``, ``model``, ``tool_calls`` (OpenAI's shape), ``tool_call_id``,
``tool_returns``, ``created_at``. MemGPT-style agents answer through the
``send_message`` tool (the words the person read are its ``message`` argument; the
content is the agent's inner monologue) and Letta wraps what the person typed and its
own events as JSON (``{"type": "user_message", "message", "time"}``, ``login``,
``heartbeat``, ``system_alert``).

Decisions:
- One record a message; speaker = the role, the assistant by the agent's ``name``
  (role ``assistant``); a tool's answer → the agent.
- A ``user_message`` envelope reads as its ``message``; Letta's own events (``login``,
  ``heartbeat``, ``system_alert``...) are speaker ``letta`` (role ``user``, tagged
  ``system``), as the JSON they are.
- The assistant: ``send_message``'s ``message`` is the text; other tool calls
  ``[tool_use NAME] {args}``, whole; the inner monologue (text beside a tool call) and
  reasoning parts are private: ``extra.thinking`` (``--include-thinking``: ``[thinking]``
  chunks). A message without tool calls keeps its text. A tool message is
  ``[tool_result NAME] ...`` (its ``name``, else the call's).
- Core memory (v1 ``core_memory``, v2 ``blocks`` an agent names) is one record a block:
  speaker the agent, its ``label`` as subject, tagged ``memory``, time ``updated_at``.
- Messages outside the agent's context window (not in ``in_context_message_indices`` /
  ``in_context_message_ids``) are tagged ``evicted``.
- time = ``created_at``; naive times are UTC (Letta writes UTC); none: the epoch sentinel.
- thread = ``letta:<file>:<agent id or name>`` (ids in the file are renumbered). id =
  ``letta:<file>:<message id>`` (v2), else the content hash (also for a message
  repeating another's id: the pipeline's rule, one warning; docs/ids.md).
- ``extra``: ``model``, ``tool_call_id``, ``tool_returns``, ``blocks`` (tool calls
  whole), ``envelope`` (the user message's ``type`` and ``time``), ``limit`` (a block).
- The file is read whole (one object, or that object's JSON written as one JSON string,
  as letta-ai/agent-file's examples ``customer_service.af`` and
  ``outreach_workflow_agent.af`` are since 1.0); an element that is not a message is
  rejected with its place.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from datetime import UTC
from typing import Any

import orjson

from convo.core.io import Source, load_json
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk, inner_json, tool_use_block, whole_chunk
from convo.importers.build import message, scoped_id
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "letta"
# The file, or the same file written as one JSON string (the agent-file repository's
# examples since its "update examples to 1.0": a string holding the JSON, escaped)
_WS = r"(?:\s|\\[nrt])*"
_V1 = re.compile(r'\A"?\{' + _WS + r'\\?"agent_type\\?"' + _WS + ":")
_V2 = re.compile(r'\A"?\{' + _WS + r'\\?"agents\\?"' + _WS + ":" + _WS + r"\[")
_MARK = re.compile(
    r'\\?"(?:core_memory|memory_blocks|in_context_message_(?:indices|ids)|llm_config)\\?"'
    + _WS
    + ":"
)
REASONING = ("reasoning", "redacted_reasoning", "omitted_reasoning", "summarized_reasoning")


def sniff(source: Source) -> int:
    text = json_head(source)
    return 90 if (_V1.match(text) or _V2.match(text)) and _MARK.search(text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc: Any = load_json(source)
    if isinstance(doc, str):  # the file written as one JSON string
        with contextlib.suppress(orjson.JSONDecodeError):
            doc = orjson.loads(doc)
    if not isinstance(doc, dict):
        ctx.reject(source.name, "not a Letta agent file (an object)", doc)
        return
    untimed = 0
    for rec in _agents(source, ctx, doc):
        untimed += rec.timestamp is None
        yield rec
    if untimed:
        ctx.warn(
            source.name, "records without created_at (v2's memory blocks) get the epoch sentinel"
        )


def _agents(
    source: Source, ctx: ImportContext, doc: dict[str, Any]
) -> Iterator[ConversationMessage]:
    if isinstance(doc.get("agents"), list):  # v2
        listed = [as_dict(b) for b in as_list(doc.get("blocks"))]
        blocks = {as_str(b.get("id")): b for b in listed}
        taken: set[str] = set()
        for n, agent in enumerate(doc["agents"], 1):
            if not isinstance(agent, dict):
                ctx.reject(ctx.loc(f"agents.{n}"), "not a Letta agent", agent)
                continue
            names = [i for i in map(as_str, as_list(agent.get("block_ids"))) if i in blocks]
            taken.update(names)
            yield from _Agent(source, ctx, agent, f"agents.{n}.").records(
                [blocks[i] for i in names]
            )
        # a block no agent names (or one without an id, which none can) is said, not
        # dropped unsaid: the file's memory is read through its agents
        left = sum(1 for b in listed if not as_str(b.get("id")) or as_str(b.get("id")) not in taken)
        if left:
            ctx.warn(source.name, f"{counted(left, 'memory block')} that no agent's block_ids "
                     "names: not imported")  # fmt: skip
    else:
        yield from _Agent(source, ctx, doc, "").records(as_list(doc.get("core_memory")))


class _Agent:
    """One agent: its thread, name, context window and tool names."""

    def __init__(self, source: Source, ctx: ImportContext, agent: dict[str, Any], prefix: str):
        self.source = source
        self.ctx = ctx
        self.agent = agent
        self.prefix = prefix
        self.name = as_str(agent.get("name")) or "assistant"
        who = as_str(agent.get("id")) or self.name
        self.thread = f"{NAME}:{ctx.thread_of(source.name)}:{who}"
        ids = agent.get("in_context_message_ids")
        window = (
            as_list(ids) if ids is not None else as_list(agent.get("in_context_message_indices"))
        )
        # v1 counts messages (ints), v2 names them (strings); anything else names none
        self.in_context: set[Any] = {
            x for x in window if isinstance(x, str | int) and not isinstance(x, bool)
        }
        self.by_index = ids is None
        self.windowed = ids is not None or "in_context_message_indices" in agent
        self.tools: dict[str, str] = {}

    def records(self, blocks: list[Any]) -> Iterator[ConversationMessage]:
        for n, block in enumerate(blocks, 1):
            b = as_dict(block)
            if as_str(b.get("value")):
                yield self._block(b, self.ctx.loc(f"{self.prefix}memory.{n}"))
        for n, msg in enumerate(as_list(self.agent.get("messages"))):
            where = self.ctx.loc(f"{self.prefix}messages.{n + 1}")
            if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
                self.ctx.reject(where, "not a Letta message (role, content)", msg)
                continue
            evicted = (
                self.windowed
                and (n if self.by_index else as_str(msg.get("id"))) not in self.in_context
            )
            yield self._message(msg, where, evicted)

    def _block(self, b: dict[str, Any], where: str) -> ConversationMessage:
        return message(
            [as_str(b["value"])],
            speaker=self.name,
            timestamp=iso_ts(b.get("updated_at") or b.get("created_at"), UTC),
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=as_str(b.get("label")) or None,
            role="system",
            tags=["memory"],
            extra={"limit": b.get("limit"), "description": b.get("description")},
        )

    def _message(self, msg: dict[str, Any], where: str, evicted: bool) -> ConversationMessage:
        role = msg["role"]
        parts = msg.get("content")
        parts = [{"type": "text", "text": parts}] if isinstance(parts, str) else as_list(parts)
        texts = [as_str(as_dict(p).get("text")) for p in parts if as_dict(p).get("type") == "text"]
        media = [_media(as_dict(p)) for p in parts if as_dict(p).get("type") == "image"]
        speaker, tags = role, ["evicted"] if evicted else []
        extra: dict[str, Any] = {"model": msg.get("model"), "tool_call_id": msg.get("tool_call_id"),
                                 "tool_returns": msg.get("tool_returns")}  # fmt: skip
        if role == "user":
            chunks, envelope = _envelope(texts)
            if envelope and envelope.get("type") != "user_message":
                speaker, tags = NAME, [*tags, "system"]
            extra["envelope"] = envelope
        elif role == "assistant":
            speaker = self.name
            chunks = self._assistant(msg, parts, texts, extra)
        elif role == "tool":
            chunks = [self._result(msg, texts)]
        else:
            chunks = texts
        rid = as_str(msg.get("id"))
        return message(
            [*chunks, *media] or [""],
            speaker=speaker,
            listeners=[self.name] if speaker != self.name else ["user"],
            timestamp=iso_ts(msg.get("created_at"), UTC),
            id=scoped_id(NAME, self.ctx.thread_of(self.source.name), rid) if rid else None,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=role,
            tags=tags,
            extra=extra,
        )

    def _result(self, msg: dict[str, Any], texts: list[str]) -> str:
        call = as_str(msg.get("tool_call_id"))
        # v1 names the agent on a tool's answer, v2 the tool: the call's name first
        label = self.tools.get(call) or as_str(msg.get("name")) or call
        return whole_chunk({"type": "tool_result", "name": label, "content": "\n".join(texts)})

    def _assistant(
        self, msg: dict[str, Any], parts: list[Any], texts: list[str], extra: dict[str, Any]
    ) -> list[str]:
        include = self.ctx.options.include_thinking
        calls = [tool_use_block(as_dict(c)) for c in as_list(msg.get("tool_calls"))]
        calls += [{"type": "tool_use", "id": p.get("id"), "name": p.get("name"), "input": p.get("input")}
                  for p in map(as_dict, parts) if p.get("type") == "tool_call"]  # fmt: skip
        private = [_reasoning(p) for p in map(as_dict, parts) if p.get("type") in REASONING]
        if calls:  # the text beside a call is the inner monologue
            private = [*texts, *private]
            texts = []
        private = [t for t in private if t]
        chunks = [f"[thinking] {t}" for t in private] if include else []
        for call in calls:
            self.tools[as_str(call.get("id"))] = as_str(call.get("name"))
        extra["blocks"] = calls or None
        extra["thinking"] = [] if include else private
        return chunks + texts + [_said(call) for call in calls]


def _said(call: dict[str, Any]) -> str:
    """A call's chunk: ``send_message``'s ``message`` (what the person read), else the call."""
    said = as_dict(call.get("input")).get("message")
    if call.get("name") == "send_message" and isinstance(said, str):
        return said
    return whole_chunk(call)


def _envelope(texts: list[str]) -> tuple[list[str], dict[str, Any] | None]:
    """A user message's chunks and Letta's JSON envelope (``type``, ``time``) if it has one."""
    if len(texts) != 1 or not texts[0].lstrip().startswith("{"):
        return texts, None
    try:
        value = inner_json(texts[0])
    except orjson.JSONDecodeError:
        return texts, None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return texts, None
    envelope = {"type": value["type"], "time": value.get("time")}
    if value["type"] == "user_message" and isinstance(value.get("message"), str):
        return [value["message"]], envelope
    return texts, envelope


def _media(part: dict[str, Any]) -> str:
    """An image part (its ``source``: a URL, base64 data, a Letta file) as a chunk."""
    src = as_dict(part.get("source"))
    return block_chunk({"type": "image", "url": as_str(src.get("url")) or None,
                        "media_type": src.get("media_type"), "data": src.get("data"),
                        "file_id": src.get("file_id")})  # fmt: skip


def _reasoning(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind == "reasoning":
        return as_str(part.get("reasoning"))
    if kind == "summarized_reasoning":
        return "\n".join(as_str(as_dict(s).get("text")) for s in as_list(part.get("summary")))
    return "[redacted]" if kind == "redacted_reasoning" else ""


DESCRIPTION = "Letta (MemGPT) agent files (.af: messages and core memory blocks)"
EXAMPLE = (
    '{"agent_type": "memgpt_agent", "core_memory": [], "name": "sam", "in_context_message_indices": [0], '
    '"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}], '
    '"created_at": "2025-04-01T03:51:08"}]}'
)
FIELDS = Fields(
    speaker="the role; the assistant by the agent's `name`; Letta's own events `letta`",
    listeners="the agent; the agent → `user`",
    time="`created_at` (a memory block: `updated_at`)",
    zone="naive times are UTC (Letta writes UTC); others as written",
    thread="`letta:<file>:<agent id or name>`",
    id="`letta:<file>:<message id>` (v2's renumbered ids), else " + CONTENT_HASH,
    scope="the file (the ids an agent file gives are its own)",
    subject="a memory block's `label`",
    tags="`memory` (core memory blocks), `evicted` (outside the context window), `system` "
    "(Letta's events)",
    extra="`model`, `tool_call_id`, `tool_returns`, `blocks` (tool calls whole), `envelope`, "
    "`limit`; the inner monologue and reasoning in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.af", "*.json"), sniff, read, EXAMPLE, fields=FIELDS),
)
