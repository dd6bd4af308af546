"""claude.ai data export ``conversations.json`` (Settings → Privacy → Export data).

Shape (from users' parsers of real exports: Sinity/polylogue ``docs/providers/claude-ai.md``,
and the TypeScript types of several exporters found with the code search): a JSON array of
conversations ``{uuid, name, summary, created_at, updated_at, account: {uuid},
current_leaf_message_uuid?, chat_messages: [...]}``; each message ``{uuid, sender:
"human"|"assistant", text, content?, created_at, updated_at, attachments: [{file_name,
file_size, file_type, extracted_content}], files: [{file_name}], files_v2?,
parent_message_uuid?}``. Older exports have only ``text``; current ones add ``content``
blocks: ``text`` (with ``citations``), ``thinking`` (``thinking``, ``summaries``),
``tool_use`` (``name``, ``input``), ``tool_result`` (``name``, ``content``, ``is_error``),
each with ``start_timestamp``/``stop_timestamp``.

Decisions:
- speaker = role: ``human`` → ``user``, ``assistant`` → ``assistant`` (the export names no
  person; the original ``sender`` is kept in ``extra.sender`` when it differs); each is
  the other's listener. An unknown sender is the speaker as spelled, without a role.
- thread = conversation ``uuid`` (else a hash of name and created_at), subject = ``name``,
  id = ``claude-ai:<message uuid>`` (``claude-ai:<thread>:<index>`` without one),
  replyTo = the parent message when it is in the conversation, else the previous message.
- timestamp = message ``created_at`` (else the conversation's, ``extra.time_from``).
- Chunks: with ``content`` blocks, one chunk a block (``text`` as is, ``tool_use`` /
  ``tool_result`` as ``[tool_use NAME] {...}`` / ``[tool_result NAME] ...`` lines, other
  block types ``[type] {...}``); without blocks, ``text``. An artifact reads as the
  artifact panel shows it (``convo.importers.apps.claude_ai_artifacts``); a search
  result's pages as ``[knowledge] TITLE URL`` and their text; ``token_budget`` blocks
  (budget checkpoints between tool calls: times only) show nothing. Attachments become
  ``[attachment NAME]`` chunks (their ``extracted_content`` in ``extra.attachments``), but
  a long paste (an attachment without a name) is a chunk of its text; files
  ``[file NAME]`` chunks. Non-text blocks are kept verbatim in ``extra.blocks``.
- Thinking is private: never in the text by default. Its text (and summaries) go to
  ``extra.thinking``. ``ImportOptions.include_thinking`` (``--include-thinking``) puts
  each thinking block in its own ``[thinking] ...`` chunk instead.
- Messages off the current branch (edits; known from ``current_leaf_message_uuid`` and
  parent links) are kept, tagged ``off-branch`` (``-tag:off-branch``: the conversation
  as the app shows it) and marked ``extra.off_branch = true``.
- Text-block ``citations`` are kept in ``extra.citations``.
- A message with no text, block, attachment or file is skipped, counted in one warning
  (one holding only thinking is kept, with an empty chunk and its ``extra.thinking``).
- The list is streamed one conversation at a time; one conversation object (or
  ``{"conversations": [...]}``) is read whole.
- The export's other files (``users.json``, ``projects.json``, ``memories.json``) are
  recognised and read no message (``convo.importers.apps.claude_ai_sidecars``).

Ids and their scope (docs/ids.md): message uuids, unique everywhere (``claude-
ai:<uuid>``, no scope).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk
from convo.importers.apps.claude_ai_artifacts import artifact_text
from convo.importers.apps.claude_ai_sidecars import report, sidecar
from convo.importers.apps.common import OFF_BRANCH, EmptyCounter
from convo.importers.apps.export_zip import conversations_head, is_zip, read_conversations
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "claude-ai"
ROLES = {"human": "user", "user": "user", "assistant": "assistant"}
OTHER = {"user": "assistant", "assistant": "user"}


def sniff(source: Source) -> int:
    if is_zip(source):  # the export as downloaded (``apps.export_zip``)
        text = conversations_head(source)
        text = text if has_key(text, "chat_messages") else ""
        if not text:
            return 0
    else:
        text = json_head_with(source, key="chat_messages")
    if not text:
        return 80 if sidecar(source) else 0
    if has_key(text, "mapping"):
        return 0  # a ChatGPT export
    if has_key(text, "sender") or has_key(text, "uuid"):
        return 92
    return 60


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read an export; thinking goes to extra, or to ``[thinking]`` chunks with
    ``ctx.options.include_thinking``."""
    if is_zip(source):
        yield from read_conversations(source, ctx, read)
        return
    kind = sidecar(source)
    if kind:
        report(source, kind, ctx)
        return
    include_thinking = ctx.options.include_thinking
    empty = EmptyCounter()
    for c, conv in enumerate(_conversations(source), 1):
        loc = ctx.loc(f"conv-{c}")
        if not isinstance(conv, dict) or not isinstance(conv.get("chat_messages"), list):
            ctx.reject(loc, "not a claude.ai conversation (no chat_messages list)", conv)
            continue
        yield from _conversation(conv, c, ctx, empty, include_thinking)
    empty.report(ctx)


