"""Hugging Face chat datasets whose content parts carry ``value`` (``hf-chat``).

Shape: TRL's conversational dataset format (huggingface.co/docs/trl/dataset_formats:
``{"messages": [{"role", "content"}]}``, or ``{"prompt": [...], "completion": [...]}``),
with multimodal content parts as in HuggingFaceH4/llava-instruct-mix-vsft
(``[{"type": "text", "text": ..., "index": null}, {"type": "image", "index": 0, "text":
null}]`` plus an ``images`` column). Some datasets spell the text part ``{"type":
"text", "value": ...}``: the OpenAI reader reads those parts as empty text (issue 15),
so this format claims exactly the files that use ``value`` parts; plain OpenAI-style
``messages`` files stay ``openai``.

Decisions:
- Each message is read as an OpenAI message (convo.importers.agents
  ``message_from_object``: speaker, role, listeners, ``extra.blocks``) after its text parts
  are normalised: ``text`` when it is a string, else ``value``. ``extra.original`` keeps
  the message as the dataset had it.
- ``prompt`` + ``completion`` samples are one conversation (prompt first); the
  completion's messages get ``extra.completion = true``.
- thread = the sample's ``id`` (a content-hash id hashes a short one as ``FILE:id``:
  ``build.ContentIds.assign_local``; else ``FILE#line-N`` / ``FILE#item-N`` / ``FILE``); the
  sample's other columns (``images``...) go to ``extra.conversation`` on its first message.
- No times: the epoch sentinel, with one warning a source. No ids: the content hash.
- A sample without a messages list, or a message that is not one, is rejected with its
  location.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the sample's ``id`` scoped by the file when short (``FILE:id``; data sets number their
samples).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import RecordError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.agents.reader import message_from_object
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import ContentIds
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_str, json_head_with
from convo.importers.registry import Format

NAME = "hf-chat"
_VALUE_PART = re.compile(
    r'\{[^{}]*"type"\s*:\s*"text"[^{}]*"value"\s*:|\{[^{}]*"value"\s*:[^{}]*"type"\s*:\s*"text"'
)


def _is_value_part(part: Any) -> bool:
    return (
        isinstance(part, dict)
        and part.get("type") == "text"
        and "value" in part
        and not isinstance(part.get("text"), str)
    )


def _value_parts(messages: Any) -> bool:
    for m in messages if isinstance(messages, list) else ():
        content = m.get("content") if isinstance(m, dict) else None
        for part in content if isinstance(content, list) else ():
            if _is_value_part(part):
                return True
    return False


def _turns(sample: Any) -> list[Any] | None:
    if not isinstance(sample, dict):
        return None
    if isinstance(sample.get("messages"), list):
        return list(sample["messages"])
    if isinstance(sample.get("prompt"), list) and isinstance(sample.get("completion"), list):
        return [*sample["prompt"], *sample["completion"]]
    return None


def sniff(source: Source) -> int:
    text = json_head_with(source)
    if '"messages"' not in text and '"prompt"' not in text:
        return 0
    values = sample_values(text)
    if values:
        return 85 if any(_value_parts(_turns(v)) for v in values[:40]) else 0
    return 80 if _VALUE_PART.search(text) and '"role"' in text else 0


def normalise(msg: dict[str, Any]) -> dict[str, Any]:
    """The message with every text part's ``value`` moved to ``text``."""
    content = msg.get("content")
    if not isinstance(content, list):
        return msg
    parts = []
    for part in content:
        if (
            isinstance(part, dict)
            and part.get("type") == "text"
            and not isinstance(part.get("text"), str)
        ):
            part = {**part, "text": as_str(part.get("value"))}
            part.pop("value", None)
        if isinstance(part, dict):
            part = {k: v for k, v in part.items() if v is not None}
        parts.append(part)
    return {**msg, "content": parts}


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    n = 0
    ids = ContentIds(source.name)
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        turns = _turns(sample)
        if turns is None:
            ctx.reject(where, "not a chat sample (no messages list)", sample)
            continue
        for msg in _sample(sample, turns, where, ctx, ids):
            n += 1
            yield msg
    if n:
        ctx.warn(source.name, "the dataset has no times: messages get the epoch sentinel")


def _sample(
    sample: dict[str, Any], turns: list[Any], where: str, ctx: ImportContext, ids: ContentIds
) -> Iterator[ConversationMessage]:
    thread = as_str(sample.get("id")) or ctx.thread_of(where)
    rest = {k: v for k, v in sample.items() if k not in ("messages", "prompt", "completion")}
    n_prompt = len(turns) - len(sample["completion"]) if "messages" not in sample else len(turns)
    first = True
    for k, turn in enumerate(turns, 1):
        loc = sub(ctx, where, f"msg-{k}")
        if not isinstance(turn, dict):
            ctx.reject(loc, "not a chat message (expected an object)", turn)
            continue
        try:
            msg = message_from_object(normalise(turn), fmt="openai")
        except RecordError as e:
            ctx.reject(loc, e.what, turn, e.hint)
            continue
        extra = dict(msg.extra or {})
        extra["original"] = turn
        if k > n_prompt:
            extra["completion"] = True
        if first and rest:
            extra["conversation"] = rest
        msg.extra = extra
        msg.thread, msg.source_id, msg.format = thread, loc, NAME
        ids.assign_local(msg)
        first = False
        yield msg


DESCRIPTION = 'Hugging Face chat datasets with {"type": "text", "value": ...} parts'
EXAMPLE = '{"messages": [{"role": "user", "content": [{"type": "text", "value": "Hi"}]}]}'
FIELDS = Fields(
    speaker="the role (as an OpenAI message: `name`, else the role)",
    listeners="the other party of the exchange (user ↔ assistant; a tool result → assistant)",
    time="no times: the epoch sentinel, with one warning a source",
    zone="none",
    thread="the sample's `id` (else `FILE#line-N`, `FILE#item-N` or `FILE`, FILE the file's "
    "name without its folder, a generic name with it, docs/ids.md)",
    id="no message ids: " + CONTENT_HASH,
    scope="the conversation: the sample's `id`, scoped by the file when short (`FILE:id`)",
    extra="`original` (the message as the dataset had it), `blocks`; `completion` on a "
    "completion's messages; the sample's other columns (`images`...) in the first "
    "message's `conversation`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
