"""Mastodon REST API statuses (``mastodon-api``): a list of statuses
(``/api/v1/accounts/:id/statuses``, a timeline, ``/api/v1/favourites``...), a thread
(``/api/v1/statuses/:id/context``: ``ancestors`` and ``descendants``), the direct
conversations (``/api/v1/conversations``: ``[{id, unread, accounts, last_status}]``,
each read as its ``last_status``, the only status it holds), and the file of
kensanata/mastodon-archive (``<instance>.user.<name>.json``: ``account``, ``statuses``,
``favourites``, ``bookmarks``, ``mentions`` (notifications holding a ``status``); times
written by Python's ``isoformat``).

Shape (Mastodon's ``REST::StatusSerializer``): ``{id, uri, url, created_at,
in_reply_to_id, in_reply_to_account_id, spoiler_text, visibility, language, content
(HTML), account: {id, username, acct, display_name, url}, mentions: [{acct}],
tags: [{name}], media_attachments: [{type, url, description}], poll: {options:
[{title, votes_count}], multiple, voters_count, expires_at}, reblog (a boost: the
status boosted), replies_count, reblogs_count, favourites_count}``.

Decisions (the records are those ``mastodon`` reads from an archive's ``outbox.json``):
- speaker = the account's ``display_name``, else its ``username``; listeners = the
  mentioned accounts as ``@acct``.
- text = ``content`` as text (mention and hashtag links as their text), media as
  ``[image] URL`` chunks, a poll as ``[poll] option (votes), ...``; ``spoiler_text``
  (the content warning) is the subject, hashtags are tags. A boost reads ``[boost] URL``
  (tag ``boost``); a favourite, bookmark or mention of the archive tool's file is tagged
  ``favourite``, ``bookmark``, ``mention``.
- id = ``mastodon:<uri>`` (the status's ActivityPub id, as ``outbox.json`` names it);
  replyTo the status ``in_reply_to_id`` names when it is in the file (the API names it
  by its instance-local id), else left out and kept as ``extra.in_reply_to_id``; thread
  the first status of the reply chain in the file (the file is read whole), else
  ``<instance>:<in_reply_to_id>``.

Ids and their scope (docs/ids.md): the status URI names its instance:
``mastodon:<uri>``, no further scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, sniff_json
from convo.importers.registry import Format

NAME = "mastodon-api"
FMT = "mastodon"
_MENTION = re.compile(
    r'<a\b[^>]*class="[^"]*\b(?:mention|hashtag)\b[^"]*"[^>]*>((?:[^<]++|<(?!/?a\b))*+)</a>'
)
# The archive tool's lists besides the account's own statuses, and their tags.
_LISTS = (("statuses", ""), ("favourites", "favourite"), ("bookmarks", "bookmark"),
          ("mentions", "mention"), ("ancestors", ""), ("descendants", ""))  # fmt: skip
_MEDIA = {"image": "image", "gifv": "video", "video": "video", "audio": "audio"}


_SNIFF = (
    (
        88,
        tuple(re.compile(p) for p in (r'"acct"\s*:', r'"in_reply_to_id"\s*:', r'"visibility"\s*:')),
    ),
)


def sniff(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def _statuses(doc: Any) -> Iterator[tuple[str, Any]]:
    """(tag, status) for every status of a list, a context or the archive tool's file."""
    if isinstance(doc, list):
        for item in doc:
            conversation = as_dict(item)  # /api/v1/conversations: a direct conversation
            if "last_status" in conversation and "accounts" in conversation:
                yield "", conversation["last_status"]
            else:
                yield "", item
        return
    obj = as_dict(doc)
    if any(isinstance(obj.get(key), list) for key, _ in _LISTS):
        for key, tag in _LISTS:
            for item in as_list(obj.get(key)):
                status = as_dict(item).get("status") if key == "mentions" else item
                if key != "mentions" or as_dict(item).get("type") in ("mention", None):
                    yield tag, status
        return
    yield "", doc


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = load_json(source)
    rows = list(enumerate(_statuses(doc), 1))
    objs = [as_dict(status) for _, (_, status) in rows]
    serving = _serving(doc, objs)
    # The ids are the serving instance's (a remote status too): one numbering a file.
    local = {as_str(o.get("id")): as_str(o.get("uri")) for o in objs if as_str(o.get("uri"))}
    parent: dict[str, str] = {}  # uri -> the uri (or instance:id) it replies to
    for o in objs:
        up = as_str(o.get("in_reply_to_id"))
        if as_str(o.get("uri")) and up:
            parent[as_str(o["uri"])] = local.get(up) or f"{serving}:{up}"
    for (k, (tag, status)), obj in zip(rows, objs, strict=True):
        where = ctx.loc(f"status-{k}")
        if not as_str(obj.get("uri")) or not isinstance(obj.get("account"), dict):
            ctx.reject(where, "not a Mastodon status (no uri or account)", status)
            continue
        yield _status(obj, where, tag, parent)


