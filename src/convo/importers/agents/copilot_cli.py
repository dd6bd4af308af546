"""GitHub Copilot CLI sessions (``copilot-cli``): ``~/.copilot/session-state/<id>/events.jsonl``
(before, ``~/.copilot/session-state/<id>.jsonl``).

Shape (github/copilot-sdk ``nodejs/src/generated/session-events.ts``, generated from the
runtime's ``session-events.schema.json``: the events the CLI writes, one a line):
``{"type", "data", "id" (a UUID), "timestamp" (ISO, UTC), "parentId", "agentId",
"ephemeral"}``. The types read: ``session.start`` (``sessionId``, ``copilotVersion``,
``producer``, ``startTime``, ``selectedModel``, ``context.cwd``...), ``user.message``
(``content``, ``attachments``: ``file``/``directory`` (``path``), ``selection``
(``filePath``, ``text``), ``blob`` (``mimeType``, ``data``), ``github_*``...;
``transformedContent``, ``source``, ``agentMode``), ``assistant.message``
(``messageId``, ``content``, ``toolRequests``: ``[{"toolCallId", "name",
"arguments"}]``, ``reasoningText``, ``model``, ``outputTokens``), ``assistant.reasoning``
(``content``), ``tool.execution_start`` (``toolCallId``, ``toolName``, ``arguments``),
``tool.execution_complete`` (``toolCallId``, ``success``, ``result.content``,
``error.message``), ``system.message`` (``content``, ``role``), ``session.info`` /
``session.warning`` / ``session.error`` / ``system.notification`` (``message``),
``abort`` (``reason``). The many others (turns, usage, model and mode changes,
deltas, hooks, MCP, todos...) are the UI's state.

Decisions:
- One record a message: ``user.message`` the ``user``'s (attachments named);
  ``assistant.message`` the ``assistant``'s, its tool requests ``[tool_use NAME]
  {args}`` after its text, whole; ``tool.execution_complete`` the ``tool``'s
  ``[tool_result NAME] output`` (``error`` flagged; NAME from the request or the
  execution's start); ``system.message`` the ``system``'s; notices and errors as
  ``[session.error TYPE] message``, the ``system``'s, tagged ``system``.
- Reasoning is private: ``reasoningText`` and the ``assistant.reasoning`` events before
  a message go to its ``extra.thinking`` (``--include-thinking``: ``[thinking]``
  chunks); reasoning no message follows is counted in a warning.
- ``tool.execution_start`` gives its tool's name and nothing else (the request holds
  the arguments); the other types are skipped, counted by type in one warning.
- time = ``timestamp``. thread = ``copilot-cli:<sessionId>`` (``session.start``; else
  the session's folder, or the file's name). id = ``copilot-cli:<event id>`` (a UUID; a
  repeated one on another message: the content hash, the pipeline's rule).
- The first record carries ``session.start``'s data in ``extra.session``; a
  sub-agent's events their ``agentId`` in ``extra.agent_id``.
- A line that is not JSON or not an event (``type``, ``data``) is rejected with its
  line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import CallNames, block_chunk, whole_chunk
from convo.importers.agents.samples import sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head, json_lines
from convo.importers.registry import Format

NAME = "copilot-cli"
OTHER = {
    "user": ["assistant"],
    "assistant": ["user"],
    "tool": ["assistant"],
    "system": ["assistant"],
}
_TYPE = re.compile(r'"type"\s*:\s*"(?:session|user|assistant|tool|system|subagent)\.[a-z_.]+"')
NOTICES = ("session.info", "session.warning", "session.error", "system.notification", "abort")


def _is_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("data"), dict)
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not _TYPE.search(text) or '"parentId"' not in text:
        return 0
    values = sample_values(text)
    good = [v for v in values if _is_event(v) and "parentId" in v and "timestamp" in v]
    if not good or len(good) * 2 < len(values):
        return 0
    return 92 if any(v["type"] == "session.start" for v in good) else 88


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    session = _Session(source, ctx)
    for _number, where, value in json_lines(source, ctx):
        if not _is_event(value):
            ctx.reject(where, "not a Copilot CLI event (type, data)", value)
            continue
        made = session.event(value, where)
        if made is not None:
            yield made
    session.finish()


def _fallback_thread(source: Source) -> str:
    """The session's folder (``session-state/<id>/events.jsonl``), else the file's name."""
    path = PurePath(source.name)
    stem = strip_compressed(path.name).removesuffix(".jsonl")
    if stem == "events" and path.parent.name:
        return path.parent.name
    return stem


class _Session:
    """One session file: its thread, the start's data, tool names, pending reasoning."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source = source
        self.ctx = ctx
        fallback = _fallback_thread(source) if not source.is_stdin else ""
        self.thread = f"{NAME}:{fallback}" if fallback else ctx.thread_of(source.name)
        self.start: dict[str, Any] | None = None
        self.first = True
        self.tools = CallNames()
        self.reasoning: list[str] = []
        self.skipped: Counter[str] = Counter()

    def event(self, event: dict[str, Any], where: str) -> ConversationMessage | None:
        kind, data = event["type"], event["data"]
        if kind == "session.start":
            self.start = data
            own = as_str(data.get("sessionId"))
            if own:
                self.thread = f"{NAME}:{own}"
            return None
        if kind == "assistant.reasoning":
            said = as_str(data.get("content"))
            if said:
                self.reasoning.append(said)
            return None
        if kind == "tool.execution_start":
            self.tools.add(data.get("toolCallId"), data.get("toolName"))
            return None
        made = _MESSAGES.get(kind)
        if made is None:
            if kind not in NOTICES:
                self.skipped[kind] += 1
                return None
            made = _notice
        speaker, chunks, tags, extra = made(self, kind, data)
        return self._record(event, where, speaker, chunks, tags, extra)

    def _record(
        self,
        event: dict[str, Any],
        where: str,
        speaker: str,
        chunks: list[str],
        tags: list[str],
        extra: dict[str, Any],
    ) -> ConversationMessage:
        own = as_str(event.get("id"))
        session = dict(self.start or {}) if self.first else None
        self.first = False
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=OTHER[speaker],
            timestamp=_time(event.get("timestamp")),
            id=f"{NAME}:{own}" if own else None,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=speaker,
            tags=tags,
            extra={**extra, "agent_id": event.get("agentId"), "session": session or None},
        )

    def _thinking(self, data: dict[str, Any]) -> tuple[list[str], list[str]]:
        """(chunks, extra.thinking) of the reasoning before a message and its own."""
        said = [*self.reasoning, as_str(data.get("reasoningText"))]
        self.reasoning = []
        thinking = [t for i, t in enumerate(said) if t and t not in said[:i]]
        if self.ctx.options.include_thinking:
            return [f"[thinking] {t}" for t in thinking], []
        return [], thinking

    def finish(self) -> None:
        name = self.source.name
        if self.reasoning:
            self.ctx.warn(name, f"{counted(len(self.reasoning), 'reasoning block')} no message follows: not kept")  # fmt: skip
        if self.skipped:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.skipped.items()))
            self.ctx.warn(name, f"session events skipped (the UI's state): {kinds}")


