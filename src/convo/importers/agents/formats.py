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
from convo.importers.agents.frameworks import AGENT_FORMATS
from convo.importers.agents.reader import read_agent_messages
from convo.importers.context import ImportContext
from convo.importers.registry import Format

_DESCRIPTIONS = {
    "openai": (
        "OpenAI chat messages (role, content parts, tool_calls) and fine-tuning JSONL",
        '[{"role": "user", "name": "Alice", "content": "Weather in Paris?"}, '
        '{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", '
        '"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}]',
    ),
    "anthropic": (
        "Anthropic messages with content blocks; Claude Code session JSONL",
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


FORMATS = tuple(
    Format(
        name=name,
        family="chat",
        description=_DESCRIPTIONS[name][0],
        patterns=("*.json", "*.jsonl", "*.ndjson"),
        sniff=partial(sniff_for, name),
        read=partial(_read_as, name),
        example=_DESCRIPTIONS[name][1],
    )
    for name in AGENT_FORMATS
)
