"""Discourse: a topic (``/t/{id}.json``), its posts (``/t/{id}/posts.json``: the same
``post_stream.posts``), the latest posts across topics (``/posts.json``:
``latest_posts``, each post naming its ``topic_id``/``topic_title``), a search's answer
(``/search.json``: ``posts`` of several topics, each with a ``blurb`` excerpt instead of
``cooked``, the topics' titles in ``topics``; a scraper's ``{"posts": [...]}`` of whole
posts too) and topic listings (``/latest.json``, private-message lists:
``topic_list.topics``).

A post's text is ``raw`` when it is a string (the author's markdown), else ``cooked`` HTML
as readable text (an uploaded image's lightbox caption, its file name and size, left out;
a mention link as ``@name``; a link's onebox preview as the URL it previews).
``reply_to_post_number`` points at a post number of the same topic; a post that names
none answers the topic, so it replies to post 1 when that post is in the file. A reply
without mentions speaks to the author it answers (``reply_to_user``, else the author of
the post it replies to when that is in the file), as Reddit and Hacker News replies do. A listing has no post bodies: each topic becomes one message whose text is its
title (and excerpt), speaker the original poster, listeners the other participants.

Memory grows with the file: a Discourse response is one document read whole (a page
of the API), and the map of post numbers to ids (a reply's target) has one short entry
per post of it, a fraction of the parsed document.

Ids and their scope (docs/ids.md): post and topic ids are numbered per Discourse
instance, so an id names its instance: ``discourse:<host>:post:<id>``, threads
``discourse:<host>:<topic id>``, listed topics ``discourse:<host>:topic:<id>``. The
host is the one Discourse writes into uploaded avatars (``avatar_template``
``/user_avatar/<host>/...``) of the file's posts or users; when none has one, the folder
the file sits in; from standard input with neither, no scope (``discourse:post:<id>``,
with a warning).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from convo.core.errors import InputError, RecordError
from convo.core.io import Source, load_json
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.importers.build import scoped_id, source_scope
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.forums.common import Tally, as_int, as_str, message
from convo.importers.jsoninput import sniff_json
from convo.importers.registry import Format

FMT = "discourse"
_Ids = Callable[[str], str]  # a local id → its scoped id (build.scoped_id with the host)
_AVATAR_HOST = re.compile(r"^/user_avatar/([^/]+)/")


def instance(people: list, source: Source, ctx: ImportContext) -> _Ids:
    """The ids of the instance ``people`` (posts or users) come from (module docstring)."""
    host = None
    for person in people if isinstance(people, list) else []:
        template = as_str(person.get("avatar_template")) if isinstance(person, dict) else None
        m = _AVATAR_HOST.match(template or "")
        if m:
            host = m.group(1)
            break
    scope = source_scope(source, ctx, host, what="instance", example="discourse:post:<id>")
    return partial(scoped_id, FMT, scope)


def _tags(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, list):
        for tag in value:
            name = as_str(tag) or (as_str(tag.get("name")) if isinstance(tag, dict) else None)
            if name:
                out.append(name)
    return out


# The caption Discourse draws over an uploaded image (``<div class="lightbox-wrapper">``):
# its file name and ``829×327 12.9 KB``, no words of the post (the image reads ``[alt]``).
# (The caption holds no <div>: the scan stops at the next one, linear on hostile input.)
_LIGHTBOX_META = re.compile(r'<div class="meta">(?:[^<]++|<(?!/?div\b))*+</div>')


# A mention (``<a class="mention" href="/u/sam">@sam</a>``, a group's ``mention-group``)
# and a tag or category link (``hashtag-cooked``) read as their text, not "@sam (/u/sam)".
_MENTION = re.compile(
    r'<a\b[^>]*\bclass="(?:mention|mention-group|hashtag-cooked)\b[^"]*"[^>]*>'
    r"((?:[^<]++|<(?!/?a\b))*+)</a>"
)
# A link's preview (``<aside class="onebox ..." data-onebox-src="URL">``: the page's
# title, description and image, none of the post's words) reads as the URL it previews.
_ONEBOX = re.compile(
    r'<aside\b[^>]*\bclass="onebox\b[^"]*"[^>]*>(?:[^<]++|<(?!/?aside\b))*+</aside>'
)
_ONEBOX_SRC = re.compile(r'data-onebox-src="([^"]*)"|\bhref="([^"]*)"')


def _onebox(m: re.Match[str]) -> str:
    src = _ONEBOX_SRC.search(m[0])
    return f"<p>{(src[1] or src[2]) if src else ''}</p>"


# A poll (``<div class="poll" data-poll-name="poll">``: its options an ``<li
# data-poll-option-id>`` each, then a ``poll-info`` of voters and buttons).
_DIV = re.compile(r"<(/?)div\b[^>]*+>", re.I)
_POLL = re.compile(r'<div\b[^>]*\bclass="poll\b[^"]*"[^>]*+>', re.I)
_POLL_NAME = re.compile(r'data-poll-name="([^"]*)"')
_POLL_OPTION = re.compile(r"<li\b[^>]*\bdata-poll-option-id[^>]*>((?:[^<]++|<(?!/li\b))*+)</li>")


def _div_end(html: str, start: int) -> int:
    """Where the ``<div>`` opened just before ``start`` closes (the text's end if never)."""
    depth = 1
    for m in _DIV.finditer(html, start):
        depth += -1 if m[1] else 1
        if depth == 0:
            return m.end()
    return len(html)


def _poll_votes(polls: Any) -> dict[str, dict[str, Any]]:
    """The post's ``polls`` (name -> option text -> votes), when the topic JSON has them."""
    out: dict[str, dict[str, Any]] = {}
    for poll in polls if isinstance(polls, list) else []:
        if isinstance(poll, dict):
            options = [o for o in poll.get("options") or [] if isinstance(o, dict)]
            out[as_str(poll.get("name")) or "poll"] = {
                html_to_text(as_str(o.get("html")) or ""): o.get("votes") for o in options
            }
    return out


def _polls(cooked: str, polls: Any) -> str:
    """The cooked HTML with each poll as one ``[poll] option (votes), ...`` line (the
    votes from the post's ``polls`` when given) instead of its list and voter counts."""
    votes = _poll_votes(polls)
    out, pos = [], 0
    for m in _POLL.finditer(cooked):
        if m.start() < pos:
            continue  # inside a poll already replaced
        end = _div_end(cooked, m.end())
        block = cooked[m.start() : end]
        name = _POLL_NAME.search(m[0])
        counts = votes.get(name[1] if name else "poll", {})
        options = [html_to_text(o) for o in _POLL_OPTION.findall(block)]
        said = [f"{o} ({counts[o]})" if isinstance(counts.get(o), int) else o for o in options]
        out += [cooked[pos : m.start()], f"<p>[poll] {html.escape(', '.join(said))}</p>"]
        pos = end
    return "".join(out) + cooked[pos:] if out else cooked


def cooked_text(cooked: str, polls: Any = None) -> str:
    """A post's ``cooked`` HTML as text: mentions as ``@name``, a link's preview as its
    URL, an uploaded image's lightbox caption (its file name and size) left out, a poll
    as one ``[poll]`` line."""
    cooked = _MENTION.sub(r"\1", _ONEBOX.sub(_onebox, _LIGHTBOX_META.sub("", cooked)))
    return html_to_text(_polls(cooked, polls) if "poll" in cooked else cooked)


def _text(post: dict) -> str:
    raw = post.get("raw")
    if isinstance(raw, str) and raw.strip():
        return raw
    cooked = post.get("cooked")
    text = cooked_text(cooked, post.get("polls")) if isinstance(cooked, str) else ""
    if not text and isinstance(post.get("action_code"), str):
        return f"[{post['action_code']}]"
    if not text and isinstance(post.get("blurb"), str):  # a search hit: its excerpt
        return html_to_text(post["blurb"]) if "<" in post["blurb"] else post["blurb"].strip()
    return text


def _likes(post: dict) -> int | None:
    actions = post.get("actions_summary")
    for action in actions if isinstance(actions, list) else []:
        if isinstance(action, dict) and action.get("id") == 2:
            return as_int(action.get("count"))
    return None


def _posts(doc: dict, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    stream = doc["post_stream"]
    posts = stream.get("posts") if isinstance(stream, dict) else None
    if not isinstance(posts, list):
        raise InputError("post_stream has no posts array", where=source.name)
    yield from _post_list(posts, doc, source, ctx)
    listed = stream.get("stream") if isinstance(stream, dict) else None
    if isinstance(listed, list) and len(listed) > len(posts):
        ctx.warn(
            source.name,
            f"{counted(len(listed) - len(posts), 'post')} of the topic's stream "
            f"{plural(len(listed) - len(posts), 'is', 'are')} not in this file "
            "(fetch them with /t/ID/posts.json?post_ids[]=...)",
        )


def _latest(doc: dict, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """``/posts.json``: the latest posts across topics, each naming its topic."""
    posts = doc["latest_posts"]
    if not isinstance(posts, list):
        raise InputError("latest_posts is not an array", where=source.name)
    yield from _post_list(posts, {}, source, ctx)


def _post_list(
    posts: list, doc: dict, source: Source, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    tally = Tally(ctx)
    ids = instance(posts, source, ctx)
    title = as_str(doc.get("title")) if "title" in doc else None
    tags = _tags(doc.get("tags"))
    numbers: dict[tuple[str | None, int], str] = {}
    authors: dict[str, str] = {}  # post id -> its author, for a reply's listener
    for post in posts:
        if isinstance(post, dict) and as_int(post.get("id")) is not None:
            number = as_int(post.get("post_number"))
            if number is not None:
                topic = as_str(post.get("topic_id")) or as_str(doc.get("id"))
                numbers[(topic, number)] = ids(f"post:{as_int(post['id'])}")
                author = as_str(post.get("username"))
                if author:
                    authors[numbers[(topic, number)]] = author
    unresolved = 0
    for i, post in enumerate(posts, 1):
        where = ctx.loc(f"post-{i}")
        try:
            msg, missing = _post(post, doc, where, tally, numbers, (title, tags, ids))
        except RecordError as e:
            ctx.reject_error(e, post)
            continue
        unresolved += missing
        yield _heard(msg, post, authors)
    if unresolved:
        ctx.warn(
            source.name,
            f"{counted(unresolved, 'reply target')} not in this file (replyTo left out)",
        )
    tally.finish()


def _post(
    post: Any,
    doc: dict,
    where: str,
    tally: Tally,
    numbers: dict[tuple[str | None, int], str],
    topic_facts: tuple[str | None, list[str], _Ids],
) -> tuple[ConversationMessage, int]:
    """A post as a message; ``topic_facts`` = the topic's title, tags and ids."""
    title, tags, ids = topic_facts
    if not isinstance(post, dict):
        raise RecordError("a post is not an object", where=where)
    ident = as_int(post.get("id"))
    if ident is None:
        raise RecordError("post without an id", where=where, hint="is this a Discourse post?")
    topic = as_str(post.get("topic_id")) or as_str(doc.get("id"))
    number = as_int(post.get("post_number"))
    reply_to, missing = _reply_to(post, topic, number, numbers)
    return (
        message(
            FMT,
            _text(post),
            tally.speaker(post.get("username")),
            timestamp=tally.iso(post.get("created_at")),
            source_id=where,
            id=ids(f"post:{ident}"),
            thread=ids(topic) if topic else None,
            reply_to=reply_to,
            subject=(title or as_str(post.get("topic_title"))) if number == 1 else None,
            tags=tags,
            extra=_post_extra(post, number, missing),
        ),
        int(missing),
    )


def _heard(msg: ConversationMessage, post: dict, authors: dict[str, str]) -> ConversationMessage:
    """A reply without mentions speaks to the author it answers: ``reply_to_user``, else
    the author of the post it replies to when that is in the file."""
    replied = post.get("reply_to_user")
    heard = as_str(replied.get("username")) if isinstance(replied, dict) else None
    heard = heard or (authors.get(msg.reply_to) if msg.reply_to else None)
    small_action = isinstance(post.get("action_code"), str)  # "closed", "pinned": no one
    if not msg.metadata.recipients and heard and heard != msg.metadata.speaker and not small_action:
        msg.metadata.recipients = [heard]
    return msg


def _reply_to(
    post: dict, topic: str | None, number: int | None, numbers: dict[tuple[str | None, int], str]
) -> tuple[str | None, bool]:
    """The id the post answers, and whether the post it names is missing from the file."""
    target = as_int(post.get("reply_to_post_number"))
    if target is not None:
        reply_to = numbers.get((topic, target))
        return reply_to, reply_to is None
    if number is not None and number > 1:
        # Naming no post means answering the topic, i.e. its first post.
        return numbers.get((topic, 1)), False
    return None, False


def _post_extra(post: dict, number: int | None, missing: bool) -> dict[str, Any]:
    deleted = bool(post.get("deleted_at") or post.get("user_deleted"))
    name = as_str(post.get("name"))
    return {
        "post_number": number,
        "name": name if name != post.get("username") else None,
        "score": post.get("score"),
        "likes": _likes(post) or None,
        "accepted_answer": True if post.get("accepted_answer") is True else None,
        # Kept only when replyTo could not be resolved, so the link is not lost.
        "reply_to_post_number": as_int(post.get("reply_to_post_number")) if missing else None,
        "post_type": as_int(post.get("post_type"))
        if post.get("post_type") not in (1, None)
        else None,
        "deleted": True if deleted else None,
        "topic_slug": post.get("topic_slug"),
        "topic_title": post.get("topic_title") if number != 1 else None,
        "excerpt": True
        if not post.get("cooked") and not post.get("raw") and post.get("blurb")
        else None,
    }


def _search(doc: dict, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """``/search.json`` (and a list of posts saved as ``{"posts": [...]}``): posts of
    several topics, a search hit's text its ``blurb`` (an excerpt), its topic's title
    from the answer's ``topics`` (older answers: ``topic_title_headline``)."""
    titles = {
        as_int(t.get("id")): as_str(t.get("title"))
        for t in doc.get("topics") or []
        if isinstance(t, dict) and as_int(t.get("id")) is not None
    }
    posts = []
    for post in doc["posts"]:
        if isinstance(post, dict) and "topic_title" not in post:
            title = titles.get(as_int(post.get("topic_id"))) or post.get("topic_title_headline")
            post = {**post, "topic_title": title} if title else post
        posts.append(post)
    yield from _post_list(posts, {}, source, ctx)


def _listing(doc: dict, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    topics = doc["topic_list"].get("topics") if isinstance(doc["topic_list"], dict) else None
    if not isinstance(topics, list):
        raise InputError("topic_list has no topics array", where=source.name)
    users: dict[int, str] = {}
    given = doc.get("users")
    listed: list[Any] = given if isinstance(given, list) else []
    for user in listed:
        if isinstance(user, dict) and as_int(user.get("id")) is not None:
            name = as_str(user.get("username"))
            if name:
                users[as_int(user["id"])] = name  # type: ignore[index]
    tally = Tally(ctx)
    ids = instance(listed, source, ctx)
    for i, topic in enumerate(topics, 1):
        where = ctx.loc(f"topic-{i}")
        if not isinstance(topic, dict) or as_int(topic.get("id")) is None:
            ctx.reject(where, "a topic without an id", topic)
            continue
        yield _topic(topic, where, users, tally, ids)
    if topics:
        ctx.warn(
            source.name,
            f"topic listing: {counted(len(topics), 'topic')} imported as "
            f"{plural(len(topics), 'one message', 'one message each')} "
            "(title only; fetch /t/ID.json for the posts)",
        )
    tally.finish()


def _people(entries: Any, users: dict[int, str]) -> list[tuple[str, str]]:
    out = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            name = users.get(as_int(entry.get("user_id")) or 0)
            if name:
                out.append((name, as_str(entry.get("description")) or ""))
    return out


def _topic(
    topic: dict, where: str, users: dict[int, str], tally: Tally, ids: _Ids
) -> ConversationMessage:
    ident = as_int(topic["id"])
    posters = _people(topic.get("posters"), users)
    op = next((n for n, d in posters if "Original Poster" in d), None)
    if op is None:
        op = as_str(topic.get("last_poster_username")) if len(posters) <= 1 else None
    others = [n for n, _ in [*posters, *_people(topic.get("participants"), users)] if n != op]
    title = as_str(topic.get("title")) or ""
    excerpt = as_str(topic.get("excerpt"))
    msg = message(
        FMT,
        f"{title}\n\n{html_to_text(excerpt)}" if excerpt else title,
        tally.speaker(op),
        timestamp=tally.iso(topic.get("created_at")),
        source_id=where,
        id=ids(f"topic:{ident}"),
        thread=ids(str(ident)),
        subject=title,
        tags=_tags(topic.get("tags")),
        extra={
            "listing": True,
            "archetype": topic.get("archetype"),
            "posts_count": topic.get("posts_count"),
            "reply_count": topic.get("reply_count"),
            "views": topic.get("views"),
            "like_count": topic.get("like_count") or None,
            "last_posted_at": topic.get("last_posted_at"),
            "slug": topic.get("slug"),
        },
    )
    msg.metadata.recipients = list(dict.fromkeys([*msg.metadata.recipients, *others]))
    return msg


_DISCOURSE_POSTS = re.compile(r'"post_stream"\s*:\s*\{')
_DISCOURSE_POST_KEYS = re.compile(r'"(?:post_number|cooked|topic_id)"\s*:')
_DISCOURSE_LATEST = re.compile(r'"latest_posts"\s*:\s*\[')
_DISCOURSE_SEARCH = re.compile(r'^\s*\{\s*"posts"\s*:\s*\[')
_DISCOURSE_SEARCH_KEYS = re.compile(r'"(?:topic_id|blurb|avatar_template)"\s*:')
_DISCOURSE_LIST = re.compile(r'"topic_list"\s*:\s*\{')
_DISCOURSE_LIST_KEYS = re.compile(r'"(?:topics|posters|highest_post_number|bumped_at)"\s*:')


_SNIFF = (
    (95, (_DISCOURSE_POSTS, _DISCOURSE_POST_KEYS)),  # a topic or its posts
    (95, (_DISCOURSE_LATEST, _DISCOURSE_POST_KEYS)),  # /posts.json
    (90, (_DISCOURSE_LIST, _DISCOURSE_LIST_KEYS)),  # a topic listing
    (85, (_DISCOURSE_SEARCH, _DISCOURSE_POST_KEYS, _DISCOURSE_SEARCH_KEYS)),  # /search.json
)


def sniff_discourse(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = load_json(source)
    if isinstance(doc, dict) and "post_stream" in doc:
        yield from _posts(doc, source, ctx)
    elif isinstance(doc, dict) and "latest_posts" in doc:
        yield from _latest(doc, source, ctx)
    elif isinstance(doc, dict) and "topic_list" in doc:
        yield from _listing(doc, source, ctx)
    elif isinstance(doc, dict) and isinstance(doc.get("posts"), list):
        yield from _search(doc, source, ctx)
    else:
        raise InputError(
            "not a Discourse topic, posts or topic list (no post_stream, latest_posts or topic_list)",
            where=source.name,
            hint="export /t/ID.json, /t/ID/posts.json, /posts.json or a topic list",
        )


DESCRIPTION = (
    "Discourse topic JSON (/t/ID.json), posts (/t/ID/posts.json, /posts.json), search "
    "answers (/search.json) or topic lists"
)
EXAMPLE = '{"post_stream": {"posts": [{"id": 83, "post_number": 1, "cooked": "<p>Hi</p>"}]}}'
FIELDS = Fields(
    speaker="`username` (a listed topic: the original poster)",
    listeners="the `@` mentions, else the author replied to (`reply_to_user`, else the "
    "author of the post it replies to in the file); a listed topic: the other participants",
    time="`created_at`",
    zone=NAIVE_IN_TZ + "; Discourse writes UTC (`Z`)",
    thread="`discourse:<host>:<topic>`",
    id="`discourse:<host>:post:<id>`; a listed topic `discourse:<host>:topic:<id>`",
    scope="the instance: the host in the `avatar_template`s (`/user_avatar/<host>/...`), "
    "else the folder",
    reply_to="the post `reply_to_post_number` names, else post 1",
    subject="the topic's title, on post 1",
    tags="the topic's tags",
    extra="`post_number`, `name` (the display name), `score`, `likes`, `accepted_answer`, "
    "`post_type`, `topic_slug`, `topic_title`, `deleted`, `listing`, `excerpt` (a search "
    "hit's text is its excerpt)",
)

FORMATS = (
    Format(
        "discourse",
        "forum",
        DESCRIPTION,
        ("*.json",),
        sniff_discourse,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
