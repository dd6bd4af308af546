"""Content blocks of agent-framework messages: normalised shape and readable chunks.

Every framework's content (OpenAI parts and tool calls, Anthropic blocks, AgentScope
blocks, AutoGen function calls, plain strings) is brought to one Anthropic-like list of
dicts (see the convention in ``convo.importers.agents.reader``), and each block becomes one text
chunk: text as is, everything else a short bracketed line (``[tool_use search] {...}``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from convo.importers.agents.keyed_parts import keyed_part
from convo.importers.jsoninput import as_str

SHORT = 2000  # longest readable chunk for a non-text block; the original stays in extra

# Anthropic-only block types (OpenAI parts never use them): decide openai vs anthropic.
ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use",
    "web_search_tool_result", "search_result",
})  # fmt: skip
OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal", "input_text"})


def dumps(value: Any) -> str:
    """Compact JSON for chunks and StructuredMessage content (never raises)."""
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return repr(value)


def _short(text: str, limit: int = SHORT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments to ``{"input": ...}`` (+ ``input_raw`` when not valid JSON).

    OpenAI sends a JSON string; some logs encode it twice (a JSON string of a JSON
    string), so a string that decodes to a string is decoded once more.
    """
    if not isinstance(raw, str):
        return {"input": raw if raw is not None else {}}
    value: Any = raw
    for _ in range(2):
        try:
            value = inner_json(value)
        except orjson.JSONDecodeError:
            if value is raw:
                return {"input": {}, "input_raw": raw}
            break
        if not isinstance(value, str):
            break
    if isinstance(value, str):  # a JSON string that is not JSON inside: keep it
        return {"input": {}, "input_raw": raw}
    return {"input": value}