Made = tuple[str, list[str], list[str], dict[str, Any]]


def _user(_: _Session, __: str, data: dict[str, Any]) -> Made:
    chunks = [as_str(data.get("content"))]
    chunks += [_attachment(as_dict(a)) for a in as_list(data.get("attachments"))]
    extra = {"source": data.get("source"), "agent_mode": data.get("agentMode")}
    return "user", chunks, [], extra


def _assistant(session: _Session, _: str, data: dict[str, Any]) -> Made:
    chunks, thinking = session._thinking(data)
    text = as_str(data.get("content"))
    chunks += [text] if text else []
    for request in as_list(data.get("toolRequests")):
        request = as_dict(request)
        name = as_str(request.get("name")) or "?"
        session.tools.add(request.get("toolCallId"), name)
        args = request.get("arguments")
        chunks.append(whole_chunk({"type": "tool_use", "name": name, "input": args if args is not None else {}}))  # fmt: skip
    extra = {
        "message_id": data.get("messageId"),
        "model": data.get("model"),
        "output_tokens": data.get("outputTokens"),
        "thinking": thinking or None,
    }
    return "assistant", chunks, [], extra


def _tool(session: _Session, _: str, data: dict[str, Any]) -> Made:
    call = as_str(data.get("toolCallId"))
    name = session.tools.get(call) or call or "?"
    result, error = as_dict(data.get("result")), as_dict(data.get("error"))
    failed = data.get("success") is False or bool(error)
    said = as_str(result.get("content")) or as_str(error.get("message"))
    chunk = whole_chunk({"type": "tool_result", "name": name, "content": said, "is_error": failed})
    return "tool", [chunk], ["error"] if failed else [], {"tool_call_id": call or None}


