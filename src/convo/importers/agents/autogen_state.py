"""AutoGen 0.4+ saved state: a team's or an agent's ``save_state()`` written as JSON
(``autogen-state``).

Shape (microsoft/autogen ``autogen-agentchat``: ``state/_states.py``, the "Managing
State" tutorial's ``json.dump(await team.save_state(), f)``): a team's state is
``{"type": "TeamState", "version", "agent_states": {NAME: state, ...}, "team_id"?}``;
its group chat manager's state (``RoundRobinManagerState``, ``SelectorManagerState``,
``SwarmManagerState``, ``MagenticOneOrchestratorState``...) holds ``message_thread``:
the agentchat messages of the run, each its ``model_dump()`` (``{"id", "source",
"models_usage", "metadata", "created_at", "content", "type": "TextMessage" | ...}``,
read by the ``autogen`` format's rules). Each agent's state (``ChatAgentContainerState``
around ``AssistantAgentState``) holds ``llm_context.messages``: the model context in
autogen-core's LLM message types (``SystemMessage {content}``, ``UserMessage {content,
source}``, ``AssistantMessage {content: str | [FunctionCall {id, arguments, name}],
thought?, source}``, ``FunctionExecutionResultMessage {content: [{content, name?,
call_id, is_error}]}``), which an agent's ``save_state()`` alone also writes.

Decisions:
- A manager's ``message_thread`` is the conversation (speaker = ``source``, times and
  ids as ``autogen``); the agents' ``llm_context`` in the same team state repeats it as
  each agent saw it and is not read again (said in one warning).
- Without a message thread (an agent's state on its own, or a team before its first
  run), each ``llm_context`` is one conversation: a system message ``system``, a user
  message its ``source``, an assistant message its ``source`` (its function calls as
  ``[tool_use NAME]`` chunks, ``thought`` a thinking block: a ``[thinking]`` chunk with
  ``--include-thinking``, as for the ``autogen`` format's ``ThoughtEvent``), each function result a ``tool`` message (speaker:
  the function's name). They are read by the ``openai`` rules and labelled so, as
  ``agentscope-session`` labels its messages ``agentscope``. They carry no times or
  ids: the epoch sentinel and the content hash.
- thread = ``autogen-state:<file>/<key>``: the file's name without ``.json`` and the
  keys down to the state (``RoundRobinGroupChatManager``, ``poet.agent_state``).
- The file is read whole (a saved state is the size of one run's context). A file
  without a message thread or a model context is rejected whole, with its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.agents.reader import read_conversation
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "autogen-state"
_STATE = re.compile(r'"type"\s*:\s*"(TeamState|\w*AgentState|\w*ManagerState|\w+ContainerState)"')
MAX_DEPTH = 4


def sniff(source: Source) -> int:
    text = json_head_with(source, opens="{", key="type")
    if not text or not _STATE.search(text):
        return 0
    has = ('"message_thread"' in text, '"llm_context"' in text, '"agent_states"' in text)
    return 92 if any(has) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = load_json(source)
    base = source.match_name.removesuffix(".json") or source.name
    threads = list(_find(doc, (), "message_thread"))
    contexts = list(_find(doc, (), "llm_context"))
    found = False
    for path, node in threads:
        messages = as_list(node.get("message_thread"))
        if not messages:
            continue
        found = True
        conv = {"id": f"{NAME}:{base}/{'.'.join(path) or 'state'}", "messages": messages}
        yield from read_conversation(source, ctx, "autogen", conv, _prefix(path))
    if found:
        if contexts:
            ctx.warn(
                source.name,
                f"{counted(len(contexts), 'agent model context')} not read: "
                f"{plural(len(contexts), 'it repeats', 'they repeat')} the team's "
                "message thread as each agent saw it",
            )
        return
    for path, node in contexts:
        messages = [m for raw in as_list(as_dict(node.get("llm_context")).get("messages"))
                    for m in _llm_message(raw)]  # fmt: skip
        if not messages:
            continue
        found = True
        conv = {"id": f"{NAME}:{base}/{'.'.join(path) or 'state'}", "messages": messages}
        yield from read_conversation(source, ctx, "openai", conv, _prefix(path))
    if not found:
        raise InputError(
            "no message thread or model context in this AutoGen state file",
            where=source.name,
            hint="a team's state holds a manager's message_thread, an agent's its llm_context",
        )


def _prefix(path: tuple[str, ...]) -> str:
    return f"{'.'.join(path)}." if path else ""


def _find(
    node: Any, path: tuple[str, ...], key: str
) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """(keys down to it, the state) for every state holding ``key``."""
    if not isinstance(node, dict) or len(path) > MAX_DEPTH:
        return
    if key in node:
        yield path, node
        return
    for k, value in node.items():
        if isinstance(value, dict):
            yield from _find(value, (*path, str(k)), key)


def _llm_message(raw: Any) -> list[Any]:
    """One autogen-core LLM message as chat-completion messages (a function result
    message gives one a result); anything else as it is, for the reader to reject."""
    if not isinstance(raw, dict):
        return [raw]
    kind, content, source = as_str(raw.get("type")), raw.get("content"), raw.get("source")
    if kind == "SystemMessage":
        return [{"role": "system", "content": content}]
    if kind == "UserMessage":
        return [{"role": "user", "name": source, "content": _user_content(content)}]
    if kind == "AssistantMessage":
        thought = as_str(raw.get("thought"))
        parts: list[Any] = [{"type": "thinking", "thinking": thought}] if thought else []
        msg: dict[str, Any] = {"role": "assistant", "name": source}
        if isinstance(content, list):
            msg["tool_calls"] = [_call(c) for c in content]
        elif content:
            parts.append({"type": "text", "text": as_str(content)})
        msg["content"] = parts or None
        return [msg]
    if kind == "FunctionExecutionResultMessage" and isinstance(content, list):
        return [
            {
                "role": "tool",
                "tool_call_id": as_dict(r).get("call_id"),
                "name": as_dict(r).get("name"),
                "content": as_dict(r).get("content"),
            }
            for r in content
        ]
    return [raw]


def _user_content(content: Any) -> Any:
    """A user message's content: a string, or strings and images (``{"data"}``)."""
    if not isinstance(content, list):
        return content
    return [
        {"type": "text", "text": p}
        if isinstance(p, str)
        else {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64," + as_str(as_dict(p).get("data"))},
        }
        for p in content
    ]


