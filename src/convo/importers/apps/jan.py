"""Jan threads (``jan``): ``<Jan data folder>/threads/<thread>/messages.jsonl``, beside the
thread's ``thread.json``.

Shape (janhq/jan ``src-tauri/src/core/threads/commands.rs`` and ``constants.rs``: one
folder a thread, ``thread.json`` its metadata, ``messages.jsonl`` one message a line,
appended; ``core/src/types/message/messageEntity.ts``: ``ThreadMessage``;
``web-app/src/types/message.d.ts``: the tool calls of its metadata;
``docs/docs/specs/threads.md`` and ``messages.md`` for the 0.4 layout): a message is
``{"id": ULID or uuid, "object": "thread.message", "thread_id", "assistant_id", "role":
user | assistant | system | tool, "content": [{"type": "text" | "reasoning", "text":
{"value", "annotations"}}, {"type": "image_url", "image_url": {"url", "detail"}},
{"type": "tool_call", "tool_call_id", "tool_name", "input", "output"}], "status": ready
| pending | error | stopped, "created_at", "completed_at", "metadata": {"tool_calls":
[{"tool": {"id", "function": {"name", "arguments"}}, "response": {"content": [...]},
"state"}], "inline_file_contents": [{"name", "content"}], ...}, "type": "text",
"error_code", "attachments", "tool_call_id"}``. Times are epoch seconds (0.4's specs) or
milliseconds (the apps since), 0 when never set. ``thread.json`` is ``{"id", "object":
"thread", "title", "updated", "assistants": [{"assistant_id", "model": {"id"}}],
"model": {"id", "provider"}, "metadata"}``. The shape is OpenAI's Assistants
``thread.message`` (read by ``openai-assistants``), told apart by ids that are not
OpenAI's (``msg_``, ``thread_``) and Jan's own keys.

Decisions:
- One record a line; speaker = the role; listeners the other party (a tool's output →
  the assistant).
- Chunks in order: text; a leading ``<think>...</think>`` in an assistant's text and
  ``reasoning`` parts are private: ``extra.thinking`` (``--include-thinking``:
  ``[thinking]`` chunks); images ``[image ...]`` (a data URL named by its type and
  size); ``[tool_use NAME] {input}`` and ``[tool_result NAME] output`` for tool-call
  parts and the metadata's tool calls; inline files ``[file NAME]`` (their text in
  ``extra.files``).
- A message that failed (``status`` error) is tagged ``error`` (``error_code`` in
  ``extra``); one whose streaming was stopped ``stopped``.
- time = ``created_at`` (ms or s, UTC); 0: unknown (the epoch; counted in one warning).
- thread = ``jan:<thread_id>``; subject = the sibling ``thread.json``'s ``title``, on
  the first record; id = ``jan:<id>`` (ULIDs and uuids are unique everywhere; a short
  id: ``jan:<thread>:<id>``, docs/ids.md).
- ``thread.json`` holds no message: beside its ``messages.jsonl`` it is read as that
  file's title and says nothing (a data folder of hundreds of threads gives no hundred
  warnings); alone it is recognised and named in a warning
  (its title goes with ``messages.jsonl``).
- A line that is not JSON or not a message is rejected with its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import ConvoError
from convo.core.io import Source, load_json
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import (
    block_chunk,
    dumps,
    normalise_block,
    result_text,
    whole_chunk,
)
from convo.importers.agents.samples import sample_values
from convo.importers.build import GLOBAL_ID_LENGTH, message, scoped_id
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head, json_lines
from convo.importers.registry import Format

NAME = "jan"
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"], "system": []}
_THINK = re.compile(r"\A\s*<think>(.*?)(?:</think>|\Z)\s*", re.S)
_THREAD_OBJECT = re.compile(r'"object"\s*:\s*"thread"')
_THREAD_KEYS = re.compile(r'"(?:assistants|title)"\s*:')


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("object") == "thread.message"
        and isinstance(value.get("content"), list)
    )


def _not_openai(value: dict[str, Any]) -> bool:
    mid, thread = as_str(value.get("id")), as_str(value.get("thread_id"))
    return bool(thread) and not mid.startswith("msg_") and not thread.startswith("thread_")


def _is_thread(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("object") == "thread"
        and ("assistants" in value or "title" in value)
    )


def sniff(source: Source) -> int:
    """JSON lines of ``thread.message`` objects whose ids are not OpenAI's and that carry
    Jan's keys; or a ``thread.json``."""
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    if _thread_file(source, text):
        return 88
    values = sample_values(text)
    messages = [v for v in values if _is_message(v)]
    if not messages or len(messages) * 2 < len(values):
        return 0
    if all(_not_openai(v) for v in messages) and any(_jan_keys(v) for v in messages):
        return 93
    return 0


