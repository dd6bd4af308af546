"""DeepSeek's data export ``conversations.json`` (Settings → Data → Export all chats: a
zip of ``conversations.json`` and ``user.json``).

Shape (no published schema; as the readers of real exports in public repositories agree
on it): a JSON array of conversations ``{id, title, inserted_at, updated_at, mapping}``
with ISO times and an offset (``2025-03-30T04:49:36.505000+08:00``); the mapping is a
tree as ChatGPT's (``{"root": {id, parent: null, children, message: null}, "1": {id,
parent, children, message}}``, no ``current_node``); a message ``{files: [{id,
file_name}], model, inserted_at, fragments: [{type, content}]}`` whose fragments say what
it is: ``REQUEST`` (the user's prompt), ``RESPONSE`` (the answer), ``THINK`` (the
reasoner's thinking), ``SEARCH`` (``results``: ``{url, title, snippet}``), and the
tools' ``TOOL_SEARCH``, ``TOOL_OPEN``, ``READ_LINK``.

Decisions:
- The branch shown is read: from the root down the last child (the latest edit or
  regeneration), as ``convo.importers.apps.mapping_tree`` walks ChatGPT's; messages on
  other branches follow it, tagged ``off-branch``, each replying to its nearest kept
  ancestor (``-tag:off-branch`` gives the conversation as the app shows it).
- speaker = role: ``user`` for a message of ``REQUEST`` fragments, else ``assistant``;
  each is the other's listener. The model in ``extra.model``.
- Text: the ``REQUEST`` / ``RESPONSE`` contents, one chunk a fragment; uploaded files
  ``[file NAME]``. ``THINK`` is private: ``extra.thinking`` (``[thinking] ...`` chunks
  first with ``--include-thinking``); a message of thinking alone (an answer cut off)
  keeps one empty chunk. Search results go to ``extra.citations`` (``{title, url}``),
  the tools' fragments to ``extra.tools``; a fragment of a type this reader does not
  know, with text, is a ``[TYPE] text`` chunk (not dropped).
- thread = the conversation's ``id``, subject = ``title``, id = ``deepseek:<conversation
  id>:<node id>`` (node ids are numbers within a conversation), replyTo = the previous
  message on the branch (off it: the nearest kept ancestor); time = the message's ``inserted_at`` (else the
  conversation's, ``extra.time_from``).
- A message without fragments or files is skipped, counted in one warning.
- ``user.json`` (the account) is recognised and read as no message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import OFF_BRANCH, EmptyCounter
from convo.importers.apps.export_zip import conversations_head, is_zip, read_conversations
from convo.importers.apps.mapping_tree import BranchWalk, mapping_branch
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

NAME = "deepseek"
SAID = {"REQUEST", "RESPONSE"}
TOOLS = {"TOOL_SEARCH", "TOOL_OPEN", "READ_LINK"}


def sniff(source: Source) -> int:
    zipped = is_zip(source)  # the export as downloaded (``apps.export_zip``)
    text = conversations_head(source) if zipped else json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    if not zipped and _user_file(source, text):
        return 80
    if has_key(text, "mapping") and has_key(text, "fragments") and has_key(text, "inserted_at"):
        return 96
    return 0


def _user_file(source: Source, text: str) -> bool:
    """DeepSeek's ``user.json``: the account (``user_id``, ``mobile``...), no message."""
    return (
        source.match_name == "user.json"
        and has_key(text, "user_id")
        and not has_key(text, "chatgpt_plus_user")
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if is_zip(source):
        yield from read_conversations(source, ctx, read)
        return
    if _user_file(source, json_head(source)):
        ctx.warn(source.name, "taken as a DeepSeek export's user.json: no conversation; not read")
        return
    if json_head(source).startswith("{"):  # one conversation
        convs: Any = [load_json(source)]
    else:
        doc = StreamedDoc(source, ())
        doc.expect("not a DeepSeek conversations.json (expected a list)")
        convs = (conv for conv, _ in doc.items())
    skipped = EmptyCounter()
    for c, conv in enumerate(convs, 1):
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            ctx.reject(ctx.loc(f"conv-{c}"), "not a DeepSeek conversation (no mapping)", conv)
            continue
        yield from _conversation(conv, c, ctx, skipped)
    skipped.report(ctx, "messages without fragments")


def _inserted(node: dict[str, Any]) -> float | None:
    text = as_str(as_dict(node.get("message")).get("inserted_at"))
    try:
        return datetime.fromisoformat(text).timestamp() if text else None
    except ValueError:
        return None


def _thread(conv: dict[str, Any]) -> str:
    """The conversation's id, else a stable hash of its title and time."""
    if as_str(conv.get("id")):
        return as_str(conv["id"])
    key = f"{as_str(conv.get('title'))}\x1f{as_str(conv.get('inserted_at'))}"
    return "deepseek-" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def _conversation(
    conv: dict[str, Any], c: int, ctx: ImportContext, skipped: EmptyCounter
) -> Iterator[ConversationMessage]:
    thread, title = _thread(conv), as_str(conv.get("title"))
    conv_time = iso_ts(conv.get("inserted_at"))
    mapping = conv["mapping"]
    walk = BranchWalk(mapping, mapping_branch(mapping, "", _inserted))
    for node, msg, off in walk:
        where = ctx.loc(f"conv-{c}-{as_str(node.get('id'))}")
        chunks, extra = _content(msg, ctx.options.include_thinking)
        if not chunks and not extra["thinking"]:
            skipped.skip(where)
            continue
        role = "user" if extra.pop("asked") else "assistant"
        ts = iso_ts(msg.get("inserted_at"))
        rec_id = f"{NAME}:{thread}:{as_str(node.get('id'))}"
        extra.update(model=as_str(msg.get("model")) or None, node=as_str(node.get("id")))
        extra["time_from"] = "conversation" if ts is None and conv_time else None
        yield message(
            chunks or [""],
            speaker=role,
            listeners=["assistant" if role == "user" else "user"],
            timestamp=ts or conv_time,
            id=rec_id,
            source_id=where,
            format=NAME,
            thread=thread,
            reply_to=walk.reply_to(node, off),
            subject=title,
            role=role,
            tags=[OFF_BRANCH] if off else None,
            extra=extra,
        )
        walk.keep(node, off, rec_id)


class _Fragments:
    """What one message's fragments hold, sorted by kind."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.thinking: list[str] = []
        self.cited: list[dict[str, Any]] = []
        self.tools: list[Any] = []
        self.asked = False

    def add(self, frag: dict[str, Any]) -> None:
        kind, text = as_str(frag.get("type")), as_str(frag.get("content"))
        self.asked = self.asked or kind == "REQUEST"
        if kind in SAID:
            self.said.append(text)
        elif kind == "THINK":
            self.thinking.append(text)
        elif kind == "SEARCH":
            self.cited += _results(frag)
        elif kind in TOOLS or not text.strip():
            self.tools.append(frag)
        else:  # a kind this reader does not know: its text kept
            self.said.append(f"[{kind or 'fragment'}] {text}")


def _results(frag: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"title": as_str(r.get("title")) or None, "url": as_str(r.get("url"))}
        for r in map(as_dict, as_list(frag.get("results")))
        if as_str(r.get("url"))
    ]


def _content(msg: dict[str, Any], include_thinking: bool) -> tuple[list[str], dict[str, Any]]:
    """A message's chunks (thinking first with ``include_thinking``, the prompt or answer,
    its files) and its extras; ``asked``: it holds the user's prompt."""
    found = _Fragments()
    for frag in map(as_dict, as_list(msg.get("fragments"))):
        found.add(frag)
    files = [as_dict(f) for f in as_list(msg.get("files"))]
    said = found.said + [f"[file {_file_name(f)}]" for f in files]
    thinking = [t for t in found.thinking if t.strip()]
    chunks = [f"[thinking] {t}" for t in thinking] if include_thinking else []
    chunks += [x for x in said if x.strip()]
    return chunks, {
        "asked": found.asked,
        "thinking": None if include_thinking else thinking or None,
        "citations": found.cited or None,
        "tools": found.tools or None,
        "files": files or None,
    }


