"""Bluesky (AT Protocol) posts as the AppView API answers them (``bluesky``): a feed
(``app.bsky.feed.getAuthorFeed``, ``getTimeline``, ``getFeed``: ``{"feed": [{"post",
"reply", "reason"}], "cursor"}``), posts (``getPosts``, ``searchPosts``: ``{"posts":
[...]}``), a thread (``getPostThread``: ``{"thread": {"post", "parent", "replies"}}``),
bookmarks (``{"bookmarks": [{"item": ...}]}``), a list of post views, and a repository's
post records (``com.atproto.repo.listRecords``: ``{"records": [{"uri", "value"}]}``).

Shape (the ``app.bsky.feed.defs#postView`` lexicon): ``{uri (at://DID/app.bsky.feed.post/
KEY), cid, author: {did, handle, displayName}, record: {text, createdAt, langs, reply:
{root: {uri}, parent: {uri}}, facets: [{index: {byteStart, byteEnd}, features:
[{$type: ...#mention, did} | {...#link, uri} | {...#tag, tag}]}], embed}, embed (the
view: images with ``fullsize`` and ``alt``, an external card, a quoted record, a video's
``playlist``), replyCount, repostCount, likeCount, indexedAt}``. A post the thread
cannot show is ``#notFoundPost`` / ``#blockedPost`` (no record).

Decisions:
- speaker = the author's ``displayName``, else its ``handle`` (a listed record: the
  repository's DID, or the name its posts have elsewhere in the file); listeners = the
  mentioned accounts (the name their posts speak under in the file, else ``@handle`` as
  the text writes it), else the author of the post replied to when the file holds it.
- text = ``text`` with each link facet's shortened text replaced by its full URI (the
  app shortens long links); images ``[image] URL`` (alt texts in ``extra.media``), a
  video ``[video] URL``, a link card's URL when the text does not hold it; a quoted post
  is ``extra.quote``. Tag facets and ``tags`` are tags.
- id = ``bluesky:<at-uri>`` (AT URIs name their repository: unique everywhere); replyTo
  ``bluesky:<reply.parent.uri>``; thread ``bluesky:<reply.root.uri>``, else the post.
- time = ``record.createdAt`` (else ``indexedAt``). A feed item's parent and root
  views are read too (once each), as is a thread's every post; a repost's item is the
  post reposted (``extra.reposted_by``). Posts that cannot be shown are counted in one
  warning.

Ids and their scope (docs/ids.md): ``bluesky:<at-uri>``, no further scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source, load_json
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, sniff_json
from convo.importers.registry import Format

NAME = "bluesky"
_FACET = "app.bsky.richtext.facet#"
_SNIFF = (
    (90, (re.compile(r'"at://did:[a-z]+:'), re.compile(r'"app\.bsky\.feed\.'))),
    (
        88,
        (
            re.compile(r'"at://did:[a-z]+:[^"]*/app\.bsky\.feed\.post/'),
            re.compile(r'"(?:record|value)"\s*:\s*\{'),
        ),
    ),
)


def sniff(source: Source) -> int:
    return sniff_json(source, _SNIFF)


_LISTS = ("feed", "posts", "bookmarks", "records")


def _views(doc: Any) -> Iterator[dict[str, Any]]:
    """Every post view of an answer, parents before their replies."""
    if isinstance(doc, list):
        for item in doc:
            yield from _views(item)
        return
    obj = as_dict(doc)
    if any(key in obj for key in _LISTS):
        for key in _LISTS:
            for item in as_list(obj.get(key)):
                yield from _views(item)
    elif isinstance(obj.get("thread"), dict):
        yield from _thread(obj["thread"])
    elif isinstance(obj.get("post"), dict):
        yield from _feed_item(obj)
    elif isinstance(obj.get("item"), dict):  # a bookmark
        yield obj["item"]
    elif isinstance(obj.get("value"), dict):  # a listed record
        yield {"uri": obj.get("uri"), "record": obj["value"]}
    else:
        yield obj


def _feed_item(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A feed item's root and parent views (the reply's context), then its post."""
    reply = as_dict(obj.get("reply"))
    for key in ("root", "parent"):
        if isinstance(reply.get(key), dict):
            yield reply[key]
    by = as_dict(as_dict(obj.get("reason")).get("by"))
    post = obj["post"]
    yield {**post, "_reposted_by": as_str(by.get("handle"))} if by else post