def _call(call: Any) -> dict[str, Any]:
    c = as_dict(call)
    return {
        "id": c.get("id"),
        "type": "function",
        "function": {"name": c.get("name"), "arguments": c.get("arguments")},
    }


DESCRIPTION = "AutoGen 0.4+ saved state (team or agent save_state() as JSON)"
EXAMPLE = (
    '{"type": "TeamState", "agent_states": {"RoundRobinGroupChatManager": {"type": '
    '"RoundRobinManagerState", "message_thread": [{"source": "user", "content": "Hi", '
    '"type": "TextMessage"}]}}}'
)
FIELDS = Fields(
    speaker="the message's `source` (a model context's system message: `system`)",
    listeners="as `autogen` (a model context: as `openai`)",
    time="the message's `created_at`; a model context has none (the epoch sentinel)",
    zone="AutoGen writes UTC",
    thread="`autogen-state:<file>/<path>`: the file's name and the keys down to the state",
    id="the message's `id` as it is when 16 characters or longer (`<id>`: AutoGen's uuid); "
    "a shorter one `<format>:<file>:<thread>:<id>`; a model context's messages: " + CONTENT_HASH,
    scope="as `autogen`",
    extra="as `autogen` / `openai`: `original` (the message verbatim), `blocks`, `name`, "
    "`original_role`, `conversation` (on the first message), `type` and the message's "
    "type-specific fields (`models_usage`, `metadata`...)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
