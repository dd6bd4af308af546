"""AgentScope saved sessions: the ``Msg`` objects inside a session or memory state file
(``agentscope-session``).

Shape (AgentScope's ``JSONSession.save_session_state(session_id, **modules)`` writes
``<save_dir>/<session_id>.json``: one member per module saved, each its
``state_dict()``): an agent's state holds its registered attributes (``name``,
``_sys_prompt``...) and its sub-modules, among them ``memory``, whose
``InMemoryMemory.state_dict()`` is ``{"content": [Msg.to_dict(), ...]}``; a memory saved
on its own is ``{"content": [...]}`` under its own name. Later versions keep each message
beside its marks (``[Msg.to_dict(), [mark, ...]]``). ``Msg.to_dict()`` is ``{id, name,
role, content, metadata, timestamp, invocation_id?}``, as AgentScope's message format
(``convo.importers.agents.reader``) reads it.

Decisions:
- Every memory in the file is a conversation: a dict (at most four levels down) whose
  ``content`` list holds messages (dicts with ``role``, ``name`` and ``content``, or
  ``[message, marks]`` pairs; marks are dropped). Its messages are read by the
  ``agentscope`` format's rules (speaker = ``name``, listeners = the other party, blocks,
  ``extra.original`` for export) and labelled ``agentscope``.
- thread = ``agentscope-session:<session>/<path>``: the session is the file's name
  without ``.json`` (AgentScope names the file by its session id), the path the keys
  down to the memory (``friday.memory``). id = the ``Msg``'s ``id``, a random
  22-character shortuuid AgentScope makes for every message: its scope is the world.
  Several agents holding one message (a broadcast: the moderator's announcement in each
  player's memory) is one message, read once, in the first memory holding it (the
  copies counted in one warning). In a file of several agents' memories a message's
  listeners are the agents whose memories hold it (but its speaker: a player's own words
  in its own memory alone keep the other party). A ``_sys_prompt``
  beside the memory is kept in the first message's ``extra.conversation.sys_prompt``
  (an instruction set up front, never said at a time).
- Detection: a JSON object whose head holds a ``"memory": {"content": [`` or a
  ``"content": [`` list of AgentScope messages (their ``name``, ``role`` and AgentScope's
  timestamp or ``invocation_id``); a file without one memory of messages is rejected
  whole, with its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.importers.agents.reader import read_conversation
from convo.importers.build import GLOBAL_ID_LENGTH
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, has_key, json_head_with
from convo.importers.registry import Format

NAME = "agentscope-session"
_MEMORY = re.compile(r'"memory"\s*:\s*\{\s*"content"\s*:\s*\[')
_MSG_TIME = re.compile(r'"timestamp"\s*:\s*"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?"')
_AS_LIST = re.compile(r'\{\s*"content"\s*:\s*\[\s*\[?\s*\{')
MAX_DEPTH = 4


def sniff(source: Source) -> int:
    text = json_head_with(source, opens="{", key="content")
    if not text or not (has_key(text, "role") and has_key(text, "name")):
        return 0
    agentscope = _MSG_TIME.search(text) is not None or has_key(text, "invocation_id")
    if _MEMORY.search(text) and (agentscope or has_key(text, "_sys_prompt")):
        return 90  # above the agentscope message format, which would read one message
    return 88 if agentscope and _AS_LIST.search(text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = load_json(source)
    session = source.match_name.removesuffix(".json") or source.name
    memories = list(_memories(doc, ()))
    if not memories:
        raise InputError(
            "no AgentScope memory of messages in this state file",
            where=source.name,
            hint='a memory\'s state is {"content": [Msg, ...]}',
        )
    once = _Once(_audiences(memories), several=len(memories) > 1)
    for n, (path, memory, owner) in enumerate(memories):
        conv: dict[str, Any] = {
            "id": f"{NAME}:{session}/{'.'.join(path) or 'memory'}",
            "messages": list(_unmarked(memory["content"])),
        }
        prompt = owner.get("_sys_prompt") if owner is not None else None
        if isinstance(prompt, str) and prompt.strip():
            conv["sys_prompt"] = prompt  # extra.conversation of the first message
        prefix = f"{'.'.join(path)}." if path else ""
        for rec in read_conversation(source, ctx, "agentscope", conv, prefix):
            if once.first(rec, n):
                yield rec
    if once.repeats:
        ctx.warn(
            source.name,
            f"{once.repeats} cop(y/ies) of messages held by several agents' memories read once "
            "(their listeners: those agents)",
        )


class _Once:
    """Each message several memories hold read once (in the first memory holding it),
    its listeners the agents holding it (``_audiences``) in a file of several memories."""

    def __init__(self, heard: dict[str, list[str]], *, several: bool):
        self.heard = heard
        self.several = several
        self.read: dict[str, int] = {}  # a message id read: the memory it was read in
        self.repeats = 0

    def first(self, rec: ConversationMessage, memory: int) -> bool:
        """Whether ``rec`` is read (not another agent's copy); sets its listeners."""
        audience = self.heard.get(rec.id or "")
        if audience is None:
            return True
        if self.read.setdefault(rec.id or "", memory) != memory:
            self.repeats += 1
            return False
        others = [a for a in audience if a != rec.metadata.speaker]
        if self.several and others:  # several agents: who holds it heard it
            rec.metadata.recipients = others
        return True


def _owner_name(path: tuple[str, ...], owner: dict[str, Any] | None) -> str:
    name = owner.get("name") if owner is not None else None
    return name if isinstance(name, str) and name else (path[0] if path else "")


def _audiences(
    memories: list[tuple[tuple[str, ...], dict[str, Any], dict[str, Any] | None]],
) -> dict[str, list[str]]:
    """For each message id AgentScope made (``GLOBAL_ID_LENGTH`` characters or more), the
    agents whose memories hold it, in the file's order: a broadcast reaches each of them."""
    heard: dict[str, list[str]] = {}
    for path, memory, owner in memories:
        name = _owner_name(path, owner)
        for item in _unmarked(memory["content"]):
            msg_id = as_dict(item).get("id")
            if isinstance(msg_id, str) and len(msg_id) >= GLOBAL_ID_LENGTH:
                names = heard.setdefault(msg_id, [])
                if name and name not in names:
                    names.append(name)
    return heard


def _unmarked(content: list[Any]) -> Iterator[Any]:
    """A memory's items without their marks: a message kept beside its marks (``[Msg,
    [marks]]``) is the message alone. Every object of such a pair is a message read (a
    pair is AgentScope's one message and its list of marks; an object in another place
    of it, as a file edited by hand holds, is read too, never dropped unsaid)."""
    for item in content:
        if isinstance(item, list) and item and isinstance(item[0], dict):
            yield from (x for x in item if isinstance(x, dict))
        else:
            yield item


def _is_msg(item: Any) -> bool:
    return isinstance(item, dict) and "role" in item and "content" in item and "name" in item


def _memories(
    node: Any, path: tuple[str, ...], owner: dict[str, Any] | None = None
) -> Iterator[tuple[tuple[str, ...], dict[str, Any], dict[str, Any] | None]]:
    """(keys down to it, the memory, the state holding it) for every memory of messages."""
    if not isinstance(node, dict) or len(path) > MAX_DEPTH:
        return
    content = node.get("content")
    if isinstance(content, list) and content and any(_is_msg(x) for x in _unmarked(content)):
        yield path, node, owner
        return
    for key, value in node.items():
        if isinstance(value, dict):
            yield from _memories(value, (*path, str(key)), node)


DESCRIPTION = "AgentScope saved sessions: the Msg objects in a session / memory state file"
EXAMPLE = (
    '{"friday": {"name": "Friday", "memory": {"content": [{"id": "b3b1a2c4d5e6f708192a3b4c", '
    '"name": "Alice", "role": "user", "content": "Hi", "metadata": {}, '
    '"timestamp": "2024-05-02 14:30:05.250"}]}}}'
)
FIELDS = Fields(
    speaker="the `Msg`'s `name`",
    listeners="the agents whose memories hold the message, but its speaker (a file of "
    "several agents' memories), else the other party of the exchange (user ↔ assistant side)",
    time="the `Msg`'s `timestamp`",
    zone="AgentScope writes naive local times: read in `--tz` (default UTC)",
    thread="`agentscope-session:<session>/<path>`: the file's name and the keys down to the "
    "memory (`friday.memory`)",
    id="the `Msg`'s `id` as it is (`<id>`; a 22-character shortuuid)",
    scope="the world: AgentScope makes a random id for every message",
    extra="as the `agentscope` format (`original`, `blocks`, `name`, `original_role`: a "
    "Msg of tool results is role `tool`); a `_sys_prompt` in "
    "the first message's `conversation` (`sys_prompt`)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
