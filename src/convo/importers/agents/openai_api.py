"""OpenAI API response objects: ``chat.completion`` and Assistants thread messages.

Shapes (openai/openai-python ``src/openai/types/chat/chat_completion.py`` and
``chat_completion_message.py``; ``src/openai/types/beta/threads/message.py``; the Batch
API output line format, platform.openai.com/docs/guides/batch):
- ``openai-completion``: ``{"id": "chatcmpl-...", "object": "chat.completion", "created",
  "model", "choices": [{"index", "message": {"role", "content", "refusal",
  "tool_calls", "reasoning_content"?}, "finish_reason"}], "usage"}``; one object, a
  list, JSONL, or Batch output lines ``{"custom_id", "response": {"status_code",
  "body": {chat.completion}}, "error"}``.
- ``openai-assistants``: ``{"object": "list", "data": [{"id": "msg_...", "object":
  "thread.message", "created_at", "thread_id", "role", "content": [{"type": "text",
  "text": {"value", "annotations"}}, {"type": "image_file", ...}], "assistant_id",
  "run_id", "attachments"}], "first_id", "last_id", "has_more"}`` (newest first by
  default), or a list / JSONL of such messages.

Decisions:
- completion: one record per choice; speaker = the message's ``name`` else its role
  (``assistant``), listener ``user``; timestamp = ``created``; thread = the completion
  ``id`` (Batch: ``custom_id``); id = ``openai:<id>`` (``openai:<id>:<index>`` for
  choices after the first). Tool calls become ``[tool_use NAME] {...}`` chunks, a
  refusal ``[refusal] ...``. Reasoning text some providers return
  (``reasoning_content``, ``reasoning``) is private: ``extra.thinking``, never the text
  (a ``[thinking]`` chunk with ``include_thinking``). ``model``, ``finish_reason``,
  ``usage`` go to ``extra``. A Batch line with an ``error`` (no body) is rejected.
- assistants: messages sorted by ``created_at`` (ties keep file order); speaker = role
  (``extra.assistant_id``, ``run_id`` kept); listeners user ↔ assistant; thread =
  ``thread_id``; id = ``openai:<msg id>``; text parts' ``value`` as text, image parts
  ``[image] FILE_ID``; annotations and attachments in ``extra``.
- Anything else in the document is rejected with its location.

Ids and their scope (docs/ids.md): OpenAI's ``chatcmpl-``/``msg_`` ids are unique
everywhere (``openai:<id>``, no scope); fine-tuning lines carry none: the content hash
(``convo.importers.agents.reader``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.agents.blocks import block_chunk, dumps, tool_use_block
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

COMPLETION = "openai-completion"
ASSISTANTS = "openai-assistants"
OTHER = {"user": ["assistant"], "assistant": ["user"]}


def _completion_of(obj: Any) -> dict[str, Any] | None:
    if not isinstance(obj, dict):
        return None
    body = as_dict(as_dict(obj.get("response")).get("body"))
    if body and "custom_id" in obj:
        obj = body
    if obj.get("object") == "chat.completion" or (
        isinstance(obj.get("choices"), list)
        and any("message" in as_dict(c) for c in obj["choices"])
    ):
        return obj
    return None


def _is_thread_message(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("object") == "thread.message"


def _flat(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, dict) and v.get("object") == "list":
            out += as_list(v.get("data"))
        elif isinstance(v, list):
            out += v
        else:
            out.append(v)
    return out[:40]


def _sniff(source: Source, marker: str, wanted: Callable[[Any], Any], cut_marker: str) -> int:
    """90 when a sampled item is ``wanted``; a head too long to parse scores 85 when it
    holds ``cut_marker``."""
    text = json_head_with(source, marker)
    if not text:
        return 0
    items = _flat(sample_values(text))
    if items:
        return 90 if any(wanted(v) for v in items) else 0
    return 85 if cut_marker in text else 0


def sniff_completion(source: Source) -> int:
    return _sniff(source, '"choices"', _completion_or_error, '"chat.completion"')


def sniff_assistants(source: Source) -> int:
    return _sniff(source, '"thread.message"', _is_thread_message, '"thread.message"')


def _completion_or_error(obj: Any) -> bool:
    return _completion_of(obj) is not None or _batch_error(obj)


def _batch_error(obj: Any) -> bool:
    return isinstance(obj, dict) and "custom_id" in obj and obj.get("error") is not None


def _samples(source: Source, ctx: ImportContext) -> Iterator[tuple[Any, str]]:
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if isinstance(sample, dict) and sample.get("object") == "list":
            for k, item in enumerate(as_list(sample.get("data")), 1):
                yield item, sub(ctx, where, f"item-{k}")
        elif isinstance(sample, list):
            for k, item in enumerate(sample, 1):
                yield item, sub(ctx, where, f"item-{k}")
        else:
            yield sample, where


def read_completion(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read; reasoning text goes to extra, or to a ``[thinking]`` chunk with
    ``ctx.options.include_thinking``."""
    include_thinking = ctx.options.include_thinking
    for obj, where in _samples(source, ctx):
        comp = _completion_of(obj)
        if comp is None:
            error = as_dict(obj).get("error") if _batch_error(obj) else None
            reason = f"batch request failed ({dumps(error)})" if error else "not a chat.completion"
            ctx.reject(where, reason, obj)
            continue
        custom = as_str(as_dict(obj).get("custom_id"))
        yield from _choices(comp, where, custom, ctx, include_thinking)


