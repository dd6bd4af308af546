"""Facebook Messenger message_N.json (participants, newest-first messages): Meta's
message schema, which Instagram's DMs share (``convo.importers.apps.instagram``).

A first pass notes each message's byte range and the order; the messages are then read
again from their ranges, oldest first (stdin/.gz are spooled to a file), so memory stays
flat but for 16 bytes a message (its byte span, in an ``array``), never the messages. Every string is repaired (UTF-8 bytes escaped as \\u00XX); no ids in the source
(content hash); two participants -> the other one is the listener. A file without
``participants`` (some downloads, hand-cut files) takes its senders as the participants.

The end-to-end encrypted chats come in a separate download (Messenger's "secure
storage" export, ``<Name>_<n>.json`` a thread, media under ``media/``) that spells the
same schema in camelCase: participants as plain names, ``threadName``, messages with
``senderName``, ``text``, ``timestamp`` (milliseconds), ``type`` (``text``, ``media``,
``link``, ``placeholder``: an unsent message), ``media: [{"uri"}]`` and ``isUnsent``;
both spellings are read (``_get``). Old downloads' ``timestamp`` in seconds is told
from milliseconds by its size.

Detection (``sniff_messenger``) rests on what every thread file has, a ``messages`` list
with ``sender_name`` and ``timestamp_ms`` (``senderName`` and ``timestamp``), never on
``participants`` alone.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread's ``title``; ``message_N.json`` is a name every download has, so without a
title the folder (the thread's) is hashed with it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any, BinaryIO

from convo.core.errors import InputError
from convo.core.io import Source, parse_json
from convo.core.jsonstream import JsonArray
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import (
    SYSTEM_TAG,
    EmptyCounter,
    fix_latin1_mojibake,
    other_party,
)
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format


def sniff_messenger(source: Source) -> int:
    """Meta's thread schema by what every thread file has: a ``messages`` list whose
    messages carry ``sender_name`` and ``timestamp_ms``; ``participants`` (left out of
    some downloads and of hand-cut files) only adds to it."""
    text = json_head(source)
    if not text.startswith("{") or not has_key(text, "messages"):
        return 0
    meta_keys = has_key(text, "sender_name") + has_key(text, "timestamp_ms")
    if has_key(text, "senderName") and has_key(text, "timestamp"):  # the E2EE download
        meta_keys = 2 if has_key(text, "threadName") or has_key(text, "isUnsent") else 1
    if has_key(text, "participants"):
        return 85 if meta_keys else 50
    return 80 if meta_keys == 2 else 0


# (the thread-file spelling, the E2EE download's) of each field read
_SENDER = ("sender_name", "senderName")
_TEXT = ("content", "text")
_TIME = ("timestamp_ms", "timestamp")


def _get(m: dict[str, Any], keys: tuple[str, str]) -> Any:
    value = m.get(keys[0])
    return m.get(keys[1]) if value is None else value


def _millis(m: dict[str, Any]) -> Any:
    """The message's time in epoch milliseconds: ``timestamp_ms``, else ``timestamp``
    (milliseconds in the E2EE download, seconds in old downloads)."""
    value = _get(m, _TIME)
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 1e11:
        return value * 1000
    return value


def _name(p: Any) -> str:
    """A participant: ``{"name": ...}``, or the plain name of the E2EE download."""
    return p if isinstance(p, str) else as_str(as_dict(p).get("name"))


# the older downloads' ``type`` of a member added or leaving (``users``: who)
_MEMBERSHIP = ("Subscribe", "Unsubscribe")

_MEDIA = (
    ("photos", "photo"),
    ("videos", "video"),
    ("audio_files", "audio"),
    ("files", "file"),
    ("gifs", "gif"),
)


def read_messenger(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    yield from read_meta_thread(source, ctx, "messenger")


def read_meta_thread(source: Source, ctx: ImportContext, fmt: str) -> Iterator[ConversationMessage]:
    """A thread of Meta's message schema (Messenger, Instagram), records labelled ``fmt``."""
    with open(source.real_path(), "rb") as f:
        doc = JsonArray(f, ("messages",), where=source.name)
        spans, nums, senders = _first_pass(doc)
        data = doc.members
        if doc.root != "{" or not doc.found:
            raise InputError(f"not a {fmt} message file (no messages list)", where=source.name)
        fix = fix_latin1_mojibake
        people = [fix(_name(p)) for p in as_list(data.get("participants"))]
        people = [p for p in people if p] or [fix(s) for s in senders if s]
        title = as_str(data.get("title")) or as_str(data.get("threadName"))
        title = fix(title) or ", ".join(people) or fmt
        order = range(len(spans) // 2)
        if len(nums) >= 2 and nums[0] > nums[-1]:
            order = order[::-1]  # Messenger writes newest first
        yield from _messenger_messages(f, spans, order, (people, title, fmt), ctx)


def _first_pass(doc: JsonArray) -> tuple[array, list[float], dict[str, None]]:
    """Where each message is (byte spans), the first and last times (the order), and up
    to three senders (the participants of a file that does not list them)."""
    spans = array("q")
    nums: list[float] = []
    senders: dict[str, None] = {}
    for m, _ in doc:
        spans.extend(doc.span)
        if len(senders) < 3:
            senders[as_str(_get(as_dict(m), _SENDER))] = None
        s = _millis(as_dict(m))
        if isinstance(s, int | float) and not isinstance(s, bool):  # keep first and last
            nums[1 if nums else 0 :] = [s]
    return spans, nums, senders


def _chunks(m: dict[str, Any], content: str) -> tuple[list[str], dict[str, Any]]:
    """The text chunks of a message (content, media, sticker, shared link) and its media."""
    chunks = [content] if content.strip() else []
    media = {}
    for key, label in _MEDIA:
        items = [as_dict(x) for x in as_list(m.get(key))]
        if items:
            media[key] = items
            chunks += [f"[{label}] {as_str(x.get('uri'))}" for x in items]
    e2ee = [as_dict(x) for x in as_list(m.get("media"))]  # the E2EE download: one list
    if e2ee:
        media["media"] = e2ee
        chunks += [f"[media] {as_str(x.get('uri'))}" for x in e2ee]
    sticker = as_dict(m.get("sticker"))
    if sticker:
        chunks.append(f"[sticker] {as_str(sticker.get('uri'))}")
    chunks += _shared(as_dict(m.get("share")), content)
    return chunks or _notice(m), media


def _notice(m: dict[str, Any]) -> list[str]:
    """What a message without text or media says: a call, members added or gone, an
    unsent message (kept: its reactions stay), none."""
    if "call_duration" in m:  # a call the download wrote without a sentence
        seconds = m.get("call_duration")
        missed = m.get("missed") is True or seconds == 0
        return ["[call] missed" if missed else f"[call] {as_str(seconds)} s"]
    if m.get("type") in _MEMBERSHIP:
        names = (fix_latin1_mojibake(_name(u)) for u in as_list(m.get("users")))
        return [f"[{as_str(m.get('type')).lower()}] {', '.join(names)}".strip()]
    return ["[unsent]"] if _unsent(m) else []


def _unsent(m: dict[str, Any]) -> bool:
    """An unsent message: ``is_unsent``, the E2EE download's ``isUnsent`` or ``placeholder``."""
    return m.get("is_unsent") is True or m.get("isUnsent") is True or m.get("type") == "placeholder"


def _shared(share: dict[str, Any], content: str) -> list[str]:
    """A shared post's link and caption, when the text does not hold them already."""
    out = []
    if share.get("link") and as_str(share.get("link")) not in content:
        out.append(f"[link] {as_str(share.get('link'))}")
    shared = fix_latin1_mojibake(as_str(share.get("share_text")))
    if shared.strip() and shared not in content:
        out.append(shared)  # the caption of a shared post
    return out


def _messenger_messages(
    f: BinaryIO,
    spans: array[int],
    order: range,
    thread: tuple[list[str], str, str],
    ctx: ImportContext,
) -> Iterator[ConversationMessage]:
    """The messages in ``order``, each read again from its byte range; ``thread`` is the
    participants, the title and the format name."""
    people, title, fmt = thread
    fix = fix_latin1_mojibake
    empty = EmptyCounter()
    for j in order:
        i = j + 1
        f.seek(spans[2 * j])
        loc = ctx.loc(f"msg-{i}")
        m = parse_json(f.read(spans[2 * j + 1] - spans[2 * j]), loc)
        if not isinstance(m, dict):
            ctx.reject(loc, f"not a {fmt} message (not an object)", m)
            continue
        speaker = fix(as_str(_get(m, _SENDER)))
        content = fix(as_str(_get(m, _TEXT)))
        chunks, media = _chunks(m, content)
        sticker = as_dict(m.get("sticker"))
        share = as_dict(m.get("share"))
        if not chunks:
            empty.skip(loc)
            continue
        millis = _millis(m)
        ts = epoch_ts(millis, ms=True)
        if ts is None:
            ctx.warn(loc, "no readable timestamp_ms; time left unknown")
        kind = as_str(m.get("type"))
        yield message(
            chunks,
            speaker=speaker or None,
            listeners=other_party(people, speaker),
            timestamp=ts,
            source_id=loc,
            format=fmt,
            thread=title,
            tags=[SYSTEM_TAG] if kind in _MEMBERSHIP else [],
            extra={
                "timestamp_ms": millis,
                "type": kind,
                "users": [fix(_name(u)) for u in as_list(m.get("users"))] or None,
                "media": media,
                "sticker": sticker,
                "share": share,
                "unsent": True if _unsent(m) else None,
                "call_duration": m.get("call_duration"),
                "missed": m.get("missed"),
                "reactions": [_reaction(r) for r in map(as_dict, as_list(m.get("reactions")))],
            },
        )
    empty.report(ctx)


def _reaction(r: dict[str, Any]) -> dict[str, Any]:
    """A reaction: its emoji and who reacted (mojibake repaired), and its time when the
    download writes one (Instagram's, for some: ``timestamp`` in seconds)."""
    out: dict[str, Any] = {
        "reaction": fix_latin1_mojibake(as_str(r.get("reaction"))),
        "actor": fix_latin1_mojibake(as_str(r.get("actor"))),
    }
    if r.get("timestamp") is not None:
        out["timestamp"] = r.get("timestamp")
    return out


DESCRIPTION = (
    "Facebook Messenger message_N.json (participants, newest-first messages) and E2EE chats"
)
PATTERNS = ("message_*.json",)
EXAMPLE = (
    '{"participants": [{"name": "Bob"}], "messages": [{"sender_name": "Bob", "timestamp_ms": 1}]}'
)
FIELDS = Fields(
    speaker="`sender_name` (E2EE download: `senderName`; mojibake repaired)",
    listeners="the other participant of a two-person thread, else none",
    time="`timestamp_ms` (E2EE download: `timestamp`, milliseconds; messages come newest "
    "first and are read oldest first)",
    zone="epoch milliseconds: UTC",
    thread="the thread's `title` (E2EE download: `threadName`)",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread's `title`; without one the folder (`message_N.json` is a name every "
    "download has)",
    tags="`system` for a member added or leaving (older downloads' `Subscribe`, "
    "`Unsubscribe`; who in `extra.users`)",
    extra="`timestamp_ms`, `media` (photos, videos, audio, files), `reactions` (with their "
    "`timestamp` when written), `share`, `call_duration` and `missed` (a call without a "
    "sentence reads `[call] 42 s`)",
)

FORMATS = (
    Format(
        "messenger",
        "chat",
        DESCRIPTION,
        PATTERNS,
        sniff_messenger,
        read_messenger,
        EXAMPLE,
        fields=FIELDS,
    ),
)
