"""LM Studio chats (``lmstudio``): ``~/.lmstudio/conversations/<ms>.conversation.json``.

Shape (LM Studio 0.3's conversation files, as read by YorkieDev/lm-studio-conversation-
converter ``script.js`` and written back by converters into LM Studio, whose
``lastUsedModel`` LM Studio requires): one JSON object ``{"name", "pinned", "createdAt":
epoch ms, "preset", "tokenCount", "systemPrompt", "messages": [...],
"usePerChatPredictionConfig", "perChatPredictionConfig": {"fields": [{"key":
"llm.prediction.systemPrompt", "value"}, ...]}, "clientInput", "clientInputFiles",
"userFilesSizeBytes", "lastUsedModel": {"identifier", "indexedModelIdentifier", ...},
"notes", "plugins", "pluginConfigs", "disabledPluginTools", "looseFiles"}``. A message is
``{"versions": [...], "currentlySelected": N}``: each edit or regeneration adds a
version and the chat shows the selected one. A version is ``{"type": "singleStep",
"role": "user" | "assistant" | "system", "content": [{"type": "text", "text"}, {"type":
"file", "fileIdentifier", "fileType", "sizeBytes", "name"}]}`` or ``{"type":
"multiStep", "role": "assistant", "senderInfo": {"senderName"}, "steps": [...]}``, its
steps ``{"type": "contentBlock", "stepIdentifier", "content": [{"type": "text", "text",
"fromDraftModel"}, {"type": "toolCallRequest", "callId", "toolCallRequestId", "name",
"parameters"}, {"type": "toolCallResult", "callId", "toolCallRequestId", "content"}],
"style": {"type": "thinking", "title"}, "prefix": "<think>", "suffix", "genInfo":
{"identifier", "indexedModelIdentifier", "stats"}, "roleOverride": "tool"}``, or
``debugInfoBlock`` / ``toolStatus`` steps.

Decisions:
- One record a message: its selected version (``currentlySelected``, else the last);
  the other versions' texts in ``extra.other_versions`` and the record tagged
  ``edited`` (LM Studio does not say which came first, so none is a message).
- speaker = the role; the model (``senderInfo.senderName``, else the step's
  ``genInfo.identifier``) in ``extra.model``; listeners the other party.
- Chunks in order: text as is; files ``[file NAME, TYPE]``; ``[tool_use NAME] {...}``
  and ``[tool_result NAME] ...`` (the call's name); a thinking step is private:
  ``extra.thinking`` (``--include-thinking``: ``[thinking]`` chunks). Debug and
  tool-status steps go to ``extra.steps``.
- The chat's system prompt (``systemPrompt``, else the per-chat prediction field) is a
  first record, speaker ``system``.
- time: LM Studio keeps no time per message, so every record has the chat's
  ``createdAt`` (epoch ms, UTC; missing: the epoch, one warning); the records keep the
  chat's order.
- thread = ``lmstudio:<file>`` (the file's name without ``.conversation.json``: LM
  Studio names a chat by its creation in ms); subject = ``name``, on the first record.
  id = the content hash (messages have no ids).
- A message that is not an object with versions is rejected with its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.agents.blocks import block_chunk, dumps, whole_chunk
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "lmstudio"
OTHER = {"user": ["assistant"], "assistant": ["user"], "system": []}
MARKERS = ('"singleStep"', '"multiStep"', '"currentlySelected"', '"lastUsedModel"')
SYSTEM_FIELD = "llm.prediction.systemPrompt"


def sniff(source: Source) -> int:
    """An object whose messages have LM Studio's versions (``singleStep``/``multiStep``,
    ``currentlySelected``)."""
    text = json_head_with(source, '"messages"', opens="{")
    if not text or '"versions"' not in text:
        return 0
    found = sum(m in text for m in MARKERS)
    return 92 if found >= 2 else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",))
    # a chat without `systemPrompt` (0.3.0) keeps it in the per-chat config, after the
    # messages: the head then reads the members after the array too
    head = doc.expect("expected an LM Studio chat (an object with messages)", ("systemPrompt",))
    chat = _Chat(source, ctx, head)
    if chat.time is None:
        ctx.warn(source.name, "no createdAt: the chat's messages have no time (the epoch)")
    system = chat.system_prompt()
    if system:
        yield chat.record("system", system, [], {}, ctx.loc(1))
    for item, line in doc.items():
        where = ctx.loc(line)
        if not isinstance(item, dict) or not as_list(item.get("versions")):
            ctx.reject(where, "not an LM Studio message (versions)", item)
            continue
        yield chat.message(item, where)


class _Chat:
    """One chat file: its thread, time, subject (for the first record)."""

    def __init__(self, source: Source, ctx: ImportContext, head: dict[str, Any]):
        self.ctx = ctx
        self.head = head
        stem = strip_compressed(PurePath(source.name).name).removesuffix(".json")
        stem = stem.removesuffix(".conversation")
        self.thread = (
            f"{NAME}:{stem}" if stem and not source.is_stdin else ctx.thread_of(source.name)
        )
        self.time = epoch_ts(head.get("createdAt"), ms=True)
        self.subject = as_str(head.get("name")) or None

    def system_prompt(self) -> str:
        said = as_str(self.head.get("systemPrompt"))
        if said.strip():
            return said
        fields = as_list(as_dict(self.head.get("perChatPredictionConfig")).get("fields"))
        wanted = (as_dict(f) for f in fields)
        return next((as_str(f.get("value")) for f in wanted if f.get("key") == SYSTEM_FIELD), "")

    def message(self, item: dict[str, Any], where: str) -> ConversationMessage:
        versions = [as_dict(v) for v in item["versions"]]
        chosen = item.get("currentlySelected")
        index = chosen if isinstance(chosen, int) and 0 <= chosen < len(versions) else -1
        version = versions[index]
        role = as_str(version.get("role")) or "assistant"
        parts = _Parts(self.ctx.options.include_thinking)
        parts.version(version)
        others = [
            "\n".join(_Parts(True).version(v).chunks)
            for n, v in enumerate(versions)
            if n != index % len(versions)
        ]
        extra = {
            "model": as_str(as_dict(version.get("senderInfo")).get("senderName")) or parts.model,
            "thinking": parts.thinking,
            "steps": parts.steps,
            "other_versions": others,
        }
        return self.record(role, parts.chunks, ["edited"] if others else [], extra, where)

    def record(
        self, speaker: str, chunks: str | list[str], tags: list[str],
        extra: dict[str, Any], where: str,
    ) -> ConversationMessage:  # fmt: skip
        subject, self.subject = self.subject, None
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=OTHER.get(speaker, []),
            timestamp=self.time,
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=subject,
            role=speaker if speaker in ("user", "assistant", "system", "tool") else None,
            tags=tags,
            extra=extra,
        )


class _Parts:
    """The chunks of one version, its thinking, model and other steps."""

    def __init__(self, include_thinking: bool):
        self.include = include_thinking
        self.chunks: list[str] = []
        self.thinking: list[str] = []
        self.steps: list[dict[str, Any]] = []
        self.model = ""
        self.names: dict[str, str] = {}

    def version(self, version: dict[str, Any]) -> _Parts:
        if version.get("type") == "multiStep" or "steps" in version:
            for step in (as_dict(s) for s in as_list(version.get("steps"))):
                self.step(step)
        else:
            self.content(as_list(version.get("content")))
        return self

    def step(self, step: dict[str, Any]) -> None:
        if step.get("type") != "contentBlock":
            self.steps.append(step)
            return
        self.model = self.model or as_str(as_dict(step.get("genInfo")).get("identifier"))
        if as_dict(step.get("style")).get("type") == "thinking":
            said = "\n".join(as_str(as_dict(p).get("text")) for p in as_list(step.get("content")))
            if self.include:
                self.chunks.append(f"[thinking] {said}")
            else:
                self.thinking.append(said)
            return
        self.content(as_list(step.get("content")))

    def content(self, parts: list[Any]) -> None:
        for part in parts:
            if isinstance(part, str):
                self.chunks.append(part)
                continue
            p = as_dict(part)
            kind = as_str(p.get("type"))
            if kind == "text":
                self.chunks.append(as_str(p.get("text")))
            elif kind == "file":
                self.chunks.append(block_chunk({"type": "file", "filename": as_str(p.get("name")) or as_str(p.get("fileIdentifier")), "media_type": as_str(p.get("fileType")) or None}))  # fmt: skip
            elif kind == "toolCallRequest":
                self.chunks.append(self._request(p))
            elif kind == "toolCallResult":
                self.chunks.append(self._result(p))
            else:
                self.chunks.append(
                    block_chunk({**p, "type": kind or "unknown"}) if p else dumps(part)
                )

    def _request(self, part: dict[str, Any]) -> str:
        name = as_str(part.get("name")) or "?"
        for key in ("toolCallRequestId", "callId"):
            if as_str(part.get(key)):
                self.names[as_str(part.get(key))] = name
        return whole_chunk(
            {"type": "tool_use", "name": name, "input": part.get("parameters") or {}}
        )

    def _result(self, part: dict[str, Any]) -> str:
        ids = (as_str(part.get(k)) for k in ("toolCallRequestId", "callId"))
        name = as_str(part.get("name")) or next(
            (self.names[i] for i in ids if i in self.names), "?"
        )
        content = part.get("content")
        text = content if isinstance(content, str) else dumps(content)
        return whole_chunk({"type": "tool_result", "name": name, "content": text})


DESCRIPTION = "LM Studio chats (~/.lmstudio/conversations/*.conversation.json)"
EXAMPLE = (
    '{"name": "Kettle", "createdAt": 1742461200000, "messages": [{"versions": [{"type": '
    '"singleStep", "role": "user", "content": [{"type": "text", "text": "hi"}]}], '
    '"currentlySelected": 0}]}'
)
FIELDS = Fields(
    speaker="the selected version's role (`user`, `assistant`, `system`: the system prompt)",
    listeners="the other party",
    time="the chat's `createdAt` (epoch ms) on every record: LM Studio keeps no time per message",
    zone="epoch ms: UTC",
    thread="`lmstudio:<file>` (the file's name without `.conversation.json`)",
    id=CONTENT_HASH,
    scope="the chat (its file)",
    subject="the chat's `name`, on its first record",
    tags="`edited` (the message has other versions)",
    extra="`model`, `other_versions` (their texts), `steps` (debug, tool status); thinking in "
    "`thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.conversation.json", "*.json"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