def _serving(doc: Any, objs: list[dict[str, Any]]) -> str:
    """The instance that served the file (whose local ids ``id`` and ``in_reply_to_id``
    are): the archive tool's ``account``'s, else a local account's (``acct`` without a
    domain) status's."""
    account = as_dict(as_dict(doc).get("account")) if isinstance(doc, dict) else {}
    url = as_str(account.get("url"))
    if not url:
        own = (o for o in objs if "@" not in as_str(as_dict(o.get("account")).get("acct")))
        url = next((as_str(o.get("uri")) for o in own if as_str(o.get("uri"))), "")
    return urlsplit(url).netloc


def _root(uri: str, parent: dict[str, str]) -> str:
    seen = {uri}
    while uri in parent and parent[uri] not in seen:
        uri = parent[uri]
        seen.add(uri)
    return uri


def _speaker(account: dict[str, Any]) -> str | None:
    return as_str(account.get("display_name")) or as_str(account.get("username")) or None


def _poll_line(poll: dict[str, Any]) -> str:
    options = [as_dict(o) for o in as_list(poll.get("options"))]
    votes = (
        f"{as_str(o.get('title'))} ({o['votes_count']})"
        if isinstance(o.get("votes_count"), int)
        else as_str(o.get("title"))
        for o in options
    )
    return "[poll] " + ", ".join(votes)


def _chunks(obj: dict[str, Any]) -> list[str]:
    chunks = [html_to_text(_MENTION.sub(r"\1", as_str(obj.get("content"))))]
    poll = as_dict(obj.get("poll"))
    chunks += [_poll_line(poll)] if as_list(poll.get("options")) else []
    for medium in map(as_dict, as_list(obj.get("media_attachments"))):
        kind = _MEDIA.get(as_str(medium.get("type")))
        url = as_str(medium.get("url")) or as_str(medium.get("remote_url"))
        chunks.append(f"[{kind}] {url}" if kind else f"[file {url}]")
    return chunks


def _tags(obj: dict[str, Any], tag: str) -> list[str]:
    tags = [as_str(as_dict(t).get("name")) for t in as_list(obj.get("tags"))]
    tags += [tag] if tag else []
    tags += ["boost"] if obj.get("reblog") else []
    return [t for t in tags if t]


def _extra(obj: dict[str, Any], boosted: str) -> dict[str, Any]:
    return {
        "url": as_str(obj.get("url")) or None,
        "acct": as_str(as_dict(obj["account"]).get("acct")) or None,
        "visibility": as_str(obj.get("visibility")) or None,
        "language": as_str(obj.get("language")) or None,
        "in_reply_to_id": as_str(obj.get("in_reply_to_id")) or None,
        "boosted": boosted or None,
        "media": as_list(obj.get("media_attachments")),
        "poll": obj.get("poll") or None,
        "favourites_count": obj.get("favourites_count"),
    }


def _status(
    obj: dict[str, Any], where: str, tag: str, parent: dict[str, str]
) -> ConversationMessage:
    uri = as_str(obj["uri"])
    boosted = as_dict(obj.get("reblog"))
    target = as_str(boosted.get("url")) or as_str(boosted.get("uri"))
    up = parent.get(uri, "")
    mentions = [as_str(as_dict(m).get("acct")) for m in as_list(obj.get("mentions"))]
    return message(
        [f"[boost] {target}"] if boosted else _chunks(obj),
        speaker=_speaker(obj["account"]),
        listeners=[f"@{a}" for a in mentions if a],
        timestamp=iso_ts(obj.get("created_at")),
        id=f"{FMT}:{uri}",
        source_id=where,
        format=FMT,
        thread=_root(uri, parent),
        reply_to=f"{FMT}:{up}" if up.startswith("http") else None,
        subject=as_str(obj.get("spoiler_text")) or None,
        tags=_tags(obj, tag),
        extra=_extra(obj, target),
    )


DESCRIPTION = (
    "Mastodon API statuses (a list, a thread's context, or mastodon-archive's "
    "<instance>.user.<name>.json)"
)
EXAMPLE = (
    '[{"id": "111", "uri": "https://tide.example/users/ann/statuses/111", "created_at": '
    '"2023-04-01T12:00:00.000Z", "in_reply_to_id": null, "visibility": "public", "content": '
    '"<p>Low tide</p>", "account": {"acct": "ann", "display_name": "Ann"}, "mentions": []}]'
)
FIELDS = Fields(
    speaker="the account's `display_name` (else `username`)",
    listeners="the mentioned accounts (`@acct`)",
    time="`created_at`",
    zone="the offset the source writes (UTC `Z`, mastodon-archive's `+00:00`)",
    thread="the first status of the reply chain in the file, else `<instance>:<in_reply_to_id>`",
    id="`mastodon:<uri>` (the status's ActivityPub id, as `outbox.json` names it)",
    scope="the instance, in the URI",
    reply_to="the status `in_reply_to_id` names, when in the file",
    subject="the content warning (`spoiler_text`)",
    tags="the hashtags; `boost`; `favourite`, `bookmark`, `mention` (mastodon-archive's lists)",
    extra="`url`, `acct`, `visibility`, `language`, `in_reply_to_id`, `boosted`, `media`, "
    "`poll`, `favourites_count`",
)

FORMATS = (Format(NAME, "forum", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
