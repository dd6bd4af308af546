"""Export records to agent frameworks' message formats and to documents people read.

Every ``to_FORMAT(messages)`` takes ``ConversationMessage``s or record dicts (as read from
JSONL). Agent formats return JSON-ready Python values; ``markdown``, ``csv``, ``html`` and
``vtt`` return text. See docs/export.md for each format's shape and what it cannot carry.

How a record is read (the chat importers' convention): ``role`` (system/user/assistant/
tool; else guessed from a speaker named like a role, else ``user``); the name is
``extra["name"]``, else the speaker when it is not just the role; the content is
``extra["blocks"]`` (Anthropic-like blocks) when present, else one text block per chunk.

Lossless rule: when a record's ``format`` is the target format and it carries
``extra["original"]`` (the source's message object), that object is emitted unchanged.

Decisions where the frameworks leave room:
- Times are UTC. AgentScope's ``timestamp`` is ``YYYY-MM-DD HH:MM:SS.fff`` (UTC; the source
  time has whole seconds, so ``.000``); AutoGen's ``created_at`` and Jianmu's ``timestamp``
  are ISO 8601 with ``Z``. The epoch sentinel (unknown time) is kept as the epoch.
- OpenAI: a record's tool_result blocks become ``role: "tool"`` messages (one per result,
  before the record's remaining content); thinking blocks are omitted (chat completions has
  no field for them); images are ``image_url`` parts (data URLs for inline data); other
  media become text parts ``[audio] ...``.
- Anthropic: ``{"system": ..., "messages": [...]}``; system records join the system prompt;
  consecutive built tool-result turns share one user message, as the API requires.
- AgentScope: tool results are ``role: "system"`` messages holding ``tool_result`` blocks
  (as AgentScope's ReAct agent writes them), whose ``name`` is looked up from the matching
  tool_use; file blocks become text blocks (AgentScope has no file block).
- AutoGen: one record may give several events: thinking and text next to tool calls become
  a ``ThoughtEvent``, tool calls a ``ToolCallRequestEvent``, results a
  ``ToolCallExecutionEvent``; images a ``MultiModalMessage`` (inline data as ``{"data":
  base64}``, URLs as ``[image] URL`` strings, since AutoGen's Image holds bytes); the rest a
  ``TextMessage``. ``metadata`` values must be strings there, so only the original's are kept.
- LangMem: a list of threads ``{id, messages, metadata}``, one per ``thread`` value in
  first-seen order (records without one share the thread ``default``); messages are
  OpenAI-style dicts with ``id`` (what LangChain's ``convert_to_messages`` accepts).
- Jianmu (its seed was not available): ``{id, role, name?, content, timestamp, metadata}``
  with ``content`` a string, or the blocks when there is anything but text.
- ``typeagent``: exactly ``ConversationMessage.serialize()`` restricted to TypeAgent's keys.
- Text documents escape what their readers interpret: ``<`` and ``&`` in markdown (so raw
  HTML in a message cannot become markup), HTML escaping in html, ``<``, ``&``, ``>`` in
  vtt; csv cells starting with ``= + - @`` get a leading ``'`` (spreadsheet formulas).
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

from convo.core.errors import RecordError
from convo.core.record import ConversationMessage

Record = dict[str, Any]
ROLES = ("system", "user", "assistant", "tool")
TYPEAGENT_KEYS = ("textChunks", "metadata", "tags", "timestamp", "source_id")
EPOCH = "1970-01-01T00:00:00Z"

__all__ = [
    "EXPORTERS",
    "PER_MESSAGE",
    "TEXT_FORMATS",
    "to_agentscope",
    "to_anthropic",
    "to_autogen",
    "to_csv",
    "to_html",
    "to_jianmu",
    "to_langmem",
    "to_markdown",
    "to_openai",
    "to_typeagent",
    "to_vtt",
]


# reading records -------------------------------------------------------------------------


def as_record(message: ConversationMessage | Record) -> Record:
    if isinstance(message, ConversationMessage):
        return message.serialize()
    if isinstance(message, dict):
        return message
    raise RecordError(
        f"cannot export a {type(message).__name__}", hint="pass ConversationMessages or records"
    )


def _extra(rec: Record) -> dict[str, Any]:
    extra = rec.get("extra")
    return extra if isinstance(extra, dict) else {}


def _meta(rec: Record) -> dict[str, Any]:
    meta = rec.get("metadata")
    return meta if isinstance(meta, dict) else {}


def speaker(rec: Record) -> str | None:
    s = _meta(rec).get("speaker")
    return s if isinstance(s, str) else None


def listeners(rec: Record) -> list[str]:
    meta = _meta(rec)
    ls = meta.get("listeners", meta.get("recipients"))
    return [x for x in ls if isinstance(x, str)] if isinstance(ls, list) else []


def role(rec: Record) -> str:
    r = rec.get("role")
    if r in ROLES:
        return r
    s = (speaker(rec) or "").lower()
    return s if s in ROLES else "user"


def name(rec: Record) -> str | None:
    n = _extra(rec).get("name")
    if isinstance(n, str) and n:
        return n
    s = speaker(rec)
    return s if s and s.lower() not in ROLES else None


def chunks(rec: Record) -> list[str]:
    cs = rec.get("textChunks", rec.get("text_chunks"))
    return [c for c in cs if isinstance(c, str)] if isinstance(cs, list) else []


def text(rec: Record) -> str:
    return "\n".join(chunks(rec))


def blocks(rec: Record) -> list[dict[str, Any]]:
    bs = _extra(rec).get("blocks")
    if isinstance(bs, list):
        return [_clean(b) for b in bs if isinstance(b, dict) and isinstance(b.get("type"), str)]
    return [{"type": "text", "text": c} for c in chunks(rec)]


_STR_KEYS = ("text", "thinking", "id", "name", "tool_use_id", "url", "data", "media_type",
             "input_raw")  # fmt: skip


def _clean(b: dict[str, Any]) -> dict[str, Any]:
    """A block whose string fields are strings (hostile or odd sources), others absent."""
    out = dict(b)
    for k in _STR_KEYS:
        if k in out and not isinstance(out[k], str):
            if out[k] is None:
                del out[k]
            else:
                out[k] = _json(out[k])
    return out


def original(rec: Record, fmt: str) -> Any:
    """The source's own message when the record came from ``fmt`` (lossless export)."""
    extra = _extra(rec)
    if rec.get("format") == fmt and "original" in extra:
        return extra["original"]
    return None


