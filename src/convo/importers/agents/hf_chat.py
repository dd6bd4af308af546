"""Hugging Face chat datasets (``hf-chat``): TRL's dataset formats other than plain
``messages``, Alpaca's, and messages whose content parts carry ``value``.

TRL's prompt-completion (``{"prompt", "completion"}``) and preference (``{"prompt",
"chosen", "rejected"}``, or ``chosen``/``rejected`` with the prompt inside) samples,
conversational (lists of messages) or standard (strings: the prompt the user's turn,
the completion the assistant's), are the prompt then the completion or the chosen
answer; the rejected one stays in ``extra.conversation``. Alpaca samples
(``instruction``, ``input``, ``output``, ``system``, ``history``; ``_alpaca``) are read as
LLaMA-Factory reads them. A turn made from a string has no ``extra.original``.

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


# The columns a sample's turns are made of (the rest go to ``extra.conversation``).
TURN_COLUMNS = frozenset(
    {"messages", "prompt", "completion", "chosen", "instruction", "input", "output", "history"}
)


class _Made(dict[str, Any]):
    """A turn made from a string column (no message object of the dataset's)."""


def _said(role: str, text: Any) -> list[dict[str, Any]]:
    """A column as turns: a conversational one as it is, a string one as one turn."""
    if isinstance(text, list):
        return list(text)
    return [_Made(role=role, content=text)] if isinstance(text, str) else []


def _turns(sample: Any) -> tuple[list[Any], int] | None:
    """(the sample's turns, how many of them are its prompt) for TRL's dataset formats
    (``messages``; ``prompt`` with ``completion``, or with ``chosen`` and ``rejected``;
    ``chosen`` alone, its prompt implicit), conversational or standard (strings), and
    the Alpaca format (``instruction``, ``input``, ``output``, ``system``, ``history``)."""
    if not isinstance(sample, dict):
        return None
    if isinstance(sample.get("messages"), list):
        return list(sample["messages"]), len(sample["messages"])
    answer = sample.get("completion", sample.get("chosen"))
    if isinstance(answer, (list, str)) and "prompt" in sample:
        prompt = _said("user", sample["prompt"])
        return [*prompt, *_said("assistant", answer)], len(prompt)
    if isinstance(sample.get("chosen"), list) and isinstance(sample.get("rejected"), list):
        return list(sample["chosen"]), len(sample["chosen"])
    if isinstance(sample.get("instruction"), str) and isinstance(sample.get("output"), str):
        return _alpaca(sample)
    return None


def _alpaca(sample: dict[str, Any]) -> tuple[list[Any], int]:
    """An Alpaca sample as LLaMA-Factory reads it (``data/README.md``, ``converter.py``):
    ``system``, each ``history`` pair, then ``instruction`` and ``input`` (joined by a
    line break) as the user's turn and ``output`` as the answer."""
    turns: list[Any] = _said("system", sample.get("system")) if sample.get("system") else []
    history = sample.get("history") or []
    for pair in history if isinstance(history, list) else [history]:  # 5: rejected, placed
        if isinstance(pair, list) and len(pair) == 2:
            turns += [*_said("user", pair[0]), *_said("assistant", pair[1])]
        else:
            turns.append(pair)  # rejected with its place
    asked = "\n".join(
        t for t in (sample["instruction"], sample.get("input")) if isinstance(t, str) and t
    )
    turns.append(_Made(role="user", content=asked))
    return [*turns, _Made(role="assistant", content=sample["output"])], len(turns)


def sniff(source: Source) -> int:
    text = json_head_with(source)
    if not any(f'"{k}"' in text for k in ("messages", "prompt", "chosen", "instruction")):
        return 0
    values = sample_values(text)
    samples = [s for v in values[:40] for s in (v if isinstance(v, list) else [v])][:40]
    if samples:
        return _sniff_samples(samples)
    return 80 if _VALUE_PART.search(text) and '"role"' in text else 0


def _sniff_samples(samples: list[Any]) -> int:
    """85 for ``value`` parts; 80 when most samples are of TRL's other shapes or
    Alpaca's (no other format reads them)."""
    turns = [_turns(s) for s in samples]
    if any(t is not None and _value_parts(t[0]) for t in turns):
        return 85
    found = [
        s for s, t in zip(samples, turns, strict=True) if t is not None and "messages" not in s
    ]
    return 80 if found and len(found) * 2 >= len(samples) else 0


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
    sample: dict[str, Any],
    turns_of: tuple[list[Any], int],
    where: str,
    ctx: ImportContext,
    ids: ContentIds,
) -> Iterator[ConversationMessage]:
    thread = as_str(sample.get("id")) or ctx.thread_of(where)
    taken = TURN_COLUMNS | ({"system"} if "instruction" in sample else set())  # Alpaca's
    rest = {k: v for k, v in sample.items() if k not in taken}
    turns, n_prompt = turns_of
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
        if not isinstance(turn, _Made):
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


DESCRIPTION = (
    "Hugging Face chat datasets: TRL's prompt-completion and preference formats, Alpaca, "
    'and messages with {"type": "text", "value": ...} parts'
)
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
