"""One agent-framework message object to its ``Parts``, per framework.

``classify`` tells the framework of one dict; its converter here finds the speaker,
role, content blocks and ``extra``; ``convo.importers.agents.finish.convert`` turns that
into a message within a ``Thread`` (which knows the conversation id and the two
parties, for listeners). The conventions (speaker, role, listeners, ids, ``extra``) are
documented in ``convo.importers.agents.reader``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from convo.core.errors import RecordError
from convo.importers.agents.blocks import (
    CallNames,
    dumps,
    jianmu_body,
    normalise_block,
    normalise_content,
    normalise_result,
    tool_use_block,
)
from convo.importers.agents.classify import (
    CLAUDE_CODE_BOOKKEEPING,
    MESSAGE_KEYS,
    ROLE_MAP,
    is_claude_code,
    peek_party,
)

AGENT_FORMATS = ("openai", "anthropic", "agentscope", "langmem", "autogen", "jianmu")
# AutoGen fields that are not type-specific (everything else is copied to extra).
_AUTOGEN_COMMON = frozenset({"source", "content", "id", "created_at", "type"})


class NotMessage(RecordError):
    """The object is not a message of the expected framework. ``bookkeeping``: an entry
    the tool writes for itself, skipped (one warning a kind); ``title``: a conversation's
    title (a Claude Code ``summary``), kept on the next message instead."""

    def __init__(
        self, what: str, *, bookkeeping: bool = False, title: dict[str, Any] | None = None
    ):
        super().__init__(
            what,
            hint="use --lenient to keep such objects as text, or --from to pick the format",
        )
        self.bookkeeping = bookkeeping
        self.title = title


class TooDeep(RecordError):
    """A message nested beyond ``MAX_DEPTH``: rejected, never wrapped under --lenient."""


@dataclass
class Thread:
    """One conversation: its id, container fields and the two parties seen so far."""

    id: str | None = None
    extra: dict[str, Any] | None = None  # container fields, attached to the first message
    scope: str | None = None  # the file a short id is unique in (``source_key``)
    last: dict[str, str | None] = field(default_factory=lambda: {"user": None, "assistant": None})
    tools: CallNames = field(default_factory=CallNames)  # a result named by its call
    held_at: str | None = None  # where the titles waiting in ``extra`` were read
    # bookkeeping entries skipped, by kind: [how many, where the first was]
    skipped: dict[str, list[Any]] = field(default_factory=dict)

    def called(self, blocks: list[dict[str, Any]]) -> None:
        """Remember the names of the tool calls among ``blocks``."""
        for b in blocks:
            if b.get("type") == "tool_use":
                self.tools.add(b.get("id"), b.get("name"))

    def hold(self, title: dict[str, Any], where: str) -> None:
        """A conversation title (a Claude Code ``summary``) for the next message's
        ``extra.conversation.summaries``."""
        conv = self.extra if self.extra is not None else {}
        conv.setdefault("summaries", []).append(title)
        self.extra, self.held_at = conv, where

    def skip(self, what: str, where: str) -> None:
        """Count a bookkeeping entry (``what``: its kind) skipped at ``where``."""
        seen = self.skipped.setdefault(what, [0, where])
        seen[0] += 1

    def said_untaken(self, warn: Callable[[str, str], None]) -> None:
        """Say the bookkeeping entries skipped, one warning a kind (a Claude Code session
        holds hundreds of file-history snapshots), and the titles no message came after to
        take them (a file of titles, each for a ``leafUuid`` of another session file;
        a message read before has gone on: the reader streams)."""
        for what, (n, first) in self.skipped.items():
            warn(first, f"skipped: {what}" if n == 1 else f"skipped {n}: {what}, the first here")
        left = (self.extra or {}).get("summaries") if self.held_at else None
        if left:
            warn(self.held_at or "", f"{len(left)} conversation title(s) (Claude Code summary "
                 "lines) with no message after them: not imported (each titles the branch "
                 "ending at its leafUuid, a message of another session file)")  # fmt: skip

    def prime(self, objs: Iterable[Any], fmt: str) -> None:
        """Know both parties' names before the first reply (a whole conversation at hand);
        stops reading ``objs`` once both are known (nothing later would change them)."""
        for obj in objs:
            if not isinstance(obj, dict):
                continue
            side, name = peek_party(obj, fmt)
            if side and name and self.last.get(side) is None:
                self.last[side] = name
                if self.primed:
                    return

    @property
    def primed(self) -> bool:
        """Both parties' names are known."""
        return self.last["user"] is not None and self.last["assistant"] is not None

    def listeners(self, role: str | None, speaker: str | None) -> list[str]:
        """The other party of the two-party exchange (see ``convo.importers.agents.reader``)."""
        if role == "user":
            other = self.last["assistant"] or "assistant"
        elif role in ("assistant", "tool"):
            other = self.last["user"] or "user"
            if role == "tool":
                other = self.last["assistant"] or "assistant"
        else:
            return []
        return [] if other == speaker else [other]

    def heard(self, role: str | None, speaker: str | None, aside: bool = False) -> None:
        """``speaker`` spoke as ``role``; ``aside``: not one of the two parties (a
        Claude Code subagent's exchange)."""
        if aside:
            return
        if role == "user":
            self.last["user"] = speaker
        elif role == "assistant":
            self.last["assistant"] = speaker


