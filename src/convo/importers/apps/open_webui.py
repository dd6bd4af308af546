"""Open WebUI chat exports (``open-webui``): Settings → Chats → Export, or a chat's
Download → Export chat (.json).

Shape (open-webui/open-webui ``src/lib/components/chat/Settings/Chats.svelte``
``exportChats``: ``JSON.stringify(await getAllChats())``, the rows of
``backend/open_webui/models/chats.py`` ``ChatResponse``; a chat's own download is the
same list holding it): a JSON array of ``{id, user_id, title, chat, created_at,
updated_at (epoch seconds), share_id, archived, pinned, meta: {tags}, folder_id}``; the
``chat`` object ``{title, models, params: {system?}, history: {messages: {ID: message},
currentId}, messages: [the current branch], tags, timestamp (ms)}``. Older exports (and
the app's import, "legacy format") hold the ``chat`` objects themselves. A message
``{id, parentId, childrenIds, role, content, timestamp (s), model, modelName, files,
sources, info (usage), annotation, error, statusHistory}``; an answer's ``content``
holds ``<details type="reasoning">`` (the model's thinking, each line quoted with
``&gt;``) and ``<details type="tool_calls" name arguments result>`` blocks, HTML-escaped.

Decisions:
- The current branch is read, walked from ``history.currentId`` up ``parentId`` to the
  root (a chat without ``history``: its ``messages`` list); messages on other branches
  (regenerated answers, edits, other models' answers) are counted in one warning.
- speaker: a user message ``user``; an answer its ``modelName``, else ``model``, else
  ``assistant``; each the other's listener (a user message: the model that answered it).
  The chat's system prompt (``params.system``) is a first ``system`` message.
- Text: the content, its details blocks taken out: tool calls as ``[tool_use NAME]
  {args}`` and ``[tool_result NAME] result``, other blocks as ``[TYPE] text``; the
  reasoning goes to ``extra.thinking`` (``--include-thinking``: a ``[thinking]``
  chunk). Files as ``[image]`` / ``[file NAME]``; an error as ``[error] text``.
- time = the message's ``timestamp`` (else the chat's ``created_at``); thread =
  ``open-webui:<chat id>`` (a UUID; a chat without one: the file and its place in it);
  subject = the title; id = ``open-webui:<message id>`` (a UUID; a short one, unique only
  in its chat, ``open-webui:<chat>:<id>``), ``replyTo`` its parent.
- ``extra``: ``model``, ``usage`` (``info``), ``sources``, ``annotation``, ``status``;
  the chat's row without its messages on its first record (``conversation``).
- An element that is not a chat, or a message without a role, is rejected with its place.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import dumps, parse_arguments
from convo.importers.agents.samples import iter_samples, sub
from convo.importers.build import GLOBAL_ID_LENGTH, file_local, file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

NAME = "open-webui"
ROLES = ("user", "assistant", "system")
# A details block Open WebUI writes into an answer: its attributes, summary and body.
_DETAILS = re.compile(
    r'<details\s+type="(?P<type>[\w-]+)"(?P<attrs>[^>]*)>\s*'
    r"(?:<summary>(?P<summary>.*?)</summary>)?(?P<body>.*?)</details>\s*",
    re.S,
)
_ATTR = re.compile(r"""(\w+)=(?:"([^"]*)"|'([^']*)')""")


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    tree = has_key(text, "childrenIds") and has_key(text, "parentId")
    webui = any(has_key(text, k) for k in ("currentId", "modelName", "models"))
    return 90 if tree and webui else 0


