"""ShareGPT conversations: ``{"conversations": [{"from": ..., "value": ...}]}``.

Shape: the ShareGPT/Vicuna dumps (``{"id", "conversations": [{"from": "human"|"gpt",
"value"}]}``) and LLaMA-Factory's ``sharegpt`` dataset format (hiyouga/LLaMA-Factory
``data/README.md``: ``from`` one of ``human``, ``gpt``, ``system``, ``function_call``,
``observation``; optional top-level ``system`` prompt and ``tools`` JSON string). One
sample object, a JSON array of samples (streamed) or JSONL (one sample a line).

Decisions (the chat family's, as the agent readers do):
- speaker = ``from`` as spelled (``human``, ``gpt``, ``observation``...); role: human/user →
  user; gpt/assistant/chatgpt/bard/bing/model/function_call → assistant; system →
  system; observation/tool/function → tool; others none (``extra.original_role`` keeps the
  spelling whenever it differs from the role).
- listeners: a user turn → the assistant side's speaker (first seen, else ``gpt``), an
  assistant turn → the user side's (else ``human``), a tool turn → the assistant side.
- text = ``value`` (non-string values as JSON); a ``function_call`` value that is JSON
  ``{"name", "arguments"}`` becomes ``[tool_use NAME] {...}``, a tool turn's value
  ``[tool_result NAME] ...`` (NAME the latest call's, else ``from`` as spelled).
- A top-level ``system`` prompt becomes a first system message (``extra.system_prompt``);
  the sample's other members (``id``, ``tools``, ``images``...) go to
  ``extra.conversation`` on its first message.
- thread = the sample's ``id`` (else ``FILE#line-N`` / ``FILE#item-N`` / ``FILE``); id =
  ``sharegpt:<FILE>:<id>:<K>`` when the sample has an id (sample ids are unique only in
  their data set, ``identity_0`` in many; FILE without its folder, docs/ids.md), else
  left to the content hash.
- No times in ShareGPT: the epoch sentinel, with one warning a source.
- A turn that is not an object with ``from`` is rejected with its location; a sample
  without a ``conversations`` list is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.agents.blocks import block_chunk, dumps, inner_json, parse_arguments
from convo.importers.agents.samples import iter_samples, key_pattern, sub
from convo.importers.build import file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_str, json_head_with
from convo.importers.registry import Format

NAME = "sharegpt"
ROLE = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "chatgpt": "assistant",
    "bard": "assistant",
    "bing": "assistant",
    "model": "assistant",
    "function_call": "assistant",
    "system": "system",
    "observation": "tool",
    "tool": "tool",
    "function": "tool",
}
_FROM = key_pattern("from", tuple(ROLE))
_VALUE = re.compile(r'"value"\s*:')


def sniff(source: Source) -> int:
    text = json_head_with(source, key="conversations")
    if not text:
        return 0
    if _FROM.search(text) and _VALUE.search(text):
        return 88
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    n = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if not isinstance(sample, dict) or not isinstance(sample.get("conversations"), list):
            ctx.reject(where, "not a ShareGPT sample (no conversations list)", sample)
            continue
        for msg in _sample(sample, where, ctx):
            n += 1
            yield msg
    if n:
        ctx.warn(source.name, "ShareGPT has no times: messages get the epoch sentinel")


class _Sides:
    """The speakers of each side, for listeners."""

    def __init__(self, turns: list[Any]):
        self.user = "human"
        self.assistant = "gpt"
        seen: set[str] = set()
        for t in turns:
            spelled = as_str(t.get("from")) if isinstance(t, dict) else ""
            role = ROLE.get(spelled)
            if role in ("user", "assistant") and role not in seen and spelled != "function_call":
                seen.add(role)
                setattr(self, role, spelled)

    def listeners(self, role: str | None) -> list[str]:
        if role == "user" or role == "tool":
            return [self.assistant]
        if role == "assistant":
            return [self.user]
        return []


def _sample(
    sample: dict[str, Any], where: str, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    sid = as_str(sample.get("id"))
    thread = sid or ctx.thread_of(where)
    turns = sample["conversations"]
    sides = _Sides(turns)
    rest = {k: v for k, v in sample.items() if k not in ("conversations", "system")}
    first = True
    system = sample.get("system")
    if isinstance(system, str) and system.strip():
        yield message(
            system,
            speaker="system",
            id=file_local_id(NAME, f"{sid}:system", ctx.source.name) if sid else None,
            source_id=sub(ctx, where, "system"),
            format=NAME,
            thread=thread,
            role="system",
            extra={"system_prompt": True, "conversation": rest},
        )
        first = False
    called = ""  # the name of the latest function call, which an observation answers
    for k, turn in enumerate(turns, 1):
        loc = sub(ctx, where, f"msg-{k}")
        if not isinstance(turn, dict) or not as_str(turn.get("from")):
            ctx.reject(loc, "not a ShareGPT turn (an object with 'from' and 'value')", turn)
            continue
        spelled = as_str(turn["from"])
        role = ROLE.get(spelled)
        extras = {k2: v for k2, v in turn.items() if k2 not in ("from", "value")}
        text, called = _labelled(spelled, role, _text(spelled, turn.get("value")), called)
        yield message(
            text,
            speaker=spelled,
            listeners=sides.listeners(role),
            id=file_local_id(NAME, f"{sid}:{k}", ctx.source.name) if sid else None,
            source_id=loc,
            format=NAME,
            thread=thread,
            role=role,
            extra={
                "original_role": spelled if spelled != role else None,
                "turn": extras,
                "conversation": rest if first else None,
            },
        )
        first = False


def _labelled(spelled: str, role: str | None, text: str, called: str) -> tuple[str, str]:
    """(the turn's text, the latest call's name): a tool's answer labelled
    ``[tool_result NAME]`` by the call before it, as every agent reader labels one."""
    if spelled == "function_call" and text.startswith("[tool_use "):
        return text, text[len("[tool_use ") :].split("]", 1)[0]
    if role == "tool":
        return f"[tool_result {called or spelled}] {text}", called
    return text, called


def _text(spelled: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        return dumps(value)
    if spelled == "function_call":
        try:
            call = inner_json(value)
        except orjson.JSONDecodeError:
            return value
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            block = {"type": "tool_use", "name": call["name"]}
            block.update(parse_arguments(call.get("arguments", call.get("parameters"))))
            return block_chunk(block)
    return value


DESCRIPTION = "ShareGPT / LLaMA-Factory conversations (from/value turns), JSON or JSONL"
EXAMPLE = (
    '{"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello!"}]}'
)
FIELDS = Fields(
    speaker="`from` as spelled (`human`, `gpt`, `observation`...)",
    listeners="the other side (a user turn → the assistant side's speaker, else `gpt`; an "
    "assistant turn → the user side's, else `human`; a tool turn → the assistant side)",
    time="no times in ShareGPT: the epoch sentinel, with one warning a source",
    zone="none",
    thread="the sample's `id` (else `FILE#line-N`, `FILE#item-N` or `FILE`, FILE the file's "
    "name without its folder, a generic name with it, docs/ids.md)",
    id="`sharegpt:<file>:<id>:<turn>` when the sample has an id, else " + CONTENT_HASH,
    scope="the file (its name): sample ids are unique only in their data set",
    extra="`original_role` when the spelling is not the role; the sample's other members "
    "(`id`, `tools`, `images`...) in the first message's `conversation`; a top-level "
    "`system` prompt is a first system message with `system_prompt`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