def _conversations(source: Source) -> Iterable[Any]:
    if json_head_with(source, opens="{"):
        doc = load_json(source)
        if isinstance(doc, dict) and isinstance(doc.get("conversations"), list):
            return list(doc["conversations"])
        return [doc]
    stream = StreamedDoc(source, ())
    stream.expect("not a claude.ai conversations.json (expected a list)")
    return (item for item, _ in stream.items())


def _thread(conv: dict[str, Any]) -> str:
    thread = as_str(conv.get("uuid")) or as_str(conv.get("conversation_id"))
    if thread:
        return thread
    key = f"{as_str(conv.get('name'))}\x1f{as_str(conv.get('created_at'))}"
    return "claude-ai-" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def _current_branch(msgs: list[Any], leaf: str) -> set[str] | None:
    """Uuids on the branch ending at ``leaf``; None when it cannot be told."""
    parents = {
        as_str(m.get("uuid")): as_str(m.get("parent_message_uuid"))
        for m in msgs
        if isinstance(m, dict) and as_str(m.get("uuid"))
    }
    if not leaf or leaf not in parents or not any(parents.values()):
        return None
    on: set[str] = set()
    node = leaf
    while node in parents and node not in on:
        on.add(node)
        node = parents[node]
    return on


class _Conv:
    """What every message of one conversation shares."""

    def __init__(self, conv: dict[str, Any]):
        self.conv = conv
        self.thread = _thread(conv)
        self.title = as_str(conv.get("name"))
        self.time = iso_ts(conv.get("created_at"))
        msgs = conv["chat_messages"]
        self.known = {as_str(m.get("uuid")) for m in msgs if isinstance(m, dict)} - {""}
        self.branch = _current_branch(msgs, as_str(conv.get("current_leaf_message_uuid")))


def _conversation(
    conv: dict[str, Any], c: int, ctx: ImportContext, empty: EmptyCounter, thinking: bool
) -> Iterator[ConversationMessage]:
    cv = _Conv(conv)
    prev: str | None = None
    for k, msg in enumerate(conv["chat_messages"], 1):
        where = ctx.loc(f"conv-{c}.msg-{k}")
        if not isinstance(msg, dict):
            ctx.reject(where, "not a claude.ai message (expected an object)", msg)
            continue
        chunks, extra = _content(msg, thinking)
        if not any(x.strip() for x in chunks) and not extra["thinking"]:
            empty.skip(where)
            continue
        rec = _record(msg, k, where, cv, chunks, extra, prev)
        prev = rec.id
        yield rec


def _record(
    msg: dict[str, Any],
    k: int,
    where: str,
    cv: _Conv,
    chunks: list[str],
    extra: dict[str, Any],
    prev: str | None,
) -> ConversationMessage:
    uuid = as_str(msg.get("uuid"))
    parent = as_str(msg.get("parent_message_uuid"))
    sender = as_str(msg.get("sender"))
    role = ROLES.get(sender)
    ts = iso_ts(msg.get("created_at"))
    off = cv.branch is not None and uuid not in cv.branch
    extra.update(
        sender=sender if sender not in ("user", "assistant") else None,
        time_from="conversation" if ts is None and cv.time else None,
        off_branch=True if off else None,
        conversation=_conv_extra(cv.conv) if k == 1 else None,
    )
    return message(
        chunks,
        speaker=role or sender or None,
        listeners=[OTHER[role]] if role else [],
        timestamp=ts or cv.time,
        id=f"{NAME}:{uuid}" if uuid else f"{NAME}:{cv.thread}:{k}",
        source_id=where,
        format=NAME,
        thread=cv.thread,
        reply_to=f"{NAME}:{parent}" if parent in cv.known else prev,
        subject=cv.title,
        role=role,
        tags=[OFF_BRANCH] if off else None,
        extra=extra,
    )


def _conv_extra(conv: dict[str, Any]) -> dict[str, Any]:
    keep = ("summary", "updated_at", "account", "project", "model")
    return {k: conv[k] for k in keep if conv.get(k) not in (None, "", {}, [])}