def _chat_of(sample: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(the row, the chat) of an export element; None for what is not a chat."""
    if not isinstance(sample, dict):
        return None
    inner = sample.get("chat")
    chat = inner if isinstance(inner, dict) else sample
    if isinstance(as_dict(chat.get("history")).get("messages"), dict):
        return sample, chat
    if isinstance(chat.get("messages"), list):
        return sample, chat
    return None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    other = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        found = _chat_of(sample)
        if found is None:
            ctx.reject(where, "not an Open WebUI chat (chat.history.messages)", sample)
            continue
        row, chat = found
        branch, skipped = _branch(chat)
        other += skipped
        yield from _Chat(row, chat, where, ctx).records(branch)
    if other:
        ctx.warn(
            source.name,
            f"skipped {counted(other, 'message')} on other branches (regenerated answers, edits)",
        )


def _branch(chat: dict[str, Any]) -> tuple[list[Any], int]:
    """The current branch, root first, and how many messages it leaves out."""
    history = as_dict(chat.get("history"))
    messages = history.get("messages")
    if not isinstance(messages, dict):
        return as_list(chat.get("messages")), 0
    current = history.get("currentId")
    if not isinstance(current, str) or current not in messages:
        current = next(reversed(messages), None)  # the newest message
    branch: list[Any] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in messages and current not in seen:
        seen.add(current)
        branch.append(messages[current])
        current = as_dict(messages[current]).get("parentId")
    branch.reverse()
    return branch, len(messages) - len(branch)


class _Chat:
    """One chat's thread, subject and row, and the records of its branch."""

    def __init__(self, row: dict[str, Any], chat: dict[str, Any], where: str, ctx: ImportContext):
        self.ctx = ctx
        self.where = where
        cid = as_str(row.get("id")) or as_str(chat.get("id"))
        self.thread = f"{NAME}:{cid}" if cid else ctx.thread_of(where)
        # the scope of a short message id: the chat (a short chat id: in its file)
        self.scope = file_local(cid, file_scope(ctx.source.name)) if cid else self.thread
        self.subject = as_str(row.get("title")) or as_str(chat.get("title")) or None
        self.started = _time(row.get("created_at"), ctx) or _time(chat.get("timestamp"), ctx)
        tree = ("chat", "history", "messages")
        rest = {k: v for k, v in chat.items() if k not in tree}
        rest.update({k: v for k, v in row.items() if k not in tree})  # the row's id wins
        self.conversation: dict[str, Any] | None = rest

    def records(self, branch: list[Any]) -> Iterator[ConversationMessage]:
        system = as_str(
            as_dict(self.conversation and self.conversation.get("params")).get("system")
        )
        if system.strip():
            yield self._record(
                [system], "system", "system", [], {}, sub(self.ctx, self.where, "system")
            )
        for k, msg in enumerate(branch, 1):
            here = sub(self.ctx, self.where, f"msg-{k}")
            m = as_dict(msg)
            role = as_str(m.get("role"))
            if role not in ROLES:
                self.ctx.reject(here, "not an Open WebUI message (role user, assistant)", msg)
                continue
            following = as_dict(branch[k]) if k < len(branch) else {}
            yield self._message(m, role, following, here)

    def _message(
        self, m: dict[str, Any], role: str, following: dict[str, Any], here: str
    ) -> ConversationMessage:
        include = self.ctx.options.include_thinking
        chunks, thinking = _content_chunks(as_str(m.get("content")), include)
        chunks += [_file_chunk(as_dict(f)) for f in as_list(m.get("files"))]
        error = as_dict(m.get("error"))
        if error:
            chunks.append(f"[error] {as_str(error.get('content')) or dumps(error)}")
        if role == "assistant":
            speaker, listeners = _model(m), ["user"]
        else:
            speaker, listeners = (
                role,
                ([_model(following)] if following.get("role") == "assistant" else []),
            )
        extra = {
            "thinking": thinking or None,
            "model": as_str(m.get("model")) or None,
            "usage": m.get("info") or m.get("usage"),
            "sources": m.get("sources") or m.get("citations"),
            "annotation": m.get("annotation"),
            "status": m.get("statusHistory"),
        }
        mid = as_str(m.get("id"))
        parent = as_str(m.get("parentId"))
        return self._record(chunks, speaker, role, listeners, extra, here,
                            mid=mid, parent=parent, ts=_time(m.get("timestamp"), self.ctx))  # fmt: skip

    def _record(
        self,
        chunks: list[str],
        speaker: str,
        role: str,
        listeners: list[str],
        extra: dict[str, Any],
        here: str,
        *,
        mid: str = "",
        parent: str = "",
        ts: str | None = None,
    ) -> ConversationMessage:
        if self.conversation is not None:
            extra["conversation"], self.conversation = self.conversation, None
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=listeners,
            timestamp=ts or self.started,
            id=self._id(mid),
            source_id=here,
            format=NAME,
            thread=self.thread,
            reply_to=self._id(parent),
            subject=self.subject,
            role=role,
            extra=extra,
        )

    def _id(self, raw: str) -> str | None:
        """``open-webui:<id>`` for a UUID; a short id is unique only in its chat."""
        if not raw:
            return None
        return f"{NAME}:{raw}" if len(raw) >= GLOBAL_ID_LENGTH else f"{NAME}:{self.scope}:{raw}"