def _jan_keys(value: dict[str, Any]) -> bool:
    """Keys Jan writes and OpenAI's messages do not have (``type`` on the message,
    ``error_code``, ``tool_call_id``), or its content kinds."""
    if any(k in value for k in ("type", "error_code", "tool_call_id")):
        return True
    kinds = {as_str(as_dict(p).get("type")) for p in value["content"]}
    return bool(kinds & {"reasoning", "tool_call"})


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if _thread_file(source, json_head(source)):
        # beside its messages.jsonl (a data folder's every thread), it is that file's
        # title, said nothing of; alone, it is named so that nothing looks read
        if source.path is None or not (source.path.parent / "messages.jsonl").is_file():
            ctx.warn(source.name, "a Jan thread's metadata (its title) with no "
                     "messages.jsonl beside it: no messages")  # fmt: skip
        return
    thread = _Thread(source, ctx)
    for _, where, value in json_lines(source, ctx):
        if not _is_message(value):
            ctx.reject(where, "not a Jan message (object thread.message, content)", value)
            continue
        yield thread.record(value, where)
    if thread.undated:
        ctx.warn(source.name, f"{counted(thread.undated, 'message')} without a time (created_at 0 "
                 "or missing): the epoch")  # fmt: skip


def _thread_file(source: Source, text: str) -> bool:
    """A Jan ``thread.json``: an object ``"object": "thread"`` (pretty-printed by the app,
    one line in 0.4's files) with its ``assistants`` or ``title``."""
    if not _THREAD_OBJECT.search(text) or not _THREAD_KEYS.search(text):
        return False
    values = sample_values(text)
    return not values or (len(values) == 1 and _is_thread(values[0]))


