"""Continue sessions (``continue``): ``~/.continue/sessions/<sessionId>.json``, beside the
list ``sessions.json``.

Shape (continuedev/continue ``core/util/history.ts``: ``HistoryManager.save`` writes the
session with its keys in this order, and appends ``{"sessionId", "title",
"dateCreated": String(Date.now()), "workspaceDirectory", "messageCount"}`` to
``sessions.json``; ``core/index.d.ts``: ``Session``, ``ChatHistoryItem``,
``ChatMessage``, ``ToolCallState``): ``{"sessionId": uuid, "title",
"workspaceDirectory", "history": [{"message": {"role": user | assistant | thinking |
system | tool, "content": "..." or [{"type": "text", "text"}, {"type": "imageUrl",
"imageUrl": {"url"}}], "toolCalls": [{"id", "type": "function", "function": {"name",
"arguments": JSON text}}], "toolCallId", "metadata"}, "contextItems": [{"name",
"description", "content", "uri", "id"}], "editorState", "modifiers", "promptLogs":
[{"modelTitle", "modelProvider", "prompt", "completion"}], "toolCallStates" (before
July 2025 one ``toolCallState``): [{"toolCallId", "toolCall", "status", "parsedArgs",
"output"}], "reasoning": {"active", "text", "startAt", "endAt"}, "appliedRules",
"conversationSummary"}], "mode", "chatModelTitle", "usage"}``.

Decisions:
- One record a history item; speaker = the role; listeners the other party (a tool's
  output → the assistant).
- Chunks: the text; images ``[image ...]`` (a data URL named by type and size); an
  assistant's tool calls ``[tool_use NAME] {arguments}``; a tool message ``[tool_result
  NAME] output`` (NAME from the call it answers; ``error`` when its state says it
  errored). The context items the person attached (files, selections, docs) are named
  ``[context NAME]``, whole in ``extra.context``.
- Thinking is private: a ``thinking`` message and an item's ``reasoning`` go to the next
  assistant record's ``extra.thinking`` (``--include-thinking``: ``[thinking]``
  chunks; thinking at the end of a session: a record of its own).
- time: Continue keeps none per message; every record has the session's
  ``dateCreated`` from the ``sessions.json`` beside the file (epoch ms), else the
  epoch (unknown; one warning).
- thread = ``continue:<sessionId>``; subject = ``title``, on the first record, with the
  workspace, mode and model in its ``extra.session``; id = the content hash.
- ``promptLogs`` (the prompt as sent, again) are not kept; the tool states, a
  compaction's ``conversationSummary`` and the applied rules are, in ``extra``.
- ``sessions.json`` read alone holds no message: recognised, named in a warning.
- A history item that is not an object with a message is rejected with its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.errors import ConvoError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.agents.blocks import (
    block_chunk,
    dumps,
    normalise_block,
    parse_arguments,
    whole_chunk,
)
from convo.importers.agents.samples import sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

NAME = "continue"
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"], "system": []}
LIST_NAME = "sessions.json"


def _is_list(text: str) -> bool:
    """The head of ``sessions.json``: an array of session metadata."""
    if not text.startswith("[") or not has_key(text, "dateCreated"):
        return False
    values = sample_values(text)
    first = as_dict(values[0]) if values else {}
    return (not values and has_key(text, "workspaceDirectory")) or (
        "sessionId" in first and "workspaceDirectory" in first
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if _is_list(text):
        return 88
    if not text.startswith("{") or not has_key(text, "sessionId"):
        return 0
    if has_key(text, "workspaceDirectory") and has_key(text, "history"):
        return 92
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if _is_list(json_head(source)):
        ctx.warn(source.name, "Continue's list of sessions (their dates): read with the "
                 "session files beside it, no messages of its own")  # fmt: skip
        return
    doc = StreamedDoc(source, ("history",))
    # mode, model and usage are written after the history: the head reads past it
    head = doc.expect("expected a Continue session (an object with history)", ("mode",))
    session = _Session(source, ctx, head)
    if session.time is None:
        ctx.warn(source.name, f"no date: no {LIST_NAME} beside it lists this session, so its "
                 "messages have no time (the epoch)")  # fmt: skip
    for item, line in doc.items():
        where = ctx.loc(line)
        if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
            ctx.reject(where, "not a Continue history item (message)", item)
            continue
        yield from session.item(item, where)
    yield from session.finish(ctx.loc(1))


def _created(source: Source, session_id: str) -> str | None:
    """The session's ``dateCreated`` in the ``sessions.json`` beside it."""
    if source.is_stdin or source.path is None or not session_id:
        return None
    beside = source.path.parent / LIST_NAME
    if not beside.is_file():
        return None
    try:
        listed = load_json(Source(beside))
    except (ConvoError, OSError):
        return None
    for entry in (as_dict(e) for e in as_list(listed)):
        if entry.get("sessionId") == session_id:
            when = entry.get("dateCreated")
            return epoch_ts(
                int(when) if isinstance(when, str) and when.isdigit() else when, ms=True
            )
    return None