def _file_name(f: dict[str, Any]) -> str:
    return as_str(f.get("file_name")) or as_str(f.get("id")) or "?"


DESCRIPTION = "DeepSeek data export conversations.json (mapping tree of fragments)"
EXAMPLE = (
    '[{"id": "c1", "title": "T", "inserted_at": "2025-03-30T04:49:36+08:00", "mapping": '
    '{"root": {"id": "root", "parent": null, "children": ["1"], "message": null}, "1": '
    '{"id": "1", "parent": "root", "children": [], "message": {"fragments": '
    '[{"type": "REQUEST", "content": "Hi"}]}}}}]'
)
FIELDS = Fields(
    speaker="the role: `user` (a `REQUEST`), else `assistant`",
    listeners="user ↔ assistant",
    time="the message's `inserted_at` (else the conversation's, `time_from`)",
    zone="the offset DeepSeek writes (`+08:00`)",
    thread="the conversation's `id` (else a hash of title and time)",
    id="`deepseek:<conversation id>:<node id>`",
    scope="the conversation: node ids are its numbers",
    reply_to="the previous message on the branch shown (the latest edit); off it: the nearest kept ancestor",
    subject="the conversation's `title`",
    tags="`off-branch` on a message of a branch the app does not show (an earlier edit, a regenerated answer)",
    extra="`model`, `node`, `files`, `citations` (search results), `tools` (the tools' "
    "fragments); `thinking` (`THINK`) unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("conversations.json", "user.json"), sniff, read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
