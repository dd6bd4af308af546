"""LibreChat conversation exports (``librechat``): Export → JSON.

Shape (danny-avila/LibreChat ``client/src/hooks/Conversations/useExportConversation.ts``
``exportJSON``, the tree from ``client/src/hooks/Messages/useBuildMessageTree.ts``):
``{"conversationId", "endpoint", "title", "exportAt" (the browser's
``Date.toTimeString()``), "branches", "recursive", "options"?, "messages": [...]}``; with
"recursive" the messages are ``"messagesTree"``, each with its ``children``. Without
"branches" only the branch on screen is exported; with it every branch. A message
(``TMessage``): ``messageId``, ``parentMessageId`` (the zero UUID for the first),
``conversationId``, ``sender`` (the person's name or ``User``; the model's label:
``GPT-4o``, ``Claude``, an agent's name), ``isCreatedByUser``, ``text``, ``content``
(parts: ``text`` (a string or ``{value}``), ``think``, ``tool_call`` (``name``, ``args``,
``output``; Assistants' ``code_interpreter``, ``retrieval``, ``file_search``),
``image_file``, ``image_url``, ``error``, ``agent_update``), ``model``, ``endpoint``,
``createdAt``, ``error``, ``unfinished``, ``files``, ``tokenCount``, ``feedback``.

Decisions:
- One record a message, in the file's order (a tree depth first); reply_to the parent,
  so branches stay apart.
- speaker = ``sender`` (else ``user``/``assistant``); role ``user`` when
  ``isCreatedByUser``, else ``assistant``; listeners: the parent's sender (a reply), the
  replies' senders (a question).
- Chunks: the ``content`` parts (else ``text``): text as is; ``[tool_use NAME] {args}``
  and ``[tool_result NAME] output``, whole; images and files named. ``think`` parts are
  private: ``extra.thinking`` (``--include-thinking``: ``[thinking]`` chunks). An
  ``error`` message is tagged ``error``, an ``unfinished`` one ``unfinished``.
- time = ``createdAt`` (ISO, UTC). thread = ``librechat:<conversationId>``; id =
  ``librechat:<messageId>`` (LibreChat's UUIDs; a short one ``librechat:<file>:<id>``).
- The conversation's ``title`` is the first message's subject; ``endpoint`` and the
  export's ``options`` go to its ``extra.conversation``; a message's ``model``,
  ``endpoint``, ``tokenCount``, ``feedback``, ``files`` to its ``extra``.
- The file is read whole (an export is one conversation); a value that is not a message
  is rejected with its place. A "recursive" export nests two levels a turn: one of more
  than about 500 turns is deeper than JSON is read here, and is refused with one line
  (export it without "recursive").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk, dumps, whole_chunk
from convo.importers.build import OwnIds, file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "librechat"
NO_PARENT = "00000000-0000-0000-0000-000000000000"
_HEAD = re.compile(r'\A\{\s*"conversationId"\s*:\s*"[^"]*"\s*,\s*"endpoint"\s*:')
_MARK = re.compile(r'"(?:exportAt|messagesTree|isCreatedByUser|parentMessageId)"\s*:')


def sniff(source: Source) -> int:
    text = json_head(source)
    return 92 if _HEAD.match(text) and _MARK.search(text) else 0


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("messageId"), str)
        and bool(value["messageId"])
    )


def _flatten(items: list[Any], where: str) -> Iterator[tuple[Any, str]]:
    """The messages of a list or tree, depth first, each with its place."""
    stack = [(item, f"{where}.{n}") for n, item in reversed(list(enumerate(items, 1)))]
    while stack:
        item, here = stack.pop()
        yield item, here
        kids = as_list(item.get("children")) if isinstance(item, dict) else []
        stack += [(kid, f"{here}.children.{n}") for n, kid in reversed(list(enumerate(kids, 1)))]


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = as_dict(load_json(source))
    key = "messagesTree" if isinstance(doc.get("messagesTree"), list) else "messages"
    found = [(m, ctx.loc(here)) for m, here in _flatten(as_list(doc.get(key)), key)]
    hearers = _hearers([m for m, _ in found if _is_message(m)])
    conversation = as_str(doc.get("conversationId"))
    thread = f"{NAME}:{conversation}" if conversation else ctx.thread_of(source.name)
    first = {
        "title": as_str(doc.get("title")),
        "endpoint": doc.get("endpoint"),
        "options": doc.get("options"),
    }
    own = OwnIds()
    for msg, where in found:
        if not _is_message(msg):
            ctx.reject(where, "not a LibreChat message (messageId)", msg)
            continue
        hears = hearers.get(msg["messageId"], [])
        rec = _record(msg, where, thread, hears, ctx.options.include_thinking, source.name)
        rec.id = own.checked(rec.id, rec.text_chunks)
        if first:
            rec.subject = first.pop("title") or None
            rec.extra = {**(rec.extra or {}), "conversation": {k: v for k, v in first.items() if v}}
            first = {}
        yield rec
    own.close()
    if own.clashes:
        ctx.warn(source.name, own.warning(key="messageId"))


def _hearers(messages: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each message's listeners: its parent's sender (a reply), else its replies' senders."""
    senders = {m["messageId"]: _sender(m) for m in messages}
    replies: dict[str, list[str]] = {}
    for m in messages:
        replies.setdefault(as_str(m.get("parentMessageId")), []).append(senders[m["messageId"]])
    out = {}
    for m in messages:
        parent = as_str(m.get("parentMessageId"))
        out[m["messageId"]] = (
            [senders[parent]] if parent in senders else replies.get(m["messageId"], [])
        )
    return out


