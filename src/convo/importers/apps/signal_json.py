"""The JSON layouts of Signal exports (read under the ``signal`` format of
``convo.importers.apps.signal``, whose docstring has the shared decisions).

- **signal-export** ``<chat>/data.json``: JSON Lines, one message a line:
  ``{"date": "2019-05-29T15:04:33" (naive local), "sender", "body" (ending in two
  spaces, a Markdown line break, left out), "quote" (the
  ``> ``-quoted text), "sticker", "reactions": [[name, emoji]], "attachments":
  [{"name", "path", "missing_kind"}], "deleted", "call", "missed"}``.
- **sigtop** ``-f json``: a JSON array of Signal Desktop's message objects: ``id``,
  ``conversationId``, ``type`` (``incoming``/``outgoing``/service types), ``body``,
  ``sent_at``/``received_at``/``timestamp`` (epoch ms), ``source`` (phone) or
  ``sourceServiceId``/``sourceUuid``, ``attachments`` (``contentType``, ``fileName``,
  ``size``), ``reactions`` (``emoji``, ``fromId``), ``quote`` (``text``, ``author``),
  ``editHistory``. Names are not in these objects: an outgoing message's speaker is
  ``You``, an incoming one's the phone number or service id; id = ``signal:<id>``,
  thread = ``conversationId``; service messages (group changes, timers, calls) are
  kept with the tag ``system``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts, iso_ts
from convo.importers.agents.samples import iter_samples, sample_values
from convo.importers.apps.common import SYSTEM_TAG, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head

NAME = "signal"

_EXPORT_KEYS = ("date", "sender", "body")
_DESKTOP_KEYS = re.compile(r'"conversationId"\s*:')
_DESKTOP_TIME = re.compile(r'"(?:sent_at|received_at)"\s*:')
_CHAT_TYPES = ("incoming", "outgoing")


def _is_export(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and all(k in obj for k in _EXPORT_KEYS)
        and ("reactions" in obj or "attachments" in obj or "quote" in obj)
    )


def _is_desktop(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and "conversationId" in obj
        and ("sent_at" in obj or "received_at" in obj)
        and "type" in obj
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    values = sample_values(text)[:40]
    if values:
        if sum(map(_is_export, values)) * 2 > len(values):
            return 90
        return 90 if sum(map(_is_desktop, values)) * 2 > len(values) else 0
    if text.startswith("[") and _DESKTOP_KEYS.search(text) and _DESKTOP_TIME.search(text):
        return 85  # a head cut inside a large sigtop array
    return 0


def read(source: Source, ctx: ImportContext, thread: str) -> Iterator[ConversationMessage]:
    # Read from a file on disk (stdin and .gz are spooled): a first, quiet pass finds
    # signal-export's speakers, two of whom are each other's listeners.
    again = Source(source.real_path(), name=source.name)
    quiet = ImportContext(again, ImportOptions(tz=ctx.options.tz))
    speakers = list(
        dict.fromkeys(
            as_str(item.get("sender"))
            for item, _ in iter_samples(again, quiet)
            if _is_export(item) and as_str(item.get("sender"))
        )
    )
    for item, loc in iter_samples(again, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if _is_export(item):
            yield _export_message(item, where, thread, speakers, ctx)
        elif _is_desktop(item):
            yield _desktop_message(item, where)
        else:
            ctx.reject(where, "not a Signal message (no date/sender/body or sent_at)", item)


def _export_message(
    obj: dict[str, Any], where: str, thread: str, speakers: list[str], ctx: ImportContext
) -> ConversationMessage:
    sender = as_str(obj.get("sender"))
    ts = iso_ts(obj.get("date"), ctx.options.tz)
    if ts is None:
        ctx.warn(where, "no readable date; time left unknown")
    attachments = [_export_attachment(a) for a in map(as_dict, as_list(obj.get("attachments")))]
    sticker = as_dict(obj.get("sticker"))
    body = _export_body(obj)
    chunks = [body, *(f"[attachment] {attachment_label(a)}" for a in attachments)]
    if sticker and not body:
        chunks.append(f"[sticker] {as_str(sticker.get('emoji')) or 'sticker'}")
    return message(
        chunks,
        speaker=sender or None,
        listeners=other_party(speakers, sender),
        timestamp=ts,
        source_id=where,
        format=NAME,
        thread=thread,
        tags=[SYSTEM_TAG] if obj.get("call") is True else [],
        extra={"attachments": attachments, "sticker": sticker, **_export_extra(obj)},
    )


def attachment_label(a: dict[str, Any]) -> str:
    """An attachment's chunk text: its name, else its path, else what signal-export
    wrote for one it could not include (``(media not exported)``)."""
    if a.get("missing") and not (a.get("name") or a.get("path")):
        return f"({a['missing']} not exported)"
    return str(a.get("name") or a.get("path") or "")


def _export_body(obj: dict[str, Any]) -> str:
    """The text: signal-export appends two spaces to every body (a Markdown line break,
    ``body += "  "`` in its ``create.py``), left out here; a deleted message's is empty
    there and reads as its ``chat.md`` line does."""
    body = as_str(obj.get("body"))
    body = body[:-2] if body.endswith("  ") else body
    if obj.get("deleted") is True and not body.strip():
        return "(This message was deleted)"
    return body if body.strip() else ""


def _export_extra(obj: dict[str, Any]) -> dict[str, Any]:
    quote = as_str(obj.get("quote")).strip()
    return {
        "quote": "\n".join(x.removeprefix("> ") for x in quote.splitlines()) or None,
        "reactions": [r for r in map(_export_reaction, as_list(obj.get("reactions"))) if r],
        "deleted": True if obj.get("deleted") is True else None,
        "missed_call": True if obj.get("missed") is True else None,
    }


def _export_attachment(a: dict[str, Any]) -> dict[str, Any]:
    missing = as_str(a.get("missing_kind"))
    return {
        "name": as_str(a.get("name")),
        "path": as_str(a.get("path")),
        "missing": missing or None,
    }


def _export_reaction(r: Any) -> dict[str, str] | None:
    if isinstance(r, list) and len(r) == 2:
        return {"actor": as_str(r[0]), "reaction": as_str(r[1])}
    return None


def _desktop_message(obj: dict[str, Any], where: str) -> ConversationMessage:
    kind = as_str(obj.get("type"))
    edits = as_list(obj.get("editHistory"))
    body = (as_str(as_dict(edits[0]).get("body")) if edits else "") or as_str(obj.get("body"))
    attachments = [_desktop_attachment(a) for a in map(as_dict, as_list(obj.get("attachments")))]
    ident = as_str(obj.get("id"))
    stamp = obj.get("sent_at") or obj.get("timestamp") or obj.get("received_at")
    return message(
        [body, *(f"[attachment] {a['name'] or a['type']}" for a in attachments)],
        speaker=_desktop_speaker(obj, kind),
        timestamp=epoch_ts(stamp, ms=True),
        id=f"{NAME}:{ident}" if ident else None,
        source_id=where,
        format=NAME,
        thread=as_str(obj.get("conversationId")) or None,
        tags=[] if kind in _CHAT_TYPES else [SYSTEM_TAG],
        extra={
            "type": kind if kind not in _CHAT_TYPES else None,
            "attachments": attachments,
            "edits": len(edits) or None,
            **_desktop_extra(obj),
        },
    )


def _desktop_extra(obj: dict[str, Any]) -> dict[str, Any]:
    quote = as_dict(obj.get("quote"))
    return {
        "reactions": [
            {"actor": as_str(r.get("fromId")), "reaction": as_str(r.get("emoji"))}
            for r in map(as_dict, as_list(obj.get("reactions")))
        ],
        "quote": as_str(quote.get("text")) or None,
        "quote_author": as_str(quote.get("author")) or as_str(quote.get("authorAci")) or None,
    }


def _desktop_speaker(obj: dict[str, Any], kind: str) -> str | None:
    """``You`` when outgoing, else the sender's phone number or service id."""
    if kind == "outgoing":
        return "You"
    for key in ("source", "sourceServiceId", "sourceUuid"):
        if as_str(obj.get(key)):
            return as_str(obj.get(key))
    return None


def _desktop_attachment(a: dict[str, Any]) -> dict[str, Any]:
    size = a.get("size")
    return {
        "name": as_str(a.get("fileName")),
        "type": as_str(a.get("contentType")),
        "size": size if isinstance(size, int) and not isinstance(size, bool) else None,
    }
