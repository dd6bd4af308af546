"""OpenAI Responses API objects and item lists (``openai-responses``).

Shape (openai/openai-python ``src/openai/types/responses/``: ``response.py``,
``response_output_message.py``, ``response_reasoning_item.py``,
``response_function_tool_call.py``, ``response_input_item_param.py``; and the API
reference, platform.openai.com/docs/api-reference/responses): a Response ``{"id":
"resp_...", "object": "response", "created_at", "model", "instructions", "output":
[items], "previous_response_id"}``, or a list of input/output items (a JSON array, JSONL,
or ``{"object": "list", "data": [...]}`` from ``input_items.list``). Items: ``message``
(``role``, ``content`` a string or parts ``input_text`` / ``output_text`` / ``refusal`` /
``input_image`` / ``input_file``), ``reasoning`` (``summary: [{type: summary_text,
text}]``, ``content``, ``encrypted_content``), ``function_call`` (``call_id``, ``name``,
``arguments`` JSON string), ``function_call_output`` (``call_id``, ``output``), and
built-in tool calls (``web_search_call``, ``file_search_call``, ``computer_call``...).

Decisions:
- One record per item. speaker = role (``developer`` as spelled, role ``system``);
  function calls and built-in tool calls are the assistant's (``[tool_use NAME] {...}``,
  ``[web_search_call] {...}``); a ``function_call_output`` is the ``tool``'s
  (``[tool_result NAME] output``, NAME the call's, else the ``call_id``), its
  ``replyTo`` the call with the same ``call_id``. Listeners: user ↔ assistant, a tool
  result → assistant.
- Reasoning is private: a ``reasoning`` item is attached to the next record's
  ``extra.thinking`` (summaries and content texts); a trailing one makes a record of
  its own with no text. With ``ImportOptions.include_thinking``
  (``--include-thinking``) it is a ``[thinking] ...`` record.
- A Response's ``instructions`` become a first ``system`` message
  (``extra.instructions``); its items take ``created_at`` as time and its ``id`` as
  thread (``extra.previous_response_id`` kept). Bare item lists have no times: the epoch
  sentinel, with one warning a source; thread = the file.
- id = ``openai:<item id>`` when the item has one; else the content hash.
- Memory is flat with the input: the map of ``call_id`` to the call's record (an
  output's ``replyTo``) is a ``convo.core.spillmap.SpillMap``.
- An item that is not an object with a known shape is rejected with its location.

Ids and their scope (docs/ids.md): OpenAI's ``resp_``/item ids are unique everywhere
(``openai:<id>``, no scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import epoch_ts
from convo.importers.agents.blocks import CallNames, block_chunk, dumps, parse_arguments
from convo.importers.agents.samples import iter_samples, key_pattern, sample_values, sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "openai-responses"
ITEM_TYPES = ("message", "reasoning", "function_call", "function_call_output")
ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
LISTENERS = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}
_MARKERS = key_pattern(
    "type",
    ("function_call_output", "reasoning", "input_text", "output_text", "summary_text"),
)


def _is_item(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        obj.get("type") in ITEM_TYPES or str(obj.get("type", "")).endswith("_call")
    )


def _is_response(obj: Any) -> bool:
    return isinstance(obj, dict) and (
        obj.get("object") == "response" or (isinstance(obj.get("output"), list) and "id" in obj)
    )


def sniff(source: Source) -> int:
    text = json_head_with(source)
    if not text:
        return 0
    values = sample_values(text)
    for v in values[:40]:
        if _is_response(v):
            return 90
        if isinstance(v, dict) and v.get("object") == "list":
            v = v.get("data")
        items = v if isinstance(v, list) else [v]
        if items and all(_is_item(i) for i in items) and _MARKERS.search(text):
            return 90
    if not values and re.search(r'"object"\s*:\s*"response"', text):
        return 85
    return 0


class _State:
    """Per-source state: pending reasoning, calls by call_id, the thinking option."""

    def __init__(self, ctx: ImportContext, include_thinking: bool):
        self.ctx = ctx
        self.include = include_thinking
        self.pending: list[dict[str, Any]] = []
        self.calls: SpillMap[str, str] = SpillMap()
        self.tools = CallNames()  # an output is named by the call it answers
        self.untimed = 0


class ItemReader:
    """Responses items read into records by another reader (``api_log``: a logged call's
    input and output), with this module's rules; ``close()`` when done."""

    def __init__(self, ctx: ImportContext):
        self.st = _State(ctx, ctx.options.include_thinking)

    def items(
        self, items: list[Any], where: str, thread: str, ts: str | None
    ) -> Iterator[ConversationMessage]:
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items
        yield from _items(items, where, thread, ts, self.st)
        yield from _flush(self.st, where, thread, ts)

    def close(self) -> None:
        self.st.calls.close()


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read; reasoning goes to extra, or to ``[thinking]`` chunks with
    ``ctx.options.include_thinking``."""
    include_thinking = ctx.options.include_thinking
    st = _State(ctx, include_thinking)
    try:
        for sample, loc in iter_samples(source, ctx):
            yield from _sample(sample, loc, st)
        yield from _flush(st, source.name, ctx.thread_of(source.name), None)
    finally:
        st.calls.close()
    if st.untimed:
        ctx.warn(source.name, "Responses items carry no times: messages get the epoch sentinel")


def _sample(sample: Any, loc: str, st: _State) -> Iterator[ConversationMessage]:
    ctx = st.ctx
    source = ctx.source
    where = ctx.loc(loc) if loc != "doc" else source.name
    if _is_response(sample):
        yield from _response(sample, where, st)
    elif isinstance(sample, dict) and sample.get("object") == "list":
        yield from _items(as_list(sample.get("data")), where, ctx.thread_of(source.name), None, st)
    elif isinstance(sample, list):
        yield from _items(sample, where, ctx.thread_of(source.name), None, st)
    else:  # one item a line (JSONL) or one item
        yield from _items([sample], where, ctx.thread_of(source.name), None, st, single=True)


def _response(resp: dict[str, Any], where: str, st: _State) -> Iterator[ConversationMessage]:
    thread = as_str(resp.get("id")) or st.ctx.thread_of(where)
    ts = epoch_ts(resp.get("created_at"))
    instructions = resp.get("instructions")
    if isinstance(instructions, str) and instructions.strip():
        yield message(
            instructions,
            speaker="system",
            source_id=sub(st.ctx, where, "instructions"),
            format=NAME,
            thread=thread,
            timestamp=ts,
            role="system",
            extra={"instructions": True},
        )
    meta = {k: resp.get(k) for k in ("model", "previous_response_id", "status") if resp.get(k)}
    yield from _items(as_list(resp.get("output")), where, thread, ts, st, meta=meta)
    yield from _flush(st, where, thread, ts)


def _items(
    items: list[Any],
    where: str,
    thread: str,
    ts: str | None,
    st: _State,
    single: bool = False,
    meta: dict[str, Any] | None = None,
) -> Iterator[ConversationMessage]:
    for k, item in enumerate(items, 1):
        loc = where if single else sub(st.ctx, where, f"item-{k}")
        if isinstance(item, dict) and item.get("type") is None and "role" in item:
            item = {**item, "type": "message"}  # EasyInputMessage
        if not _is_item(item):
            st.ctx.reject(loc, "not a Responses item (message, reasoning, function_call...)", item)
            continue
        if item["type"] == "reasoning":
            st.pending.append(_thought(item))
            if st.include:
                yield from _flush(st, loc, thread, ts)
            continue
        rec = _record(item, loc, thread, ts, st)
        if rec is None:
            continue
        extra = dict(rec.extra or {})
        if meta:
            extra["response"], meta = meta, None
        if st.pending:
            extra["thinking"], st.pending = st.pending, []
        rec.extra = extra or None
        if ts is None:
            st.untimed += 1
        yield rec


def _flush(st: _State, loc: str, thread: str, ts: str | None) -> Iterator[ConversationMessage]:
    """A reasoning item with no record after it (or every one, with include_thinking)."""
    if not st.pending:
        return
    thoughts, st.pending = st.pending, []
    chunks = [
        f"[thinking] {t}" for th in thoughts for t in th.get("summary", []) + th.get("content", [])
    ]
    yield message(
        chunks if st.include else [""],
        speaker="assistant",
        listeners=["user"],
        id=next((f"openai:{t['id']}" for t in thoughts if t.get("id")), None),
        source_id=loc,
        format=NAME,
        thread=thread,
        timestamp=ts,
        role="assistant",
        extra={"reasoning": True} if st.include else {"thinking": thoughts},
    )


def _thought(item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": as_str(item.get("id")) or None}
    out["summary"] = [as_str(as_dict(s).get("text")) for s in as_list(item.get("summary"))]
    out["content"] = [as_str(as_dict(s).get("text")) for s in as_list(item.get("content"))]
    out["encrypted"] = True if item.get("encrypted_content") else None
    return {k: v for k, v in out.items() if v}


def _parties(item: dict[str, Any], st: _State) -> tuple[str, str | None, list[str], str | None]:
    """(speaker, role, chunks, replyTo) of one item."""
    kind = item["type"]
    if kind == "message":
        spelled = as_str(item.get("role")) or "user"
        return spelled, ROLES.get(spelled), message_chunks(item.get("content")), None
    if kind == "function_call_output":
        call_id = as_str(item.get("call_id"))
        label = st.tools.get(call_id) or call_id or "?"
        text = f"[tool_result {label}] {_output_text(item.get('output'))}"
        return "tool", "tool", [text], st.calls.get(call_id)
    return "assistant", "assistant", [_call_chunk(item)], None


def _item_extra(item: dict[str, Any], speaker: str, role: str | None) -> dict[str, Any]:
    kind = item["type"]
    drop = {"type", "role", "content", "id"} | ({"status"} if kind == "message" else set())
    rest = {k: v for k, v in item.items() if k not in drop}
    if isinstance(rest.get("output"), str):
        del rest["output"]  # the record's text after its ``[tool_result NAME]`` label
    return {
        "type": kind if kind != "message" else None,
        "original_role": speaker if kind == "message" and speaker != role else None,
        "item": rest,
        "parts": [p for p in as_list(item.get("content")) if as_dict(p).get("annotations")],
    }


def _record(
    item: dict[str, Any], loc: str, thread: str, ts: str | None, st: _State
) -> ConversationMessage | None:
    speaker, role, chunks, reply_to = _parties(item, st)
    iid, call_id = as_str(item.get("id")), as_str(item.get("call_id"))
    rec_id = f"openai:{iid}" if iid else None
    if item["type"] not in ("message", "function_call_output") and call_id:
        rec_id = rec_id or f"openai:{call_id}"
        st.calls.set(call_id, rec_id)
        st.tools.add(call_id, as_str(item.get("name")) or item["type"])
    return message(
        chunks,
        speaker=speaker,
        listeners=LISTENERS.get(role or "", []),
        timestamp=ts,
        id=rec_id,
        source_id=loc,
        format=NAME,
        thread=thread,
        reply_to=reply_to,
        role=role,
        extra=_item_extra(item, speaker, role),
    )


def message_chunks(content: Any) -> list[str]:
    """A Responses-API message's ``content`` (a string, or its parts) as text chunks; an
    inline image (a ``data:`` URL) is named, not copied into the text (the Codex CLI's
    rollouts carry the same items: ``codex``)."""
    if isinstance(content, str):
        return [content]
    chunks = []
    for part in as_list(content):
        p = as_dict(part)
        kind = as_str(p.get("type"))
        if kind in ("input_text", "output_text", "text", "summary_text"):
            chunks.append(as_str(p.get("text")))
        elif kind == "refusal":
            chunks.append(f"[refusal] {as_str(p.get('refusal'))}")
        elif kind == "input_image":
            url = as_str(p.get("image_url")) or as_str(p.get("file_id"))
            chunks.append(
                "[image] data URL" if url.startswith("data:") else f"[image] {url}".rstrip()
            )
        elif kind == "input_file":
            label = (
                as_str(p.get("filename")) or as_str(p.get("file_id")) or as_str(p.get("file_url"))
            )
            chunks.append(f"[file {label}]" if label else "[file]")
        else:
            chunks.append(block_chunk(p) if p else dumps(part))
    return chunks


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(message_chunks(output))
    return dumps(output)


def _call_chunk(item: dict[str, Any]) -> str:
    if item["type"] == "function_call":
        block = {"type": "tool_use", "name": as_str(item.get("name"))}
        block.update(parse_arguments(item.get("arguments")))
        return block_chunk(block)
    rest = {k: v for k, v in item.items() if k not in ("id", "status")}
    return block_chunk(rest)


DESCRIPTION = "OpenAI Responses API objects and input/output item lists"
EXAMPLE = (
    '{"id": "resp_1", "object": "response", "created_at": 1741476542, "output": ['
    '{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]}]}'
)
FIELDS = Fields(
    speaker="the role (`developer` as spelled); function and built-in tool calls: "
    "`assistant`; a `function_call_output`: `tool`",
    listeners="user ↔ assistant; a tool result → assistant",
    time="the Response's `created_at`; bare item lists have none: the epoch sentinel, with "
    "one warning a source",
    zone="epoch seconds: UTC",
    thread="the Response's `id`, else the file's name without its folder "
    "(a generic name with its folder, docs/ids.md)",
    id="`openai:<id>` (the item's id), else " + CONTENT_HASH,
    scope="none: OpenAI's ids are unique everywhere",
    reply_to="a `function_call_output`: the call with its `call_id`",
    extra="`parts`, `response` (model, `previous_response_id`...); reasoning in `thinking` "
    "unless `--include-thinking`; `instructions` become a first system message",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)


def read_stored_items(
    rows: Iterable[tuple[Any, str, str | None]], thread: str, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    """Items a store keeps one a row, as ``(item, place, time)`` (the OpenAI Agents SDK's
    ``SQLiteSession``, ``agents_session``): read as an item list is, in one thread."""
    st = _State(ctx, ctx.options.include_thinking)
    last: tuple[str, str | None] = ("", None)
    try:
        for item, where, ts in rows:
            last = (where, ts)
            yield from _items([item], where, thread, ts, st, single=True)
        yield from _flush(st, last[0], thread, last[1])
    finally:
        st.calls.close()
