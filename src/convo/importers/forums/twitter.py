"""X/Twitter archive posts: ``data/tweets.js`` (``tweets-part1.js``...; ``tweet.js`` in
archives of 2019-2020), ``deleted-tweets.js`` and ``community-tweet.js`` (``twitter``).

Shape (the archive's own ``README.txt``; readers of real archives such as
timhutton/twitter-archive-parser ``parser.py``; found with the code search): a
JavaScript file ``window.YTD.tweets.part0 = [ ... ]`` whose items are ``{"tweet": {...}}``
(the tweet itself, without the wrapper, in ``tweet.js``): ``id_str``, ``full_text``,
``created_at`` (``Wed Oct 12 09:30:00 +0000 2022``), ``in_reply_to_status_id_str``,
``in_reply_to_screen_name`` (missing on some old replies), ``entities``
(``user_mentions[].screen_name``, ``urls[]`` with ``url`` (t.co) and ``expanded_url``,
``hashtags[].text``, ``media[]``), ``extended_entities.media[]`` (every photo, video and
GIF: ``type``, ``url`` (the one t.co link of them all), ``media_url_https``,
``video_info.variants``), ``favorite_count``, ``retweet_count`` (strings), ``lang``,
``source``, ``edit_info`` (an edit names its ``initialTweetId``), ``deleted_at`` (in
``deleted-tweets.js``). The author is not in the tweets: it is the archive's owner
(``account.js`` beside the file). Items are newest first.

Decisions:
- speaker = the owner's ``username`` from ``account.js`` beside the file, else none (one
  warning); listeners = ``in_reply_to_screen_name``, then the mentioned screen names
  (not the owner: a reply to oneself speaks to no one).
- text = ``full_text`` with ``&amp;``, ``&lt;`` and ``&gt;`` unescaped (the archive
  escapes those three, as in ``direct-messages.js``), each t.co link replaced by its
  ``expanded_url``, the media link left out and each medium a chunk: ``[image] URL``,
  ``[video] URL`` (its best mp4), as ``mastodon`` writes them. Hashtags are ``tags``,
  with ``retweet`` on a retweet (``RT @name:``) and ``deleted`` on a deleted tweet.
- id = ``twitter:<id_str>`` (the ids ``twitter-dm`` gives: Twitter's ids are unique
  everywhere); replyTo = ``twitter:<in_reply_to_status_id_str>``; thread = the first
  tweet of the reply chain in the file, else the tweet the chain answers (not in the
  archive), else the tweet itself: the file is read whole, so a chain links up whatever
  its order; an edited version is in its first version's thread (``edit_of``); records
  oldest first.
- ``favorite_count``, ``retweet_count``, ``lang``, ``source`` (the client's name),
  ``edit_of`` (an edit's first version), ``deleted_at`` and the media in ``extra``.
- A long post (a "note tweet") is cut in ``tweets.js`` (its text ends ``…`` and a link):
  its whole text is in ``note-tweet.js`` beside the file, linked to the tweet by its time
  alone (``createdAt``, to the second); the tweet reads the note of its second whose text
  starts as its own does (one note of that second: that one), ``note_tweet_id`` in
  ``extra``.
- The file is read whole (at most 512 MiB): the JSON after the ``= `` assignment.

Ids and their scope (docs/ids.md): Twitter's ids are unique everywhere
(``twitter:<id>``, no scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.twitter_dms import archive_owner, expanded, load_ytd
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_digits, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "twitter"
_DATA = re.compile(r"window\.YTD\.(?:tweets?|deleted_tweets|community_tweet)\.part\d+\s*=")
_TAG = re.compile(r"<[^>]*>")


def sniff(source: Source) -> int:
    return 95 if _DATA.match(json_head(source)) else 0


def _tweet(item: Any) -> dict[str, Any] | None:
    """The tweet of an item (``{"tweet": {...}}``, or the tweet itself in ``tweet.js``)."""
    obj = as_dict(item)
    inner = obj.get("tweet")
    tweet = inner if isinstance(inner, dict) else obj
    return tweet if as_str(tweet.get("id_str")) or as_str(tweet.get("id")) else None


def _ident(tweet: dict[str, Any]) -> str:
    return as_str(tweet.get("id_str")) or as_str(tweet.get("id"))


def _edit_of(tweet: dict[str, Any]) -> str:
    """An edited version's first version (``edit_info.edit.initialTweetId``), or ''."""
    first = as_str(as_dict(as_dict(tweet.get("edit_info")).get("edit")).get("initialTweetId"))
    return first if first != _ident(tweet) else ""


