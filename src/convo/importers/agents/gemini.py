"""Gemini API ``contents`` and ``GenerateContentResponse`` objects (``gemini``).

Shape (ai.google.dev/api/caching#Content and ai.google.dev/api/generate-content; the
googleapis/python-genai ``google/genai/types.py`` models, whose ``model_dump`` spells
fields in snake_case): a request ``{"contents": [{"role": "user"|"model", "parts":
[...]}], "systemInstruction": {"parts": [...]}, "tools"}``, a bare list of Content
objects, a response ``{"candidates": [{"content": {...}, "finishReason"}],
"usageMetadata", "modelVersion", "responseId", "createTime"?}``, a JSON array of
streamed response chunks, or JSONL of any of these; and the Gemini CLI's ``/chat save``
checkpoints (``checkpoint-<tag>.json``: a bare list of Content, or ``{"history": [...],
"authType"}``, ``authType`` being how the CLI signed in, not kept). Parts: ``text``
(``thought: true`` marks a thought summary), ``functionCall`` (``name``, ``args``, ``id``),
``functionResponse`` (``name``, ``response``), ``inlineData`` (``mimeType``, ``data``),
``fileData`` (``mimeType``, ``fileUri``), ``executableCode``, ``codeExecutionResult``;
``thoughtSignature`` is opaque.

Decisions:
- speaker = ``role`` as spelled (``user``, ``model``); role: model → assistant,
  user → user, function/tool → tool; a Content whose parts are all function responses is
  the ``tool``'s (``extra.original_role`` keeps the spelling). No role: ``user``.
  Listeners: user ↔ model, a tool result → model.
- ``systemInstruction`` becomes a first ``system`` message.
- One chunk a part: text as is; ``[tool_use NAME] {args}``; ``[tool_result NAME] {...}``;
  ``[image image/png, N bytes]`` / ``[file URI]``; ``[executable_code LANG] code``;
  ``[code_execution_result OUTCOME] output``. Non-text parts are kept in ``extra.parts``.
- Thought parts are private: their text goes to ``extra.thinking``, never the text
  (``[thinking] ...`` chunks with ``ImportOptions.include_thinking``,
  ``--include-thinking``).
- A response: one record per candidate, id = ``gemini:<responseId>`` (``:<index>`` after
  the first), timestamp = ``createTime`` when present; ``modelVersion``,
  ``finishReason``, ``usageMetadata`` in ``extra``. A JSON array of response chunks is one
  streamed reply: the chunks' parts are joined (texts concatenated) per candidate.
- thread = the file (``FILE#line-N`` per JSONL line). No times in requests: the epoch
  sentinel, with one warning a source. Something that is not a Content is rejected.

Ids and their scope (docs/ids.md): ``gemini:<responseId>``, unique everywhere; requests
carry none: the content hash, its conversation the file or line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk, dumps
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "gemini"
ROLES = {"user": "user", "model": "assistant", "function": "tool", "tool": "tool"}
LISTENERS = {"user": ["model"], "assistant": ["user"], "tool": ["model"]}
PART_KEYS = (
    "text", "functionCall", "function_call", "functionResponse", "function_response",
    "inlineData", "inline_data", "fileData", "file_data", "executableCode",
    "executable_code", "codeExecutionResult", "code_execution_result",
)  # fmt: skip
_ROLE = re.compile(r'"role"\s*:\s*"(user|model)"')


def _get(d: dict[str, Any], camel: str) -> Any:
    """A field in camelCase (REST) or snake_case (python-genai ``model_dump``)."""
    if camel in d:
        return d[camel]
    return d.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def _is_content(obj: Any) -> bool:
    if not isinstance(obj, dict) or not isinstance(obj.get("parts"), list):
        return False
    parts = obj["parts"]
    return all(isinstance(p, dict) and "type" not in p for p in parts) and (
        "role" in obj or any(k in p for p in parts for k in PART_KEYS)
    )


def _is_response(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("candidates"), list)


def _is_request(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("contents"), list)


def _is_checkpoint(obj: Any) -> bool:
    """A Gemini CLI ``/chat save`` checkpoint: ``{"history": [Content...], "authType"}``."""
    history = obj.get("history") if isinstance(obj, dict) else None
    return isinstance(history, list) and bool(history) and all(_is_content(c) for c in history)


def _known(v: Any) -> bool:
    if isinstance(v, list):
        return bool(v) and all(_is_content(x) or _is_response(x) for x in v)
    return _is_request(v) or _is_response(v) or _is_content(v) or _is_checkpoint(v)


def sniff(source: Source) -> int:
    text = json_head_with(source, '"parts"')
    if not text:
        return 0
    values = sample_values(text)
    if values:
        return 88 if all(_known(v) for v in values[:40]) else 0
    return 80 if ('"contents"' in text or '"candidates"' in text) and _ROLE.search(text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read; thought parts go to extra, or to ``[thinking]`` chunks with
    ``ctx.options.include_thinking``."""
    include_thinking = ctx.options.include_thinking
    untimed = 0
    for sample, where in _grouped(source, ctx):
        for rec in _sample(sample, where, ctx, include_thinking):
            untimed += rec.timestamp is None
            yield rec
    if untimed:
        ctx.warn(source.name, "Gemini contents carry no times: messages get the epoch sentinel")


