"""ChatGPT data export ``conversations.json``: a list of conversations, each a mapping tree.

Decisions:
- The current branch is walked from ``current_node`` up to the root; without a (known)
  ``current_node`` the last child is followed down from the root (the latest edit).
  Messages on other branches (earlier edits, regenerated answers) follow it, tagged
  ``off-branch``, each replying to its nearest kept ancestor
  (``convo.importers.apps.mapping_tree``): ``-tag:off-branch`` gives the conversation
  as the app shows it.
- A mapping without ``parent``/``children`` links (exports rewritten by other tools) is
  read whole, in ``create_time`` order (a node without one keeps its place after the
  node before it), so no turn is dropped.
- Nodes without a message (the root) are structure and skipped quietly; nodes with an
  empty message, or hidden ones (``is_visually_hidden_from_conversation``), are skipped
  and counted in one warning.
- speaker = ``author.name`` else the role (``user``, ``assistant``, ``system``, ``tool``);
  ``role`` kept; between user and assistant each is the other's listener; a message
  addressed to a tool (``recipient`` ``web.run``, ``python``, ``canmore.create_textdoc``)
  has the tool as listener, and a tool's answer the assistant.
- ``thread`` = ``conversation_id``/``id`` (else a hash of title and create_time),
  ``subject`` = title, id = ``chatgpt:<message id>`` (``chatgpt:<thread>:<node>`` when the
  message has none), ``replyTo`` = the previous message kept on the branch (on another branch: the nearest
  kept ancestor).
- A message without ``create_time`` takes the conversation's (``extra.time_from``).
- The export's zip, as downloaded, is read in place (``convo.importers.apps.export_zip``);
  its ``chat.html`` alone too (``convo.importers.apps.chatgpt_html``).
- Files the user uploaded (``metadata.attachments``) are ``[file NAME]`` chunks, but
  for the images the parts show.
- Parts that are objects (images, files) become ``[image] asset`` style chunks,
  originals in ``extra.parts``; ``code``/``execution_output`` use ``text``, browsing
  ``result``; a ``recipient`` other than ``all`` (a tool call) is kept in ``extra``; a
  canvas call reads as the canvas shows it (``convo.importers.apps.chatgpt_canvas``).
- Custom instructions and memory (``user_editable_context``, ``model_editable_context``,
  hidden before a conversation) are no turn: what they hold is kept in the next
  message's ``extra.context`` (``convo.importers.apps.chatgpt_kinds``).
- A quote's source (``tether_quote``) is kept in ``extra.quote``; a ``system_error`` is
  tagged ``error``, its name in ``extra.error``.
- Reasoning is private, never text: a ``thoughts`` message's thoughts and a
  ``reasoning_recap`` ("Thought for 15s") go to ``extra.thinking`` (``{summary,
  content}``), the record's text empty; ``--include-thinking`` makes them ``[thinking]
  ...`` chunks. The o1/o3-mini/pro reasoning written as a tool's message (``a8km123``,
  ``metadata.finished_text``) is such a thought: the assistant's, its name kept as
  ``extra.author_name``.
- Web citations: the private-use tokens newer exports write in the text
  (``\ue200cite\ue202turn0search0\ue201``) are replaced by what the app shows, the
  ``alt`` of the message's ``content_references`` entry (``([Wikipedia](url))``), else
  dropped; the raw text is kept in ``extra.raw_text``, the cited pages in
  ``extra.citations`` (``{title, url}``).
- The list is streamed one conversation at a time (convo.jsonstream); a file holding one
  conversation object is read whole. Newer exports split it (``conversations-000.json``
  ...): each file is read as its own list.
- The export's other files (``user.json``, ``message_feedback.json``...) are recognised
  and read no message (``convo.importers.apps.chatgpt_sidecars``).

Ids and their scope (docs/ids.md): message ids are uuids, unique everywhere
(``chatgpt:<id>``, no scope); without one ``chatgpt:<conversation>:<node>``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.chatgpt_canvas import canvas_text
from convo.importers.apps.chatgpt_html import beside_conversations, conversations, is_chat_html
from convo.importers.apps.chatgpt_kinds import (
    as_reasoning,
    attachments,
    content_extras,
    editable_context,
    is_reasoning,
    kind_chunks,
    media_ref,
)
from convo.importers.apps.chatgpt_sidecars import report, sidecar
from convo.importers.apps.common import OFF_BRANCH, EmptyCounter
from convo.importers.apps.export_zip import conversations_head, is_zip, read_conversations
from convo.importers.apps.mapping_tree import BranchWalk, mapping_branch
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

ROLES = {"system", "user", "assistant", "tool"}
# A citation or entity token (U+E200 ... U+E201) and the span marks (U+E203, U+E204)
# the app renders from ``content_references``.
_TOKEN = re.compile("\ue200[^\ue200\ue201]{0,500}\ue201|[\ue202\ue203\ue204]")


def sniff(source: Source) -> int:
    if is_chat_html(source):
        return 85
    zipped = is_zip(source)  # the export as downloaded (``apps.export_zip``)
    text = conversations_head(source) if zipped else json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    if not has_key(text, "mapping"):
        return 80 if not zipped and sidecar(source) else 0
    if has_key(text, "fragments") and not has_key(text, "author"):
        return 0  # DeepSeek's export (deepseek)
    if has_key(text, "current_node") or (has_key(text, "children") and has_key(text, "parent")):
        return 90
    if has_key(text, "author") and has_key(text, "content") and has_key(text, "create_time"):
        return 80  # a mapping without links
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if is_zip(source):
        yield from read_conversations(source, ctx, read)
        return
    kind = sidecar(source)
    if kind:
        report(source, kind, ctx)
        return
    convs: Iterable[Any]
    if is_chat_html(source):
        if beside_conversations(source):
            ctx.warn(source.name, "ChatGPT's chat.html: the conversations of the "
                     "conversations.json beside it; not read again")  # fmt: skip
            return
        convs = conversations(source)  # the viewer's copy, alone
    elif json_head(source).startswith("{"):  # one conversation
        convs = [load_json(source)]
    else:  # conversations.json: streamed, one conversation at a time
        doc = StreamedDoc(source, ())
        doc.expect("not a ChatGPT conversations.json (expected a list)")
        # One conversation at a time, not ``values()``'s runs: a conversation is large
        # (13 kB here), and parsing runs of them measured 3-7% more CPU (5 paired rounds
        # over 3,700 conversations, December 2026).
        convs = (conv for conv, _ in doc.items())
    skipped = EmptyCounter()
    for c, conv in enumerate(convs, 1):
        loc = ctx.loc(f"conv-{c}")
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            ctx.reject(loc, "not a ChatGPT conversation (no mapping)", conv)
            continue
        yield from _conversation(conv, c, ctx, skipped)
    skipped.report(ctx, "empty or hidden messages")


def _create_time(node: dict[str, Any]) -> float | None:
    t = as_dict(node.get("message")).get("create_time")
    return float(t) if isinstance(t, int | float) and not isinstance(t, bool) else None


def _thread_id(conv: dict[str, Any], title: str) -> str:
    """The conversation's id, else a stable hash of its title and creation time."""
    thread = as_str(conv.get("conversation_id")) or as_str(conv.get("id"))
    if thread:
        return thread
    h = hashlib.blake2b(f"{title}\x1f{conv.get('create_time')}".encode(), digest_size=8)
    return f"chatgpt-{h.hexdigest()}"


