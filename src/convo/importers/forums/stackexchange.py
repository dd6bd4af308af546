"""Stack Exchange data dump XML: ``Posts.xml``, ``Comments.xml`` (and ``Users.xml``).

Ids and their scope (docs/ids.md): post and comment ids are numbered per site (every
site has a post 1), so an id names its site: ``se:<site>:<id>`` for a post,
``se:<site>:c<id>`` for a comment. The dump does not name its site in the XML, so the
site is the file-name prefix when there is one (``cooking-Posts.xml``: ``cooking``), else
the folder the file sits in, as the dump's archive unpacks
(``cooking.stackexchange.com/Posts.xml``: ``cooking``; ``.stackexchange.com``, ``.com``
and ``.net`` are left out, so ``superuser.com`` is ``superuser``). From standard input
there is no site: the ids are ``se:<id>`` and a warning says so.

Questions (PostTypeId 1) start a thread ``se:<site>:<id>`` with their title as subject
and tags; answers (2) reply to their question (``ParentId``) and carry ``accepted`` when
the question named them (dumps list posts by id, so the question comes first). Comments
(``se:<site>:c<id>``) reply to their post; their thread comes from ``Posts.xml`` beside them when
there is one (a comment whose post is missing from it keeps the post only in
``extra.post_id``, so every replyTo resolves). Other post types (tag wikis, nominations...) are skipped with a warning.

Names: ``OwnerDisplayName``/``UserDisplayName`` when the dump kept one, else
``Users.xml`` beside the file (``X-Posts.xml`` looks for ``X-Users.xml``, then
``Users.xml``), else ``user<ID>`` as the site shows it. ``Users.xml`` holds no
messages: it is read as empty, with a warning only when no Posts.xml or Comments.xml
is beside it (then its names serve nothing). Times are naive in the dump (documented as
UTC) and, like every naive time, read in ``--tz`` (default UTC).

What a later row needs of earlier ones (the names of ``Users.xml``, the answers their
question accepted, each post's thread for ``Comments.xml``) is held in
``convo.core.spillmap.SpillMap``s, so memory stays flat on a dump of any size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.text.html import html_to_text
from convo.importers.build import scoped_id, source_scope
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import Tally, as_int, message
from convo.importers.registry import Format
from convo.importers.xmlstream import iter_events

FMT = "stackexchange"
_Ids = Callable[[str], str]  # a local id → its scoped id (build.scoped_id with the site)


def tags(value: str | None) -> list[str]:
    """``<a><b>`` (older dumps) or ``|a|b|`` (newer ones) as a list."""
    if not value:
        return []
    if value.startswith("<"):
        return re.findall(r"<([^<>]+)>", value)
    return [t for t in value.split("|") if t]


def _sibling(source: Source, kind: str) -> Path | None:
    """``kind``.xml beside the source: same prefix first (``site-Users.xml``), then plain."""
    if source.path is None or source.gzipped:
        return None
    name = source.path.name
    m = re.match(
        r"(?i)(.*)(posts|comments|users|votes|badges|posthistory|postlinks|tags)\.xml$", name
    )
    candidates = []
    if m:
        candidates.append(source.path.with_name(f"{m.group(1)}{kind}.xml"))
    candidates.append(source.path.with_name(f"{kind}.xml"))
    for path in candidates:
        if path != source.path and path.is_file():
            return path
    return None


_SITE_SUFFIXES = (".stackexchange.com", ".com", ".net")


def site(source: Source, ctx: ImportContext) -> str | None:
    """The site the dump is of (see the module docstring); None, with a warning, when
    nothing names it."""
    prefix = re.match(r"(?i)(.*?)[-_.]?(?:posts|comments|users)\.xml(?:\.gz)?$", source.match_name)
    name = source_scope(
        source, ctx, prefix.group(1) if prefix else None, what="site", example="se:<id>"
    )
    return None if name is None else site_name(name)


def site_name(host: str) -> str:
    """A site's short name, as ids use it: ``unix.stackexchange.com`` → ``unix``,
    ``stackoverflow.com`` → ``stackoverflow`` (the API reader's ids must equal these)."""
    for suffix in _SITE_SUFFIXES:
        if host.endswith(suffix) and len(host) > len(suffix):
            return host.removesuffix(suffix)
    return host


def _rows(source: Source, path: Path | None = None) -> Iterator[tuple[dict, int]]:
    depth = 0
    for kind, _tag, attrs, line in iter_events(source, path=path):
        if kind == "start":
            depth += 1
            if depth == 2:
                yield attrs, line
        elif kind == "end":
            depth -= 1


_PROLOG = re.compile(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>", re.S)


def root_tag(text: str) -> str:
    """The first element's name (lower case) after the prolog, or ''."""
    m = re.search(r"<([A-Za-z_][\w.-]*)", _PROLOG.sub("", text))
    return m.group(1).lower() if m else ""


class _Names:
    """OwnerUserId → DisplayName from Users.xml beside the source (loaded once, if there)."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.map: SpillMap[str, str] = SpillMap()
        self.path = _sibling(source, "Users")
        self.ctx = ctx
        self.unresolved = 0
        if self.path is not None:
            for attrs, _ in _rows(source, self.path):
                if "Id" in attrs and attrs.get("DisplayName"):
                    self.map.set(attrs["Id"], attrs["DisplayName"])

    def speaker(self, tally: Tally, display: str | None, user_id: str | None) -> str | None:
        if display:
            return tally.speaker(display)
        if user_id:
            name = self.map.get(user_id)
            if name:
                return name
            self.unresolved += 1
            return f"user{user_id}"
        return tally.speaker(None)

    def finish(self) -> None:
        if self.unresolved:
            where = str(self.path) if self.path else "no Users.xml beside the file"
            self.ctx.warn(
                self.ctx.source.name,
                f"the author of {counted(self.unresolved, 'post')} not resolved ({where}); "
                "shown as user<ID>",
            )


def _post_message(
    attrs: dict,
    accepted: SpillMap[str, int],
    names: _Names,
    tally: Tally,
    ctx: ImportContext,
    sid: _Ids,
) -> ConversationMessage:
    """A question (PostTypeId 1) or answer (2) row as a message."""
    ident, kind, parent = attrs["Id"], attrs["PostTypeId"], attrs.get("ParentId")
    thread = ident if kind == "1" else parent
    return message(
        FMT,
        html_to_text(attrs.get("Body") or ""),
        names.speaker(tally, attrs.get("OwnerDisplayName"), attrs.get("OwnerUserId")),
        timestamp=tally.iso(attrs.get("CreationDate")),
        source_id=ctx.loc(f"post-{ident}"),
        id=sid(ident),
        thread=sid(thread) if thread else None,
        reply_to=sid(parent) if kind == "2" and parent else None,
        subject=attrs.get("Title"),
        tags=tags(attrs.get("Tags")),
        extra=_post_extra(attrs, accepted, sid),
    )


def _post_extra(attrs: dict, accepted: SpillMap[str, int], sid: _Ids) -> dict[str, Any]:
    kind, answer = attrs["PostTypeId"], attrs.get("AcceptedAnswerId")
    return {
        "post_type": "question" if kind == "1" else "answer",
        "score": as_int(attrs.get("Score")),
        "accepted_answer": sid(answer) if answer else None,
        "accepted": True if kind == "2" and accepted.get(attrs["Id"]) else None,
        "view_count": as_int(attrs.get("ViewCount")),
        "answer_count": as_int(attrs.get("AnswerCount")),
        "user_id": attrs.get("OwnerUserId"),
        "closed": attrs.get("ClosedDate"),
    }


def _posts(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    names = _Names(source, ctx)
    tally = Tally(ctx)
    sid = partial(scoped_id, "se", site(source, ctx))
    accepted: SpillMap[str, int] = SpillMap()  # answer ids their question accepted (1)
    skipped: dict[str, int] = {}
    for attrs, line in _rows(source):
        ident, kind = attrs.get("Id"), attrs.get("PostTypeId")
        if not ident:
            ctx.reject(ctx.loc(line), "post row without an Id", attrs)
            continue
        if kind not in ("1", "2"):
            skipped[kind or "?"] = skipped.get(kind or "?", 0) + 1
            continue
        if kind == "1" and attrs.get("AcceptedAnswerId"):
            accepted.set(attrs["AcceptedAnswerId"], 1)
        yield _post_message(attrs, accepted, names, tally, ctx, sid)
    for kind, count in skipped.items():
        ctx.warn(source.name, f"{counted(count, 'post')} of PostTypeId {kind} skipped (not Q&A)")
    names.finish()
    tally.finish()


def _comments(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    names = _Names(source, ctx)
    tally = Tally(ctx)
    sid = partial(scoped_id, "se", site(source, ctx))
    thread_of: SpillMap[str, str] = SpillMap()
    orphans = 0
    posts = _sibling(source, "Posts")
    if posts is not None:
        for attrs, _ in _rows(source, posts):
            if attrs.get("Id"):
                thread_of.set(attrs["Id"], attrs.get("ParentId") or attrs["Id"])
    for attrs, line in _rows(source):
        ident, post = attrs.get("Id"), attrs.get("PostId")
        if not ident or not post:
            ctx.reject(ctx.loc(line), "comment row without an Id or PostId", attrs)
            continue
        thread = thread_of.get(post)
        orphan = posts is not None and thread is None  # its post is not in Posts.xml beside
        orphans += orphan
        yield message(
            FMT,
            attrs.get("Text") or "",
            names.speaker(tally, attrs.get("UserDisplayName"), attrs.get("UserId")),
            timestamp=tally.iso(attrs.get("CreationDate")),
            source_id=ctx.loc(f"comment-{ident}"),
            id=sid(f"c{ident}"),
            thread=sid(thread) if thread else None,
            reply_to=None if orphan else sid(post),
            extra={
                "post_type": "comment",
                "score": as_int(attrs.get("Score")) or None,
                "user_id": attrs.get("UserId"),
                "post_id": sid(post) if orphan else None,
            },
        )
    if orphans:
        ctx.warn(
            source.name,
            f"{counted(orphans, 'comment')} on posts missing from {posts}: replyTo left out "
            "(extra.post_id)",
        )
    names.finish()
    tally.finish()


_SE_ROOTS = {"posts": "PostTypeId=", "comments": "PostId=", "users": "Reputation="}
# The dump's other tables: no messages (PostHistory: the posts' revisions, whose last is
# the post Posts.xml holds). Each is recognised, so a dump's folder reads without a
# "format not recognised" for them, and said once.
_SE_TABLES = {
    "votes": ("VoteTypeId=", "votes"),
    "badges": ("TagBased=", "badges"),
    "posthistory": ("PostHistoryTypeId=", "post revisions"),
    "postlinks": ("LinkTypeId=", "post links"),
    "tags": ("TagName=", "tags"),
}


def sniff_stackexchange(source: Source) -> int:
    text = source.head_text()
    if not text.lstrip().startswith("<"):
        return 0
    root = root_tag(text)
    marker = _SE_ROOTS.get(root) or _SE_TABLES.get(root, ("", ""))[0]
    return 90 if marker and "<row " in text and marker in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    root = root_tag(source.head_text())
    if root == "comments":
        yield from _comments(source, ctx)
    elif root == "users":
        if _sibling(source, "Posts") or _sibling(source, "Comments"):
            return  # the names of the Posts.xml/Comments.xml beside it: nothing to say
        count = sum(1 for _ in _rows(source))
        ctx.warn(
            source.name,
            f"Users.xml ({counted(count, 'user')}) holds no messages; it names the authors of "
            "Posts.xml and Comments.xml beside it",
        )
    elif root in _SE_TABLES:
        if root != "posthistory" and _sibling(source, "Posts"):
            return  # a table of the dump beside its Posts.xml: nothing to say
        count = sum(1 for _ in _rows(source))
        name = source.path.name if source.path else root
        ctx.warn(
            source.name,
            f"{name} ({count} {_SE_TABLES[root][1]}) holds no messages: a Stack Exchange "
            "dump's table, not read",
        )
    else:
        yield from _posts(source, ctx)


DESCRIPTION = "Stack Exchange data dump Posts.xml / Comments.xml (names from Users.xml beside them)"
PATTERNS = ("*Posts.xml", "*Comments.xml", "*Users.xml", "*Votes.xml", "*Badges.xml",
            "*PostHistory.xml", "*PostLinks.xml", "*Tags.xml")  # fmt: skip
EXAMPLE = '<posts><row Id="1" PostTypeId="1" Body="..." /></posts>'
FIELDS = Fields(
    speaker="`OwnerDisplayName`/`UserDisplayName`, else the name in `Users.xml` beside the "
    "file, else `user<ID>`",
    listeners="the `@` mentions",
    time="`CreationDate`",
    zone="naive in the dump (documented as UTC): read in `--tz` (default UTC)",
    thread="the question: `se:<site>:<id>`",
    id="`se:<site>:<id>` (posts), `se:<site>:c<id>` (comments)",
    scope="the site: the file-name prefix (`cooking-Posts.xml`), else the folder "
    "(`cooking.stackexchange.com`); standard input: none (`se:<id>`, with a warning)",
    reply_to="an answer: its question; a comment: its post",
    subject="a question's `Title`",
    tags="a question's `Tags`",
    extra="`post_type`, `score`, `user_id`, `accepted`, `accepted_answer`, `view_count`, "
    "`answer_count`, `post_id`",
)

FORMATS = (
    Format(
        "stackexchange",
        "forum",
        DESCRIPTION,
        PATTERNS,
        sniff_stackexchange,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