def tool_use_block(call: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI ``tool_calls`` item, a legacy ``function_call`` or an AutoGen FunctionCall."""
    inner = call.get("function")
    fn: dict[str, Any] = inner if isinstance(inner, dict) else call
    block: dict[str, Any] = {"type": "tool_use", "id": call.get("id"), "name": fn.get("name")}
    if "arguments" in fn:
        block.update(parse_arguments(fn.get("arguments")))
    else:
        block.update(parse_arguments(fn.get("input", fn.get("args"))))
    return block


def _data_url(url: str) -> dict[str, Any] | None:
    """``data:image/png;base64,...`` to media_type + data."""
    if not url.startswith("data:") or "," not in url:
        return None
    meta, data = url[5:].split(",", 1)
    media_type = meta.split(";", 1)[0] or None
    return {"media_type": media_type, "data": data}


def _media(kind: str, source: Any, block: dict[str, Any]) -> dict[str, Any]:
    """Anthropic/AgentScope ``source`` (base64 or url) to a flat media block."""
    out: dict[str, Any] = {"type": kind}
    if isinstance(source, dict):
        if source.get("type") == "url" or "url" in source:
            out["url"] = source.get("url")
        elif source.get("type") == "text":
            out["text"] = source.get("data")
        elif "file_id" in source:
            out["file_id"] = source.get("file_id")
        else:
            out["media_type"] = source.get("media_type")
            out["data"] = source.get("data")
    elif isinstance(source, str):
        out.update(_data_url(source) or {"url": source})
    for key in ("title", "context", "filename", "name"):
        if key in block:
            out[key] = block[key]
    return out


def _tool_use(part: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": part.get("id"), "name": part.get("name")}
    block.update(parse_arguments(part.get("input")))
    if part.get("type") != "tool_use":
        block["server"] = True
    return block


def _tool_result(part: dict[str, Any]) -> dict[str, Any]:
    # Anthropic: tool_use_id + content; AgentScope: id + name + output.
    content = part.get("content", part.get("output"))
    block = {
        "type": "tool_result",
        "tool_use_id": part.get("tool_use_id", part.get("id")),
        "content": normalise_result(content),
        "is_error": bool(part.get("is_error", False)),
    }
    if part.get("name") is not None:
        block["name"] = part.get("name")
    return block


def _image_url(part: dict[str, Any]) -> dict[str, Any]:
    inner = part.get("image_url")
    url = inner.get("url") if isinstance(inner, dict) else inner
    out: dict[str, Any] = {"type": "image"}
    out.update((_data_url(url) if isinstance(url, str) else None) or {"url": url})
    if isinstance(inner, dict) and "detail" in inner:
        out["detail"] = inner["detail"]
    return out


def _input_audio(part: dict[str, Any]) -> dict[str, Any]:
    inner = part.get("input_audio")
    if not isinstance(inner, dict):  # not OpenAI's {data, format}: kept as written
        return dict(part)
    return {"type": "audio", "format": inner.get("format"), "data": inner.get("data")}


def _file(part: dict[str, Any]) -> dict[str, Any]:
    if isinstance(part.get("file"), dict):
        return {"type": "file", **part["file"]}
    return dict(part)


def _media_part(part: dict[str, Any]) -> dict[str, Any]:
    if "source" in part or "url" in part:
        return _media(part["type"], part.get("source", part.get("url")), part)
    return dict(part)


def _text_of(key: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda part: {"type": key, key: _as_text(part.get(key))}


_NORMALISERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "thinking": _text_of("thinking"),
    "refusal": _text_of("refusal"),
    "redacted_thinking": lambda part: {"type": "redacted_thinking", "data": part.get("data")},
    "tool_use": _tool_use,
    "server_tool_use": _tool_use,
    "tool_result": _tool_result,
    "image_url": _image_url,
    "input_audio": _input_audio,
    "file": _file,
    "image": _media_part,
    "audio": _media_part,
    "video": _media_part,
    "document": lambda part: _media("file", part.get("source"), part),
}
_TEXT_KINDS = ("text", "input_text", "output_text")


def normalise_block(part: Any) -> dict[str, Any]:
    """One content part of any framework to the normalised block shape."""
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if not isinstance(part, dict):
        return {"type": "text", "text": dumps(part)}
    kind = block_type(part)
    keyed = keyed_part(part) if kind is None else None  # Haystack's, Semantic Kernel's
    if keyed is not None:
        return normalise_block(keyed)
    if kind in _TEXT_KINDS or (kind is None and "text" in part):
        return {"type": "text", "text": _as_text(part.get("text"))}
    normalise = _NORMALISERS.get(kind or "")
    return normalise(part) if normalise else dict(part)  # unknown types pass unchanged


def normalise_result(content: Any) -> Any:
    """Tool-result content: a string stays a string; blocks are normalised."""
    if content is None or isinstance(content, str):
        return content if content is not None else ""
    if isinstance(content, list):
        return [normalise_block(p) for p in content]
    return dumps(content)


def normalise_content(content: Any) -> list[dict[str, Any]]:
    """A message's ``content`` (string, parts, one block, nothing) to a block list."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [normalise_block(p) for p in content]
    if isinstance(content, dict):
        return [normalise_block(content)]
    return [{"type": "text", "text": dumps(content)}]


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else dumps(value))


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return ""
    return f"{len(data) * 3 // 4} bytes"


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a damaged list's strings as they are, other values as JSON
        return "\n".join(
            block_chunk(b) if isinstance(b, dict) else b if isinstance(b, str) else dumps(b)
            for b in content
        )
    return dumps(content)