def _grouped(source: Source, ctx: ImportContext) -> Iterator[tuple[Any, str]]:
    """Samples with their locators; consecutive response chunks of a JSON array (one
    ``streamGenerateContent`` reply, same ``responseId``) come as one list."""
    run: list[Any] = []
    first = ""
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        rid = as_str(_get(sample, "responseId")) if _is_response(sample) else None
        same = run and rid is not None and rid == as_str(_get(run[0], "responseId"))
        if same and loc.startswith("item-"):
            run.append(sample)
            continue
        if run:
            yield (run if len(run) > 1 else run[0]), first
        if rid is not None and loc.startswith("item-"):
            run, first = [sample], where
            continue
        run = []
        yield sample, where
    if run:
        yield (run if len(run) > 1 else run[0]), first


def _sample(
    sample: Any, where: str, ctx: ImportContext, include: bool
) -> Iterator[ConversationMessage]:
    if isinstance(sample, list) and sample and all(_is_response(x) for x in sample):
        yield from _response(_merge_stream(sample), where, ctx, include, streamed=len(sample))
        return
    if _is_response(sample):
        yield from _response(sample, where, ctx, include)
        return
    contents: list[Any]
    if _is_request(sample):
        system = _get(sample, "systemInstruction")
        if isinstance(system, dict):
            chunks, extra = _parts(as_list(system.get("parts")), include)
            thread = ctx.thread_of(where)
            yield _record(chunks, extra, "system", "system", sub(ctx, where, "system"), thread)
        contents = sample["contents"]
    elif _is_checkpoint(sample):
        contents = sample["history"]
    elif isinstance(sample, list):
        contents = sample
    elif _is_content(sample):  # one message of the file's history: an array's element, a line
        yield _content_record(sample, where, ctx.thread_of(ctx.source.name), include)
        return
    else:
        contents = [sample]
    for k, content in enumerate(contents, 1):
        loc = sub(ctx, where, f"msg-{k}")
        if not _is_content(content):
            ctx.reject(loc, "not a Gemini Content (role and parts)", content)
            continue
        yield _content_record(content, loc, ctx.thread_of(where), include)


def _content_record(
    content: dict[str, Any], loc: str, thread: str, include: bool
) -> ConversationMessage:
    spelled = as_str(content.get("role")) or "user"
    role = ROLES.get(spelled)
    parts = content["parts"]
    if parts and all(_get(p, "functionResponse") is not None for p in parts):
        role = "tool"
    chunks, extra = _parts(parts, include)
    speaker = "tool" if role == "tool" and spelled == "user" else spelled
    extra["original_role"] = spelled if speaker != spelled else None
    return _record(chunks, extra, speaker, role, loc, thread)


def _record(
    chunks: list[str],
    extra: dict[str, Any],
    speaker: str,
    role: str | None,
    loc: str,
    thread: str,
) -> ConversationMessage:
    return message(
        chunks,
        speaker=speaker,
        listeners=LISTENERS.get(role or "", []),
        source_id=loc,
        format=NAME,
        thread=thread,
        role=role,
        extra=extra,
    )


