"""Matrix rooms exported by Element as JSON ("Export chat" → JSON) (``matrix``).

Shape (matrix-org/matrix-react-sdk, now element-hq/element-web,
``src/utils/exportUtils/JSONExport.ts``: ``{room_name,
room_creator, topic, export_date, exported_by, messages: [event, ...]}`` where each event
is the client-server event JSON of the Matrix spec, spec.matrix.org/latest/client-server-api:
``{type, sender, content, origin_server_ts, event_id, room_id, unsigned}``;
``m.room.message`` content ``{msgtype: m.text|m.emote|m.notice|m.image|m.file|m.video|
m.audio, body, formatted_body?, url?, info?, "m.relates_to"?, "m.mentions"?,
"m.new_content"?}``; relations ``m.in_reply_to``, ``rel_type: m.thread|m.replace|
m.annotation``; state events ``m.room.member`` (``membership``, ``displayname``),
``m.room.name``, ``m.room.topic``, ``m.room.create``...).

Decisions:
- speaker = the sender's display name from the ``m.room.member`` events seen so far,
  else the MXID (``@alice:example.org``, kept in ``extra.sender``); listeners = the
  ``m.mentions`` users, else the replied-to message's speaker.
- text = ``body`` (a reply's quoted fallback lines ``> <@x> ...`` dropped); media
  ``[image] NAME (mxc://...)``-style chunks; ``m.emote`` tagged ``action``, ``m.notice``
  ``notice``; an edit (``m.replace``) carries the new text, tag ``edit`` and
  ``extra.replaces``; a reaction is ``[reaction] KEY`` tagged ``reaction`` replying to its
  target; state events are ``[m.room.member] join`` style messages tagged ``system``;
  other events read as the text they carry for clients that cannot show them (a poll's
  question and answers, ``m.text``/``org.matrix.msc1767.text``; tagged ``poll``), else
  as ``[type]`` tagged ``system``.
- id = ``matrix:<event_id>``; replyTo = the ``m.in_reply_to`` (else thread root /
  annotated) event, except a thread's ``is_falling_back`` reply (a pointer for clients
  without threads at the thread's latest event): the thread root; thread = ``room_id``
  (else the room name), subject = ``room_name``; ``extra.thread_root`` for threaded
  messages; timestamp = ``origin_server_ts`` (ms).
- A redacted event (``unsigned.redacted_because``, or a message or reaction with empty
  content) is a deleted message: kept, so replies to it still point somewhere, with its
  sender and time and no text (nothing is left to read, and none is invented), tagged
  ``deleted``, ``extra.redacted_by``/``redacted_at``/``reason`` from the redaction;
  counted in one warning. The ``m.room.redaction`` events themselves (when an export
  holds them) and redacted reactions (a reaction taken back) are no messages: counted
  in a warning. An edit without ``m.new_content``
  (older clients) loses its `` * `` fallback mark; ``extra.html`` drops the
  ``<mx-reply>`` quoted fallback.
- Events still encrypted (``m.room.encrypted``), and those Element could not decrypt
  (its placeholder ``m.room.message`` with ``msgtype: m.bad.encrypted`` and a
  ``** Unable to decrypt **`` body, what ``getJSONString`` writes for them: the
  ``decrypted`` clear event) are rejected with their location; the ``messages`` list is
  streamed.

Memory is flat with the room's length: the two maps a later event may need (MXID ->
display name; event id -> speaker, for a reply's listener) are
``convo.core.spillmap.SpillMap``s, the keys set last in memory and older ones in a
temporary table (``tests/importers/test_lookup_memory.py``).

Ids and their scope (docs/ids.md): event ids are unique everywhere (``$hash``, or
``$x:server`` in old rooms): ``matrix:<event_id>``, no scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "matrix"
MEDIA = {"m.image": "image", "m.file": "file", "m.video": "video", "m.audio": "audio"}
_FALLBACK = re.compile(r"\A(?:> .*\n?)+\n?")
_MX_REPLY = re.compile(r"<mx-reply>.*?</mx-reply>", re.S)


def sniff(source: Source) -> int:
    text = json_head_with(source, key="messages", opens="{")
    if not text:
        return 0
    if re.search(r'"origin_server_ts"\s*:', text) and re.search(r'"event_id"\s*:\s*"\$', text):
        return 92 if has_key(text, "room_name") or '"m.room.' in text else 80
    return 0


class _Room:
    def __init__(self, head: dict[str, Any], source: Source):
        self.name = as_str(head.get("room_name"))
        self.thread = ""
        self.names: SpillMap[str, str] = SpillMap()  # MXID -> display name
        self.speakers: SpillMap[str, str] = SpillMap()  # event id -> speaker, for listeners
        self.source = source

    def speaker(self, mxid: str) -> str:
        return self.names.get(mxid) or mxid

    def close(self) -> None:
        self.names.close()
        self.speakers.close()


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",))
    head = doc.expect("not an Element JSON export (no messages list)")
    room = _Room(head, source)
    deleted = redactions = unreacted = 0
    try:
        for event, line in doc.items():
            where = ctx.loc(line)
            ev = as_dict(event)
            kind = as_str(ev.get("type"))
            room.thread = room.thread or as_str(ev.get("room_id"))
            content = ev.get("content")
            if not kind or not isinstance(content, dict):
                ctx.reject(where, "not a Matrix event (type and content)", event)
            elif kind == "m.room.encrypted" or content.get("msgtype") == "m.bad.encrypted":
                ctx.reject(
                    where, "an encrypted event (export with the keys loaded to read it)", event
                )
            elif kind == "m.room.redaction":
                redactions += 1  # the deletion itself: said by the message it deleted
            elif kind == "m.reaction" and _redacted(ev, kind, content):
                unreacted += 1  # a reaction taken back is no message
            elif _redacted(ev, kind, content):
                deleted += 1
                yield _deleted(ev, kind, where, room)
            else:
                yield _event(ev, kind, content, where, room)
    finally:
        room.close()
    if deleted:
        ctx.warn(
            source.name,
            f"{counted(deleted, 'deleted (redacted) event')}: kept without text, tagged deleted",
        )
    if redactions or unreacted:
        ctx.warn(
            source.name,
            f"not imported as messages: {counted(redactions, 'redaction event')} (the "
            f"deletions themselves), {counted(unreacted, 'reaction')} taken back (redacted)",
        )


def _redacted(ev: dict[str, Any], kind: str, content: dict[str, Any]) -> bool:
    """A redacted event: the server's ``redacted_because``, or a message or reaction left
    with no content (older exports without ``unsigned``). A redacted state event keeps
    the keys that say what changed (``membership``): it stays a state message."""
    if "state_key" in ev and content:
        return False
    if as_dict(ev.get("unsigned")).get("redacted_because"):
        return True
    return not content and kind in ("m.room.message", "m.sticker", "m.reaction")


def _deleted(ev: dict[str, Any], kind: str, where: str, room: _Room) -> ConversationMessage:
    """A redacted event: who sent it and when, no text (none is left), tag ``deleted``,
    who deleted it and why in ``extra``."""
    sender = as_str(ev.get("sender"))
    speaker = room.speaker(sender)
    eid = as_str(ev.get("event_id"))
    room.speakers.set(eid, speaker)
    because = as_dict(as_dict(ev.get("unsigned")).get("redacted_because"))
    by = as_str(because.get("sender"))
    return message(
        "",
        speaker=speaker or None,
        timestamp=epoch_ts(ev.get("origin_server_ts"), ms=True),
        id=f"{NAME}:{eid}" if eid else None,
        source_id=where,
        format=NAME,
        thread=room.thread or room.name or room.source.name,
        subject=room.name or None,
        tags=["deleted"],
        extra={
            "type": kind if kind != "m.room.message" else None,
            "sender": sender if speaker != sender else None,
            "redacted": True,
            "redacted_by": by or None,
            "redacted_at": epoch_ts(because.get("origin_server_ts"), ms=True)
            if because.get("origin_server_ts") is not None
            else None,
            "reason": as_str(as_dict(because.get("content")).get("reason")) or None,
        },
    )


def _relation(content: dict[str, Any]) -> tuple[str, str, str]:
    """(rel_type, related event, the event replied to / annotated / threaded under).

    In a thread, ``m.in_reply_to`` with ``is_falling_back`` is no reply: clients without
    threads are pointed at the thread's latest event; the message answers the root."""
    relates = as_dict(content.get("m.relates_to"))
    reply = as_str(as_dict(relates.get("m.in_reply_to")).get("event_id"))
    target = as_str(relates.get("event_id"))
    rel = as_str(relates.get("rel_type"))
    if rel == "m.thread" and relates.get("is_falling_back") is True:
        reply = ""
    return rel, target, reply or (target if rel in ("m.annotation", "m.thread") else "")