def block_type(block: dict[str, Any]) -> str | None:
    """The block's ``type`` when it is a string (hostile input may put anything there)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


def _tool_use_chunk(block: dict[str, Any]) -> str:
    args = block["input_raw"] if "input_raw" in block else dumps(block.get("input"))
    return _short(f"[tool_use {block.get('name')}] {args}")


def _result_label(block: dict[str, Any]) -> str:
    """A tool result's label: the tool's name, else the call's id, else ``?`` (an object
    or a list there is no name: its repr is not written)."""
    return as_str(block.get("name")) or as_str(block.get("tool_use_id")) or "?"


def _tool_result_chunk(block: dict[str, Any]) -> str:
    label = _result_label(block)
    flag = " error" if block.get("is_error") else ""
    return _short(f"[tool_result {label}{flag}] {result_text(block.get('content'))}")


def _media_chunk(block: dict[str, Any]) -> str:
    kind = block["type"]
    if block.get("url"):
        return f"[{kind}] {block['url']}"
    label = block.get("filename") or block.get("title") or block.get("file_id")
    media = block.get("media_type") or block.get("format")
    desc = ", ".join(str(x) for x in (label, media, _size(block.get("data"))) if x)
    return f"[{kind} {desc}]" if desc else f"[{kind}]"


def _page_chunk(block: dict[str, Any]) -> str:
    """A page a search found (claude.ai's ``knowledge``, the API's
    ``web_search_result``): its title and address, then the text it gave (never an
    encrypted copy, favicons or other metadata: those stay in the block)."""
    head = " ".join(x for x in (as_str(block.get("title")), as_str(block.get("url"))) if x)
    text = as_str(block.get("text"))
    return _short(f"[{block['type']}] {head}".rstrip() + (f"\n{text}" if text.strip() else ""))


_CHUNKS: dict[str, Callable[[dict[str, Any]], str]] = {
    "text": lambda b: _as_text(b.get("text")),
    "thinking": lambda b: "[thinking] " + _as_text(b.get("thinking")),
    "redacted_thinking": lambda b: "[redacted_thinking]",
    "refusal": lambda b: "[refusal] " + _as_text(b.get("refusal")),
    "tool_use": _tool_use_chunk,
    "tool_result": _tool_result_chunk,
    "image": _media_chunk,
    "audio": _media_chunk,
    "video": _media_chunk,
    "file": _media_chunk,
    "memory": lambda b: _short("[memory] " + _as_text(b.get("content"))),
    "knowledge": _page_chunk,
    "web_search_result": _page_chunk,
}


def block_chunk(block: dict[str, Any]) -> str:
    """The readable chunk of one normalised block."""
    kind = block_type(block)
    chunk = _CHUNKS.get(kind or "")
    if chunk is not None:
        return chunk(block)
    rest = {k: v for k, v in block.items() if k != "type"}
    return _short(f"[{kind}] {dumps(rest)}" if rest else f"[{kind}]")


def whole_chunk(block: dict[str, Any]) -> str:
    """The chunk of one normalised block with a tool call or result whole, as the
    session formats write them (``block_chunk`` shortens them): ``[tool_use NAME]
    {args}``, ``[tool_result NAME] output`` (NAME the tool's name, else the call's id;
    ``error``, or the outcome a reader puts in ``flag``, after it)."""
    kind = block_type(block)
    if kind == "tool_use":
        args = block["input_raw"] if "input_raw" in block else dumps(block.get("input"))
        return f"[tool_use {block.get('name')}] {args}"
    if kind == "tool_result":
        label = _result_label(block)
        flag = block.get("flag") or ("error" if block.get("is_error") else "")
        return (
            f"[tool_result {label}{' ' + flag if flag else ''}] {result_text(block.get('content'))}"
        )
    return block_chunk(block)


THINKING = frozenset(("thinking", "redacted_thinking"))


def chunks_of(
    blocks: list[dict[str, Any]],
    include_thinking: bool = True,
    tools: Mapping[str, str] | None = None,
) -> list[str]:
    """One chunk a block (private reasoning, ``THINKING`` blocks, only with
    ``include_thinking``: else it stays in the blocks ``extra`` keeps); a message without
    content keeps one empty chunk. A tool result without a name is named by the call it
    answers when ``tools`` (call id → name) knows it (the blocks stay as they are)."""
    if not include_thinking:
        blocks = [b for b in blocks if block_type(b) not in THINKING]
    return [block_chunk(_named(b, tools) if tools else b) for b in blocks] or [""]


class CallNames(dict[str, str]):
    """The names of a conversation's latest tool calls by call id, so that a result
    (Anthropic's ``tool_use_id``, OpenAI's ``tool_call_id``, Codex's ``call_id``) is named
    by the call it answers. Only the latest ``KEPT`` are kept (a result follows its call
    closely; memory stays flat however long the conversation)."""

    KEPT = 4096

    def add(self, call_id: Any, name: Any) -> None:
        if isinstance(call_id, str) and call_id and isinstance(name, str) and name:
            self.pop(call_id, None)
            self[call_id] = name
            if len(self) > self.KEPT:
                del self[next(iter(self))]


def _named(block: dict[str, Any], tools: Mapping[str, str]) -> dict[str, Any]:
    if block.get("type") != "tool_result" or block.get("name"):
        return block
    name = tools.get(as_str(block.get("tool_use_id")))  # an object: no call's id
    return {**block, "name": name} if name else block


# Nesting limit for one message (and its conversation's fields): orjson writes at most 254
# levels and a record adds two around the message (extra.original); Python recurses about
# 1000 deep. 200 leaves headroom for every reader, exporter and the record writer.
MAX_DEPTH = 200
RECORD_DEPTH = MAX_DEPTH + 2  # the same limit for a whole record (extra.original)


_ORJSON_DEPTH = 254  # the deepest value orjson writes


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests dicts/lists more than ``limit`` levels.

    Fast in C for JSON values: a value holding no more containers than ``limit`` cannot be
    deeper; else orjson, which refuses exactly what is deeper than 254 levels, tells with
    the value wrapped in ``254 - limit`` lists. Values orjson cannot write (bytes, huge ints
    from the Python API) are walked without recursion instead.
    """
    return depth_check(value, limit)[0]


def depth_check(value: Any, limit: int = MAX_DEPTH) -> tuple[bool, bool]:
    """``(too_deep(value, limit), whether orjson writes value as it is)``, from one
    ``orjson.dumps`` in the common case (a value parsed from JSON, not too deep)."""
    try:
        raw = orjson.dumps(value)
    except orjson.JSONEncodeError as e:
        return "Recursion limit" in str(e) or _walk_too_deep(value, limit), False
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False, True
    wrapped = value
    for _ in range(_ORJSON_DEPTH - limit):
        wrapped = [wrapped]
    try:
        orjson.dumps(wrapped)
    except orjson.JSONEncodeError:
        return True, True
    return False, True


# A JSON value parsed from a string inside a message (tool-call arguments) lands a few
# levels down in its record (extra.content[i].input): it gets the message's limit less
# those levels, so the record stays within RECORD_DEPTH as a whole message does.
INNER_DEPTH = MAX_DEPTH - 10


def inner_json(text: str | bytes) -> Any:
    """The JSON value in ``text``, a string found inside another value: the one depth
    rule of every such parse. A value nested deeper than ``INNER_DEPTH`` raises
    orjson.JSONDecodeError, as text that is not JSON does (callers keep the string)."""
    value = orjson.loads(text)
    if isinstance(value, dict | list) and too_deep(value, INNER_DEPTH):
        raise orjson.JSONDecodeError(f"nested more than {INNER_DEPTH} levels deep", "", 0)
    return value


def _walk_too_deep(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def jianmu_to_text(value: Any) -> str:
    """Jianmu's ``Message.to_text``, exactly: None empty; str as is; bytes decoded (bad bytes
    replaced); a dict the first of text/content/data/value holding a string, else
    ``str(dict)``; a list its items' texts, empty ones skipped, joined by newlines; anything
    else ``str()``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        for key in ("text", "content", "data", "value"):
            if isinstance(value.get(key), str):
                return value[key]
        return str(value)
    if isinstance(value, list):
        return "\n".join(t for t in (jianmu_to_text(v) for v in value) if t)
    return str(value)


_JIANMU_BLOCKS = frozenset(("text", "thinking", "redacted_thinking", "refusal", "image", "audio",
                            "video", "file", "memory", "tool_result"))  # fmt: skip


def jianmu_body(content: Any, as_text: bool) -> tuple[list[dict[str, Any]], str]:
    """A Jianmu message's content as ``(blocks, text)``: by Jianmu's ``to_text`` (no
    blocks), except a list of typed blocks, which ``to_text`` would show as their reprs
    (``convo export --to jianmu`` writes a message with thinking, media or, in a turn of
    another role, tool results so): those
    blocks, or with ``as_text`` (a tool's result) their chunks as the text."""
    typed = isinstance(content, list) and content and all(
        isinstance(p, dict) and block_type(p) in _JIANMU_BLOCKS for p in content
    )  # fmt: skip
    if not typed:
        return [], jianmu_to_text(content)
    blocks = [normalise_block(p) for p in content]
    return ([], "\n".join(block_chunk(b) for b in blocks)) if as_text else (blocks, "")


def jsonable(value: Any) -> Any:
    """A JSON-safe copy (bytes to text or base64) for objects given through the Python API."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(bytes(value)).decode()
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return str(value)  # beyond what JSON writers take
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