def _parent(tweet: dict[str, Any]) -> str:
    return as_str(tweet.get("in_reply_to_status_id_str")) or as_str(
        tweet.get("in_reply_to_status_id")
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    _, value = load_ytd(source)
    owner = archive_owner(source)[1]
    if not owner:
        ctx.warn(source.name, "no account.js beside the file: the tweets' author is unknown")
    rows: list[tuple[str, int, dict[str, Any], str]] = []
    for k, item in enumerate(as_list(value), 1):
        loc = ctx.loc(f"tweet-{k}")
        tweet = _tweet(item)
        if tweet is None:
            ctx.reject(loc, "not a tweet (no id_str)", item)
            continue
        rows.append((iso_ts(tweet.get("created_at")) or "", k, tweet, loc))
    parents = {_ident(t): _parent(t) for _, _, t, _ in rows}
    notes = _notes(source)
    roots: dict[str, str] = {}
    for when, _, tweet, loc in sorted(rows, key=lambda r: (r[0], -r[1])):
        root = _root(_edit_of(tweet) or _ident(tweet), parents, roots)
        yield _message(tweet, loc, owner, root, (when, notes.get(when)))


_START = 60  # the characters (spaces squeezed) a truncated tweet and its note share


@dataclass
class _Notes:
    """The long posts of one second: (note id, text) and their starts, spaces squeezed
    (each squeezed once; a tweet finds its note by its start, not by a scan of them all:
    4,000 long posts of one second took 8 s, quadratic)."""

    posts: list[tuple[str, str]] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)
    first: dict[str, int] = field(default_factory=dict)  # a whole start -> its first post

    def add(self, ident: str, text: str) -> None:
        start = " ".join(text.split())[:_START]
        self.first.setdefault(start, len(self.posts))
        self.posts.append((ident, text))
        self.starts.append(start)

    def find(self, start: str, only: bool = True) -> tuple[str, str] | None:
        """The post whose text starts with ``start``; else, with ``only``, the only one
        of the second."""
        if len(start) == _START:
            at = self.first.get(start)
        else:  # a short start: a prefix of some
            at = next((i for i, s in enumerate(self.starts) if s.startswith(start)), None)
        if at is not None:
            return self.posts[at]
        return self.posts[0] if only and len(self.posts) == 1 else None


def _notes(source: Source) -> dict[str, _Notes]:
    """The long posts of ``note-tweet.js`` beside the file, by their time (``{"noteTweet":
    {"noteTweetId", "createdAt", "core": {"text", "urls"}}}``; the archive links a note
    to its tweet by nothing but the time)."""
    if source.path is None or source.is_stdin:
        return {}
    path = source.path.parent / "note-tweet.js"
    if not path.is_file() or path == source.path:
        return {}
    try:
        _, value = load_ytd(Source(path))
    except InputError:
        return {}
    out: dict[str, _Notes] = {}
    for item in as_list(value):
        note = as_dict(as_dict(item).get("noteTweet"))
        core = as_dict(note.get("core"))
        text = expanded(as_str(core.get("text")), core.get("urls"), "expandedUrl")
        when = iso_ts(note.get("createdAt"))
        if when and text:
            out.setdefault(when, _Notes()).add(as_str(note.get("noteTweetId")), text)
    return out


_TRUNCATED = re.compile(r"(?s)(.*?)\u2026(\s+https?://\S+)?\s*$")


def _note_for(text: str, notes: _Notes | None) -> tuple[str, str] | None:
    """The note a truncated tweet (its text cut with ``…``, then the note's link) was
    posted as: the one of its second whose text starts as the tweet's does."""
    if notes is None:
        return None
    m = _TRUNCATED.fullmatch(text)
    if m is None or text.startswith("RT @"):  # a retweet is cut, not a note
        return None
    # the only long post of its second, when no start matches: only if the note's link
    # follows the cut
    return notes.find(" ".join(m[1].split())[:_START], only=m[2] is not None)


def _root(ident: str, parents: dict[str, str], roots: dict[str, str]) -> str:
    """The first tweet of a reply chain: up the parents while they are in the file; the
    last parent named (not in the archive) when the chain answers another's tweet.
    ``roots`` keeps every tweet's root found, so a long chain is walked once (each tweet
    walking up alone: 20,000 tweets in one chain took a minute)."""
    path: list[str] = []
    seen: set[str] = set()
    while ident not in roots:
        parent = parents.get(ident)
        if not parent or ident in seen:  # the first tweet, or a loop (a damaged file)
            roots[ident] = ident
            break
        seen.add(ident)
        path.append(ident)
        ident = parent
    root = roots[ident]
    for walked in path:
        roots[walked] = root
    return root


def _media(tweet: dict[str, Any]) -> list[dict[str, Any]]:
    extended = as_list(as_dict(tweet.get("extended_entities")).get("media"))
    return [as_dict(m) for m in extended or as_list(as_dict(tweet.get("entities")).get("media"))]