class _Session:
    """One session file: thread, time, the first record's subject, tool names, thinking
    waiting for its answer."""

    def __init__(self, source: Source, ctx: ImportContext, head: dict[str, Any]):
        self.ctx = ctx
        sid = as_str(head.get("sessionId"))
        self.thread = f"{NAME}:{sid}" if sid else ctx.thread_of(source.name)
        self.time = _created(source, sid)
        self.subject: str | None = as_str(head.get("title")) or None
        session = {
            "workspace": as_str(head.get("workspaceDirectory")),
            "mode": as_str(head.get("mode")),
            "model": as_str(head.get("chatModelTitle")),
            "usage": as_dict(head.get("usage")),
        }
        self.session = {k: v for k, v in session.items() if v}
        self.first = True
        self.tools: dict[str, str] = {}
        self.errored: set[str] = set()
        self.thinking: list[str] = []

    def item(self, item: dict[str, Any], where: str) -> Iterator[ConversationMessage]:
        msg = item["message"]
        role = as_str(msg.get("role")) or "assistant"
        reasoning = as_str(as_dict(item.get("reasoning")).get("text"))
        if role == "thinking":
            self.thinking.append(_text(msg.get("content")) or reasoning)
            return
        if reasoning:
            self.thinking.append(reasoning)
        states = [as_dict(s) for s in as_list(item.get("toolCallStates"))]
        states += (
            [as_dict(item["toolCallState"])] if isinstance(item.get("toolCallState"), dict) else []
        )
        self.errored |= {
            as_str(s.get("toolCallId")) for s in states if s.get("status") == "errored"
        }
        chunks, thinking = self._chunks(role, msg)
        context = [as_dict(c) for c in as_list(item.get("contextItems"))]
        chunks += [f"[context {as_str(c.get('name')) or '?'}]" for c in context]
        extra = {
            "context": context,
            "tool_states": [{k: s.get(k) for k in ("toolCallId", "status")} for s in states],
            "summary": as_str(item.get("conversationSummary")),
            "rules": as_list(item.get("appliedRules")),
            "tool_call_id": as_str(msg.get("toolCallId")),
            "thinking": thinking,
        }
        yield self._record(role, chunks, extra, where)

    def _chunks(self, role: str, msg: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The message's chunks, and the thinking it answers (``extra.thinking``; with
        ``--include-thinking`` chunks first instead)."""
        chunks = _parts(msg.get("content"))
        thinking: list[str] = []
        if role == "assistant":
            thinking, self.thinking = self.thinking, []
            if self.ctx.options.include_thinking:
                chunks = [f"[thinking] {t}" for t in thinking] + chunks
                thinking = []
            for call in (as_dict(c) for c in as_list(msg.get("toolCalls"))):
                function = as_dict(call.get("function"))
                name = as_str(function.get("name")) or "?"
                self.tools[as_str(call.get("id"))] = name
                args = parse_arguments(function.get("arguments"))  # input, or input_raw
                chunks.append(whole_chunk({"type": "tool_use", "name": name, **args}))
        elif role == "tool":
            call_id = as_str(msg.get("toolCallId"))
            name = self.tools.get(call_id) or call_id or "?"
            chunks = [whole_chunk({"type": "tool_result", "name": name, "content": "\n".join(chunks),
                                   "is_error": call_id in self.errored})]  # fmt: skip
        return chunks, thinking

    def _record(
        self, role: str, chunks: list[str], extra: dict[str, Any], where: str
    ) -> ConversationMessage:
        if self.first:
            extra["session"] = self.session
            self.first = False
        subject, self.subject = self.subject, None
        return message(
            chunks or [""],
            speaker=role,
            listeners=OTHER.get(role, []),
            timestamp=self.time,
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=subject,
            role=role if role in OTHER else None,
            extra=extra,
        )

    def finish(self, where: str) -> Iterator[ConversationMessage]:
        """Thinking no answer followed (a session stopped while the model thought)."""
        if self.thinking:
            chunks, thinking = self._chunks("assistant", {"content": ""})
            yield self._record("assistant", chunks, {"thinking": thinking}, where)


def _parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for part in (as_dict(p) for p in as_list(content)):
        kind = as_str(part.get("type"))
        if kind == "text":
            out.append(as_str(part.get("text")))
        elif kind == "imageUrl":
            url = as_str(as_dict(part.get("imageUrl")).get("url"))
            out.append(
                block_chunk(normalise_block({"type": "image_url", "image_url": {"url": url}}))
            )
        elif part:
            out.append(block_chunk({**part, "type": kind or "unknown"}))
        else:
            out.append(dumps(part))
    return out


def _text(content: Any) -> str:
    return "\n".join(_parts(content))


DESCRIPTION = "Continue sessions (~/.continue/sessions/*.json)"
EXAMPLE = (
    '{"sessionId": "6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "title": "Fix the tests", '
    '"workspaceDirectory": "file:///Users/ann/kettle", "history": [{"message": {"role": '
    '"user", "content": "hi"}, "contextItems": []}]}'
)
FIELDS = Fields(
    speaker="the role (`user`, `assistant`, `system`, `tool`)",
    listeners="the other party; a tool's output → the assistant",
    time="the session's `dateCreated` in the `sessions.json` beside it, on every record: "
    "Continue keeps no time per message",
    zone="epoch ms: UTC",
    thread="`continue:<sessionId>`",
    id=CONTENT_HASH,
    scope="the session",
    subject="the session's `title`, on its first record",
    extra="`session` (workspace, mode, model; first record), `context` (the attached context "
    "items), `tool_states`, `summary`, `rules`, `tool_call_id`; thinking in `thinking` "
    "unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("sessions.json", "*.json"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