def _choices(
    comp: dict[str, Any], where: str, custom: str, ctx: ImportContext, include: bool
) -> Iterator[ConversationMessage]:
    cid = as_str(comp.get("id"))
    ts = epoch_ts(comp.get("created"))
    choices = as_list(comp.get("choices"))
    if not choices:  # "choices": 0, {}, or none: the completion was read as nothing, unsaid
        ctx.reject(where, "a chat.completion without choices", comp)
    for k, choice in enumerate(choices):
        loc = sub(ctx, where, f"choice-{k}")
        msg = as_dict(as_dict(choice).get("message"))
        if not msg:
            ctx.reject(loc, "a choice without a message", choice)
            continue
        index = as_dict(choice).get("index", k)
        role = as_str(msg.get("role")) or "assistant"
        chunks, thinking = _completion_chunks(msg, include)
        rec_id = None
        if cid:
            rec_id = f"openai:{cid}" if index in (0, None) else f"openai:{cid}:{index}"
        yield message(
            chunks,
            speaker=as_str(msg.get("name")) or role,
            listeners=OTHER.get(role, []),
            timestamp=ts,
            id=rec_id,
            source_id=loc,
            format=COMPLETION,
            thread=custom or cid or ctx.thread_of(where),
            role=role if role in ("system", "user", "assistant", "tool") else None,
            extra={
                "model": as_str(comp.get("model")),
                "finish_reason": as_str(as_dict(choice).get("finish_reason")),
                "choice": index if index not in (0, None) else None,
                "custom_id": custom,
                "usage": comp.get("usage") if k == 0 else None,
                "tool_calls": as_list(msg.get("tool_calls")),
                "annotations": as_list(msg.get("annotations")),
                "thinking": thinking,
            },
        )


def _completion_chunks(msg: dict[str, Any], include: bool) -> tuple[list[str], list[str]]:
    chunks: list[str] = []
    thinking = [
        t for t in (as_str(msg.get("reasoning_content")), as_str(msg.get("reasoning"))) if t
    ]
    if include:
        chunks += [f"[thinking] {t}" for t in thinking]
        thinking = []
    content = msg.get("content")
    if isinstance(content, str):
        chunks.append(content)
    elif isinstance(content, list):
        chunks += [block_chunk(as_dict(p)) for p in content if isinstance(p, dict)]
    if as_str(msg.get("refusal")):
        chunks.append(f"[refusal] {msg['refusal']}")
    for call in as_list(msg.get("tool_calls")):
        chunks.append(block_chunk(tool_use_block(as_dict(call))))
    if isinstance(msg.get("function_call"), dict):
        chunks.append(block_chunk(tool_use_block(msg["function_call"])))
    return [c for c in chunks if c.strip()], thinking