class _Blocks:
    """Chunks and extras from one message's ``content`` blocks."""

    def __init__(self, include_thinking: bool):
        self.include = include_thinking
        self.chunks: list[str] = []
        self.blocks: list[Any] = []
        self.thoughts: list[dict[str, Any]] = []
        self.citations: list[Any] = []

    def add(self, block: Any) -> None:
        b = as_dict(block)
        kind = as_str(b.get("type"))
        if kind == "text":
            self.chunks.append(as_str(b.get("text")))
            self.citations.extend(as_list(b.get("citations")))
        elif kind in ("thinking", "redacted_thinking"):
            body = as_str(b.get("thinking"))
            if self.include:
                self.chunks.append(f"[thinking] {body}" if body else f"[{kind}]")
            else:
                self.thoughts.append(_thought(b, kind))
        elif kind == "token_budget":  # a budget checkpoint: times only, nothing shown
            self.blocks.append(block)
        else:
            self.blocks.append(block)
            shown = artifact_text(b) if kind == "tool_use" else None
            self.chunks.append(shown or (block_chunk(_labelled(b)) if b else f"[block] {block!r}"))


def _content(msg: dict[str, Any], include_thinking: bool) -> tuple[list[str], dict[str, Any]]:
    """Readable chunks of one message, and what goes to ``extra``."""
    acc = _Blocks(include_thinking)
    content = [b for b in as_list(msg.get("content")) if b is not None]
    for block in content:
        acc.add(block)
    chunks = acc.chunks if content else [as_str(msg.get("text"))]
    attachments = [as_dict(a) for a in as_list(msg.get("attachments"))]
    chunks += [_attachment_chunk(a) for a in attachments]
    files = as_list(msg.get("files")) or as_list(msg.get("files_v2"))
    chunks += [f"[file {as_str(as_dict(f).get('file_name')) or '?'}]" for f in files]
    edited = msg.get("updated_at") != msg.get("created_at")
    extra: dict[str, Any] = {
        "blocks": acc.blocks,
        "thinking": acc.thoughts,
        "citations": acc.citations,
        "attachments": attachments,
        "files": files,
        "updated_at": msg.get("updated_at") if edited else None,
    }
    return [x for x in chunks if x.strip()], extra


def _attachment_chunk(att: dict[str, Any]) -> str:
    """``[attachment NAME]``; a long paste (an attachment without a name, its text in
    ``extracted_content``) is the user's words: its text."""
    name = as_str(att.get("file_name"))
    pasted = as_str(att.get("extracted_content"))
    return f"[attachment {name}]" if name or not pasted.strip() else pasted


def _thought(block: dict[str, Any], kind: str) -> dict[str, Any]:
    summaries = [as_str(as_dict(s).get("summary")) for s in as_list(block.get("summaries"))]
    return {
        k: v
        for k, v in (
            ("type", kind if kind != "thinking" else None),
            ("thinking", as_str(block.get("thinking"))),
            ("summaries", [s for s in summaries if s]),
        )
        if v
    }


def _labelled(block: dict[str, Any]) -> dict[str, Any]:
    """A tool_result without ``tool_use_id`` is labelled by its tool ``name``."""
    if block.get("type") == "tool_result" and not block.get("tool_use_id"):
        return {**block, "tool_use_id": block.get("name")}
    return block


DESCRIPTION = "claude.ai data export conversations.json (chat_messages, content blocks)"
EXAMPLE = (
    '[{"uuid": "c1", "name": "T", "chat_messages": [{"uuid": "m1", '
    '"sender": "human", "text": "Hi", "created_at": "2024-05-01T10:00:00Z"}]}]'
)
FIELDS = Fields(
    speaker="the role: `human` → `user`, `assistant` (the export names no person)",
    listeners="user ↔ assistant",
    time="the message's `created_at` (else the conversation's, `time_from`)",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the conversation's `uuid` (else a hash of name and time)",
    id="`claude-ai:<uuid>` (the message's uuid), else `claude-ai:<thread>:<index>`",
    scope="none: message uuids are unique everywhere",
    reply_to="the parent message when it is in the conversation, else the previous one",
    subject="the conversation's `name`",
    tags="`off-branch` on a message of a branch the app does not show (an earlier edit, a regenerated answer)",
    extra="`sender`, `blocks` (non-text blocks), `attachments`, `files`, `citations`, "
    "`off_branch`, `conversation` (on a conversation's first message); "
    "thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("conversations.json",), sniff, read, EXAMPLE, fields=FIELDS),
)