@dataclass
class Parts:
    """What a framework converter found, before the shared finishing."""

    speaker: str | None
    role: str | None
    blocks: list[dict[str, Any]]
    extra: dict[str, Any]
    timestamp: Any = None
    id: Any = None
    reply_to: Any = None
    thread: Any = None
    listeners: list[str] | None = None  # an explicit addressee (AutoGen handoff target)
    tags: list[str] = field(default_factory=list)


# -- per-framework converters ----------------------------------------------------------


def _role(obj: dict[str, Any], extra: dict[str, Any], fallback: str) -> tuple[str | None, str]:
    """(mapped role, speaker-default) from ``role``; the source spelling kept when mapped."""
    raw = obj.get("role")
    if raw is None:
        return fallback, fallback
    if not isinstance(raw, str):
        raise NotMessage(f"role is {type(raw).__name__}, not a string")
    role = ROLE_MAP.get(raw.lower())
    if role != raw:
        extra["original_role"] = raw
    return role, raw


def _named(obj: dict[str, Any], extra: dict[str, Any], default: str) -> str:
    name = obj.get("name")
    if isinstance(name, str) and name:
        extra["name"] = name
        return name
    return default


def _need_content(obj: dict[str, Any], what: str) -> None:
    if not any(k in obj for k in MESSAGE_KEYS):
        raise NotMessage(f"{what} without content")


def openai_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    _need_content(obj, "a chat message")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    content = obj.get("content")
    blocks: list[dict[str, Any]]
    if role == "tool" and (obj.get("tool_call_id") or obj.get("role") == "function"):
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": obj.get("tool_call_id"),
            "content": normalise_result(content),
            "is_error": bool(obj.get("is_error", False)),
        }
        if isinstance(obj.get("name"), str):
            result["name"] = obj["name"]
        blocks = [result]
    else:
        blocks = normalise_content(content)
    if isinstance(obj.get("refusal"), str) and obj["refusal"]:
        blocks.append({"type": "refusal", "refusal": obj["refusal"]})
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        blocks.extend(tool_use_block(c) for c in calls if isinstance(c, dict))
    if isinstance(obj.get("function_call"), dict):
        blocks.append(tool_use_block(obj["function_call"]))
    if isinstance(obj.get("audio"), dict):
        blocks.append({"type": "audio", **obj["audio"]})
    speaker = _named(obj, extra, speaker if role != "tool" else "tool")
    return Parts(speaker, role, blocks, extra, id=obj.get("id"))


def langmem_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    """An ``OpenAIMessage`` (metadata user_id/timestamp) or a LangMem ``Message`` (id,
    content, timestamp, user): the user's name (or id) speaks, as role user."""
    user = obj.get("user")
    if "role" not in obj and isinstance(user, dict):
        fallback_role = "user"
    parts = openai_parts(obj, fallback_role)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        parts.timestamp = meta.get("timestamp")
        if meta.get("user_id") is not None:
            parts.extra["user_id"] = meta["user_id"]
    if obj.get("timestamp") is not None:
        parts.timestamp = obj["timestamp"]
    if isinstance(user, dict):
        parts.extra["user"] = user
        who = user.get("name") or user.get("id")
        if isinstance(who, str) and who and "name" not in parts.extra:
            parts.speaker = who
    return parts


def anthropic_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    if is_claude_code(obj):
        return _claude_code(obj)
    if "content" not in obj:
        raise NotMessage("a message without content")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    blocks = normalise_content(obj.get("content"))
    speaker = _named(obj, extra, speaker)
    if role == "user" and blocks and all(b.get("type") == "tool_result" for b in blocks):
        # results sent in a user turn are the tool's (docs/formats.md, "Tool results")
        extra.setdefault("original_role", "user")
        role = "tool"
        speaker = speaker if "name" in extra else "tool"
    return Parts(speaker, role, blocks, extra, id=obj.get("id"))


