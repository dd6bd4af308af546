"""Export records to agent frameworks' message formats and to documents people read.

Every ``to_FORMAT(messages)`` takes ``ConversationMessage``s or record dicts (as read from
JSONL). Agent formats return JSON-ready Python values; ``markdown``, ``csv``, ``html`` and
``vtt`` return text. See docs/export.md for each format's shape and what it cannot carry.

How a record is read (the chat importers' convention): ``role`` (system/user/assistant/
tool; else guessed from a speaker named like a role, else ``user``); the name is
``extra["name"]``, else the speaker when it is not just the role; the content is
``extra["blocks"]`` (Anthropic-like blocks) when present, else one text block per chunk.

Lossless rule: when a record's ``format`` is the target format and it carries
``extra["original"]`` (the source's message object), that object is emitted unchanged; a
record without one stands for ``{"role": ROLE, "content": TEXT}`` (one chunk, a known
role), the plain message the importers do not store twice (``convo.core.fields.original``).

Decisions where the frameworks leave room:
- Times are UTC. AgentScope's ``timestamp`` is ``YYYY-MM-DD HH:MM:SS.fff`` (UTC; the source
  time has whole seconds, so ``.000``); AutoGen's ``created_at`` and Jianmu's ``timestamp``
  are ISO 8601 with ``Z``. The epoch sentinel (unknown time) is kept as the epoch.
- OpenAI: a record's tool_result blocks become ``role: "tool"`` messages (one per result,
  before the record's remaining content); thinking blocks are omitted (chat completions has
  no field for them); images are ``image_url`` parts (data URLs for inline data); other
  media become text parts ``[audio] ...``.
- Anthropic: ``{"system": ..., "messages": [...]}``; system records join the system prompt;
  consecutive built tool-result turns share one user message, as the API requires.
- AgentScope: tool results are ``role: "system"`` messages holding ``tool_result`` blocks
  (as AgentScope's ReAct agent writes them), whose ``name`` is looked up from the matching
  tool_use; file blocks become text blocks (AgentScope has no file block).
- AutoGen: one record may give several events: thinking and text next to tool calls become
  a ``ThoughtEvent``, tool calls a ``ToolCallRequestEvent``, results a
  ``ToolCallExecutionEvent``; images a ``MultiModalMessage`` (inline data as ``{"data":
  base64}``, URLs as ``[image] URL`` strings, since AutoGen's Image holds bytes); the rest a
  ``TextMessage``. ``metadata`` values must be strings there, so only the original's are kept.
- LangMem: a list of threads ``{id, messages, metadata}``, one per ``thread`` value in
  first-seen order (records without one share the thread ``default``); messages are
  OpenAI-style dicts with ``id`` (what LangChain's ``convert_to_messages`` accepts) and,
  as LangMem's ``OpenAIMessage``, ``metadata`` with ``user_id`` and ``timestamp`` (none
  for the epoch sentinel) beside the message's own metadata. A LangMem message is given
  back as read, with the record's time added when it held none (a ``Message``'s
  ``timestamp``, an ``OpenAIMessage``'s ``metadata.timestamp``).
- Jianmu: ``Message.to_dict()`` exactly (``convo.memory.messages.to_dict``): ``id``,
  ``role``, ``content`` (a string, or the blocks when there is anything but text, or a
  tool result in a turn of another role), and ``name``, ``tool``, ``tool_call_id``,
  ``tool_calls``, ``metadata`` when set; the time is ``metadata.timestamp`` (what the
  Jianmu importer reads).
- ``typeagent``: exactly ``ConversationMessage.serialize()`` restricted to TypeAgent's keys.
- LangMem threads keep their own ``metadata`` (the importer keeps it on the thread's
  first message, ``extra["conversation"]``).
- Text documents escape through ``convo.core.text.markup``: Markdown (``markdown_text``/
  ``markdown_inline``: no HTML, no heading, list or emphasis from a message), HTML, WebVTT
  and SRT cue text, CSV cells (``csv_cell``: no spreadsheet formulas).

The formats are a registry (``convo.output.exporters.registry``); see docs/export.md.
"""

from __future__ import annotations

from convo.core.lazy import keep_names, lazy_attributes

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.output.exporters.agents import (
        to_agentscope,
        to_anthropic,
        to_autogen,
        to_jianmu,
        to_langmem,
        to_openai,
        to_typeagent,
    )
    from convo.output.exporters.documents import to_csv, to_html, to_markdown, to_srt, to_vtt
    from convo.output.exporters.registry import Exporter, registry

# Loaded on first use: a Parquet worker imports ``exporters.parquet`` (this package's
# __init__ runs first) and needs neither the agent formats nor the model they validate
# with (pydantic: about 18 MB a worker).
_AGENTS = ("to_agentscope", "to_anthropic", "to_autogen", "to_jianmu", "to_langmem",
           "to_openai", "to_typeagent")  # fmt: skip
_DOCUMENTS = ("to_csv", "to_html", "to_markdown", "to_srt", "to_vtt")
_LAZY = {
    **dict.fromkeys(_AGENTS, "convo.output.exporters.agents"),
    **dict.fromkeys(_DOCUMENTS, "convo.output.exporters.documents"),
    "Exporter": "convo.output.exporters.registry",
    "registry": "convo.output.exporters.registry",
}


__getattr__ = lazy_attributes("convo.output.exporters", _LAZY, globals())
keep_names(__name__, frozenset({"registry"}))  # the registry, named as its module


__all__ = [
    "Exporter",
    "registry",
    "to_agentscope",
    "to_anthropic",
    "to_autogen",
    "to_csv",
    "to_html",
    "to_jianmu",
    "to_langmem",
    "to_markdown",
    "to_openai",
    "to_srt",
    "to_typeagent",
    "to_vtt",
]
