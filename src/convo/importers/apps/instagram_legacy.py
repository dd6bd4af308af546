"""Instagram DMs from the data download before 2020 (``messages.json``), format
``instagram-legacy``, records ``instagram``.

The download held one ``messages.json``: a list of threads, each ``{"participants":
[usernames], "conversation": [messages, newest first]}``; a message ``{"sender",
"created_at"}`` (ISO 8601 with its offset, microseconds) and one or more of ``text``,
``media`` (a path in the download, or ``Media unavailable.``), ``media_url``,
``media_owner`` / ``media_share_caption`` / ``media_share_url`` (a shared post),
``story_share`` (a shared story's owner), ``link``, ``profile_share_username`` /
``profile_share_name``, ``animated_media_images`` (a GIF), ``voice_media``, ``heart``,
``action`` (a group event), ``video_call_action``, ``mentioned_username``, and
``likes`` (``[{"username", "date"}]``), as the readers and anonymisers of those downloads
found with the code search list them.

Decisions: one thread at a time (the list streamed, each thread read whole), its
messages oldest first; speaker = ``sender``; listeners = the other of two participants;
thread = the participants' usernames, as the file lists them;
text = ``text``, then a chunk for each shared thing (``[shared post by seedclub]
URL`` and its caption, ``[story] owner``, ``[link] URL``, ``[profile] username (name)``,
``[media] path``, ``[gif]``, ``[voice] path``, ``[mention] @name``); ``heart`` is its
emoji; an ``action`` or a video call's is the text, tagged ``system``; likes go to
``extra.reactions`` (``{"actor", "reaction": "❤", "timestamp"}``, as Meta's later
downloads). A thread or a message of another shape is rejected with its place; a message
with nothing to read is counted in one warning.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

NAME = "instagram-legacy"
# (key, label): what a message shares, each a chunk ``[label] value``
_SHARED = (
    ("story_share", "story"),
    ("link", "link"),
    ("media", "media"),
    ("media_url", "media"),
    ("voice_media", "voice"),
)


def sniff(source: Source) -> int:
    head = json_head(source)
    if not head.startswith("[") or not has_key(head, "conversation"):
        return 0
    keys = has_key(head, "participants") + has_key(head, "sender") + has_key(head, "created_at")
    return 90 if keys == 3 else 0


def _chunks(m: dict[str, Any]) -> list[str]:
    """The text and a chunk for each thing the message shares."""
    chunks = [as_str(m.get("text"))] if as_str(m.get("text")).strip() else []
    if as_str(m.get("heart")):
        chunks.append(as_str(m["heart"]))
    if as_str(m.get("media_share_url")) or as_str(m.get("media_owner")):
        owner = as_str(m.get("media_owner"))
        label = f"[shared post by {owner}]" if owner else "[shared post]"
        chunks.append(f"{label} {as_str(m.get('media_share_url'))}".rstrip())
        if as_str(m.get("media_share_caption")).strip():
            chunks.append(as_str(m["media_share_caption"]))
    for key, label in _SHARED:
        value = as_str(m.get(key))
        if value and value not in as_str(m.get("text")):  # a link the text holds: once
            chunks.append(f"[{label}] {value}")
    if as_str(m.get("profile_share_username")):
        name = as_str(m.get("profile_share_name"))
        who = as_str(m["profile_share_username"]) + (f" ({name})" if name else "")
        chunks.append(f"[profile] {who}")
    if m.get("animated_media_images"):
        chunks.append("[gif]")
    if as_str(m.get("mentioned_username")):
        chunks.append(f"[mention] @{as_str(m['mentioned_username'])}")
    return chunks


def _record(
    m: dict[str, Any], loc: str, people: list[str], thread: str, ctx: ImportContext
) -> ConversationMessage | None:
    event = as_str(m.get("action")) or as_str(m.get("video_call_action"))
    chunks = _chunks(m) + ([event] if event else [])
    if not chunks:
        return None
    speaker = as_str(m.get("sender")) or None
    ts = iso_ts(m.get("created_at"))
    if ts is None:
        ctx.warn(loc, "no readable created_at; time left unknown")
    likes = [
        {"actor": as_str(x.get("username")), "reaction": "❤", "timestamp": x.get("date")}
        for x in map(as_dict, as_list(m.get("likes")))
    ]
    system = bool(event) and len(chunks) == 1
    return message(
        chunks,
        speaker=speaker,
        listeners=[] if system else other_party(people, speaker),
        timestamp=ts,
        source_id=loc,
        format="instagram",
        thread=thread,
        tags=[SYSTEM_TAG] if system else [],
        extra={"reactions": likes or None, "media_owner": as_str(m.get("media_owner")) or None},
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ())
    doc.head()
    empty = EmptyCounter()
    for t, (raw, line) in enumerate(doc.items(), 1):
        where = ctx.loc(line) if line else ctx.loc(f"thread-{t}")
        thread = as_dict(raw)
        msgs = thread.get("conversation")
        if not isinstance(msgs, list):
            ctx.reject(where, "not an Instagram thread (no conversation list)", raw)
            continue
        people = [as_str(p) for p in as_list(thread.get("participants")) if as_str(p)]
        name = ", ".join(people) or "instagram"
        for k in range(len(msgs), 0, -1):  # newest first in the file: read oldest first
            loc = f"{where}#msg-{k}"
            m = msgs[k - 1]
            if not isinstance(m, dict):
                ctx.reject(loc, "not an Instagram message (not an object)", m)
            elif (rec := _record(m, loc, people, name, ctx)) is None:
                empty.skip(loc)
            else:
                yield rec
    empty.report(ctx)


DESCRIPTION = "Instagram DMs from the data download before 2020 (messages.json)"
EXAMPLE = (
    '[{"participants": ["ann.lee", "bo"], "conversation": [{"sender": "bo", '
    '"created_at": "2019-06-01T10:05:00.123456+00:00", "text": "see you"}]}]'
)
FIELDS = Fields(
    speaker="`sender` (a username)",
    listeners="the other of two participants",
    time="`created_at` (newest first in the file; read oldest first)",
    zone="the offset it writes (`+00:00`)",
    thread="the thread's `participants`, joined",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread",
    tags="`system` for a group event or a video call alone",
    extra="`reactions` (its `likes`), `media_owner` (a shared post's)",
)
FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("messages.json", "*.json"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
