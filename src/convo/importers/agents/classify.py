"""Which framework one message dict belongs to, and the names of its parties.

``classify`` tells the framework of one dict (rules in ``convo.importers.agents.reader``).
"""

from __future__ import annotations

import re
from typing import Any

from convo.importers.agents.blocks import ANTHROPIC_BLOCKS, OPENAI_PARTS, block_type
from convo.importers.agents.keyed_parts import haystack_message, kernel_message

ROLE_MAP = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "developer": "system",
    "model": "assistant",
    "function": "tool",
    "human": "user",
    "ai": "assistant",
    # smolagents' MessageRole (agent memory as messages): the agent's call, the tool's answer
    "tool-call": "assistant",
    "tool-response": "tool",
}
# roles that name an act, not a party: the speaker is the role they map to
ACT_ROLES = frozenset({"tool-call", "tool-response"})

AUTOGEN_TYPES = frozenset(
    {
        "TextMessage",
        "MultiModalMessage",
        "StopMessage",
        "HandoffMessage",
        "ToolCallSummaryMessage",
        "StructuredMessage",
        "ToolCallRequestEvent",
        "ToolCallExecutionEvent",
        "MemoryQueryEvent",
        "UserInputRequestedEvent",
        "ModelClientStreamingChunkEvent",
        "ThoughtEvent",
        "SelectSpeakerEvent",
        "CodeGenerationEvent",
        "CodeExecutionEvent",
        "SelectorEvent",
    }
)
# Claude Code session entries that are bookkeeping, not messages: skipped, one warning a kind.
CLAUDE_CODE_BOOKKEEPING = frozenset(
    {"file-history-snapshot", "queue-operation", "progress", "last-prompt"}
)
_AGENTSCOPE_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$")
_AUTOGEN_CLASS = re.compile(r"[A-Z]\w*(Message|Event)(\[[\w.,\[\] ]*\])?$")
MESSAGE_KEYS = ("content", "tool_calls", "function_call", "refusal", "audio")


# -- classification -------------------------------------------------------------------


