"""Google Hangouts in Google Takeout: ``Hangouts/Hangouts.json`` (``hangouts``).

Shape (the Takeout file as users' readers parse it, found with the code search, and the
field names of Hangouts' own protocol, ``hangouts.proto`` as reverse-engineered by
hangups): since 2018 ``{"conversations": [{"conversation": {"conversation_id": {"id"},
"conversation": {...}}, "events": [...]}]}``; before, ``{"conversation_state":
[{"conversation_id": {"id"}, "conversation_state": {"conversation": {...}, "event":
[...]}}]}``. The inner ``conversation`` has ``type`` (``STICKY_ONE_TO_ONE``,
``GROUP``), ``name`` (a named group), ``self_conversation_state.self_read_state.
participant_id`` (the account's own ids) and ``participant_data`` (``[{"id":
{"gaia_id", "chat_id"}, "fallback_name"?}]``). An event: ``sender_id``, ``timestamp``
(microseconds since the epoch, a string), ``event_id``, ``event_type``
(``REGULAR_CHAT_MESSAGE``, ``SMS``, ``HANGOUT_EVENT``, ``RENAME_CONVERSATION``,
``ADD_USER``, ``REMOVE_USER``...), ``chat_message.message_content`` with ``segment``
(``[{"type": "TEXT"|"LINK"|"LINE_BREAK", "text"?, "formatting"?, "link_data"?}]``) and
``attachment`` (``[{"embed_item": {"type": ["PLUS_PHOTO"], "plus_photo": {"url",
"original_content_url"?, "thumbnail"}}}]``), ``hangout_event``, ``conversation_rename``,
``membership_change``, ``event_otr``, ``delivery_medium``.

Decisions:
- speaker = the sender's ``fallback_name`` in the conversation's ``participant_data``
  (else ``gaia:<id>``); listeners = the conversation's other participants.
- thread = the group's ``name``, else the names of the participants other than the
  account (``self_read_state``), joined with ``, ``; ``extra.conversation_id`` keeps the id.
- text = the segments joined (a line break as ``\\n``, a link as its text); each
  attachment a ``[photo] URL`` (``[audio] URL``, ``[<type>] URL``) chunk; a Google Voice
  voicemail (``VOICEMAIL``, its recording ``PLUS_AUDIO_V2``) ``[voicemail, N s] URL``. A call, a rename and a
  membership change are messages tagged ``system`` (``[call ended, 120 s]``,
  ``[renamed the conversation to X]``, ``[added Ann]``); other events without a message
  (``OTR_MODIFICATION``...) and messages with no text are counted in one warning.
- time = ``timestamp`` / 1e6 (UTC); extra: ``event_type``, ``medium``
  (``delivery_medium.medium_type``: ``BABEL_MEDIUM``, ``GOOGLE_VOICE_MEDIUM``...),
  ``off_the_record``, ``formatting`` (the bold/italic spans' texts), attachments.
- the top-level list is streamed, one conversation at a time (a file of many years is
  gigabytes; one conversation's events are held while it is read); a conversation or an
  event that is not an object, an event without a readable timestamp, is rejected (an
  event at its conversation's line and its number there: ``Hangouts.json:3 event 8``).

Ids and their scope (docs/ids.md): ``hangouts:<conversation id>:<event_id>`` (event ids
are the conversation's; the conversation id is unique everywhere); an event without its
id: the content hash, scoped by the thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import OwnIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import (
    StreamedDoc,
    as_dict,
    as_digits,
    as_list,
    as_str,
    has_key,
    json_head_with,
)
from convo.importers.registry import Format

NAME = "hangouts"
_NEW, _OLD = "conversations", "conversation_state"
_MESSAGES = {"REGULAR_CHAT_MESSAGE", "SMS", ""}


def sniff(source: Source) -> int:
    text = json_head_with(source, opens="{")
    if not text:
        return 0
    if has_key(text, _NEW) and (has_key(text, "participant_data") or has_key(text, "events")):
        return 90 if has_key(text, "conversation_id") else 0
    if has_key(text, _OLD) and has_key(text, "conversation_id"):
        return 90
    return 0


class _Conversation:
    """One conversation's names: participants by gaia id, its thread, its id."""

    def __init__(self, item: dict[str, Any]) -> None:
        outer = as_dict(item.get("conversation"))
        state = as_dict(item.get("conversation_state"))
        conv = as_dict(outer.get("conversation")) or as_dict(state.get("conversation"))
        self.id = as_str(
            as_dict(outer.get("conversation_id") or item.get("conversation_id")).get("id")
        ) or as_str(as_dict(conv.get("id")).get("id"))
        self.names: dict[str, str] = {}
        for p in map(as_dict, as_list(conv.get("participant_data"))):
            gaia = as_str(as_dict(p.get("id")).get("gaia_id"))
            if gaia:
                self.names[gaia] = as_str(p.get("fallback_name")) or f"gaia:{gaia}"
        me = as_dict(as_dict(as_dict(conv.get("self_conversation_state")).get(
            "self_read_state")).get("participant_id"))  # fmt: skip
        self.me = as_str(me.get("gaia_id"))
        others = [n for g, n in self.names.items() if g != self.me]
        self.thread = as_str(conv.get("name")) or ", ".join(others) or self.id
        self.type = as_str(conv.get("type"))
        self.events = as_list(item.get("events") if "events" in item else state.get("event"))

    def name(self, ids: Any) -> str:
        gaia = as_str(as_dict(ids).get("gaia_id"))
        return self.names.get(gaia) or (f"gaia:{gaia}" if gaia else "")