def _listeners(content: dict[str, Any], parent: str, room: _Room) -> list[str]:
    mentions = as_list(as_dict(content.get("m.mentions")).get("user_ids"))
    heard = [room.speaker(as_str(u)) for u in mentions]
    if not heard and parent:
        heard = [room.speakers.get(parent) or ""]
    return [x for x in heard if x]


def _event(
    ev: dict[str, Any], kind: str, content: dict[str, Any], where: str, room: _Room
) -> ConversationMessage:
    sender = as_str(ev.get("sender"))
    if kind == "m.room.member" and as_str(content.get("displayname")):
        room.names.set(as_str(ev.get("state_key")) or sender, content["displayname"])
    rel, target, parent = _relation(content)
    chunks, tags, extra = _content(kind, content, rel, target, ev)
    speaker = room.speaker(sender)
    eid = as_str(ev.get("event_id"))
    room.speakers.set(eid, speaker)
    extra.update(sender=sender if speaker != sender else None)
    extra.update(thread_root=target if rel == "m.thread" else None)
    return message(
        chunks,
        speaker=speaker or None,
        listeners=_listeners(content, parent, room),
        timestamp=epoch_ts(ev.get("origin_server_ts"), ms=True),
        id=f"{NAME}:{eid}" if eid else None,
        source_id=where,
        format=NAME,
        thread=room.thread or room.name or room.source.name,
        reply_to=f"{NAME}:{parent}" if parent else None,
        subject=room.name or None,
        tags=tags,
        extra=extra,
    )