def _claude_code(env: dict[str, Any]) -> Parts:
    """One line of a Claude Code session (``~/.claude/projects/PROJECT/SESSION.jsonl``).

    - ``summary`` (``{"type": "summary", "summary", "leafUuid"}``, no time): the title
      ``claude --resume`` shows for the conversation branch ending at ``leafUuid``
      (written at the top of a session file, often for a branch of an earlier file):
      no message, kept in the next message's ``extra.conversation.summaries``.
    - ``isSidechain``: a subagent's conversation (the Task tool), whose "user" is the
      main agent: spoken by ``assistant`` to ``subagent`` and back, tagged ``sidechain``.
    - ``isMeta`` (text Claude Code puts in the user's turn: caveats, command output)
      and ``isCompactSummary`` (the summary a compaction starts the new context with):
      role ``system``, tagged ``meta`` / ``compact-summary``, not spoken by the user.
    - ``system`` with ``subtype: compact_boundary`` (parentUuid null): a system message
      tagged ``compact``, replying to its ``logicalParentUuid`` (the last message before).
    """
    kind = env.get("type")
    stamp = env.get("timestamp")
    if kind == "summary":
        text = env.get("summary")
        if not isinstance(text, str):
            raise NotMessage("a Claude Code summary without text")
        raise NotMessage(
            "Claude Code summary (a conversation title, not a message)",
            bookkeeping=True,
            title={"summary": text, "leafUuid": env.get("leafUuid")},
        )
    msg = env.get("message")
    if kind == "system" and isinstance(env.get("content"), str):
        msg = {"role": "system", "content": env["content"]}
    if not isinstance(msg, dict):
        if kind in CLAUDE_CODE_BOOKKEEPING:
            raise NotMessage(f"Claude Code {kind} entry (not a message)", bookkeeping=True)
        raise NotMessage(f"a Claude Code {kind!r} entry without a message object")
    role_default = kind if kind in ("user", "assistant", "system") else "user"
    parts = anthropic_parts(msg, role_default)
    parts.extra["claude_code"] = kind
    parts.id = env.get("uuid") or msg.get("id")
    parts.reply_to = env.get("parentUuid")
    parts.thread = env.get("sessionId")
    parts.timestamp = stamp
    _claude_code_marks(env, parts)
    return parts


def _claude_code_marks(env: dict[str, Any], parts: Parts) -> None:
    """What Claude Code's flags say of a line (see ``_claude_code``)."""
    subtype = env.get("subtype")
    if isinstance(subtype, str) and subtype:
        parts.extra["subtype"] = subtype
    if subtype == "compact_boundary":
        parts.tags.append("compact")
        parts.reply_to = parts.reply_to or env.get("logicalParentUuid")
        if isinstance(env.get("compactMetadata"), dict):
            parts.extra["compact"] = env["compactMetadata"]
    _claude_code_voices(env, parts)


def _claude_code_voices(env: dict[str, Any], parts: Parts) -> None:
    """Who speaks a Claude Code line its flags mark: Claude Code itself, or a subagent."""
    if env.get("isMeta") is True or env.get("isCompactSummary") is True:
        parts.tags.append("compact-summary" if env.get("isCompactSummary") is True else "meta")
        if parts.role == "user":
            parts.role = parts.speaker = "system"
    if env.get("isSidechain") is True:
        parts.tags.append("sidechain")
        if parts.role == "user" and parts.speaker == "user":
            parts.speaker, parts.listeners = "assistant", ["subagent"]
        elif parts.role == "tool":  # the subagent's own calls answered
            parts.listeners = ["subagent"]
        elif parts.role == "assistant" and parts.speaker == "assistant":
            parts.speaker, parts.listeners = "subagent", ["assistant"]
        agent = env.get("agentId")
        if isinstance(agent, str) and agent:
            parts.extra["agent_id"] = agent


def agentscope_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    if "content" not in obj:
        raise NotMessage("an AgentScope Msg without content")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    speaker = _named(obj, extra, speaker)
    blocks = normalise_content(obj.get("content"))
    _keep_metadata(obj.get("metadata"), extra)
    if role != "tool" and blocks and all(b.get("type") == "tool_result" for b in blocks):
        # Msg("system", [ToolResultBlock], "system"): role tool, the speaker as named
        extra.setdefault("original_role", obj.get("role"))
        role = "tool"
    return Parts(speaker, role, blocks, extra, timestamp=obj.get("timestamp"), id=obj.get("id"))


