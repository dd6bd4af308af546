"""What exporters read from a record: role, name, blocks, text, the original message.

See docs/export.md and ``convo.output.exporters`` for the rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

from convo.core.errors import RecordError
from convo.core.fields import agent_name as name  # the name agent formats write
from convo.core.fields import (
    chunks,
    listeners,
    original,
    role,
    speaker,
    text,
    timestamp,
)
from convo.core.fields import extra as extra_of
from convo.core.record import ConversationMessage
from convo.core.timestamps import EPOCH_STR, is_canonical, normalize_timestamp
from convo.importers.agents.blocks import RECORD_DEPTH, block_chunk, too_deep

Record = dict[str, Any]
TYPEAGENT_KEYS = ("textChunks", "metadata", "tags", "timestamp", "source_id")
EPOCH = EPOCH_STR
# the accessors the exporters read records with, re-exported from convo.core.fields
__all__ = [
    "chunks",
    "extra_of",
    "listeners",
    "name",
    "original",
    "role",
    "speaker",
    "text",
    "timestamp",
]


# reading records (fields through convo.core.fields, the one accessor set) ---------------


def as_record(message: ConversationMessage | Record) -> Record:
    """The record dict of a message; a record nested beyond the importers' limit is refused."""
    rec = message.serialize() if isinstance(message, ConversationMessage) else message
    if isinstance(rec, dict):
        if too_deep(rec, RECORD_DEPTH):
            raise RecordError(
                f"nested more than {RECORD_DEPTH} levels deep",
                where=str(rec.get("source_id") or rec.get("id") or "record"),
                hint="convo reads and writes records up to that depth",
            )
        return rec
    raise RecordError(
        f"cannot export a {type(message).__name__}", hint="pass ConversationMessages or records"
    )


def validated(matches: Iterable[Any], on_reject: Callable[[Any, RecordError], None]):
    """The records of ``matches`` (``query.scan.Match``) that ``core.record.parse_record``
    accepts; each other one goes to ``on_reject(match, error)`` (every exporter's input
    is validated once, here: the command's one-process path and the Parquet workers)."""
    from convo.core.record import parse_record

    for m in matches:
        record = m.record
        if plainly_valid(record):
            yield record
            continue
        try:
            parse_record(dict(as_record(record)), m.where)
        except RecordError as e:
            on_reject(m, e)
            continue
        yield record


_PLAIN_KEYS = frozenset(("textChunks", "metadata", "tags", "timestamp", "source_id", "id",
                         "format", "thread", "replyTo", "role", "subject", "extra"))  # fmt: skip
_PLAIN_META = frozenset(("speaker", "listeners"))
_OPTIONAL = ("source_id", "id", "format", "thread", "replyTo", "role", "subject")
_STR_OR_NONE = (str, type(None))


def plainly_valid(rec: Any) -> bool:
    """True only when ``as_record`` and ``core.record.parse_record`` certainly accept
    ``rec``: convo's own layout, one spelling of each key, exact types, a canonical time
    (false says nothing: such a record takes the full check). Against the full check,
    which the Parquet export pays per record: 2.08× less CPU (noise ±9%; 100k records,
    ``benchmarks/bench_fastpaths.py``). ``tests/scale/test_parquet_parallel.py`` holds it
    to the full check on generated records."""
    if type(rec) is not dict or not _PLAIN_KEYS.issuperset(rec):
        return False
    if not _plain_lists(rec):
        return False
    for key in _OPTIONAL:
        if not isinstance(rec.get(key), _STR_OR_NONE):
            return False
    if "extra" in rec and (type(rec["extra"]) is not dict or too_deep(rec, RECORD_DEPTH)):
        return False
    stamp = rec.get("timestamp")
    return type(stamp) is str and _canonical(stamp)