def _sender(msg: dict[str, Any]) -> str:
    return as_str(msg.get("sender")) or ("user" if msg.get("isCreatedByUser") else "assistant")


def _record(
    msg: dict[str, Any], where: str, thread: str, hears: list[str], include: bool, name: str
) -> ConversationMessage:
    chunks, thinking = _chunks(msg, include)
    parent = as_str(msg.get("parentMessageId"))
    tags = [t for t in ("error", "unfinished") if msg.get(t) is True]
    return message(
        chunks or [""],
        speaker=_sender(msg),
        listeners=hears,
        timestamp=iso_ts(msg.get("createdAt")),
        id=file_local_id(NAME, msg["messageId"], name),
        source_id=where,
        format=NAME,
        thread=thread,
        reply_to=file_local_id(NAME, parent, name) if parent and parent != NO_PARENT else None,
        role="user" if msg.get("isCreatedByUser") else "assistant",
        tags=tags,
        extra={
            "model": msg.get("model"),
            "endpoint": msg.get("endpoint"),
            "tokenCount": msg.get("tokenCount"),
            "feedback": msg.get("feedback"),
            "files": msg.get("files"),
            "thinking": thinking,
        },
    )


def _chunks(msg: dict[str, Any], include: bool) -> tuple[list[str], list[str]]:
    """A message's chunks (its parts, else its ``text``, then its files) and thinking."""
    chunks: list[str] = []
    thinking: list[str] = []
    for part in map(as_dict, as_list(msg.get("content"))):
        kind = as_str(part.get("type"))
        if kind == "think":
            said = _text(part.get("think"))
            (chunks if include else thinking).append(f"[thinking] {said}" if include else said)
        else:
            chunks += _part(kind, part)
    if not chunks:
        chunks.append(as_str(msg.get("text")))
    for f in map(as_dict, as_list(msg.get("files"))):
        chunks.append(block_chunk({"type": "image" if as_str(f.get("type")).startswith("image/") else "file",
                                   "filename": as_str(f.get("filename")) or None}))  # fmt: skip
    return chunks, [t for t in thinking if t]


def _text(value: Any) -> str:
    """A text part's value: a string, or ``{"value": ...}``."""
    return as_str(as_dict(value).get("value")) if isinstance(value, dict) else as_str(value)


def _part(kind: str, part: dict[str, Any]) -> list[str]:
    if kind in ("text", "error"):
        said = _text(part.get(kind))
        return [f"[error] {said}" if kind == "error" else said]
    if kind == "tool_call":
        call = as_dict(part.get("tool_call"))
        name = (
            as_str(call.get("name"))
            or as_str(as_dict(call.get("function")).get("name"))
            or as_str(call.get("type"))
        )
        args = call.get(
            "args",
            as_dict(call.get("function")).get("arguments", call.get(as_str(call.get("type")))),
        )
        used = [
            whole_chunk(
                {
                    "type": "tool_use",
                    "name": name,
                    "input_raw": args if isinstance(args, str) else dumps(args),
                }
            )
        ]
        output = call.get("output", as_dict(call.get("function")).get("output"))
        if output is not None:
            used.append(
                whole_chunk(
                    {"type": "tool_result", "name": name, "content": _text(output) or dumps(output)}
                )
            )
        return used
    if kind in ("image_file", "image_url"):
        inner = as_dict(part.get(kind))
        url = as_str(inner.get("url")) or as_str(inner.get("filepath"))
        return [
            block_chunk(
                {
                    "type": "image",
                    "url": url or None,
                    "filename": as_str(inner.get("file_id")) or None,
                }
            )
        ]
    return [block_chunk({**part, "type": kind or "unknown"})]


DESCRIPTION = "LibreChat conversation exports (Export → JSON: messages or messagesTree)"
EXAMPLE = (
    '{"conversationId": "c1b0a7f4-2d3e-4f5a-8b9c-0d1e2f3a4b5c", "endpoint": "openAI", '
    '"title": "Hello", "exportAt": "10:00:00 GMT+0000", "branches": false, "recursive": false, '
    '"messages": [{"messageId": "m1", "parentMessageId": "00000000-0000-0000-0000-000000000000", '
    '"sender": "User", "isCreatedByUser": true, "text": "Hi", "createdAt": "2025-05-01T10:00:00.000Z"}]}'
)
FIELDS = Fields(
    speaker="`sender` (the person's name or `User`; the model's label)",
    listeners="the parent's sender (a reply); the replies' senders (a question)",
    time="`createdAt`",
    zone="ISO with `Z`: UTC",
    thread="`librechat:<conversationId>`",
    id="`librechat:<messageId>` (short: `librechat:<file>:<messageId>`)",
    scope="none needed: LibreChat's message ids are random UUIDs",
    reply_to="the parent message (`parentMessageId`)",
    subject="the conversation's `title`, on its first message",
    tags="`error`, `unfinished`",
    extra="`model`, `endpoint`, `tokenCount`, `feedback`, `files`; `conversation` (endpoint, "
    "options) on the first; thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