def _model(m: dict[str, Any]) -> str:
    return as_str(m.get("modelName")) or as_str(m.get("model")) or "assistant"


def _time(value: Any, ctx: ImportContext) -> str | None:
    try:
        return parse_any(value, ctx.options.tz) if isinstance(value, int | float) else None
    except ValueError:
        return None


def _content_chunks(content: str, include: bool) -> tuple[list[str], list[str]]:
    """(chunks, thinking) of an answer's content, its details blocks taken out."""
    chunks: list[str] = []
    thinking: list[str] = []
    at = 0
    for block in _DETAILS.finditer(content):
        chunks.append(content[at : block.start()].strip())
        at = block.end()
        kind = block["type"]
        attrs = {k: html.unescape(a or b) for k, a, b in _ATTR.findall(block["attrs"])}
        body = _unquoted(html.unescape(block["body"] or "")).strip()
        if kind == "reasoning":
            if include:
                chunks.append(f"[thinking] {body}")
            else:
                thinking.append(body)
        elif kind == "tool_calls":
            chunks += _tool_chunks(attrs, body)
        else:
            summary = html.unescape(block["summary"] or "").strip()
            chunks.append(f"[{kind}] {body or summary}".strip())
    chunks.append(content[at:].strip())
    return [c for c in chunks if c], thinking


def _unquoted(text: str) -> str:
    """A reasoning body without the ``> `` Open WebUI puts before each line."""
    return "\n".join(
        line[2:] if line.startswith("> ") else line.lstrip(">") for line in text.split("\n")
    )


def _tool_chunks(attrs: dict[str, str], body: str) -> list[str]:
    name = attrs.get("name") or attrs.get("id") or "?"
    args = parse_arguments(attrs.get("arguments", ""))
    shown = args.get("input_raw") if "input_raw" in args else dumps(args.get("input"))
    out = [f"[tool_use {name}] {shown}"]
    result = attrs.get("result", body)
    if result or attrs.get("done") == "true":
        try:
            value = orjson.loads(result)
        except orjson.JSONDecodeError:
            value = result
        flag = " error" if attrs.get("error") == "true" else ""
        out.append(
            f"[tool_result {name}{flag}] {value if isinstance(value, str) else dumps(value)}"
        )
    return out


def _file_chunk(f: dict[str, Any]) -> str:
    kind = as_str(f.get("type"))
    name = as_str(f.get("name")) or as_str(as_dict(f.get("file")).get("filename"))
    url = as_str(f.get("url"))
    if kind == "image":
        return "[image] data URL" if url.startswith("data:") else f"[image] {url}".rstrip()
    return f"[file {name or url or kind}]".replace(" ]", "]")


DESCRIPTION = "Open WebUI chat export (chat-export-*.json: chats with their history tree)"
EXAMPLE = (
    '[{"id": "1c9f...", "title": "Sourdough", "chat": {"history": {"currentId": "a1", '
    '"messages": {"u1": {"id": "u1", "parentId": null, "childrenIds": ["a1"], "role": "user", '
    '"content": "Hi", "timestamp": 1717400000}}}}}]'
)
FIELDS = Fields(
    speaker="a user message: `user`; an answer: `modelName`, else `model`; the chat's "
    "system prompt: `system`",
    listeners="user ↔ the model answering",
    time="the message's `timestamp` (epoch seconds), else the chat's `created_at`",
    zone="epoch seconds: UTC",
    thread="`open-webui:<chat id>`; without one, the file and the chat's place in it",
    id="`open-webui:<message id>` (a UUID); a short one `open-webui:<chat>:<id>`; none: "
    + CONTENT_HASH,
    scope="none for the random UUIDs Open WebUI makes; a short id: its chat (a short "
    "chat id: in its file)",
    reply_to="the message's `parentId`",
    subject="the chat's title",
    extra="`model`, `usage` (`info`), `sources`, `annotation` (a rating), `status`; "
    "`conversation` (the chat's row and settings, on its first record); the reasoning "
    "in `thinking` unless `--include-thinking`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
