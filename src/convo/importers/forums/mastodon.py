"""Mastodon archive ``outbox.json`` (Preferences → Import and export → Request your archive).

Shape (mastodon/mastodon ``app/services/backup_service.rb`` writes ``outbox.json``,
``actor.json``, ``likes.json``, ``bookmarks.json`` and ``media_attachments/``; the items
are ActivityPub activities serialised by ``app/serializers/activitypub/
activity_serializer.rb`` and ``note_serializer.rb``): an ``OrderedCollection`` with
``orderedItems``; a ``Create`` activity holds a ``Note`` object ``{id, type, summary
(content warning), inReplyTo, published, url, attributedTo, to, cc, sensitive,
conversation, content (HTML), contentMap, attachment: [{type: Document, mediaType, url,
name (alt text)}], tag: [{type: Mention, href, name: "@bob@host"}, {type: Hashtag,
name: "#cats"}]}``; an ``Announce`` (boost) has the boosted status's URL as ``object``.

Decisions:
- speaker = the account's display ``name`` from ``actor.json`` beside the file (else its
  ``preferredUsername``, else the username in the actor URL); listeners = the mentioned
  accounts (``@bob@host``).
- text = the HTML ``content`` as text (mention and hashtag links as their text); attachments ``[image] URL`` / ``[video] URL`` /
  ``[file URL]`` chunks (alt texts in ``extra.attachments``). A content warning
  (``summary``) is the ``subject``. Hashtags are ``tags`` (without ``#``).
- A poll (a ``Question`` object: ``oneOf``, or ``anyOf`` for several choices, each
  option a ``Note`` whose ``replies.totalItems`` are its votes) adds the chunk
  ``[poll] option (votes), ...``; options, voters and end time in ``extra.poll``. A quote
  post's quoted status (``quote``, ``quoteUri``, ``_misskey_quote``) is ``extra.quote``
  (its text keeps Mastodon's ``RE: URL`` line).
- A boost becomes ``[boost] URL`` with the tag ``boost``; other activity types
  (``Delete``...) are rejected with their location.
- timestamp = ``published``; id = ``mastodon:<object id>`` (the status URL);
  replyTo = ``mastodon:<inReplyTo>``; thread = the object's ``conversation`` (else the
  root of the reply chain when it is in the archive, else the status itself).
- visibility in ``extra.visibility`` (public, unlisted, followers, direct) from
  ``to``/``cc``; ``url``, ``sensitive``, ``language`` kept.
- The archive's ``actor.json``, ``likes.json`` and ``bookmarks.json`` are recognised and
  hold no messages (the likes and bookmarks are status URLs, no text): beside
  ``outbox.json`` nothing is said, alone one warning.
- ``orderedItems`` is streamed one activity at a time; the map of each status to the
  root of its reply chain is a ``convo.core.spillmap.SpillMap`` (older keys in a
  temporary table), so memory is flat with the archive.

Ids and their scope (docs/ids.md): the status URL names its instance:
``mastodon:<URL>``, no further scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import (
    StreamedDoc,
    as_dict,
    as_list,
    as_str,
    has_key,
    json_head_with,
)
from convo.importers.registry import Format

NAME = "mastodon"
# Mention and hashtag links read as their text (``@bob``, ``#garden``), not "text (URL)".
_MENTION = re.compile(
    r'<a\b[^>]*class="[^"]*\b(?:mention|hashtag)\b[^"]*"[^>]*>(.*?)</a>', re.S | re.I
)
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
# A quote post's quoted status (Mastodon 4.4+: ``quote``; FEP-e232 ``quoteUri``; Misskey).
_QUOTE_KEYS = ("quote", "quoteUri", "_misskey_quote")


# The archive's other files: its actor (``"outbox": "outbox.json"``), the statuses it
# liked and bookmarked (``likes.json``, ``bookmarks.json``: status URLs, no text).
_ACTOR = re.compile(r'"outbox"\s*:\s*"outbox\.json"')
_URL_LISTS = re.compile(r'"id"\s*:\s*"(likes|bookmarks)\.json"')


def sniff(source: Source) -> int:
    text = json_head_with(source, opens="{")
    if "activitystreams" not in text:
        return 0
    if has_key(text, "orderedItems") and ('"Create"' in text or '"Announce"' in text):
        return 90
    if _ACTOR.search(text) or (_URL_LISTS.search(text) and has_key(text, "orderedItems")):
        return 85
    return 0


def _companion(source: Source, ctx: ImportContext) -> bool:
    """Whether the source is the archive's ``actor.json``, ``likes.json`` or
    ``bookmarks.json`` (no messages): said once, unless ``outbox.json`` is beside it."""
    text = json_head_with(source, opens="{")
    lists = _URL_LISTS.search(text)
    if not lists and not _ACTOR.search(text):
        return False
    beside = source.path is not None and (source.path.parent / "outbox.json").is_file()
    if not beside:
        what = f"the URLs of the statuses in its {lists[1]}" if lists else "the account"
        ctx.warn(
            source.name,
            f"a Mastodon archive's {lists[1] + '.json' if lists else 'actor.json'} holds no "
            f"messages ({what}): the messages are in outbox.json",
        )
    return True


def _actor_name(source: Source) -> str | None:
    """The display name from ``actor.json`` beside the outbox, when there is one."""
    if source.path is None or source.is_stdin:
        return None
    path = source.path.parent / "actor.json"
    if not path.is_file():
        return None
    try:
        actor = as_dict(load_json(Source(path)))
    except InputError:
        return None
    return as_str(actor.get("name")) or as_str(actor.get("preferredUsername")) or None


def _username(actor_url: str) -> str:
    return actor_url.rstrip("/").rsplit("/", 1)[-1] if actor_url else ""


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if _companion(source, ctx):
        return
    doc = StreamedDoc(source, ("orderedItems",))
    doc.expect("not a Mastodon outbox.json (no orderedItems)")
    owner = _actor_name(source)
    roots: SpillMap[str, str] = SpillMap()  # status -> the root of its reply chain
    try:
        for k, (item, line) in enumerate(doc.items(), 1):
            where = ctx.loc(line)
            act = as_dict(item)
            kind = as_str(act.get("type"))
            if kind == "Create" and isinstance(act.get("object"), dict):
                yield _note(act, act["object"], where, owner, roots)
            elif kind == "Announce" and as_str(act.get("object")):
                yield _boost(act, where, owner)
            else:
                ctx.reject(where, f"not a status (activity {kind or '?'} #{k})", item)
    finally:
        roots.close()


def _visibility(obj: dict[str, Any]) -> str:
    to, cc = as_list(obj.get("to")), as_list(obj.get("cc"))
    if PUBLIC in to:
        return "public"
    if PUBLIC in cc:
        return "unlisted"
    if any(as_str(x).endswith("/followers") for x in to):
        return "followers"
    return "direct"


def _tag_names(tags: list[Any], kind: str) -> list[str]:
    names = [as_str(t.get("name")) for t in map(as_dict, tags) if t.get("type") == kind]
    return [n.lstrip("#") for n in names if n]


def _media_chunk(att: dict[str, Any]) -> str:
    kind = as_str(att.get("mediaType")).split("/")[0]
    url = as_str(att.get("url"))
    return f"[{kind}] {url}" if kind in ("image", "video", "audio") else f"[file {url}]"


def _poll(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A poll (a ``Question``): its options (``oneOf``, ``anyOf`` when several may be
    chosen) with their votes (``replies.totalItems``), voters and end time."""
    multiple = "anyOf" in obj
    options = [as_dict(o) for o in as_list(obj.get("anyOf" if multiple else "oneOf"))]
    if not options:
        return None
    return {
        "options": [
            {"option": as_str(o.get("name")), "votes": as_dict(o.get("replies")).get("totalItems")}
            for o in options
        ],
        "multiple": multiple,
        "voters": obj.get("votersCount"),
        "end": as_str(obj.get("endTime")) or None,
    }