def _media_chunk(medium: dict[str, Any]) -> str:
    kind = as_str(medium.get("type"))
    if kind in ("video", "animated_gif"):
        variants = [as_dict(v) for v in as_list(as_dict(medium.get("video_info")).get("variants"))]
        mp4 = [v for v in variants if as_str(v.get("content_type")) == "video/mp4"]
        best = max(mp4, key=lambda v: as_digits(v.get("bitrate")) or 0, default={})
        url = as_str(best.get("url")) or as_str(medium.get("media_url_https"))
        return f"[video] {url}"
    return f"[image] {as_str(medium.get('media_url_https')) or as_str(medium.get('media_url'))}"


def _text(tweet: dict[str, Any], media: list[dict[str, Any]]) -> str:
    urls = as_dict(tweet.get("entities")).get("urls")
    links = [url for m in media if (url := as_str(m.get("url")))]  # the media's one link
    text = as_str(tweet.get("full_text") or tweet.get("text"))
    return expanded(text, urls, "expanded_url", links).strip()


def _listeners(tweet: dict[str, Any], owner: str) -> list[str]:
    """The account replied to, then the mentioned ones, without the owner."""
    mentions = as_list(as_dict(tweet.get("entities")).get("user_mentions"))
    heard = [as_str(tweet.get("in_reply_to_screen_name"))]
    heard += [as_str(as_dict(m).get("screen_name")) for m in mentions]
    return list(dict.fromkeys(h for h in heard if h and h != owner))


def _tags(tweet: dict[str, Any], text: str) -> list[str]:
    hashtags = as_list(as_dict(tweet.get("entities")).get("hashtags"))
    tags = [as_str(as_dict(h).get("text")) for h in hashtags]
    tags += ["retweet"] if text.startswith("RT @") else []
    tags += ["deleted"] if tweet.get("deleted_at") else []
    return [t for t in tags if t]


def _message(
    tweet: dict[str, Any],
    loc: str,
    owner: str,
    root: str,
    posted: tuple[str, _Notes | None],
) -> ConversationMessage:
    """A tweet's record; ``posted``: its time (read once: ``created_at`` takes dateutil)
    and the long posts of that second."""
    when, notes = posted
    ident, parent = _ident(tweet), _parent(tweet)
    media = _media(tweet)
    text = _text(tweet, media)
    note = _note_for(text, notes)
    text = note[1] if note else text
    deleted = tweet.get("deleted_at")
    return message(
        [text, *(_media_chunk(m) for m in media)] if media else text,
        speaker=owner or None,
        listeners=_listeners(tweet, owner),
        timestamp=when or None,
        id=f"twitter:{ident}",
        source_id=loc,
        format=NAME,
        thread=f"twitter:{root}",
        reply_to=f"twitter:{parent}" if parent else None,
        tags=_tags(tweet, text),
        extra={
            "favorite_count": as_digits(tweet.get("favorite_count")),
            "retweet_count": as_digits(tweet.get("retweet_count")),
            "lang": as_str(tweet.get("lang")) or None,
            "source": _TAG.sub("", as_str(tweet.get("source"))) or None,
            "edit_of": _edit_of(tweet) or None,
            "deleted_at": iso_ts(deleted) or as_str(deleted) or None,
            "media": media,
            "note_tweet_id": note[0] if note else None,
        },
    )


DESCRIPTION = "X/Twitter archive posts (tweets.js, tweet.js, deleted-tweets.js)"
EXAMPLE = (
    'window.YTD.tweets.part0 = [{"tweet": {"id_str": "9", "full_text": "@bob hi", '
    '"created_at": "Wed Oct 12 09:30:00 +0000 2022", "in_reply_to_screen_name": "bob", '
    '"in_reply_to_status_id_str": "8", "entities": {"user_mentions": [{"screen_name": "bob"}]}}}]'
)
FIELDS = Fields(
    speaker="the archive owner's `username` (from `account.js` beside the file)",
    listeners="`in_reply_to_screen_name`, then the mentioned screen names (not the owner)",
    time="`created_at`",
    zone="the offset the source writes (`+0000`)",
    thread="the first tweet of the reply chain in the file, else the tweet it answers",
    id="`twitter:<id_str>`",
    scope="none: Twitter's ids are unique everywhere",
    reply_to="`twitter:<in_reply_to_status_id_str>`",
    tags="the hashtags; `retweet`, `deleted`",
    extra="`favorite_count`, `retweet_count`, `lang`, `source`, `edit_of`, `deleted_at`, "
    "`media`, `note_tweet_id` (a long post's whole text is from `note-tweet.js`)",
)

FORMATS = (
    Format(
        NAME,
        "forum",
        DESCRIPTION,
        ("tweets*.js", "tweet.js", "deleted-tweets*.js", "community-tweet*.js"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
