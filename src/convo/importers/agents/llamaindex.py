"""LlamaIndex chat stores (``llamaindex``): ``SimpleChatStore.persist()``'s
``chat_store.json``.

Shape (run-llama/llama_index ``llama-index-core/llama_index/core/storage/chat_store/
simple_chat_store.py``, messages from ``llama_index/core/base/llms/types.py``):
``{"store": {KEY: [ChatMessage...]}, "class_name": "SimpleChatStore"}``, one list a
chat key (a user, a session); older versions wrote that object as a JSON string
(``from_persist_path`` still reads both). A ``ChatMessage`` is ``{"role": system |
developer | user | assistant | function | tool | chatbot | model, "additional_kwargs":
{...}, "blocks": [...]}``; before 0.12 (December 2024) ``{"role", "content",
"additional_kwargs"}``. Blocks (``block_type``): ``text``, ``image`` (``image`` base64,
``path``, ``url``, ``image_mimetype``), ``audio``, ``video``, ``document`` (``data``,
``path``, ``url``, ``title``), ``cache``, ``citable``, ``citation``, ``thinking``
(``content``), ``tool_call`` (``tool_call_id``, ``tool_name``, ``tool_kwargs``). OpenAI
tool calls live in ``additional_kwargs.tool_calls``, a tool message's call in
``additional_kwargs.tool_call_id`` and ``name``.

Decisions:
- One record a message; speaker = the role (``chatbot``/``model`` as written);
  listeners the other party (a tool's answer → the assistant).
- Chunks in block order: text as is; ``[tool_use NAME] {args}`` (a ``tool_call`` block or
  ``additional_kwargs.tool_calls``), whole; a ``tool``/``function`` message
  ``[tool_result NAME] ...`` (its ``name``, else the call it answers); media named
  (``[image URL]``, ``[image image/png, N bytes]``); citations as ``[citation TITLE]
  text``; cache points dropped. Thinking is private: ``extra.thinking``
  (``--include-thinking``: ``[thinking]`` chunks).
- The store keeps no times: the epoch sentinel, one warning a file.
- thread = ``llamaindex:<key>`` (a key shorter than 16 characters, ``chat_history``,
  ``user1``: ``llamaindex:<file>:<key>``, as every app's store has one). id = the
  content hash.
- ``extra``: ``additional_kwargs`` (less the tool calls, kept in ``blocks``), ``blocks``.
- The file is read whole (a store is one object); a key whose value is not a list and
  an element that is not a message are rejected with their place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.importers.agents.blocks import parse_arguments, tool_use_block, whole_chunk
from convo.importers.build import file_local, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "llamaindex"
ROLES = frozenset(
    ("system", "developer", "user", "assistant", "function", "tool", "chatbot", "model")
)
OTHER = {"user": ["assistant"], "assistant": ["user"], "chatbot": ["user"], "model": ["user"]}
_STORE = re.compile(r'\A"?\{\s*\\?"store\\?"\s*:\s*\{')
_MESSAGE = re.compile(r'\\?"role\\?"\s*:\s*\\?"(?:' + "|".join(ROLES) + r')\\?"')
_LLAMA = re.compile(r'\\?"(?:additional_kwargs|block_type)\\?"\s*:|SimpleChatStore')
MEDIA = {
    "image": "image_mimetype",
    "audio": "format",
    "video": "video_mimetype",
    "document": "document_mimetype",
}
DATA = {"image": "image", "audio": "audio", "video": "video", "document": "data"}


def sniff(source: Source) -> int:
    text = json_head(source)
    if _STORE.match(text) and _MESSAGE.search(text) and _LLAMA.search(text):
        return 90
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc: Any = load_json(source)
    if isinstance(doc, str):  # older versions persisted the store's JSON as a string
        try:
            doc = orjson.loads(doc)
        except orjson.JSONDecodeError:
            doc = None
    store = as_dict(doc).get("store")
    if not isinstance(store, dict):
        ctx.reject(source.name, "not a LlamaIndex chat store (no store object)", doc)
        return
    file = ctx.thread_of(source.name)  # the file as build.file_scope names it
    untimed = 0
    for key, messages in store.items():
        here = ctx.loc(f"store.{key}")
        if not isinstance(messages, list):
            ctx.reject(here, "not a list of chat messages", messages)
            continue
        chat = _Chat(ctx, f"{NAME}:{file_local(key, file)}")
        for n, msg in enumerate(messages, 1):
            rec = chat.record(msg, f"{here}.{n}")
            if rec is not None:
                untimed += 1
                yield rec
    if untimed:
        ctx.warn(source.name, "a chat store keeps no times: the epoch sentinel")


class _Chat:
    """One key's messages: the thread and the names of its tool calls."""

    def __init__(self, ctx: ImportContext, thread: str):
        self.ctx = ctx
        self.thread = thread
        self.tools: dict[str, str] = {}

    def record(self, msg: Any, where: str) -> ConversationMessage | None:
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str) or not msg["role"]:
            self.ctx.reject(where, "not a LlamaIndex chat message (role, blocks)", msg)
            return None
        role = msg["role"]
        kwargs = dict(as_dict(msg.get("additional_kwargs")))
        blocks = self._blocks(msg, kwargs)
        thinking = [b["thinking"] for b in blocks if b.get("type") == "thinking" and b["thinking"]]
        include = self.ctx.options.include_thinking
        chunks = [_chunk(b) for b in blocks if include or b.get("type") != "thinking"]
        if role in ("tool", "function"):
            chunks = [self._result(kwargs, chunks)]
        return message(
            chunks or [""],
            speaker=role,
            listeners=OTHER.get(role, ["assistant"]),
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=role,
            extra={
                "additional_kwargs": kwargs,
                "blocks": None if all(b.get("type") == "text" for b in blocks) else blocks,
                "thinking": [] if include else thinking,
            },
        )

    def _result(self, kwargs: dict[str, Any], chunks: list[str]) -> str:
        """A tool's answer: ``[tool_result NAME] ...`` (its ``name``, else the call's)."""
        call = as_str(kwargs.get("tool_call_id"))
        name = as_str(kwargs.get("name")) or self.tools.get(call) or call
        return whole_chunk({"type": "tool_result", "name": name, "content": "\n".join(chunks)})

    def _blocks(self, msg: dict[str, Any], kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        """The message's blocks, normalised (``type``), its OpenAI tool calls after them."""
        raw = msg.get("blocks")
        if raw is None and "content" in msg:  # before 0.12
            content = msg.get("content")
            raw = (
                [{"block_type": "text", "text": content}]
                if isinstance(content, str)
                else as_list(content)
            )
        blocks = [_block(as_dict(b)) for b in as_list(raw)]
        calls = kwargs.pop("tool_calls", None)
        for call in as_list(calls):
            blocks.append(tool_use_block(as_dict(call)))
        if calls is not None and not isinstance(calls, list):
            kwargs["tool_calls"] = calls  # not a list: kept as written
        for b in blocks:
            if b.get("type") == "tool_use":
                self.tools[as_str(b.get("id"))] = as_str(b.get("name"))
        return [b for b in blocks if b.get("type") != "cache"]


def _media(kind: str, b: dict[str, Any]) -> dict[str, Any]:
    out = {
        "type": "file" if kind == "document" else kind,
        "url": as_str(b.get("url")) or as_str(b.get("path")) or None,
        "media_type": as_str(b.get(MEDIA[kind])) or None,
        "data": as_str(b.get(DATA[kind])) or None,
        "title": as_str(b.get("title")) or None,
    }
    return {k: v for k, v in out.items() if v is not None}


def _cited(kind: str, b: dict[str, Any]) -> dict[str, Any]:
    inner = b.get("content", b.get("cited_content"))
    items = inner if isinstance(inner, list) else [inner]
    text = "\n".join(
        as_str(as_dict(i).get("text")) if isinstance(i, dict) else as_str(i) for i in items
    )
    return {
        "type": kind,
        "title": as_str(b.get("title")),
        "source": as_str(b.get("source")),
        "text": text,
    }


_BLOCKS: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "text": lambda _, b: {"type": "text", "text": as_str(b.get("text"))},
    "thinking": lambda _, b: {"type": "thinking", "thinking": as_str(b.get("content"))},
    "tool_call": lambda _, b: {
        "type": "tool_use",
        "id": as_str(b.get("tool_call_id")) or None,
        "name": as_str(b.get("tool_name")),
        **parse_arguments(b.get("tool_kwargs")),
    },
    **dict.fromkeys(MEDIA, _media),
    "citable": _cited,
    "citation": _cited,
}