def _poll_line(poll: dict[str, Any]) -> str:
    votes = (
        f"{o['option']} ({o['votes']})" if isinstance(o["votes"], int) else o["option"]
        for o in poll["options"]
    )
    return "[poll] " + ", ".join(votes)


def _thread_of(obj: dict[str, Any], roots: SpillMap[str, str]) -> str:
    oid, parent = as_str(obj.get("id")), as_str(obj.get("inReplyTo"))
    root = roots.get(parent) or parent or oid
    roots.set(oid, root)
    return as_str(obj.get("conversation")) or root


def _note(
    act: dict[str, Any],
    obj: dict[str, Any],
    where: str,
    owner: str | None,
    roots: SpillMap[str, str],
) -> ConversationMessage:
    oid = as_str(obj.get("id"))
    parent = as_str(obj.get("inReplyTo"))
    tags = as_list(obj.get("tag"))
    attachments = [as_dict(a) for a in as_list(obj.get("attachment"))]
    chunks = [html_to_text(_MENTION.sub(r"\1", as_str(obj.get("content"))))]
    poll = _poll(obj)
    chunks += [_poll_line(poll)] if poll else []
    chunks += [_media_chunk(a) for a in attachments]
    quote = next((as_str(obj.get(k)) for k in _QUOTE_KEYS if as_str(obj.get(k))), None)
    actor = as_str(act.get("actor")) or as_str(obj.get("attributedTo"))
    return message(
        chunks,
        speaker=owner or _username(actor) or None,
        listeners=_tag_names(tags, "Mention"),
        timestamp=iso_ts(obj.get("published")) or iso_ts(act.get("published")),
        id=f"{NAME}:{oid}" if oid else None,
        source_id=where,
        format=NAME,
        thread=_thread_of(obj, roots) or None,
        reply_to=f"{NAME}:{parent}" if parent else None,
        subject=as_str(obj.get("summary")) or None,
        tags=_tag_names(tags, "Hashtag"),
        extra={
            "url": as_str(obj.get("url")),
            "actor": actor,
            "visibility": _visibility(obj),
            "sensitive": obj.get("sensitive") or None,
            "language": next(iter(as_dict(obj.get("contentMap"))), None),
            "attachments": attachments,
            "poll": poll,
            "quote": quote,
        },
    )