_LABELS = {"PLUS_PHOTO": "photo", "PLUS_AUDIO_V2": "audio"}


def _content(event: dict[str, Any]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """(chunks, formatted texts, attachments) of a chat message."""
    content = as_dict(as_dict(event.get("chat_message")).get("message_content"))
    parts: list[str] = []
    formatted: list[str] = []
    for seg in map(as_dict, as_list(content.get("segment"))):
        kind = as_str(seg.get("type"))
        text = "\n" if kind == "LINE_BREAK" else as_str(seg.get("text"))
        parts.append(text)
        if any(v is True for v in as_dict(seg.get("formatting")).values()):
            formatted.append(text)
    chunks = ["".join(parts)] if "".join(parts).strip() else []
    files: list[dict[str, Any]] = []
    for att in map(as_dict, as_list(content.get("attachment"))):
        chunk, file = _attachment(as_dict(att.get("embed_item")), event)
        chunks.append(chunk)
        files.append(file)
    return chunks, formatted, files


def _attachment(item: dict[str, Any], event: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """An attachment's chunk (``[photo] URL``) and its entry in ``extra``."""
    kinds = [as_str(k) for k in as_list(item.get("type"))]
    kind = kinds[0] if kinds else "ATTACHMENT"
    body = next((as_dict(v) for k, v in item.items() if isinstance(v, dict)), {})
    url = (
        as_str(body.get("original_content_url"))
        or as_str(body.get("url"))
        or as_str(as_dict(body.get("thumbnail")).get("url"))
        or as_str(body.get("name"))
    )
    label = _LABELS.get(kind, kind.lower())
    if as_str(event.get("event_type")) == "VOICEMAIL":
        ms = as_digits(body.get("duration"))  # not str.isdigit: "²" passes it
        label = f"voicemail, {ms // 1000} s" if ms is not None and ms >= 0 else "voicemail"
    return f"[{label}] {url}".rstrip(), {"type": kind, "url": url}


def _system(event: dict[str, Any], conv: _Conversation) -> str:
    """A call, rename or membership change as one bracketed line; "" for other events."""
    call = as_dict(event.get("hangout_event"))
    if call:
        secs = as_str(call.get("hangout_duration_secs"))
        if as_str(call.get("event_type")) == "END_HANGOUT":
            return f"[call ended, {secs} s]" if secs else "[call ended]"
        return "[call started]"
    rename = as_dict(event.get("conversation_rename"))
    if rename:
        return f"[renamed the conversation to {as_str(rename.get('new_name'))}]"
    change = as_dict(event.get("membership_change"))
    if change:
        who = ", ".join(conv.name(p) for p in as_list(change.get("participant_id")))
        if as_str(change.get("type")) == "LEAVE":
            return (
                "[left]" if who in ("", conv.name(event.get("sender_id"))) else f"[removed {who}]"
            )
        return f"[added {who}]"
    return ""


def _event(event: Any, where: str, conv: _Conversation) -> ConversationMessage | str | None:
    """An event's message, else why it is rejected, else None (nothing to keep)."""
    if not isinstance(event, dict):
        return "not a Hangouts event (not an object)"
    raw_time = as_str(event.get("timestamp"))
    micros = as_digits(raw_time)
    stamp = epoch_ts(micros / 1e6) if micros is not None and micros >= 0 else None
    if stamp is None:
        return f"timestamp {raw_time[:30]!r} is not microseconds since the epoch"
    chunks, formatted, files = _content(event)
    system = ""
    if not chunks:
        system = _system(event, conv)
        chunks = [system] if system else []
    if not chunks:
        return None
    speaker = conv.name(event.get("sender_id"))
    event_id = as_str(event.get("event_id"))
    return message(
        chunks,
        speaker=speaker or None,
        listeners=[n for n in conv.names.values() if n != speaker],
        timestamp=stamp,
        id=f"hangouts:{conv.id}:{event_id}" if event_id and conv.id else None,
        source_id=where,
        format=NAME,
        thread=conv.thread,
        tags=[SYSTEM_TAG] if system else [],
        extra={
            "conversation_id": conv.id,
            "event_type": as_str(event.get("event_type")),
            "medium": as_str(as_dict(event.get("delivery_medium")).get("medium_type")),
            "off_the_record": as_str(event.get("event_otr")) == "OFF_THE_RECORD" or None,
            "formatting": formatted,
            "attachments": files,
        },
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if not sniff(source):
        raise InputError(
            "not a Google Hangouts Takeout file",
            where=source.name,
            hint='Hangouts.json opens with {"conversations": [...]} (before 2018: '
            '{"conversation_state": [...]})',
        )
    key = _OLD if has_key(json_head_with(source, opens="{"), _OLD) else _NEW
    doc = StreamedDoc(source, (key,))
    doc.expect(f"not a Google Hangouts Takeout file (no {key} list)")
    own = OwnIds()
    skipped: dict[str, int] = {}
    for item, line in doc.items():
        where = ctx.loc(line)
        if not isinstance(item, dict):
            ctx.reject(where, "not a Hangouts conversation (not an object)", item)
            continue
        conv = _Conversation(item)
        for k, event in enumerate(conv.events):
            got = _event(event, where, conv)
            if isinstance(got, str):  # the conversation's line, and the event's place in it
                ctx.reject(f"{where} event {k + 1}", got, event)
            elif got is None:
                kind = as_str(as_dict(event).get("event_type")) or "no type"
                skipped[kind] = skipped.get(kind, 0) + 1
            else:
                got.id = own.checked(got.id, got.text_chunks)
                yield got
    own.close()
    if own.clashes:
        ctx.warn(source.name, own.warning("event", "event_id"))
    if skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items()))
        ctx.warn(source.name, f"skipped events with no message text: {kinds}")


DESCRIPTION = (
    "Google Hangouts in Google Takeout (Hangouts.json, both the 2018+ and the older layout)"
)
EXAMPLE = (
    '{"conversations": [{"conversation": {"conversation_id": {"id": "Ugx"}, "conversation": '
    '{"participant_data": [{"id": {"gaia_id": "1"}, "fallback_name": "Ann"}]}}, "events": '
    '[{"sender_id": {"gaia_id": "1"}, "timestamp": "1420000000000000", "event_id": "e1", '
    '"chat_message": {"message_content": {"segment": [{"type": "TEXT", "text": "hi"}]}}}]}]}'
)
FIELDS = Fields(
    speaker="the sender's `fallback_name` in `participant_data` (else `gaia:<id>`)",
    listeners="the conversation's other participants",
    time="`timestamp` (microseconds since the epoch)",
    zone="UTC (epoch times)",
    thread="the group's `name`, else the other participants' names joined with `, `",
    id="`hangouts:<conversation id>:<event_id>`",
    scope="the conversation id (in the id)",
    tags="`system` on calls, renames and membership changes",
    extra="`conversation_id`, `event_type`, `medium`, `off_the_record`, `formatting`, "
    "`attachments` (`{type, url}`)",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("Hangouts.json", "*.json"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
