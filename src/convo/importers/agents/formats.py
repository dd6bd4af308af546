"""The agent formats' registration: one ``Format`` each, sharing one reader and sniffer.

Ids and their scope (docs/ids.md): the source's own ids; ones under 16 characters are
unique only in their file, so they are ``FORMAT:FILE:THREAD:ID``, and short conversation
ids ``FILE:ID`` (``convo.importers.agents.reader``); uuids stay as they are; no id: the
content hash.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.agents.detect import sniff_for
from convo.importers.agents.parts import AGENT_FORMATS
from convo.importers.agents.reader import read_agent_messages
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.registry import Format

_DESCRIPTIONS = {
    "openai": (
        "OpenAI chat messages (role, content parts, tool_calls), fine-tuning and Batch API "
        "input JSONL",
        '[{"role": "user", "name": "Alice", "content": "Weather in Paris?"}, '
        '{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", '
        '"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}]',
    ),
    "anthropic": (
        "Anthropic messages with content blocks, Message Batches requests and results; Claude "
        "Code session JSONL and its Agent SDK's stream (claude -p --output-format stream-json)",
        '{"system": "Be brief.", "messages": [{"role": "assistant", "content": '
        '[{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "jwt"}}]}]}',
    ),
    "agentscope": (
        "AgentScope Msg objects (to_dict / serialised with __module__)",
        '{"id": "5kXv...", "name": "Alice", "role": "user", "content": "Hi", '
        '"metadata": {}, "timestamp": "2024-03-06 10:00:00.123"}',
    ),
    "langmem": (
        "LangMem threads {id, messages, metadata}, OpenAI messages with metadata",
        '{"id": "t1", "messages": [{"role": "user", "content": "Hi", '
        '"metadata": {"user_id": "u1", "timestamp": "2024-03-06T10:00:00Z"}}]}',
    ),
    "autogen": (
        "AutoGen agentchat message dumps (TextMessage, ToolCallRequestEvent, ...)",
        '{"type": "TextMessage", "source": "planner", "content": "Plan ready", '
        '"created_at": "2024-03-06T10:00:00Z"}',
    ),
    "jianmu": (
        "Jianmu Message objects (id, role, content, name, tool, tool_calls, metadata)",
        '{"id": "m1", "role": "tool", "tool": "search", "tool_call_id": "c1", '
        '"content": {"text": "3 results"}, "metadata": {}}',
    ),
}


def _read_as(name: str, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return read_agent_messages(source, ctx, name)


_LISTENERS = (
    "the other party of the exchange (a user turn → the assistant side, an assistant turn → "
    "the user side, a tool result → the assistant side; system: none)"
)
_ID = (
    "the source's id as it is when 16 characters or longer (`<id>`: a uuid); a shorter one "
    "is `<format>:<file>:<thread>:<id>` (or `<format>:<file>:<id>`); none: " + CONTENT_HASH
)
_SCOPE = (
    "long ids: the world; short ids: the file (its name, not its folder) and the "
    "conversation; a content hash in a conversation whose id is short hashes it as `FILE:ID`"
)
_EXTRA = (
    "`original` (the message verbatim, for a lossless `convo export`), `blocks` (normalised "
    "content blocks), `name`, `original_role`, `conversation` (on a conversation's first "
    "message: the conversation without its messages); thinking in `thinking` unless "
    "`--include-thinking`"
)
_LINE = (
    "; a JSONL line holding a conversation without one: `FILE#line-N`, FILE the file's "
    "name without its folder (a generic name with it, docs/ids.md); else none"
)
_FIELDS = {
    "openai": Fields(
        speaker="`name`, else the role as spelled (`developer` stays `developer`)",
        listeners=_LISTENERS,
        time="none in the API's messages: the epoch sentinel, with one warning a source",
        zone="none",
        thread="the conversation's `id`/`conversation_id`/`thread_id`" + _LINE,
        id=_ID,
        scope=_SCOPE,
        extra=_EXTRA,
    ),
    "anthropic": Fields(
        speaker="`name`, else the role; Claude Code: the envelope's role (`summary` for summaries)",
        listeners=_LISTENERS,
        time="Claude Code's `timestamp`; API messages have none: the epoch sentinel, with one "
        "warning a source",
        zone="the offset the source writes; " + NAIVE_IN_TZ,
        thread="Claude Code's `sessionId` (the SDK's `session_id`), else the conversation's id"
        + _LINE,
        id="Claude Code: the `uuid`; otherwise " + _ID,
        scope=_SCOPE,
        reply_to="Claude Code's `parentUuid`",
        extra=_EXTRA + "; `claude_code` (the envelope type); an Anthropic `system` prompt "
        "is a first system message with `system_prompt`",
    ),
    "agentscope": Fields(
        speaker="`name`",
        listeners=_LISTENERS,
        time="`timestamp` (`YYYY-MM-DD HH:MM:SS.fff`)",
        zone="AgentScope writes naive local times: read in `--tz` (default UTC)",
        thread="the conversation's id" + _LINE,
        id=_ID,
        scope=_SCOPE,
        extra=_EXTRA + "; `metadata`",
    ),
    "langmem": Fields(
        speaker="`name`, else the role as spelled (a LangMem `Message`: its user's name)",
        listeners=_LISTENERS,
        time="`metadata.timestamp` (ISO, or epoch seconds or milliseconds)",
        zone="the offset the source writes; " + NAIVE_IN_TZ,
        thread="the thread's `id`" + _LINE,
        id=_ID,
        scope=_SCOPE,
        extra=_EXTRA + "; `user_id`; the thread's `metadata` in `conversation`",
    ),
    "autogen": Fields(
        speaker="`source`",
        listeners="the other party of the exchange; a `HandoffMessage`: its `target`",
        time="`created_at`",
        zone="the offset the source writes; " + NAIVE_IN_TZ,
        thread="the conversation's id" + _LINE,
        id=_ID,
        scope=_SCOPE,
        extra=_EXTRA + "; `type` and every type-specific field (`target`, `context`, "
        "`models_usage`, `metadata`...)",
    ),
    "jianmu": Fields(
        speaker="`name` (a tool result: its `tool`), else the role",
        listeners=_LISTENERS,
        time="`metadata.timestamp` (ISO, or epoch seconds or milliseconds)",
        zone="the offset the source writes; " + NAIVE_IN_TZ,
        thread="the conversation's id" + _LINE,
        id=_ID,
        scope=_SCOPE,
        extra=_EXTRA + "; `tool`, `tool_calls`, `metadata`",
    ),
}


FORMATS = tuple(
    Format(
        name=name,
        family="chat",
        description=_DESCRIPTIONS[name][0],
        patterns=("*.json", "*.jsonl", "*.ndjson"),
        sniff=partial(sniff_for, name),
        read=partial(_read_as, name),
        example=_DESCRIPTIONS[name][1],
        fields=_FIELDS[name],
    )
    for name in AGENT_FORMATS
)