def timestamp(rec: Record) -> str:
    ts = rec.get("timestamp")
    return ts if isinstance(ts, str) and ts else EPOCH


def _json(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def _texts(bs: list[dict[str, Any]], kind: str = "text") -> list[str]:
    return [b.get(kind) for b in bs if b["type"] == kind and isinstance(b.get(kind), str)]


def _result_text(content: Any) -> str:
    """A tool_result's content (str or blocks) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) if isinstance(b, dict) and b.get("type") == "text" else _media(b)
            for b in content
        )
    return "" if content is None else _json(content)


def _media(b: Any) -> str:
    """A short readable stand-in for a block a format cannot carry."""
    if not isinstance(b, dict):
        return str(b)
    what = b.get("url") or b.get("name") or b.get("filename") or b.get("media_type") or ""
    return f"[{b.get('type', 'block')}] {what}".rstrip()


def _arguments(b: dict[str, Any]) -> str:
    raw = b.get("input_raw")
    return raw if isinstance(raw, str) else _json(b.get("input") or {})


def _data_url(b: dict[str, Any]) -> str | None:
    if isinstance(b.get("url"), str):
        return b["url"]
    if isinstance(b.get("data"), str):
        return f"data:{b.get('media_type') or 'application/octet-stream'};base64,{b['data']}"
    return None


class _ToolNames:
    """tool_use id -> tool name, learned as records stream by (for formats that need it)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def learn(self, bs: list[dict[str, Any]]) -> None:
        for b in bs:
            if b["type"] == "tool_use" and isinstance(b.get("id"), str):
                self.names[b["id"]] = str(b.get("name") or "")

    def of(self, b: dict[str, Any], rec: Record) -> str:
        name_ = b.get("name") or self.names.get(str(b.get("tool_use_id")))
        return str(name_ or _extra(rec).get("name") or "tool")


# OpenAI ----------------------------------------------------------------------------------


def _openai_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    orig = original(rec, "openai")
    if orig is not None:
        return [orig]
    r, bs = role(rec), blocks(rec)
    out: list[dict[str, Any]] = []
    for b in bs:
        if b["type"] == "tool_result":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(b.get("tool_use_id") or ""),
                    "content": _result_text(b.get("content")),
                }
            )
    if r == "tool":
        return out or [{"role": "tool", "tool_call_id": "", "content": text(rec)}]
    rest = [b for b in bs if b["type"] not in ("tool_result", "thinking")]
    if not rest and out:
        return out
    msg: dict[str, Any] = {"role": r}
    calls = [b for b in rest if b["type"] == "tool_use"]
    content = [b for b in rest if b["type"] != "tool_use"]
    if r == "user" and any(b["type"] != "text" for b in content):
        msg["content"] = [_openai_part(b) for b in content]
    else:
        msg["content"] = (
            "\n".join(b.get("text", "") if b["type"] == "text" else _media(b) for b in content)
            if content
            else (None if calls else "")
        )
    n = name(rec)
    if n:
        msg["name"] = n
    if calls and r == "assistant":
        msg["tool_calls"] = [
            {
                "id": str(b.get("id") or ""),
                "type": "function",
                "function": {"name": str(b.get("name") or ""), "arguments": _arguments(b)},
            }
            for b in calls
        ]
    out.append(msg)
    return out