class _Thread:
    """One messages.jsonl: its thread's title (for the first record)."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.subject = _title(source)
        self.undated = 0

    def record(self, msg: dict[str, Any], where: str) -> ConversationMessage:
        role = as_str(msg.get("role")) or "assistant"
        parts = _Parts(self.ctx.options.include_thinking, role)
        for part in as_list(msg.get("content")):
            parts.part(part)
        meta = as_dict(msg.get("metadata"))
        for call in as_list(meta.get("tool_calls")):
            parts.meta_call(as_dict(call))
        files = [as_dict(f) for f in as_list(meta.get("inline_file_contents"))]
        parts.chunks += [f"[file {as_str(f.get('name')) or '?'}]" for f in files]
        status = as_str(msg.get("status"))
        thread = as_str(msg.get("thread_id"))
        own = as_str(msg.get("id"))
        subject, self.subject = self.subject, None
        when = _time(msg.get("created_at"))
        self.undated += when is None
        return message(
            parts.chunks or [""],
            speaker=role,
            listeners=OTHER.get(role, []),
            timestamp=when,
            id=_id(own, thread) if own else None,
            source_id=where,
            format=NAME,
            thread=f"{NAME}:{thread}" if thread else self.ctx.thread_of(where),
            subject=subject,
            role=role if role in OTHER else None,
            tags=[status] if status in ("error", "stopped") else [],
            extra={
                "thinking": parts.thinking,
                "error_code": as_str(msg.get("error_code")),
                "assistant_id": as_str(msg.get("assistant_id")),
                "tool_call_id": as_str(msg.get("tool_call_id")),
                "files": files,
                "attachments": as_list(msg.get("attachments")),
                "annotations": parts.annotations,
            },
        )


def _id(own: str, thread: str) -> str:
    return f"{NAME}:{own}" if len(own) >= GLOBAL_ID_LENGTH else scoped_id(NAME, thread or None, own)


def _time(value: Any) -> str | None:
    if value in (0, None, ""):
        return None
    try:
        return parse_any(value)
    except ValueError:
        return None


def _title(source: Source) -> str | None:
    """The ``title`` of the ``thread.json`` beside a messages file, when there is one."""
    if source.is_stdin or source.path is None:
        return None
    beside = source.path.parent / "thread.json"
    if not beside.is_file():
        return None
    try:
        value = load_json(Source(beside))
    except (ConvoError, OSError):
        return None
    return as_str(as_dict(value).get("title")) or None


class _Parts:
    """The chunks of one message, its thinking and annotations."""

    def __init__(self, include_thinking: bool, role: str):
        self.include = include_thinking
        self.role = role
        self.chunks: list[str] = []
        self.thinking: list[str] = []
        self.annotations: list[Any] = []

    def think(self, said: str) -> None:
        if self.include:
            self.chunks.append(f"[thinking] {said}")
        else:
            self.thinking.append(said)

    def part(self, part: Any) -> None:
        p = as_dict(part)
        kind = as_str(p.get("type"))
        text = as_dict(p.get("text"))
        if kind == "text":
            self.annotations += as_list(text.get("annotations"))
            self.text(as_str(text.get("value")) or as_str(p.get("text")))
        elif kind == "reasoning":
            self.think(as_str(text.get("value")) or as_str(p.get("text")))
        elif kind == "tool_call":
            name = as_str(p.get("tool_name")) or as_str(p.get("tool_call_id")) or "?"
            self.chunks.append(
                whole_chunk({"type": "tool_use", "name": name, "input": p.get("input") or {}})
            )
            if "output" in p:
                self.chunks.append(
                    whole_chunk(
                        {
                            "type": "tool_result",
                            "name": name,
                            "content": result_text(p.get("output")),
                        }
                    )
                )
        elif p:
            self.chunks.append(block_chunk(normalise_block(p)))
        else:
            self.chunks.append(dumps(part))

    def text(self, value: str) -> None:
        found = _THINK.match(value) if self.role == "assistant" else None
        if found:
            self.think(found.group(1).strip())
            value = value[found.end() :]
        if value:
            self.chunks.append(value)

    def meta_call(self, call: dict[str, Any]) -> None:
        tool = as_dict(call.get("tool"))
        function = as_dict(tool.get("function"))
        name = as_str(function.get("name")) or as_str(tool.get("id")) or "?"
        self.chunks.append(
            whole_chunk(
                {"type": "tool_use", "name": name, "input": function.get("arguments") or {}}
            )
        )
        response = as_dict(call.get("response"))
        if response:
            content = response.get("content")
            text = "\n".join(as_str(as_dict(c).get("text")) or dumps(c) for c in as_list(content))
            self.chunks.append(
                whole_chunk(
                    {
                        "type": "tool_result",
                        "name": name,
                        "content": text,
                        "is_error": response.get("isError") is True,
                    }
                )
            )


DESCRIPTION = "Jan threads (threads/<id>/messages.jsonl, with thread.json's title)"
EXAMPLE = (
    '{"id": "01JQ3V8K2PA1B2C3D4E5F6G7H8", "object": "thread.message", "thread_id": '
    '"0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09", "role": "user", "content": [{"type": "text", '
    '"text": {"value": "hi", "annotations": []}}], "status": "ready", "created_at": '
    '1742461200000, "completed_at": 1742461200000, "type": "text"}'
)
FIELDS = Fields(
    speaker="the role",
    listeners="the other party; a tool's output → the assistant",
    time="`created_at` (epoch ms, or seconds in 0.4's files)",
    zone="epoch: UTC",
    thread="`jan:<thread_id>`",
    id="`jan:<id>` (ULID or uuid; a short id: `jan:<thread>:<id>`)",
    scope="none (a short id: its thread)",
    subject="the `title` of the `thread.json` beside the file, on its first record",
    tags="`error`, `stopped` (the message's status)",
    extra="`error_code`, `assistant_id`, `tool_call_id`, `files` (inline files' text), "
    "`attachments`, `annotations`; thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("messages.jsonl", "thread.json", "*.jsonl"), sniff, read,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
