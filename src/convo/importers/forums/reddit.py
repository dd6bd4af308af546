"""Reddit: a thread's ``.json`` (two Listings: the t3 post, then t1 comments with nested
``replies``) and Pushshift-style dumps (one comment or submission object a line).

Comments are walked depth-first with an explicit stack (no recursion limit), so each reply
follows its parent. A comment's parent is the Thing that holds it in the tree, else its
``parent_id``. Things without an id get the content-hash id the pipeline would give them,
computed here so replies can point at it.

Checked against Reddit's own ``.json`` (docs/formats.md, "Checked against the
exporters"): Reddit escapes ``&``, ``<`` and ``>`` as entities in ``title`` as in
``selftext`` and ``body`` (unless the URL asks ``raw_json=1``), so titles are unescaped
too. A comment with no mention in its text speaks to the author of the post or comment
it replies to (its ``parent_id``), when that one came earlier in the same file: a thread
file, a file of Things a line, or a Pushshift dump of plain objects (its ``RS_``
submissions and ``RC_`` comments are sorted by time, so a parent comes first; a parent
later in the file, or in another file, is not known: no listener); a comment of a
user's comments page (``/user/NAME/comments.json``: no post in the file) answering the
post speaks to its ``link_author``, and keeps the post's ``link_title``. The map is a
``convo.core.spillmap.SpillMap``: past 262,144 messages the older ones go to a
temporary SQLite table, so memory stays flat with the input. A ``more`` stub with
``id`` ``_`` and no children is Reddit's "continue this thread" link: the replies below
it are on another page.

An inbox (``/message/inbox.json``, ``sent.json``, ``messages.json``) holds private
messages, ``t4`` Things: from ``author`` to ``dest``, thread the conversation's first
message (``first_message_name``, else the message itself), replyTo the ``parent_id``;
the ids ``reddit-export`` gives the same messages. An inbox's comment replies name no
``link_id``: the post is the one their ``context`` link names, and ``dest`` (the
account they answered) is their listener. An ``/api/morechildren`` answer
(``{"json": {"data": {"things": [...]}}}``) is read as its Things; Pushshift objects
saved as a JSON array, or as the Pushshift and Arctic Shift APIs answer them
(``{"data": [...]}``), as the lines of a dump. Reddit escapes
``&``, ``<`` and ``>`` in a link post's ``url`` too: unescaped.

Ids and their scope (docs/ids.md): Reddit fullnames are unique everywhere
(``reddit:t1_...``, no scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError, RecordError
from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.text.html import html_to_text
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import (
    DELETED_AUTHORS,
    Tally,
    as_int,
    as_str,
    json_values,
    message,
    unescape,
)
from convo.importers.jsoninput import sniff_json
from convo.importers.registry import Format

FMT = "reddit"


def _fullname(data: dict, prefix: str) -> str | None:
    name = as_str(data.get("name"))
    if name and name.startswith(("t1_", "t3_", "t4_")):
        return name
    ident = as_str(data.get("id"))
    return f"{prefix}{ident}" if ident else None


def _ref(fullname: Any) -> str | None:
    name = as_str(fullname)
    return f"reddit:{name}" if name and name.startswith(("t1_", "t3_", "t4_")) else None


_POST_URL = re.compile(r"/comments/([0-9a-z]+)")


def _post_of(data: dict) -> str | None:
    """The post a comment belongs to: its ``link_id``, else the post its ``permalink`` or
    ``context`` (an inbox reply's link) names, else its parent when that is the post."""
    ref = _ref(data.get("link_id"))
    if ref:
        return ref
    for key in ("permalink", "context"):
        m = _POST_URL.search(as_str(data.get(key)) or "")
        if m:
            return f"reddit:t3_{m[1]}"
    parent = _ref(data.get("parent_id"))
    return parent if parent and parent.startswith("reddit:t3_") else None


def _body(data: dict) -> str:
    """The markdown ``body`` (entities unescaped), else the escaped ``body_html`` as text."""
    body = data.get("body")
    if isinstance(body, str):
        return unescape(body)
    body_html = data.get("body_html")
    if isinstance(body_html, str):
        return html_to_text(unescape(body_html))
    return ""


def _extra(data: dict, keys: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in keys:
        value = data.get(key)
        if value is not None and value is not False and value != "":
            out[key] = value
    flair = data.get("link_flair_text") or data.get("author_flair_text")
    if isinstance(flair, str) and flair:
        out["flair"] = flair
    return out


_POST_KEYS = ("score", "subreddit", "permalink", "num_comments", "distinguished", "stickied")
_COMMENT_KEYS = ("score", "subreddit", "permalink", "distinguished", "stickied", "is_submitter",
                 "link_title")  # fmt: skip


# Things still to visit: (thing, id of the message it replies to, location).
_Stack = list[tuple[Any, str | None, str]]


def _roots(value: Any, where: str) -> _Stack:
    """The top-level Things as the first stack entries (last first, so file order is kept)."""
    roots = value if isinstance(value, list) else [value]
    return [
        (root, None, f"{where}#listing-{i}" if len(roots) > 1 else where)
        for i, root in reversed(list(enumerate(roots, 1)))
    ]


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext):
        self.source = source
        self.ctx = ctx
        self.tally = Tally(ctx)
        self.n = 0
        # message id -> author, for a reply's listener (Things only, see above)
        self.author_of: SpillMap[str, str] = SpillMap()

    def _loc(self, fullname: str | None) -> str:
        self.n += 1
        return self.ctx.loc(fullname or f"thing-{self.n}")

    def post(self, data: dict) -> ConversationMessage:
        fullname = _fullname(data, "t3_")
        title = unescape(as_str(data.get("title")) or "")
        text = unescape(as_str(data.get("selftext")) or "")
        url = unescape(as_str(data.get("url")) or "") or None
        if not text:
            is_self = data.get("is_self") is True
            text = f"{title}\n{url}" if url and not is_self and title else (title or url or "")
        extra = _extra(data, _POST_KEYS)
        if url and data.get("is_self") is not True:
            extra["url"] = url
        msg = self._message(data, fullname, text, subject=title, extra=extra)
        msg.thread = self.tally.ensure_id(msg)
        return msg

    def comment(self, data: dict, parent: str | None, thread: str | None) -> ConversationMessage:
        fullname = _fullname(data, "t1_")
        thread = _post_of(data) or thread
        msg = self._message(
            data,
            fullname,
            _body(data),
            thread=thread,
            reply_to=parent or _ref(data.get("parent_id")) or thread,
            extra=_extra(data, _COMMENT_KEYS),
        )
        self._to_dest(msg, data)
        self.tally.ensure_id(msg)
        post_author = as_str(data.get("link_author")) or ""  # a user's comments page names it
        if post_author not in DELETED_AUTHORS and msg.thread and not self.author_of.get(msg.thread):
            self.author_of.set(msg.thread, post_author)
        return msg

    def private(self, data: dict, parent: str | None) -> ConversationMessage:
        """A private message (``t4``, of ``/message/inbox.json`` or ``sent.json``): from
        ``author`` to ``dest``, in the conversation of its ``first_message_name``."""
        fullname = _fullname(data, "t4_")
        msg = self._message(
            data,
            fullname,
            _body(data),
            reply_to=parent or _ref(data.get("parent_id")),
            subject=unescape(as_str(data.get("subject")) or "") or None,
            extra=_extra(data, ("subreddit", "distinguished")),
        )
        own = self.tally.ensure_id(msg)
        msg.thread = _ref(data.get("first_message_name")) or own
        self._to_dest(msg, data)
        return msg

    @staticmethod
    def _to_dest(msg: ConversationMessage, data: dict) -> None:
        """An inbox item's ``dest`` (the account it was sent to) is its first listener."""
        dest = (as_str(data.get("dest")) or "").strip()
        if dest and dest not in DELETED_AUTHORS and dest != msg.metadata.speaker:
            others = [x for x in msg.metadata.recipients if x != dest]
            msg.metadata.recipients = [dest, *others]

    def heard(self, msg: ConversationMessage) -> ConversationMessage:
        """A reply in a thread file without mentions speaks to the author it answers."""
        speaker = msg.metadata.speaker
        heard = self.author_of.get(msg.reply_to) if msg.reply_to else None
        if not msg.metadata.recipients and heard is not None and heard != speaker:
            msg.metadata.recipients = [heard]
        if msg.id and speaker:
            self.author_of.set(msg.id, speaker)
        return msg

    def _message(
        self,
        data: dict,
        fullname: str | None,
        text: str,
        *,
        thread: str | None = None,
        reply_to: str | None = None,
        subject: str | None = None,
        extra: dict[str, Any],
    ) -> ConversationMessage:
        """A post's or comment's message: author, time, location and id from ``data``."""
        return message(
            FMT,
            text,
            self.tally.speaker(data.get("author")),
            timestamp=self._time(data),
            source_id=self._loc(fullname),
            id=f"reddit:{fullname}" if fullname else None,
            thread=thread,
            reply_to=reply_to,
            subject=subject,
            extra=extra,
            reddit=True,
        )

    def _time(self, data: dict) -> str | None:
        value = data.get("created_utc", data.get("created"))
        return self.tally.epoch(value) if value is not None else self.tally.iso(None)

    def more(self, where: str, data: dict) -> None:
        children = data.get("children")
        listed = len(children) if isinstance(children, list) else 0
        count = as_int(data.get("count"))
        if not listed and not count:
            self.ctx.warn(
                where,
                "'continue this thread' stub: the replies below it are not in this file "
                "(fetch that comment's own .json)",
            )
            return
        missing = count if count is not None else listed
        self.ctx.warn(
            where,
            f"'more' stub not expanded: {counted(missing, 'comment')} "
            f"({counted(listed, 'id')} listed) {plural(missing, 'is', 'are')} not in this file",
        )

    def tree(self, value: Any, where: str) -> Iterator[ConversationMessage]:
        """Every Thing of a Listing, an array of Listings, or a single Thing, parents first."""
        post_id: str | None = None
        stack = _roots(value, where)
        while stack:
            thing, parent, loc = stack.pop()
            if isinstance(thing, dict) and "kind" not in thing:  # an array of plain objects
                msg = self.plain(thing)
                if msg is not None:
                    yield msg
                    continue
            data = self._data(thing, loc)
            if data is None:
                continue
            kind = thing.get("kind")
            if kind == "Listing":
                stack.extend(self._children(thing, data, parent, loc))
            elif kind == "t3":
                msg = self.heard(self.post(data))
                post_id = msg.thread
                yield msg
            elif kind == "t1":
                msg = self.heard(self.comment(data, parent or None, post_id))
                yield msg
                stack.extend(self._replies(data, msg.id, loc))
            elif kind == "t4":
                msg = self.heard(self.private(data, parent or None))
                yield msg
                stack.extend(self._replies(data, msg.id, loc))
            elif kind == "more":
                self.more(loc, data)
            else:
                self.ctx.reject(
                    loc,
                    f"unsupported Reddit Thing kind {as_str(kind) or type(kind).__name__!r}",
                    thing,
                    hint="convo reads posts (t3), comments (t1) and private messages (t4)",
                )

    def _data(self, thing: Any, loc: str) -> dict | None:
        """The ``data`` object of a Thing, or None (rejected) when it is not one."""
        if not isinstance(thing, dict):
            self.ctx.reject(loc, "not a Reddit Thing (expected an object)", thing)
            return None
        data = thing.get("data")
        if not isinstance(data, dict):
            self.ctx.reject(loc, "Reddit Thing without a data object", thing)
            return None
        return data

    def _children(self, thing: dict, data: dict, parent: str | None, loc: str) -> _Stack:
        """A Listing's children as stack entries (last first, so they pop in file order)."""
        children = data.get("children")
        if not isinstance(children, list):
            self.ctx.reject(loc, "Listing without a children array", thing)
            return []
        return [
            (child, parent, f"{loc}/{j}") for j, child in reversed(list(enumerate(children, 1)))
        ]

    def _replies(self, data: dict, comment_id: str | None, loc: str) -> _Stack:
        """The stack entry for a comment's ``replies`` Listing (none when it has no replies)."""
        replies = data.get("replies")
        if isinstance(replies, dict):
            return [(replies, comment_id, loc)]
        if replies not in (None, ""):
            self.ctx.warn(loc, "comment 'replies' is neither a Listing nor empty; ignored")
        return []

    def plain(self, obj: dict) -> ConversationMessage | None:
        """A Pushshift-style object (a Thing's ``data`` alone): a private message
        (``t4_`` name), a comment (``body``) or a submission (``title``); else None."""
        if (as_str(obj.get("name")) or "").startswith("t4_"):
            return self.heard(self.private(obj, None))
        if "body" in obj or "body_html" in obj:
            return self.heard(self.comment(obj, None, None))
        if "title" in obj:
            return self.heard(self.post(obj))
        return None

    def dump_line(self, where: str, obj: dict) -> Iterator[ConversationMessage]:
        """One Pushshift object: a comment (``body``) or a submission (``title``)."""
        if "kind" in obj and "data" in obj:
            yield from self.tree(obj, where)
            return
        msg = self.plain(obj)
        if msg is not None:
            yield msg
        else:
            raise RecordError(
                "neither a Reddit comment (body) nor a submission (title)",
                where=where,
                hint="each line must be a Pushshift-style comment or submission",
            )


_REDDIT_LISTING = re.compile(r'"kind"\s*:\s*"Listing"')
_REDDIT_THING = re.compile(
    r'"kind"\s*:\s*"(?:t1|t3|t4|more)"\s*,\s*"data"|"data"\s*:\s*\{[^{}]*"subreddit'
)
_REDDIT_DUMP = re.compile(r'"subreddit"\s*:')
_REDDIT_DUMP_KEYS = re.compile(r'"(?:link_id|parent_id|selftext|subreddit_id|num_comments)"\s*:')
_REDDIT_AUTHOR = re.compile('"author"')
_SNIFF = (
    (95, (_REDDIT_LISTING, _REDDIT_THING)),  # a thread's .json
    (85, (_REDDIT_THING,)),  # a single Thing
    (80, (_REDDIT_DUMP, _REDDIT_DUMP_KEYS, _REDDIT_AUTHOR)),  # a Pushshift dump
)


def sniff_reddit(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def _things(value: Any) -> Any:
    """The Things of an ``/api/morechildren`` answer (``{"json": {"data": {"things":
    [...]}}}``, the comments behind a ``more`` stub), the objects of a Pushshift or
    Arctic Shift API answer (``{"data": [...]}``), else the value as it is."""
    if isinstance(value, dict) and isinstance(value.get("json"), dict):
        data = value["json"].get("data")
        if isinstance(data, dict) and isinstance(data.get("things"), list):
            return data["things"]
    if isinstance(value, dict) and "kind" not in value and isinstance(value.get("data"), list):
        return value["data"]
    return value


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(source, ctx)
    try:
        for where, value in json_values(source, ctx):
            if where == source.name:  # a whole document: a thread, a Listing or a Thing
                value = _things(value)
                if (
                    isinstance(value, dict)
                    and "kind" not in value
                    and ("body" in value or "title" in value)
                ):
                    yield from reader.dump_line(where, value)
                elif isinstance(value, list | dict):
                    yield from reader.tree(value, where)
                else:
                    raise InputError(
                        "not a Reddit thread (expected an array of Listings)", where=source.name
                    )
                continue
            try:
                yield from reader.dump_line(where, value)
            except RecordError as e:
                ctx.reject_error(e, value)
        reader.tally.finish()
    finally:
        reader.author_of.close()


DESCRIPTION = (
    "Reddit thread JSON (.json of a thread), listings (a user's page, an inbox of private "
    "messages) or Pushshift comment/submission dumps, one object a line"
)
PATTERNS = ("*.json", "*.jsonl", "*.ndjson")
EXAMPLE = '[{"kind": "Listing", "data": {"children": [{"kind": "t3", ...}]}}, ...]'
FIELDS = Fields(
    speaker="`author` (`[deleted]`: none, counted)",
    listeners="an inbox item's `dest`, then the `u/` and `@` mentions, else the author of "
    "the post or comment it replies to when that came earlier in the file (a thread or a "
    "Pushshift dump; a user's comments page: the post's `link_author`)",
    time="`created_utc` (else `created`)",
    zone="epoch seconds: UTC",
    thread="the post: `reddit:<fullname>` (`reddit:t3_...`); a private message: its "
    "conversation's first (`first_message_name`)",
    id="`reddit:<fullname>` (`t3_` posts, `t1_` comments, `t4_` private messages)",
    scope="none: Reddit fullnames are unique everywhere",
    reply_to="the parent comment (a private message: its `parent_id`), else the post",
    subject="the post's `title`; a private message's `subject`",
    extra="`score`, `subreddit`, `flair`, `permalink`, `num_comments`, `distinguished`, "
    "`stickied`, `is_submitter`",
)

FORMATS = (
    Format("reddit", "forum", DESCRIPTION, PATTERNS, sniff_reddit, read, EXAMPLE, fields=FIELDS),
)