def _openai_part(b: dict[str, Any]) -> dict[str, Any]:
    if b["type"] == "text":
        return {"type": "text", "text": b.get("text", "")}
    if b["type"] == "image" and _data_url(b):
        return {"type": "image_url", "image_url": {"url": _data_url(b)}}
    return {"type": "text", "text": _media(b)}


def to_openai(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """OpenAI chat completions ``messages``."""
    return [item for m in messages for item in _openai_items(as_record(m))]


# Anthropic -------------------------------------------------------------------------------


def _anthropic_block(b: dict[str, Any]) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "thinking":
        return {k: v for k, v in b.items() if k in ("type", "thinking", "signature")}
    if t == "tool_use":
        return {"type": "tool_use", "id": b.get("id", ""), "name": b.get("name", ""),
                "input": b.get("input") if isinstance(b.get("input"), dict) else {}}  # fmt: skip
    if t == "tool_result":
        out = {"type": "tool_result", "tool_use_id": str(b.get("tool_use_id") or "")}
        content = b.get("content")
        out["content"] = content if isinstance(content, str | list) else _result_text(content)
        if b.get("is_error"):
            out["is_error"] = True
        return out
    if t == "image" and (b.get("url") or b.get("data")):
        source = (
            {"type": "url", "url": b["url"]}
            if b.get("url")
            else {
                "type": "base64",
                "media_type": b.get("media_type") or "image/png",
                "data": b["data"],
            }
        )
        return {"type": "image", "source": source}
    return {"type": "text", "text": _media(b)}


def to_anthropic(messages: Iterable[ConversationMessage | Record]) -> dict[str, Any]:
    """An Anthropic Messages request body: ``{"system"?, "messages"}``."""
    system: list[Any] = []
    out: list[dict[str, Any]] = []
    merge_tool = False
    for m in messages:
        rec = as_record(m)
        orig = original(rec, "anthropic")
        extra = rec.get("extra") if isinstance(rec.get("extra"), dict) else {}
        if extra.get("claude_code") == "summary":
            continue  # a Claude Code session title, not a turn of the conversation
        if (
            isinstance(orig, dict)
            and extra.get("claude_code")
            and isinstance(orig.get("message"), dict)
        ):
            orig = orig["message"]  # a Claude Code envelope: the Messages API object inside
        r = role(rec)
        if r == "system":
            if isinstance(orig, dict) and "system" in orig:
                orig = orig["system"]  # the importer keeps the request's system value
            system.append(orig if isinstance(orig, str | list) else text(rec))
            merge_tool = False
            continue
        if isinstance(orig, dict) and orig.get("role") in ("user", "assistant"):
            out.append(orig)
            merge_tool = False
            continue
        content = [_anthropic_block(b) for b in blocks(rec)]
        if r == "tool":
            if merge_tool:
                out[-1]["content"].extend(content)
            else:
                out.append({"role": "user", "content": content})
                merge_tool = True
            continue
        out.append({"role": r, "content": content})
        merge_tool = False
    body: dict[str, Any] = {}
    if len(system) == 1:
        body["system"] = system[0]  # a string, or the source's list of blocks
    elif system:
        body["system"] = "\n\n".join(x if isinstance(x, str) else _result_text(x) for x in system)
    body["messages"] = out
    return body


# AgentScope ------------------------------------------------------------------------------


def agentscope_time(ts: str) -> str:
    return f"{ts[:10]} {ts[11:19]}.000" if len(ts) >= 19 else "1970-01-01 00:00:00.000"


def _agentscope_block(b: dict[str, Any], rec: Record, tools: _ToolNames) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"type": "text", "text": b.get("text", "")}
    if t == "thinking":
        return {"type": "thinking", "thinking": b.get("thinking", "")}
    if t == "tool_use":
        inp = b.get("input")
        return {"type": "tool_use", "id": str(b.get("id") or ""), "name": str(b.get("name") or ""),
                "input": inp if isinstance(inp, dict) else {}}  # fmt: skip
    if t == "tool_result":
        content = b.get("content")
        output: Any = (
            [
                _agentscope_block(x, rec, tools)
                for x in content
                if isinstance(x, dict) and "type" in x
            ]
            if isinstance(content, list)
            else _result_text(content)
        )
        out = {"type": "tool_result", "id": str(b.get("tool_use_id") or ""),
               "name": tools.of(b, rec), "output": output}  # fmt: skip
        if b.get("is_error"):
            out["is_error"] = True
        return out
    if t in ("image", "audio", "video") and (b.get("url") or b.get("data")):
        source = (
            {"type": "url", "url": b["url"]}
            if b.get("url")
            else {
                "type": "base64",
                "media_type": b.get("media_type") or "application/octet-stream",
                "data": b["data"],
            }
        )
        return {"type": t, "source": source}
    return {"type": "text", "text": _media(b)}