def _boost(act: dict[str, Any], where: str, owner: str | None) -> ConversationMessage:
    target = as_str(act.get("object"))
    actor = as_str(act.get("actor"))
    aid = as_str(act.get("id"))
    return message(
        f"[boost] {target}",
        speaker=owner or _username(actor) or None,
        timestamp=iso_ts(act.get("published")),
        id=f"{NAME}:{aid}" if aid else None,
        source_id=where,
        format=NAME,
        thread=target,
        tags=["boost"],
        extra={"boosted": target, "actor": actor, "visibility": _visibility(act)},
    )


DESCRIPTION = "Mastodon archive outbox.json (ActivityPub Create/Announce activities)"
EXAMPLE = (
    '{"@context": "https://www.w3.org/ns/activitystreams", "type": "OrderedCollection", '
    '"orderedItems": [{"type": "Create", "object": {"type": "Note", "content": "<p>Hi</p>"}}]}'
)
FIELDS = Fields(
    speaker="the account's display `name` from `actor.json` beside the file (else "
    "`preferredUsername`, else the username in the actor URL)",
    listeners="the mentioned accounts (`@bob@host`)",
    time="`published`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the status's `conversation` (else the root of the reply chain, else the status)",
    id="`mastodon:<url>` (the status URL)",
    scope="the instance, in the URL",
    reply_to="`mastodon:<inReplyTo>`",
    subject="the content warning (`summary`)",
    tags="the hashtags (without `#`); `boost` on boosts",
    extra="`url`, `actor`, `visibility`, `sensitive`, `language`, `attachments`, `poll`, "
    "`quote` (the status quoted), `boosted` (a boost's status)",
)

FORMATS = (
    Format(
        NAME,
        "forum",
        DESCRIPTION,
        ("outbox.json", "actor.json", "likes.json", "bookmarks.json"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