def _block(b: dict[str, Any]) -> dict[str, Any]:
    """A LlamaIndex content block (``block_type``) as a normalised block (``type``)."""
    kind = as_str(b.get("block_type")) or "unknown"
    make = _BLOCKS.get(kind)
    return (
        make(kind, b)
        if make
        else {"type": kind, **{k: v for k, v in b.items() if k != "block_type"}}
    )


def _chunk(b: dict[str, Any]) -> str:
    if b.get("type") in ("citable", "citation"):
        return f"[{b['type']} {b.get('title') or b.get('source')}] {b.get('text')}"
    return whole_chunk(b)


DESCRIPTION = "LlamaIndex chat stores (SimpleChatStore.persist(): chat_store.json)"
EXAMPLE = (
    '{"store": {"user1": [{"role": "user", "additional_kwargs": {}, '
    '"blocks": [{"block_type": "text", "text": "Hi"}]}]}, "class_name": "SimpleChatStore"}'
)
FIELDS = Fields(
    speaker="the role",
    listeners="the other party (user ↔ assistant; a tool's answer → the assistant)",
    time="none kept: the epoch sentinel, with one warning a file",
    zone="no times",
    thread="`llamaindex:<key>` (a key under 16 characters: `llamaindex:<file>:<key>`)",
    id=CONTENT_HASH,
    scope="the thread (the store's key, in its file when short)",
    extra="`additional_kwargs` (less the tool calls), `blocks` (tool calls whole, media); "
    "thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("chat_store.json", "*.json"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