def _autogen_calls(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    if not isinstance(content, list):
        return None
    return [tool_use_block(c) if isinstance(c, dict) else normalise_block(c) for c in content]


def _autogen_code_result(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    if content is not None or not isinstance(obj.get("result"), str):
        return None
    return [{"type": "tool_result", "tool_use_id": None, "name": "code_execution",
             "content": obj["result"], "is_error": False}]  # fmt: skip


def _each(convert_item: Callable[[Any], dict[str, Any]]):
    def blocks(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
        return [convert_item(c) for c in content] if isinstance(content, list) else None

    return blocks


def _thought(content: Any, obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    return [{"type": "thinking", "thinking": content}] if isinstance(content, str) else None


def _autogen_default(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return normalise_content(content)
    if content is None:
        return []
    # StructuredMessage, SelectSpeakerEvent, custom types: the JSON of the content
    return [{"type": "text", "text": dumps(content)}]


def autogen_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    kind, source = obj.get("type"), obj.get("source")
    if not isinstance(kind, str) or not isinstance(source, str):
        raise NotMessage("an AutoGen message needs a string 'type' and 'source'")
    content = obj.get("content")
    extra: dict[str, Any] = {"type": kind}
    extra.update({k: v for k, v in obj.items() if k not in _AUTOGEN_COMMON})
    role = "user" if source.lower() == "user" else "assistant"
    special = _AUTOGEN_CONTENT.get(kind)
    blocks = special(content, obj) if special else None
    if blocks is None:
        blocks = _autogen_default(content)
    elif kind == "ToolCallExecutionEvent":
        role = "tool"
    if kind == "UserInputRequestedEvent":
        role = "user"
        blocks = blocks or [{"type": "user_input_requested", "request_id": obj.get("request_id")}]
    target = obj.get("target")
    listeners = [target] if kind == "HandoffMessage" and isinstance(target, str) else None
    return Parts(
        source,
        role,
        blocks,
        extra,
        timestamp=obj.get("created_at"),
        id=obj.get("id"),
        listeners=listeners,
    )


def _autogen_result(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return normalise_block(item)
    block = {
        "type": "tool_result",
        "tool_use_id": item.get("call_id"),
        "content": normalise_result(item.get("content")),
        "is_error": bool(item.get("is_error", False)),
    }
    if item.get("name") is not None:
        block["name"] = item["name"]
    return block


def _autogen_media(item: Any) -> dict[str, Any]:
    if isinstance(item, dict) and "data" in item and "type" not in item:
        return {"type": "image", "data": item["data"]}  # autogen_core.Image dumps as {"data"}
    return normalise_block(item)


def _autogen_memory(item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        return normalise_block(item)
    body = item.get("content")
    return {
        "type": "memory",
        "content": body if isinstance(body, str) else dumps(body),
        "mime_type": item.get("mime_type"),
    }


_AUTOGEN_CONTENT: dict[str, Callable[[Any, dict[str, Any]], list[dict[str, Any]] | None]] = {
    "ToolCallRequestEvent": _autogen_calls,
    "ToolCallExecutionEvent": _each(_autogen_result),
    "ThoughtEvent": _thought,
    "MultiModalMessage": _each(_autogen_media),
    "MemoryQueryEvent": _each(_autogen_memory),
    "CodeExecutionEvent": _autogen_code_result,
}


def jianmu_parts(obj: dict[str, Any], fallback_role: str = "user") -> Parts:
    _need_content(obj, "a Jianmu Message")
    extra: dict[str, Any] = {}
    role, speaker = _role(obj, extra, fallback_role)
    tool = obj.get("tool")
    if tool is not None:
        extra["tool"] = tool
    blocks, text = jianmu_body(obj.get("content"), as_text=role == "tool")
    if role == "tool" and (obj.get("tool_call_id") or tool):
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": obj.get("tool_call_id"),
                "content": text,
                "is_error": False,
            }
        )
        if isinstance(tool, str):
            blocks[-1]["name"] = tool
    elif text:
        blocks.append({"type": "text", "text": text})
    calls = obj.get("tool_calls")
    if isinstance(calls, list):
        blocks.extend(tool_use_block(c) for c in calls if isinstance(c, dict))
    default = (tool if isinstance(tool, str) and tool else "tool") if role == "tool" else speaker
    speaker = _named(obj, extra, default)
    meta = obj.get("metadata")
    stamp = meta.get("timestamp") if isinstance(meta, dict) else None
    _keep_metadata(meta, extra)
    return Parts(speaker, role, blocks, extra, timestamp=stamp, id=obj.get("id"))


def _keep_metadata(meta: Any, extra: dict[str, Any]) -> None:
    """A message's own ``metadata`` (AgentScope, Jianmu), for export to other formats."""
    if isinstance(meta, dict) and meta:
        extra["metadata"] = meta


CONVERTERS: dict[str, Callable[[dict[str, Any], str], Parts]] = {
    "openai": openai_parts,
    "anthropic": anthropic_parts,
    "agentscope": agentscope_parts,
    "langmem": langmem_parts,
    "autogen": autogen_parts,
    "jianmu": jianmu_parts,
}