def read_assistants(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    rows: list[tuple[float, int, dict[str, Any], str]] = []
    for n, (obj, where) in enumerate(_samples(source, ctx)):
        if not _is_thread_message(obj):
            ctx.reject(where, "not an Assistants thread.message", obj)
            continue
        created = obj.get("created_at")
        key = (
            float(created)
            if isinstance(created, int | float) and not isinstance(created, bool)
            else 0.0
        )
        rows.append((key, n, obj, where))
    for _, _, obj, where in sorted(rows, key=lambda r: (r[0], r[1])):
        yield _thread_message(obj, where)


def _thread_message(obj: dict[str, Any], where: str) -> ConversationMessage:
    role = as_str(obj.get("role")) or "user"
    chunks: list[str] = []
    annotations: list[Any] = []
    for part in as_list(obj.get("content")):
        p = as_dict(part)
        kind = as_str(p.get("type"))
        if kind == "text":
            text = as_dict(p.get("text"))
            chunks.append(as_str(text.get("value")))
            annotations += as_list(text.get("annotations"))
        elif kind == "image_file":
            chunks.append(f"[image] {as_str(as_dict(p.get('image_file')).get('file_id'))}".rstrip())
        elif kind == "image_url":
            chunks.append(f"[image] {as_str(as_dict(p.get('image_url')).get('url'))}".rstrip())
        elif kind == "refusal":
            chunks.append(f"[refusal] {as_str(p.get('refusal'))}")
        else:
            chunks.append(block_chunk(p) if p else dumps(part))
    mid = as_str(obj.get("id"))
    return message(
        chunks,
        speaker=role,
        listeners=OTHER.get(role, []),
        timestamp=epoch_ts(obj.get("created_at")),
        id=f"openai:{mid}" if mid else None,
        source_id=where,
        format=ASSISTANTS,
        thread=as_str(obj.get("thread_id")) or None,
        role=role if role in ("user", "assistant") else None,
        extra={
            "assistant_id": as_str(obj.get("assistant_id")),
            "run_id": as_str(obj.get("run_id")),
            "annotations": annotations,
            "attachments": as_list(obj.get("attachments")),
            "metadata": as_dict(obj.get("metadata")),
            "status": as_str(obj.get("status")) if obj.get("status") != "completed" else None,
        },
    )


COMPLETION_DESCRIPTION = "OpenAI chat.completion responses (choices[].message), Batch API output"
COMPLETION_EXAMPLE = (
    '{"id": "chatcmpl-1", "object": "chat.completion", "created": 1741569952, '
    '"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}]}'
)
ASSISTANTS_DESCRIPTION = "OpenAI Assistants thread message lists (thread.message objects)"
ASSISTANTS_EXAMPLE = (
    '{"object": "list", "data": [{"id": "msg_1", "object": "thread.message", '
    '"thread_id": "thread_1", "role": "user", "content": [{"type": "text", '
    '"text": {"value": "Hi", "annotations": []}}]}]}'
)
COMPLETION_FIELDS = Fields(
    speaker="the message's `name`, else its role (`assistant`)",
    listeners="`user`",
    time="`created`",
    zone="epoch seconds: UTC",
    thread="the completion's `id` (Batch output: `custom_id`)",
    id="`openai:<id>` (`openai:<id>:<index>` for choices after the first)",
    scope="none: OpenAI's `chatcmpl-` ids are unique everywhere",
    extra="`model`, `finish_reason`, `usage`, `choice`, `tool_calls`; reasoning in "
    "`thinking` unless `--include-thinking`",
)
ASSISTANTS_FIELDS = Fields(
    speaker="the role",
    listeners="user ↔ assistant",
    time="`created_at` (messages sorted by it)",
    zone="epoch seconds: UTC",
    thread="`thread_id`",
    id="`openai:<id>` (the `msg_` id)",
    scope="none: OpenAI's `msg_` ids are unique everywhere",
    extra="`assistant_id`, `run_id`, `annotations`, `attachments`",
)
FORMATS = tuple(
    Format(name, "chat", description, ("*.json", "*.jsonl"), sniff, read, example, fields=fields)
    for name, description, sniff, read, example, fields in (
        (
            COMPLETION,
            COMPLETION_DESCRIPTION,
            sniff_completion,
            read_completion,
            COMPLETION_EXAMPLE,
            COMPLETION_FIELDS,
        ),
        (
            ASSISTANTS,
            ASSISTANTS_DESCRIPTION,
            sniff_assistants,
            read_assistants,
            ASSISTANTS_EXAMPLE,
            ASSISTANTS_FIELDS,
        ),
    )
)