def _state(kind: str, content: dict[str, Any], ev: dict[str, Any]) -> str:
    value = content.get("membership") or content.get("name") or content.get("topic")
    return f"[{kind}] {as_str(ev.get('state_key'))} {as_str(value)}".replace("  ", " ").strip()


def _content(
    kind: str, content: dict[str, Any], rel: str, target: str, ev: dict[str, Any]
) -> tuple[list[str], list[str], dict[str, Any]]:
    extra: dict[str, Any] = {"type": kind if kind != "m.room.message" else None}
    if kind == "m.reaction":
        key = as_str(as_dict(content.get("m.relates_to")).get("key"))
        return [f"[reaction] {key}"], ["reaction"], extra
    if kind not in ("m.room.message", "m.sticker"):
        extra["content"] = content
        return *_other(kind, content, ev), extra
    msgtype = as_str(content.get("msgtype")) or ("m.image" if kind == "m.sticker" else "")
    new = as_dict(content.get("m.new_content")) if rel == "m.replace" else {}
    body = _body(content, new, rel)
    tags = {"m.emote": ["action"], "m.notice": ["notice"]}.get(msgtype, [])
    if rel == "m.replace":
        tags, extra["replaces"] = [*tags, "edit"], f"{NAME}:{target}"
    chunks = [body]
    if msgtype in MEDIA:
        url = as_str(content.get("url"))
        chunks = [f"[{MEDIA[msgtype]}] {body} ({url})" if url else f"[{MEDIA[msgtype]}] {body}"]
        extra["info"] = as_dict(content.get("info"))
    extra["msgtype"] = msgtype if msgtype not in ("m.text", "") else None
    html = as_str((new or content).get("formatted_body"))
    extra["html"] = _MX_REPLY.sub("", html) or None  # the reply's quoted fallback dropped
    return chunks, tags, extra


def _other(kind: str, content: dict[str, Any], ev: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The chunks and tags of an event that is no message: a poll, its end... (an
    extensible event) as its own text; a state or other event as ``[type] ...``."""
    text = "" if "state_key" in ev else _text_fallback(content)
    if text:
        return [text], ["poll"] if ".poll." in kind else []
    return [_state(kind, content, ev)], [SYSTEM_TAG]


def _text_fallback(content: dict[str, Any]) -> str:
    """The text an extensible event (MSC1767) carries for clients that cannot show it: a
    poll's question and answers (``m.poll.start``, ``org.matrix.msc3381.poll.start``),
    a poll's end. ``m.text`` is a list of representations (the plain one first, else
    the first); the unstable ``org.matrix.msc1767.text`` a string; else ``body``."""
    for key in ("m.text", "org.matrix.msc1767.message"):
        reps = [as_dict(r) for r in as_list(content.get(key))]
        plain = [r for r in reps if as_str(r.get("mimetype")) in ("", "text/plain")] or reps
        if plain and as_str(plain[0].get("body")).strip():
            return as_str(plain[0].get("body"))
    return as_str(content.get("org.matrix.msc1767.text")) or as_str(content.get("body"))


def _body(content: dict[str, Any], new: dict[str, Any], rel: str) -> str:
    """A message's text: an edit's new text, a reply without its quoted fallback lines,
    an old-style edit (no ``m.new_content``) without its `` * `` mark."""
    body = as_str((new or content).get("body"))
    if as_dict(content.get("m.relates_to")).get("m.in_reply_to"):
        body = _FALLBACK.sub("", body)
    if rel == "m.replace" and not new:
        body = body.removeprefix(" * ").removeprefix("* ")
    return body


DESCRIPTION = "Matrix room exported by Element as JSON (room_name, messages: events)"
EXAMPLE = (
    '{"room_name": "Tea", "messages": [{"type": "m.room.message", "sender": "@alice:x.org", '
    '"content": {"msgtype": "m.text", "body": "hi"}, "origin_server_ts": 1646128800000, "event_id": "$a"}]}'
)
FIELDS = Fields(
    speaker="the sender's display name from the `m.room.member` events seen so far, else the MXID",
    listeners="the `m.mentions` users, else the replied-to message's speaker",
    time="`origin_server_ts`",
    zone="epoch milliseconds: UTC",
    thread="`room_id` (else the room's name)",
    id="`matrix:<event_id>`",
    scope="none: event ids are unique everywhere",
    reply_to="the `m.in_reply_to` event (else the thread root or the annotated event)",
    subject="`room_name`",
    tags="`action` (`m.emote`), `notice`, `edit`, `reaction`, `system` (state events), "
    "`deleted` (a redacted event, without text)",
    extra="`type`, `msgtype`, `content`, `html` (`formatted_body`), `info` (media), `sender` "
    "(the MXID), `replaces`, `thread_root`, `redacted`, `redacted_by`, `redacted_at`, `reason`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
