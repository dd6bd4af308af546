"""xAI's Grok data export (``grok``): ``prod-grok-backend.json``, the conversations file
of the account export (``accounts.x.ai`` → download your data; the zip unpacks as
``ttl/30d/export_data/<user id>/prod-grok-backend.json`` beside
``prod-mc-auth-mgmt-api.json``, ``prod-mc-billing.json`` and ``prod-mc-asset-server/``).

Shape (no published schema; as the export's readers in public repositories document it,
from real exports): ``{"conversations": [{"conversation": {"id", "title", "create_time",
"modify_time", "user_id", "starred", "system_prompt_name"}, "responses": [{"response":
{"_id", "conversation_id", "parent_response_id", "message", "sender", "model",
"create_time": {"$date": {"$numberLong": "<ms>"}}, "thinking_trace",
"agent_thinking_traces", "generated_image_urls", "file_attachments",
"cited_web_search_results", "xpost_ids", "error", "steps", ...}, "share_link"}]}],
"projects", "tasks", "media_posts"}``. ``sender`` is ``human``, else the reply
(``assistant``, ``ASSISTANT``, a model name such as ``grok-3``); conversation times are
ISO 8601, response times MongoDB's extended JSON (or ISO).

Decisions:
- One record a response: speaker ``user`` (``human``) or ``grok`` (any other sender; the
  spelling in ``extra.sender`` when it is not ``assistant``), listeners the other; role
  user/assistant.
- id = ``grok:<_id>`` (xAI's ids are UUIDs: unique everywhere); replyTo =
  ``grok:<parent_response_id>`` (an edit or regeneration is a sibling: a branch);
  thread = ``grok:<conversation id>``; subject = the title, on the conversation's first.
- time = the response's ``create_time`` (``$numberLong`` milliseconds, ``$date`` ISO).
- The text: ``message``; generated images ``[image URL]``; uploads
  ``[attachment <asset id>]`` (their bytes are in ``prod-mc-asset-server/``, not read).
- ``thinking_trace`` (and the agents' traces) are private: ``extra.thinking``
  (``[thinking] ...`` chunks with ``--include-thinking``). ``model``, ``error``,
  cited URLs and ``xpost_ids`` in ``extra``; ``projects``, ``tasks`` and ``media_posts``
  are not conversations (not read: a warning counts them when present).
- The file is streamed a conversation at a time (``StreamedDoc``); an element that is
  not a ``{conversation, responses}`` pair is rejected with its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import (
    StreamedDoc,
    as_dict,
    as_digits,
    as_list,
    as_str,
    json_head_with,
)
from convo.importers.registry import Format

NAME = "grok"
_EXTRA = ("projects", "tasks", "media_posts")


def sniff(source: Source) -> int:
    """An object whose ``conversations`` hold ``{"conversation", "responses"}`` pairs."""
    text = json_head_with(source, '"responses"', key="conversations", opens="{")
    return 90 if text and '"conversation"' in text else 0


def _time(value: Any) -> str | None:
    """``{"$date": {"$numberLong": "ms"}}``, ``{"$date": "ISO"}``, ISO or epoch ms."""
    date = as_dict(value).get("$date", value)
    longs = as_dict(date).get("$numberLong")
    if longs is not None:
        date = as_digits(longs)
    if isinstance(date, int | float) and not isinstance(date, bool):
        return iso_ts(_ms_iso(date))
    return iso_ts(date)


def _ms_iso(ms: float) -> str | None:
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("conversations",))
    need = "expected the `conversations` of Grok's prod-grok-backend.json"
    members = doc.expect(need, _EXTRA)  # those after the array: a second, skimming pass
    for item, line in doc.items():
        pair = as_dict(item)
        conv = as_dict(pair.get("conversation"))
        if not conv or not isinstance(pair.get("responses"), list):
            ctx.reject(ctx.loc(line), "not a Grok conversation (conversation, responses)", item)
            continue
        yield from _conversation(conv, pair["responses"], ctx, ctx.loc(line))
    others = {k: len(as_list(members.get(k))) for k in _EXTRA if as_list(members.get(k))}
    if others:
        said = ", ".join(f"{n} {k}" for k, n in others.items())
        ctx.warn(source.name, f"not conversations, not read: {said}")


def _conversation(
    conv: dict[str, Any], responses: list[Any], ctx: ImportContext, where: str
) -> Iterator[ConversationMessage]:
    cid = as_str(conv.get("id"))
    thread = f"grok:{cid}" if cid else None
    subject = as_str(conv.get("title")) or None
    for n, raw in enumerate(responses, 1):
        resp = as_dict(as_dict(raw).get("response"))
        if not resp:
            ctx.reject(f"{where}#response-{n}", "not a Grok response", raw)
            continue
        sender = as_str(resp.get("sender"))
        human = sender.lower() == "human"
        speaker = "user" if human else "grok"
        thinking = _thinking(resp)
        said = _said(resp, thinking if ctx.options.include_thinking else [])
        own, parent = as_str(resp.get("_id")), as_str(resp.get("parent_response_id"))
        yield message(said, speaker=speaker, listeners=["grok" if human else "user"],
                      timestamp=_time(resp.get("create_time")),
                      id=f"grok:{own}" if own else None, source_id=f"{where}#response-{n}",
                      format=NAME, thread=thread, reply_to=f"grok:{parent}" if parent else None,
                      subject=subject, role="user" if human else "assistant",
                      extra=_extra(resp, sender, thinking))  # fmt: skip
        subject = None


def _said(resp: dict[str, Any], thinking: list[str]) -> list[str]:
    said = [f"[thinking] {t}" for t in thinking] + [as_str(resp.get("message"))]
    said += [f"[image {u}]" for u in as_list(resp.get("generated_image_urls")) if u]
    return said + [f"[attachment {a}]" for a in as_list(resp.get("file_attachments")) if a]


def _thinking(resp: dict[str, Any]) -> list[str]:
    said = [as_str(resp.get("thinking_trace"))]
    said += [
        as_str(as_dict(t).get("thinking_trace")) for t in as_list(resp.get("agent_thinking_traces"))
    ]
    return [t for t in said if t.strip()]


def _extra(resp: dict[str, Any], sender: str, thinking: list[str]) -> dict[str, Any]:
    cited = [as_str(as_dict(c).get("url")) for c in as_list(resp.get("cited_web_search_results"))]
    return {
        "model": as_str(resp.get("model")) or None,
        "sender": sender if sender not in ("human", "assistant") else None,
        "thinking": thinking,
        "error": as_str(resp.get("error")) or None,
        "cited": [c for c in cited if c],
        "xpost_ids": as_list(resp.get("xpost_ids")),
    }


DESCRIPTION = "Grok data export (xAI: prod-grok-backend.json)"
EXAMPLE = (
    '{"conversations": [{"conversation": {"id": "c1", "title": "Hi"}, "responses": '
    '[{"response": {"_id": "r1", "message": "hi", "sender": "human", "create_time": '
    '{"$date": {"$numberLong": "1718000000000"}}}}]}]}'
)
FIELDS = Fields(
    speaker="`user` (`sender` `human`), else `grok`",
    listeners="the other party",
    time="`create_time` (`$numberLong` milliseconds, or ISO)",
    zone="UTC",
    thread="`grok:<conversation id>`",
    id="`grok:<_id>`",
    scope="none: xAI's ids are UUIDs",
    reply_to="`grok:<parent_response_id>`",
    subject="the conversation's `title`, on its first record",
    extra="`model`, `sender` (its spelling when not `assistant`), `thinking`, `error`, "
    "`cited` (URLs), `xpost_ids`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("prod-grok-backend.json", "*.json"), sniff, read,
                  EXAMPLE, fields=FIELDS),)  # fmt: skip