def _conversation(
    conv: dict[str, Any], c: int, ctx: ImportContext, skipped: EmptyCounter
) -> list[ConversationMessage]:
    title = as_str(conv.get("title"))
    thread = _thread_id(conv, title)
    out: list[ConversationMessage] = []
    mapping = conv["mapping"]
    branch = mapping_branch(mapping, as_str(conv.get("current_node")), _create_time)
    conv_time = epoch_ts(conv.get("create_time"))
    context: list[dict[str, Any]] = []  # custom instructions, memory: on the next message
    walk = BranchWalk(mapping, branch)
    for node, msg, off in walk:
        where = ctx.loc(f"conv-{c}-{as_str(node.get('id'))}")
        held = editable_context(msg)
        if held is not None:
            if held:
                context.append(held)
            else:
                skipped.skip(where)
            continue
        if is_reasoning(msg):
            msg = as_reasoning(msg)
        shown = _shown(msg, ctx.options.include_thinking)
        if shown is None:
            skipped.skip(where)
            continue
        chunks, more = shown
        mid = as_str(msg.get("id"))
        node_id = as_str(node.get("id"))
        # no id of either kind: the content hash (``chatgpt:<thread>:`` would be every
        # such message's)
        rec_id = f"chatgpt:{mid}" if mid else f"chatgpt:{thread}:{node_id}" if node_id else None
        more.update(node=node_id, context=context or None, author_name=msg.get("author_name"))
        more["tags"] = [*more["tags"], OFF_BRANCH] if off else more["tags"]
        context = []
        reply = walk.reply_to(node, off)
        out.append(_record(msg, chunks, more, rec_id, where, (thread, title, reply, conv_time)))
        walk.keep(node, off, rec_id)
    for _ in context:  # no message after them to keep them
        skipped.skip(ctx.loc(f"conv-{c}"))
    return out


