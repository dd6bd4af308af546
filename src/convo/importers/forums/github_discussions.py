"""GitHub Discussions as the GraphQL API gives them (``gh api graphql`` and the export
tools built on it): ``{"data": {"repository": {"discussion": {...}}}}``, a page of
``discussions`` (``nodes`` or ``edges``), or the discussion objects alone.

A discussion has GraphQL's names: ``number``, ``title``, ``body`` (else ``bodyText``),
``url`` (``https://github.com/OWNER/REPO/discussions/N``), ``author.login``,
``createdAt``, ``category.name``, ``answer``; its ``comments`` and each comment's
``replies`` are connections (``nodes``, or ``edges`` of ``node``), a comment's URL ending
``#discussioncomment-ID``, ``isAnswer`` on the accepted one.

Records (``convo.importers.forums.github``'s scheme; a repository numbers its issues,
pull requests and discussions in one sequence, so the ids cannot meet): the discussion
``github:OWNER/REPO#N`` (the thread; its title the subject, its category a tag and
``extra.category``), a comment ``github:OWNER/REPO#N/comment/ID`` replying to the
discussion, a reply replying to its comment; the accepted answer tagged ``answer``. A
comment without the ID in its URL is named by its node ``id``, else by its content.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.forums.common import Tally, as_int, as_str, body_text, message, record_error
from convo.importers.forums.github_cli import connection

DISCUSSION_URL = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/discussions/(\d+)")
_COMMENT = re.compile(r"#discussioncomment-(\d+)$")
FMT = "github"


def is_discussion(record: dict[str, Any]) -> bool:
    """A GraphQL discussion: its ``url`` a discussion's page, or its ``__typename``."""
    if record.get("__typename") == "Discussion":
        return True
    return "number" in record and DISCUSSION_URL.match(as_str(record.get("url")) or "") is not None


def _login(value: Any) -> str | None:
    return as_str(value.get("login")) if isinstance(value, dict) else None


def _text(obj: dict[str, Any]) -> str:
    return body_text(obj.get("body")) or body_text(obj.get("bodyText")) or ""


def discussion(
    record: dict[str, Any], where: str, tally: Tally, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    """The discussion, then each comment followed by its replies."""
    number = as_int(record.get("number"))
    m = DISCUSSION_URL.match(as_str(record.get("url")) or "")
    if number is None or m is None:
        raise record_error(
            where, "GitHub discussion without a number or url", "ask GraphQL for number and url"
        )
    repo = m.group(1)
    ident = f"github:{repo}#{number}"
    title = as_str(record.get("title")) or ""
    category = record.get("category")
    category_name = as_str(category.get("name")) if isinstance(category, dict) else None
    yield message(
        FMT,
        _text(record) or title,
        tally.speaker(_login(record.get("author"))),
        timestamp=tally.iso(record.get("createdAt")),
        source_id=ctx.loc(f"{repo}#{number}"),
        id=ident,
        thread=ident,
        subject=title,
        tags=[category_name] if category_name else [],
        extra={
            "number": number,
            "html_url": as_str(record.get("url")),
            "category": category_name,
            "discussion": True,
            "closed": record.get("closed") if isinstance(record.get("closed"), bool) else None,
        },
    )
    answer = record.get("answer")
    answer_id = as_str(answer.get("id")) if isinstance(answer, dict) else None
    loc = ctx.loc(f"{repo}#{number}")
    for n, comment in enumerate(connection(record.get("comments")), 1):
        parent = _comment(comment, ident, ident, f"{loc}/comment-{n}", tally, answer_id)
        yield parent
        for k, reply in enumerate(connection(comment.get("replies")), 1):
            yield _comment(
                reply, ident, parent.id or ident, f"{loc}/comment-{n}/reply-{k}", tally, answer_id
            )


def _comment(
    item: dict[str, Any],
    thread: str,
    parent: str,
    loc: str,
    tally: Tally,
    answer_id: str | None,
) -> ConversationMessage:
    url = as_str(item.get("url")) or ""
    number = _COMMENT.search(url)
    node = as_str(item.get("id"))
    ident = number.group(1) if number else node
    answer = item.get("isAnswer") is True or (answer_id is not None and node == answer_id)
    return message(
        FMT,
        _text(item),
        tally.speaker(_login(item.get("author"))),
        timestamp=tally.iso(item.get("createdAt")),
        source_id=loc,
        id=f"{thread}/comment/{ident}" if ident else None,
        thread=thread,
        reply_to=parent,
        tags=["answer"] if answer else [],
        extra={
            "html_url": url or None,
            "author_association": as_str(item.get("authorAssociation")),
            "upvotes": as_int(item.get("upvoteCount")),
        },
    )