def is_container(obj: Any) -> bool:
    """A conversation object: ``{"messages": [...], ...}`` that is not itself a message."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("messages"), list)
        and "role" not in obj
        and "textChunks" not in obj
    )


def batch_request(value: Any) -> Any:
    """A batch request line as the conversation it sends: OpenAI's Batch API input
    (``{"custom_id", "method", "url", "body": {"model", "messages"}}``) or Anthropic's
    Message Batches request (``{"custom_id", "params": {"model", "system"?, "messages"}}``).
    The body, its id the ``custom_id`` (the thread of its answer in the batch's output),
    the request's other members under ``batch``. An Anthropic batch's result line
    (``{"custom_id", "result": {"type": "succeeded", "message"}}``) is that message in
    that thread. Any other value as it is (``batch_failure`` tells a failed request's)."""
    if not isinstance(value, dict) or "custom_id" not in value or "messages" in value:
        return value
    result = value.get("result")
    if isinstance(result, dict) and isinstance(result.get("message"), dict):
        return {"id": value["custom_id"], "messages": [result["message"]]}  # Anthropic's
    key = "body" if isinstance(value.get("body"), dict) else "params"
    body = value.get(key)
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return value
    rest = {k: v for k, v in value.items() if k not in (key, "custom_id")}
    if key == "params":  # Anthropic's: told apart from OpenAI's by the member's name
        rest["params"] = True
    return {"id": value["custom_id"], **body, "batch": rest or None}


def batch_failure(value: Any) -> str | None:
    """Why an Anthropic batch's result line holds no message (``errored``, ``expired``,
    ``canceled``), else None."""
    if not isinstance(value, dict) or "custom_id" not in value:
        return None
    result = value.get("result")
    if (
        not isinstance(result, dict)
        or "message" in result
        or not isinstance(result.get("type"), str)
    ):
        return None
    error = result.get("error")
    inner = error.get("error") if isinstance(error, dict) else None
    said = inner.get("message") if isinstance(inner, dict) else None
    return f"batch request {result['type']}" + (f" ({said})" if isinstance(said, str) else "")


def batch_line(value: Any) -> tuple[Any, str | None]:
    """(``batch_request(value)``, ``batch_failure(value)``): a line as a reader takes it."""
    failed = batch_failure(value)
    return (value if failed else batch_request(value)), failed


def json_kind(value: Any) -> str:
    """What JSON value ``value`` is, in words (for a rejection)."""
    return {str: "string", list: "array", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


# The Claude Agent SDK's messages (``claude -p --output-format stream-json``, the SDK's
# ``query()``, claude-code-action's execution file): ``session_id`` in snake case, and
# ``parent_tool_use_id`` on a turn, a ``subtype`` on a system line or the result.
CLAUDE_SDK_TURNS = frozenset({"user", "assistant", "stream_event", "tool_progress"})
CLAUDE_SDK_NOTICES = frozenset({"system", "result"})


def is_claude_code(obj: dict[str, Any]) -> bool:
    kind = obj.get("type")
    return isinstance(kind, str) and (
        "sessionId" in obj
        or "parentUuid" in obj
        or "leafUuid" in obj
        or (kind in CLAUDE_CODE_BOOKKEEPING and "role" not in obj)
        or is_claude_sdk(obj)
    )


def is_claude_sdk(obj: dict[str, Any]) -> bool:
    """A message of the Claude Agent SDK's stream (see ``CLAUDE_SDK_TURNS``)."""
    kind = obj.get("type")
    if (
        not isinstance(obj.get("session_id"), str)
        or {"role", "sessionId", "parentUuid"} & obj.keys()
    ):
        return False  # a session file's line may carry session_id too (Claude Code 2.1)
    if kind in CLAUDE_SDK_TURNS:
        return "parent_tool_use_id" in obj
    return kind in CLAUDE_SDK_NOTICES and isinstance(obj.get("subtype"), str)


def classify(obj: Any, *, loose: bool = False) -> str | None:
    """The framework of one message dict, or None. Plain role+text messages are openai.

    A message needs a ``role`` (AutoGen: ``type`` + ``source``; Claude Code: an envelope);
    ``loose`` also takes a role-less object with ``content`` (it gets the fallback role).
    """
    if not isinstance(obj, dict) or "textChunks" in obj or "text_chunks" in obj:
        return None
    obj = haystack_message(obj)
    if kernel_message(obj) is not None:
        return "openai"  # Semantic Kernel's ChatMessageContent, either language
    marked = _by_envelope(obj)
    if marked is not None:
        return marked
    if "role" not in obj and not (loose and any(k in obj for k in MESSAGE_KEYS)):
        return None
    return _by_fields(obj)


def _by_envelope(obj: dict[str, Any]) -> str | None:
    """Formats told by an envelope or class marker, with or without a role."""
    kind = obj.get("type")
    if is_claude_code(obj):
        return "anthropic"
    if isinstance(kind, str) and "source" in obj and (kind in AUTOGEN_TYPES or _autogen_name(kind)):
        return "autogen"
    if autogen_wrapped(obj) is not None:
        return "autogen"
    module = obj.get("__module__")
    if (isinstance(module, str) and "agentscope" in module) or obj.get("__name__") == "Msg":
        return "agentscope"
    if "role" not in obj and "content" in obj:
        if isinstance(obj.get("user"), dict):
            return "langmem"  # a LangMem Message: id, content, timestamp, user
        if _langmem_metadata(obj.get("metadata")):
            return "langmem"  # an OpenAIMessage (total=False: its role may be absent)
    return None


def _langmem_metadata(meta: Any) -> bool:
    """LangMem's message metadata: its ``user_id`` or ``timestamp``."""
    return isinstance(meta, dict) and ("user_id" in meta or "timestamp" in meta)


def autogen_wrapped(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The AutoGen message a container model holds as its ``message`` field, else None:
    ``class AppMessage(BaseModel): name: str; message: ChatMessage`` dumps as ``{"name",
    "message": {...the message's dump}}``, the serialisation the ``ChatMessage`` union keeps."""
    inner = obj.get("message")
    if "type" in obj or "role" in obj or "content" in obj or not isinstance(inner, dict):
        return None
    kind = inner.get("type")
    if not isinstance(kind, str) or not isinstance(inner.get("source"), str):
        return None
    return inner if kind in AUTOGEN_TYPES or _autogen_name(kind) else None


def _agentscope_time(obj: dict[str, Any]) -> bool:
    stamp = obj.get("timestamp")
    return "name" in obj and isinstance(stamp, str) and _AGENTSCOPE_TIME.match(stamp) is not None


def _by_fields(obj: dict[str, Any]) -> str:
    """A role+content message: the most specific framework its fields show."""
    if "invocation_id" in obj or _agentscope_time(obj):
        return "agentscope"
    if "tool" in obj or isinstance(obj.get("content"), dict):
        return "jianmu"
    if _langmem_metadata(obj.get("metadata")):
        return "langmem"
    if obj.get("type") == "message" or _has_blocks(obj.get("content"), ANTHROPIC_BLOCKS):
        return "anthropic"
    return "openai"


def _autogen_name(kind: str) -> bool:
    return _AUTOGEN_CLASS.match(kind) is not None


def _has_blocks(content: Any, kinds: frozenset[str]) -> bool:
    if not isinstance(content, list):
        return False
    for part in content:
        kind = block_type(part) if isinstance(part, dict) else None
        if kind is None:
            continue
        if kind in kinds:
            return True
        if kind in ("image", "document") and isinstance(part.get("source"), dict):
            return kinds is ANTHROPIC_BLOCKS
        if kind in OPENAI_PARTS and kinds is ANTHROPIC_BLOCKS:
            return False
    return False


def peek_party(obj: dict[str, Any], fmt: str) -> tuple[str | None, str | None]:
    if fmt == "autogen" or ("source" in obj and "type" in obj):
        source = obj.get("source")
        if not isinstance(source, str):
            return None, None
        return ("user" if source.lower() == "user" else "assistant"), source
    if "message" in obj and isinstance(obj["message"], dict):
        obj = obj["message"]
    role = ROLE_MAP.get(str(obj.get("role")))
    name = obj.get("name")
    if role in ("user", "assistant"):
        return role, name if isinstance(name, str) and name else role
    return None, None