def _agentscope_items(rec: Record, tools: _ToolNames) -> list[dict[str, Any]]:
    bs = blocks(rec)
    tools.learn(bs)
    orig = original(rec, "agentscope")
    if orig is not None:
        return [orig]
    r = role(rec)
    content: Any = [_agentscope_block(b, rec, tools) for b in bs]
    if all(b["type"] == "text" for b in content) and r != "tool":
        content = "\n".join(b["text"] for b in content)
    meta = _extra(rec).get("metadata")
    return [
        {
            "id": str(rec.get("id") or ""),
            "name": name(rec) or speaker(rec) or ("system" if r == "tool" else r),
            "role": "system" if r == "tool" else r,
            "content": content,
            "metadata": meta if isinstance(meta, dict) else {},
            "timestamp": agentscope_time(timestamp(rec)),
        }
    ]


def to_agentscope(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """AgentScope ``Msg.to_dict()`` dicts (what ``Msg.from_dict`` loads)."""
    tools = _ToolNames()
    return [item for m in messages for item in _agentscope_items(as_record(m), tools)]


# AutoGen ---------------------------------------------------------------------------------


def _autogen_items(rec: Record, tools: _ToolNames) -> list[dict[str, Any]]:
    bs = blocks(rec)
    tools.learn(bs)
    orig = original(rec, "autogen")
    if orig is not None:
        return [orig]
    source = name(rec) or speaker(rec) or role(rec)
    rid = str(rec.get("id") or "")
    created = timestamp(rec)
    out: list[dict[str, Any]] = []

    def event(kind: str, content: Any, suffix: str) -> None:
        out.append({"id": rid + suffix if out else rid, "source": source, "models_usage": None,
                    "metadata": {}, "created_at": created, "content": content, "type": kind})  # fmt: skip

    thoughts = _texts(bs, "thinking")
    calls = [b for b in bs if b["type"] == "tool_use"]
    results = [b for b in bs if b["type"] == "tool_result"]
    rest = [b for b in bs if b["type"] not in ("thinking", "tool_use", "tool_result")]
    if calls:
        thoughts += [b.get("text", "") if b["type"] == "text" else _media(b) for b in rest]
        rest = []
    if thoughts:
        event("ThoughtEvent", "\n".join(thoughts), "#thought")
    if calls:
        event("ToolCallRequestEvent", [{"id": str(b.get("id") or ""), "arguments": _arguments(b),
                                        "name": str(b.get("name") or "")} for b in calls], "#calls")  # fmt: skip
    if results:
        event("ToolCallExecutionEvent", [{"content": _result_text(b.get("content")),
                                          "name": tools.of(b, rec),
                                          "call_id": str(b.get("tool_use_id") or ""),
                                          "is_error": bool(b.get("is_error"))} for b in results],
              "#results")  # fmt: skip
    if rest and any(b["type"] == "image" for b in rest):
        event("MultiModalMessage", [_autogen_part(b) for b in rest], "#content")
    elif rest or not out:
        body = "\n".join(b.get("text", "") if b["type"] == "text" else _media(b) for b in rest)
        event("TextMessage", body, "#content")
    return out


def _autogen_part(b: dict[str, Any]) -> Any:
    if b["type"] == "text":
        return b.get("text", "")
    if b["type"] == "image" and isinstance(b.get("data"), str):
        return {"data": b["data"]}
    return _media(b)


def to_autogen(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """AutoGen agentchat ``type``-discriminated message and event dumps."""
    tools = _ToolNames()
    return [item for m in messages for item in _autogen_items(as_record(m), tools)]


# LangMem ---------------------------------------------------------------------------------


def _langmem_message(rec: Record) -> list[dict[str, Any]]:
    orig = original(rec, "langmem")
    if orig is not None:
        return [orig]
    items = _openai_items(rec)
    if rec.get("id"):
        last = len(items) - 1
        for i, item in enumerate(items):
            item["id"] = str(rec["id"]) if i == last else f"{rec['id']}#{i}"
    return items


def to_langmem(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """LangMem threads ``{id, messages, metadata}``, one per ``thread``."""
    threads: dict[str, dict[str, Any]] = {}
    for m in messages:
        rec = as_record(m)
        tid = rec.get("thread") if isinstance(rec.get("thread"), str) else "default"
        thread = threads.get(tid)
        if thread is None:
            meta = _extra(rec).get("thread_metadata")
            thread = {"id": tid, "messages": [], "metadata": meta if isinstance(meta, dict) else {}}
            threads[tid] = thread
        thread["messages"].extend(_langmem_message(rec))
    return list(threads.values())


# Jianmu ----------------------------------------------------------------------------------


def _jianmu_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    orig = original(rec, "jianmu")
    if orig is not None:
        return [orig]
    bs = blocks(rec)
    content: Any = bs if any(b["type"] != "text" for b in bs) else text(rec)
    out: dict[str, Any] = {"id": str(rec.get("id") or ""), "role": role(rec)}
    n = name(rec)
    if n:
        out["name"] = n
    meta = _extra(rec).get("metadata")
    out.update(content=content, timestamp=timestamp(rec),
               metadata=meta if isinstance(meta, dict) else {})  # fmt: skip
    return [out]


def to_jianmu(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """Jianmu ``Message.to_dict()`` dicts (shape documented in docs/export.md)."""
    return [item for m in messages for item in _jianmu_items(as_record(m))]


# TypeAgent -------------------------------------------------------------------------------


def _typeagent_items(rec: Record, _ctx: Any = None) -> list[dict[str, Any]]:
    try:
        data = ConversationMessage.deserialize(rec).serialize()
    except ValueError:
        raise RecordError(
            "not a valid record", where=str(rec.get("source_id") or rec.get("id") or "?"),
            hint="check it with `convo validate`",
        ) from None  # fmt: skip
    return [{k: data[k] for k in TYPEAGENT_KEYS}]


def to_typeagent(messages: Iterable[ConversationMessage | Record]) -> list[dict[str, Any]]:
    """TypeAgent ``ConversationMessage.serialize()`` dicts, exactly its keys."""
    return [item for m in messages for item in _typeagent_items(as_record(m))]


# text documents --------------------------------------------------------------------------


def _md_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;")


def _human_time(ts: str) -> str:
    if ts == EPOCH:
        return ""
    if ts.startswith("1970-01-01T"):
        return "+" + ts[11:19]
    return f"{ts[:10]} {ts[11:19]} UTC"


def iter_markdown(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    yield "# Conversation\n"
    thread = None
    for m in messages:
        rec = as_record(m)
        t = rec.get("thread")
        if t and t != thread:
            yield f"\n## Thread {_md_escape(one_line(t))}\n"
        thread = t
        who = speaker(rec) or role(rec)
        head = f"**{_md_escape(one_line(who))}**"
        if listeners(rec):
            head += " → " + _md_escape(one_line(", ".join(listeners(rec))))
        when = _human_time(timestamp(rec))
        if when:
            head += f" · {when}"
        yield f"\n### {head}\n"
        if rec.get("subject"):
            yield f"\n*{_md_escape(one_line(str(rec['subject'])))}*\n"
        body = _md_escape(text(rec)).replace("\n", "  \n")
        yield f"\n{body}\n"


def one_line(s: str) -> str:
    return " ".join(str(s).split())


def to_markdown(messages: Iterable[ConversationMessage | Record]) -> str:
    """A Markdown transcript: a heading per message (speaker → listeners · time)."""
    return "".join(iter_markdown(messages))


CSV_COLUMNS = ("timestamp", "speaker", "role", "listeners", "tags", "thread", "subject",
               "text", "id", "source_id", "format")  # fmt: skip


def _csv_cell(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def iter_csv(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for m in messages:
        rec = as_record(m)
        row = [timestamp(rec), speaker(rec) or "", role(rec) if rec.get("role") else "",
               "; ".join(listeners(rec)), "; ".join(str(t) for t in rec.get("tags") or []),
               str(rec.get("thread") or ""), str(rec.get("subject") or ""), text(rec),
               str(rec.get("id") or ""), str(rec.get("source_id") or ""), str(rec.get("format") or "")]  # fmt: skip
        w.writerow([_csv_cell(c) for c in row])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue()


def to_csv(messages: Iterable[ConversationMessage | Record]) -> str:
    """CSV with a header row; lists joined with ``; ``."""
    return "".join(iter_csv(messages))


_HTML_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em; color: #222; }}
h2 {{ font-size: 1.1em; border-bottom: 1px solid #ccc; margin-top: 2em; }}
article {{ margin: 1em 0; padding: .5em .8em; border-left: 3px solid #ddd; }}
article.reply {{ margin-left: 2em; }}
.role-assistant {{ border-color: #6a9; }} .role-system {{ border-color: #999; background: #f6f6f6; }}
.role-tool {{ border-color: #c93; }}
header {{ color: #555; font-size: .9em; }} .speaker {{ font-weight: bold; color: #222; }}
.subject {{ font-style: italic; }}
.text {{ white-space: pre-wrap; overflow-wrap: anywhere; margin: .3em 0 0; }}
</style>
</head>
<body>
<h1>{title}</h1>
"""


def iter_html(
    messages: Iterable[ConversationMessage | Record], *, title: str = "Conversation"
) -> Iterator[str]:
    esc = html.escape
    yield _HTML_HEAD.format(title=esc(title))
    thread: Any = None
    seen: set[str] = set()
    for m in messages:
        rec = as_record(m)
        t = rec.get("thread")
        if t and t != thread:
            yield f'<h2 class="thread">Thread {esc(str(t))}</h2>\n'
        thread = t
        r = role(rec) if rec.get("role") else ""
        reply = rec.get("replyTo") in seen
        classes = " ".join(c for c in ("reply" if reply else "", f"role-{r}" if r else "") if c)
        rid = str(rec.get("id") or "")
        seen.add(rid)
        parts = [f'<article{f" class={chr(34)}{classes}{chr(34)}" if classes else ""} '
                 f'id="{esc(rid)}">\n<header><span class="speaker">'
                 f"{esc(speaker(rec) or r or '?')}</span>"]  # fmt: skip
        if r and speaker(rec) != r:
            parts.append(f' <span class="role">({esc(r)})</span>')
        if listeners(rec):
            parts.append(" → " + esc(", ".join(listeners(rec))))
        ts = timestamp(rec)
        if ts != EPOCH:
            parts.append(f' · <time datetime="{esc(ts)}">{esc(_human_time(ts))}</time>')
        parts.append("</header>\n")
        if rec.get("subject"):
            parts.append(f'<div class="subject">{esc(str(rec["subject"]))}</div>\n')
        parts.append(f'<p class="text">{esc(text(rec))}</p>\n</article>\n')
        yield "".join(parts)
    yield "</body>\n</html>\n"


def to_html(
    messages: Iterable[ConversationMessage | Record], *, title: str = "Conversation"
) -> str:
    """A standalone HTML page (no scripts, no remote loads); replies indented."""
    return "".join(iter_html(messages, title=title))


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            parts = [float(p) for p in value.replace(",", ".").split(":")]
        except ValueError:
            return None
        total = 0.0
        for p in parts:
            total = total * 60 + p
        return total
    return None


def _epoch_seconds(ts: str) -> float:
    from datetime import datetime

    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _vtt_time(s: float) -> str:
    ms = max(0, round(s * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    sec, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{sec:02d}.{ms:03d}"


def _vtt_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def iter_vtt(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    yield "WEBVTT\n"
    first: float | None = None
    pending: tuple[float, float | None, Record] | None = None
    n = 0
    for m in messages:
        rec = as_record(m)
        extra = _extra(rec)
        start = _seconds(extra.get("start"))
        end = _seconds(extra.get("end"))
        if start is None:
            t = _epoch_seconds(timestamp(rec))
            first = t if first is None else first
            start = t - first
        if pending is not None:
            n += 1
            yield _cue(n, pending, start)
        pending = (start, end, rec)
    if pending is not None:
        yield _cue(n + 1, pending, None)


def _cue(n: int, item: tuple[float, float | None, Record], next_start: float | None) -> str:
    start, end, rec = item
    body = text(rec)
    if end is None or end <= start:
        guess = start + max(2.0, 0.4 * len(body.split()))
        end = next_start if next_start is not None and next_start > start else guess
    lines = [ln for ln in (_vtt_escape(x.strip()) for x in body.splitlines()) if ln] or ["…"]
    who = speaker(rec)
    if who:
        lines[0] = f"<v {_vtt_escape(one_line(who))}>{lines[0]}"
    return f"\n{n}\n{_vtt_time(start)} --> {_vtt_time(end)}\n" + "\n".join(lines) + "\n"


def to_vtt(messages: Iterable[ConversationMessage | Record]) -> str:
    """WebVTT cues: times from ``extra`` start/end, else relative to the first timestamp."""
    return "".join(iter_vtt(messages))


# registry (used by ``convo export``) -----------------------------------------------------

Items = Callable[[Record, Any], list[dict[str, Any]]]

#: formats with one or more JSON values per record, streamable, with the state they need
PER_MESSAGE: dict[str, tuple[Items, Callable[[], Any]]] = {
    "openai": (_openai_items, lambda: None),
    "agentscope": (_agentscope_items, _ToolNames),
    "autogen": (_autogen_items, _ToolNames),
    "jianmu": (_jianmu_items, lambda: None),
    "typeagent": (_typeagent_items, lambda: None),
}
TEXT_FORMATS: dict[str, Callable[[Iterable[Any]], Iterator[str]]] = {
    "markdown": iter_markdown,
    "csv": iter_csv,
    "html": iter_html,
    "vtt": iter_vtt,
}
EXPORTERS: dict[str, Callable[[Iterable[Any]], Any]] = {
    "openai": to_openai,
    "anthropic": to_anthropic,
    "agentscope": to_agentscope,
    "autogen": to_autogen,
    "langmem": to_langmem,
    "jianmu": to_jianmu,
    "typeagent": to_typeagent,
    "markdown": to_markdown,
    "csv": to_csv,
    "html": to_html,
    "vtt": to_vtt,
}