def _system(_: _Session, __: str, data: dict[str, Any]) -> Made:
    extra = {"system_role": data.get("role"), "name": data.get("name")}
    return "system", [as_str(data.get("content"))], ["system"], extra


def _notice(_: _Session, kind: str, data: dict[str, Any]) -> Made:
    label = as_str(data.get("errorType")) or as_str(data.get("infoType"))
    label = label or as_str(data.get("warningType")) or as_str(data.get("kind"))
    said = as_str(data.get("message")) or as_str(data.get("reason"))
    head = f"[{kind} {label}]" if label else f"[{kind}]"
    return "system", [f"{head} {said}".rstrip()], ["system"], {}


_MESSAGES = {
    "user.message": _user,
    "assistant.message": _assistant,
    "tool.execution_complete": _tool,
    "system.message": _system,
}


def _attachment(part: dict[str, Any]) -> str:
    kind = as_str(part.get("type")) or "attachment"
    if kind in ("file", "directory"):
        return f"[{kind}] {as_str(part.get('path')) or as_str(part.get('displayName'))}"
    if kind == "selection":
        return f"[selection {as_str(part.get('filePath'))}] {as_str(part.get('text'))}"
    if kind == "blob":
        label = as_str(part.get("displayName")) or None
        media = as_str(part.get("mimeType")) or None
        kind = "image" if (media or "").startswith("image/") else "file"
        return block_chunk({"type": kind, "filename": label, "media_type": media, "data": part.get("data")})  # fmt: skip
    rest = {k: v for k, v in part.items() if k not in ("type", "data")}
    return block_chunk({**rest, "type": kind})


def _time(value: Any) -> str | None:
    try:
        return parse_any(value if isinstance(value, str) else None)
    except ValueError:
        return None


DESCRIPTION = "GitHub Copilot CLI sessions (~/.copilot/session-state/<id>/events.jsonl)"
EXAMPLE = (
    '{"type": "session.start", "data": {"sessionId": "51854430-83f7-4543-a9bf-ec76ead71f59", '
    '"version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.407", "startTime": '
    '"2026-02-04T10:51:40.725Z"}, "id": "…", "timestamp": "2026-02-04T10:51:40.725Z", '
    '"parentId": null}'
)
FIELDS = Fields(
    speaker="`user` (`user.message`), `assistant` (`assistant.message`), `tool` (a tool's "
    "result), `system` (`system.message`, notices and errors)",
    listeners="the other party; a tool's result → the assistant",
    time="`timestamp`",
    zone="ISO times in UTC",
    thread="`copilot-cli:<sessionId>` (else the session's folder or the file's name)",
    id="`copilot-cli:<event id>`; without one, " + CONTENT_HASH,
    scope="none needed: event ids are UUIDs",
    tags="`system` (system messages, notices, errors), `error` (a failed tool)",
    extra="`session` (the start's data, first record), `message_id`, `model`, "
    "`output_tokens`, `tool_call_id`, `source`, `agent_mode`, `agent_id`, `system_role`, "
    "`name`; thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("events.jsonl", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