def _record(
    msg: dict[str, Any],
    chunks: list[str],
    more: dict[str, Any],
    rec_id: str | None,
    where: str,
    conv: tuple[str, str, str | None, str | None],
) -> ConversationMessage:
    """One message's record; ``conv`` is its thread, title, the message it replies to
    and the conversation's time."""
    thread, title, prev_id, conv_time = conv
    role = as_str(as_dict(msg.get("author")).get("role"))
    ts = epoch_ts(msg.get("create_time"))
    tags = more.pop("tags")
    return message(
        chunks,
        speaker=as_str(as_dict(msg.get("author")).get("name")) or role or None,
        listeners=_listeners(role, as_str(msg.get("recipient"))),
        timestamp=ts or conv_time,
        id=rec_id,
        source_id=where,
        format="chatgpt",
        thread=thread,
        reply_to=prev_id,
        subject=title,
        role=role if role in ROLES else None,
        tags=tags,
        extra={
            "node": more.pop("node"),
            "author_role": role if role not in ROLES else None,
            "content_type": more.pop("content_type"),
            "model": more.pop("model"),
            **_time_extra(msg, ts, conv_time),
            **more,
        },
    )


def _shown(msg: dict[str, Any], include_thinking: bool) -> tuple[list[str], dict[str, Any]] | None:
    """A message's chunks and the extras its content gives, or None when it shows
    nothing (empty, or hidden from the conversation)."""
    meta = as_dict(msg.get("metadata"))
    content = as_dict(msg.get("content"))
    chunks, parts = _content(content)
    files, attached = attachments(meta, parts)
    chunks += files
    thinking = _thinking(content)
    if include_thinking:
        chunks += [f"[thinking] {t.get('content') or t.get('summary')}" for t in thinking]
        thinking = []
    hidden = meta.get("is_visually_hidden_from_conversation")
    if hidden or not (any(x.strip() for x in chunks) or thinking):
        return None
    chunks, cited = _citations(chunks, meta)
    chunks, canvas = canvas_text(as_str(msg.get("recipient")), chunks)
    kinds, tags = content_extras(content)
    return chunks, {
        "tags": tags,
        "content_type": as_str(content.get("content_type")),
        "model": as_str(meta.get("model_slug")),
        "parts": parts,
        "attachments": attached,
        "thinking": thinking,
        **cited,
        **canvas,
        **kinds,
    }


def _listeners(role: str, recipient: str) -> list[str]:
    """The other party: the tool a message is addressed to, the assistant for a tool's
    answer, else user ↔ assistant."""
    if recipient and recipient != "all":
        return [recipient]
    return {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}.get(role, [])