def _plain_lists(rec: dict[str, Any]) -> bool:
    """The chunks (some), tags and metadata of ``plainly_valid``'s record are exact."""
    chunks_, meta, tags = rec.get("textChunks"), rec.get("metadata", {}), rec.get("tags", [])
    if type(chunks_) is not list or not chunks_ or type(tags) is not list:
        return False
    if type(meta) is not dict or not _PLAIN_META.issuperset(meta):
        return False
    heard = meta.get("listeners", [])
    if type(heard) is not list or not isinstance(meta.get("speaker"), _STR_OR_NONE):
        return False
    try:
        "".join(chunks_), "".join(heard), "".join(tags)  # in C: TypeError unless all str
    except TypeError:
        return False
    return True


def _canonical(stamp: str) -> bool:
    try:
        return is_canonical(stamp) and normalize_timestamp(stamp) == stamp
    except (ValueError, OverflowError):
        return False


def blocks(rec: Record) -> list[dict[str, Any]]:
    bs = extra_of(rec).get("blocks")
    if isinstance(bs, list):
        return [
            clean_block(b) for b in bs if isinstance(b, dict) and isinstance(b.get("type"), str)
        ]
    return [{"type": "text", "text": c} for c in chunks(rec)]


_STR_KEYS = ("text", "thinking", "id", "name", "tool_use_id", "url", "data", "media_type",
             "input_raw")  # fmt: skip


def clean_block(b: dict[str, Any]) -> dict[str, Any]:
    """A block whose string fields are strings (hostile or odd sources), others absent."""
    out = dict(b)
    for k in _STR_KEYS:
        if k in out and not isinstance(out[k], str):
            if out[k] is None:
                del out[k]
            else:
                out[k] = json_text(out[k])
    return out


def json_text(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


def texts_of(bs: list[dict[str, Any]], kind: str = "text") -> list[str]:
    return [b[kind] for b in bs if b["type"] == kind and isinstance(b.get(kind), str)]


def result_text(content: Any) -> str:
    """A tool_result's content (str or blocks) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            if isinstance(b, dict) and b.get("type") == "text"
            else media_text(b)
            for b in content
        )
    return "" if content is None else json_text(content)


_MEDIA = frozenset(("image", "audio", "video", "file"))


def media_text(b: Any) -> str:
    """A short readable stand-in for a block a format cannot carry: a medium's kind and
    where it is; any other block (a memory, a refusal) the text convo reads for it."""
    if not isinstance(b, dict):
        return str(b)
    if not isinstance(b.get("type"), str) or b["type"] not in _MEDIA:
        return block_chunk(b)  # (a type of another JSON type: the block's JSON)
    what = b.get("url") or b.get("name") or b.get("filename") or b.get("media_type") or ""
    return f"[{b.get('type', 'block')}] {what}".rstrip()


def joined_text(bs: list[dict[str, Any]]) -> str:
    """Blocks as one text: text blocks as they are, others as their stand-in."""
    return "\n".join(b.get("text", "") if b["type"] == "text" else media_text(b) for b in bs)


def arguments_text(b: dict[str, Any]) -> str:
    raw = b.get("input_raw")
    return raw if isinstance(raw, str) else json_text(b.get("input") or {})


def media_source(b: dict[str, Any], default_media_type: str) -> dict[str, Any]:
    """An Anthropic/AgentScope ``source``: the URL, else the base64 data."""
    if b.get("url"):
        return {"type": "url", "url": b["url"]}
    media_type = b.get("media_type") or default_media_type
    return {"type": "base64", "media_type": media_type, "data": b["data"]}


def data_url(b: dict[str, Any]) -> str | None:
    if isinstance(b.get("url"), str):
        return b["url"]
    if isinstance(b.get("data"), str):
        return f"data:{b.get('media_type') or 'application/octet-stream'};base64,{b['data']}"
    return None


class ToolNames:
    """tool_use id -> tool name, learned as records stream by (for formats that need it)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def learn(self, bs: list[dict[str, Any]]) -> None:
        for b in bs:
            if b["type"] == "tool_use" and isinstance(b.get("id"), str):
                self.names[b["id"]] = str(b.get("name") or "")

    def of(self, b: dict[str, Any], rec: Record) -> str:
        name_ = b.get("name") or self.names.get(str(b.get("tool_use_id")))
        return str(name_ or extra_of(rec).get("name") or "tool")