def _thread(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A thread view: its parents (the chain up, oldest first), the post, its replies."""
    chain: list[dict[str, Any]] = []
    up = as_dict(node.get("parent"))
    while up and len(chain) < 10_000:
        chain.append(up)
        up = as_dict(up.get("parent"))
    for parent in reversed(chain):
        yield as_dict(parent.get("post")) or parent
    stack = [node]
    while stack:
        current = stack.pop()
        yield as_dict(current.get("post")) or current
        stack.extend(reversed([as_dict(r) for r in as_list(current.get("replies"))]))


def _did(uri: str) -> str:
    return uri.removeprefix("at://").split("/", 1)[0]


def _span(facet: dict[str, Any], size: int) -> tuple[int, int]:
    """A facet's byte range, or (0, 0) when it names none inside the text."""
    index = as_dict(facet.get("index"))
    start, end = index.get("byteStart"), index.get("byteEnd")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= size:
        return start, end
    return 0, 0


def _text(record: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """The text with shortened links made whole, each mention as its DID then its text
    (pairs, flat), the tags."""
    raw = as_str(record.get("text")).encode("utf-8")
    cuts: list[tuple[int, int, str]] = []
    mentions: list[str] = []
    tags = [t for t in as_list(record.get("tags")) if isinstance(t, str)]
    for facet in map(as_dict, as_list(record.get("facets"))):
        start, end = _span(facet, len(raw))
        for feature in map(as_dict, as_list(facet.get("features")) if end else []):
            kind = as_str(feature.get("$type")).removeprefix(_FACET)
            if kind == "link" and as_str(feature.get("uri")):
                cuts.append((start, end, as_str(feature["uri"])))
            elif kind == "mention":
                said = raw[start:end].decode("utf-8", "replace")
                mentions += [as_str(feature.get("did")) or said, said]
            elif kind == "tag" and as_str(feature.get("tag")):
                tags.append(as_str(feature["tag"]))
    for start, end, uri in sorted(cuts, reverse=True):
        if not _overlaps(start, end, cuts):
            raw = raw[:start] + uri.encode("utf-8") + raw[end:]
    return raw.decode("utf-8", "replace"), mentions, tags


def _overlaps(start: int, end: int, cuts: list[tuple[int, int, str]]) -> bool:
    return any(s < end and start < e and (s, e) != (start, end) for s, e, _ in cuts)


def _embed(view: dict[str, Any], text: str) -> tuple[list[str], dict[str, Any]]:
    """The chunks and the extra of a post's embed view (images, video, card, quote)."""
    embed = as_dict(view.get("embed"))
    media = as_dict(embed.get("media")) or embed  # recordWithMedia holds media beside it
    chunks: list[str] = []
    for image in map(as_dict, as_list(media.get("images"))):
        chunks.append(f"[image] {as_str(image.get('fullsize')) or as_str(image.get('thumb'))}")
    if as_str(media.get("playlist")):
        chunks.append(f"[video] {as_str(media['playlist'])}")
    external = as_str(as_dict(media.get("external")).get("uri"))
    if external and external not in text:
        chunks.append(external)
    quoted = as_dict(as_dict(embed.get("record")).get("record")) or as_dict(embed.get("record"))
    extra = {
        "media": as_list(media.get("images")) or None,
        "quote": as_str(quoted.get("uri")) or None,
    }
    return chunks, extra


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    views = list(_views(load_json(source)))
    names = {  # DID -> the name its posts speak under, for mentions and replies
        as_str(as_dict(v.get("author")).get("did")): _name(as_dict(v.get("author")))
        for v in views
        if as_str(as_dict(v.get("author")).get("did"))
    }
    authors = {as_str(v.get("uri")): _did(as_str(v.get("uri"))) for v in views}
    seen: set[str] = set()
    hidden = 0
    for k, view in enumerate(views, 1):
        uri = as_str(view.get("uri"))
        if uri in seen:
            continue
        if not uri or not isinstance(view.get("record"), dict):
            hidden += 1  # notFoundPost, blockedPost, a post the view leaves out
            continue
        seen.add(uri)
        yield _post(view, ctx.loc(f"post-{k}"), authors, names)
    if hidden:
        ctx.warn(
            source.name, f"{counted(hidden, 'post')} the answer does not show (not found, blocked)"
        )


def _name(author: dict[str, Any]) -> str:
    return as_str(author.get("displayName")).strip() or as_str(author.get("handle"))


def _post(
    view: dict[str, Any], where: str, authors: dict[str, str], names: dict[str, str]
) -> ConversationMessage:
    uri = as_str(view["uri"])
    record: dict[str, Any] = view["record"]
    author = as_dict(view.get("author"))
    speaker = _name(author) or names.get(_did(uri)) or _did(uri)
    text, pairs, tags = _text(record)
    # a mention: the name the DID's posts speak under here, else the text (``@handle``)
    mentions = [names.get(pairs[i]) or pairs[i + 1] for i in range(0, len(pairs), 2)]
    chunks, extra = _embed(view, text)
    reply = as_dict(record.get("reply"))
    parent = as_str(as_dict(reply.get("parent")).get("uri"))
    root = as_str(as_dict(reply.get("root")).get("uri"))
    replied = names.get(authors.get(parent, ""))
    heard = mentions or ([replied] if replied else [])
    return message(
        [text, *chunks] if chunks else text,
        speaker=speaker,
        listeners=[h for h in heard if h and h != speaker],
        timestamp=iso_ts(record.get("createdAt")) or iso_ts(view.get("indexedAt")),
        id=f"{NAME}:{uri}",
        source_id=where,
        format=NAME,
        thread=f"{NAME}:{root or uri}",
        reply_to=f"{NAME}:{parent}" if parent else None,
        tags=list(dict.fromkeys(tags)),
        extra={**_counts(view, author, record), **extra},
    )


def _counts(view: dict[str, Any], author: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    return {
        "handle": as_str(author.get("handle")) or None,
        "langs": as_list(record.get("langs")) or None,
        "likes": view.get("likeCount") or None,
        "reposts": view.get("repostCount") or None,
        "reposted_by": as_str(view.get("_reposted_by")) or None,
    }


DESCRIPTION = (
    "Bluesky posts as the API answers them: feeds, getPosts, searchPosts, getPostThread, "
    "bookmarks, listRecords"
)
EXAMPLE = (
    '{"feed": [{"post": {"uri": "at://did:plc:ann/app.bsky.feed.post/3k2a", "author": '
    '{"handle": "ann.bsky.social"}, "record": {"$type": "app.bsky.feed.post", "text": "hi", '
    '"createdAt": "2024-03-01T10:00:00.000Z"}}}]}'
)
FIELDS = Fields(
    speaker="the author's `displayName`, else its `handle` (a listed record: the DID)",
    listeners="the mentioned accounts (their speaker name in the file, else `@handle`), else "
    "the author of the post replied to when in the file",
    time="`record.createdAt` (else `indexedAt`)",
    zone="the offset the source writes (UTC `Z`)",
    thread="`bluesky:<reply.root.uri>`, else the post",
    id="`bluesky:<at-uri>`",
    scope="none: an AT URI names its repository",
    reply_to="`bluesky:<reply.parent.uri>`",
    tags="tag facets and the record's `tags`",
    extra="`handle`, `langs`, `likes`, `reposts`, `reposted_by`, `media` (images and alt "
    "texts), `quote` (the quoted post's URI)",
)

FORMATS = (Format(NAME, "forum", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