def _merge_stream(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """Streamed response chunks as one response: parts per candidate, texts joined."""
    merged: dict[str, Any] = dict(chunks[-1])
    by_index: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for pos, cand in enumerate(as_list(chunk.get("candidates"))):
            c = as_dict(cand)
            raw = c.get("index")
            index = raw if isinstance(raw, int) else pos
            slot = by_index.setdefault(index, {"content": {"role": "model", "parts": []}})
            content = as_dict(c.get("content"))
            slot["content"]["role"] = content.get("role", slot["content"]["role"])
            for part in as_list(content.get("parts")):
                parts = slot["content"]["parts"]
                if _text_only(parts[-1] if parts else None) and _text_only(part):
                    parts[-1] = {"text": parts[-1]["text"] + part["text"]}
                else:
                    parts.append(part)
            slot.update({k: v for k, v in c.items() if k != "content"})
    merged["candidates"] = [by_index[i] for i in sorted(by_index)]
    return merged


def _text_only(part: Any) -> bool:
    """A streamed part that is text alone (joined to the text before it); a damaged one
    (not an object, its text not a string) is kept apart for the reader to judge."""
    return isinstance(part, dict) and set(part) == {"text"} and isinstance(part["text"], str)


def _response(
    resp: dict[str, Any], where: str, ctx: ImportContext, include: bool, streamed: int = 0
) -> Iterator[ConversationMessage]:
    rid = as_str(_get(resp, "responseId"))
    ts = iso_ts(_get(resp, "createTime"))
    for k, cand in enumerate(resp["candidates"]):
        loc = sub(ctx, where, f"candidate-{k}")
        content = as_dict(as_dict(cand).get("content"))
        if not _is_content(content):
            ctx.reject(loc, "a candidate without content parts", cand)
            continue
        rec = _content_record(content, loc, rid or ctx.thread_of(where), include)
        extra = dict(rec.extra or {})
        extra.update(
            model=as_str(_get(resp, "modelVersion")) or None,
            finish_reason=as_str(_get(as_dict(cand), "finishReason")) or None,
            usage=_get(resp, "usageMetadata") if k == 0 else None,
            streamed_chunks=streamed or None,
        )
        rec.extra = {x: v for x, v in extra.items() if v not in (None, "", [], {})} or None
        rec.timestamp = ts
        if rid:
            rec.id = f"{NAME}:{rid}" if k == 0 else f"{NAME}:{rid}:{k}"
        yield rec


def _parts(parts: list[Any], include: bool) -> tuple[list[str], dict[str, Any]]:
    chunks: list[str] = []
    thinking: list[str] = []
    kept: list[Any] = []
    for part in parts:
        p = as_dict(part)
        if isinstance(p.get("text"), str):
            if p.get("thought"):
                if include:
                    chunks.append(f"[thinking] {p['text']}")
                else:
                    thinking.append(p["text"])
            else:
                chunks.append(p["text"])
            continue
        kept.append(part)
        chunks.append(_part_chunk(p) if p else dumps(part))
    extra: dict[str, Any] = {"thinking": thinking, "parts": kept}
    return [c for c in chunks if c.strip()], extra


def _part_chunk(p: dict[str, Any]) -> str:
    call = as_dict(_get(p, "functionCall"))
    if call:
        return block_chunk(
            {"type": "tool_use", "name": call.get("name"), "input": call.get("args") or {}}
        )
    result = as_dict(_get(p, "functionResponse"))
    if result:
        response = result.get("response")
        said = as_dict(response)  # Gemini CLI's {"output": text} / {"error": text}: the text
        text = said.get("output", said.get("error")) if len(said) == 1 else None
        content = text if isinstance(text, str) else dumps(response)
        return block_chunk({"type": "tool_result", "name": result.get("name"), "content": content,
                            "is_error": "error" in said and len(said) == 1})  # fmt: skip
    data = as_dict(_get(p, "inlineData"))
    if data:
        mime = as_str(_get(data, "mimeType"))
        kind = mime.split("/")[0] if mime.split("/")[0] in ("image", "audio", "video") else "file"
        return block_chunk({"type": kind, "media_type": mime, "data": data.get("data")})
    file = as_dict(_get(p, "fileData"))
    if file:
        return f"[file {as_str(_get(file, 'fileUri'))}]"
    code = as_dict(_get(p, "executableCode"))
    if code:
        return f"[executable_code {as_str(code.get('language'))}] {as_str(code.get('code'))}"
    out = as_dict(_get(p, "codeExecutionResult"))
    if out:
        return f"[code_execution_result {as_str(out.get('outcome'))}] {as_str(out.get('output'))}"
    return block_chunk({"type": "part", **p})


DESCRIPTION = "Gemini API contents (role user/model, parts) and generateContent responses"
EXAMPLE = (
    '{"contents": [{"role": "user", "parts": [{"text": "Hi"}]}, '
    '{"role": "model", "parts": [{"text": "Hello!"}]}]}'
)
FIELDS = Fields(
    speaker="`role` as spelled (`user`, `model`); a Content of function responses: `tool`; "
    "no role: `user`",
    listeners="user ↔ model; a tool result → model",
    time="a response's `createTime`; requests have none: the epoch sentinel, with one "
    "warning a source",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="a response's `responseId`, else the file's name without its folder "
    "(`FILE#line-N` per JSONL line; a generic name with its folder, docs/ids.md)",
    id="`gemini:<responseId>` (`:<index>` after the first candidate); requests: " + CONTENT_HASH,
    scope="none: response ids are unique everywhere; a content hash: the file or line",
    extra="`parts` (non-text parts), `model` (`modelVersion`), `finish_reason`, `usage` "
    "(`usageMetadata`), `original_role`; thoughts in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