def _citations(chunks: list[str], meta: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """Chunks with the app's citation tokens replaced by what it shows (each
    ``content_references`` entry's ``alt``, else nothing), and the extras that keep the
    raw text and the cited pages."""
    if not any("\ue200" in x or "\ue203" in x for x in chunks):
        return chunks, {}
    refs = [as_dict(r) for r in as_list(meta.get("content_references"))]
    alts = {as_str(r.get("matched_text")): as_str(r.get("alt")) for r in refs}

    def shown(m: re.Match[str]) -> str:
        return alts.get(m[0], "")

    out = [_TOKEN.sub(shown, x) for x in chunks]
    pages = [
        {"title": as_str(i.get("title")) or None, "url": as_str(i.get("url"))}
        for r in refs
        for i in map(as_dict, as_list(r.get("items")))
        if as_str(i.get("url"))
    ]
    return out, {"raw_text": chunks, "citations": pages}


def _time_extra(msg: dict[str, Any], ts: str | None, conv_time: str | None) -> dict[str, Any]:
    """``extra``'s tool-call recipient and the message's own time (or that it took the
    conversation's)."""
    return {
        "recipient": as_str(msg.get("recipient")) if msg.get("recipient") != "all" else None,
        "create_time": msg.get("create_time"),
        "time_from": "conversation" if ts is None and conv_time else None,
    }


def _content(content: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """Chunks from a message's content, and the non-text parts kept as they are; none of
    a ``reasoning_recap``, whose line is thinking (``_thinking``), in ``content`` or in
    ``parts``."""
    if content.get("content_type") == "reasoning_recap":
        return [], []
    chunks: list[str] = []
    others: list[Any] = []
    for part in as_list(content.get("parts")):
        if isinstance(part, str):
            chunks.append(part)
        elif isinstance(part, dict):
            others.append(part)
            chunks.append(_object_part(part))
        elif part is not None:
            chunks.append(orjson.dumps(part).decode())
    for key in ("text", "result", "content", "output_str"):
        if not chunks and isinstance(content.get(key), str):
            chunks.append(content[key])
    if not chunks:
        chunks = kind_chunks(content)
    return [x for x in chunks if x.strip()], others


def _object_part(part: dict[str, Any]) -> str:
    """An object part's text, else an ``[image] asset`` style reference to it."""
    if isinstance(part.get("text"), str):
        return str(part["text"])
    kind, ref = media_ref(part)
    return f"[{kind}] {ref}".rstrip()


def _thinking(content: dict[str, Any]) -> list[dict[str, str]]:
    """Reasoning models' thoughts (``[{summary, content}]``), or a ``reasoning_recap``'s
    line ("Thought for 15s") as a summary."""
    if content.get("content_type") == "reasoning_recap":
        recap = as_str(content.get("content")) or " ".join(
            x for x in as_list(content.get("parts")) if isinstance(x, str)
        )
        return [{"summary": recap}] if recap.strip() else []
    out = []
    for t in map(as_dict, as_list(content.get("thoughts"))):
        kept = {k: as_str(t.get(k)) for k in ("summary", "content") if as_str(t.get(k)).strip()}
        if kept:
            out.append(kept)
    return out


DESCRIPTION = "ChatGPT conversations.json (mapping tree; other branches tagged off-branch)"
EXAMPLE = '[{"title": "T", "mapping": {"n1": {"id": "n1", "parent": null, "children": [], ...}}}]'
FIELDS = Fields(
    speaker="`author.name`, else the role (`user`, `assistant`, `system`, `tool`)",
    listeners="user ↔ assistant; a tool call's `recipient`; a tool's answer: the assistant",
    time="the message's `create_time` (else the conversation's, `time_from`)",
    zone="epoch seconds: UTC",
    thread="the conversation's `conversation_id`/`id` (else a hash of title and time)",
    id="`chatgpt:<id>` (the message's uuid), else `chatgpt:<thread>:<node>`",
    scope="none: message ids are uuids",
    reply_to="the previous message kept on the current branch (off it: the nearest kept ancestor)",
    subject="the conversation's `title`",
    tags="`off-branch` on a message of a branch the app does not show (an earlier edit, a regenerated answer); `error` on a `system_error`",
    extra="`node`, `content_type`, `model`, `create_time`, `parts` (images, files), "
    "`recipient` (a tool call), `thinking` (thoughts, reasoning recap, `a8km123` reasoning; "
    "not text unless `--include-thinking`), `raw_text` and `citations` (web citation tokens "
    "rendered), `context` (custom instructions, memory), `attachments` (uploaded files), "
    "`quote`, `error`",
)

FORMATS = (
    Format(
        "chatgpt",
        "chat",
        DESCRIPTION,
        ("conversations.json", "chat.html"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
