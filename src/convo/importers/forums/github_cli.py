"""The GitHub CLI's JSON: ``gh issue view N --json ...`` and ``gh pr view N --json ...``
(one object), ``gh issue list --json ...`` (a list of them).

gh writes GraphQL's names, not the REST API's: ``author.login`` (not ``user.login``),
``createdAt``, ``url`` (the web page), ``labels[].name``, and an issue's ``comments`` (a
pull request's ``reviews`` too) inline. The records are the REST reader's
(``convo.importers.forums.github``): the issue ``github:OWNER/REPO#N``, a comment
``.../comment/ID`` with the number in its URL (``#issuecomment-ID``, so the REST API's
record of it has the same id), else its node id; a review ``.../review/ID`` (the number
in ``#pullrequestreview-ID``, else the node id), its text the body, else ``[review
APPROVED]``. Comments and reviews reply to the issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.forums.common import Tally, as_int, as_str, body_text, message, record_error

HTML_URL = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/(?:issues|pull)/(\d+)")
_FRAGMENT = re.compile(r"#(?:issuecomment|pullrequestreview|discussion_r)-?(\d+)$")


def is_gh_cli(record: dict[str, Any]) -> bool:
    """Whether an object is gh's issue or pull request (``author``, not ``user``)."""
    return "number" in record and isinstance(record.get("author"), dict) and "user" not in record


def _list(obj: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The objects of a list field, or of a GraphQL connection (``gh api graphql``'s
    ``comments {nodes}``); anything else in it is not gh's and is skipped."""
    return connection(obj.get(key))


def connection(value: Any) -> list[dict[str, Any]]:
    """The objects of a GraphQL connection (``nodes``, or ``edges`` of ``node``) or list."""
    if isinstance(value, dict):
        nodes = value.get("nodes")
        if nodes is None and isinstance(value.get("edges"), list):
            nodes = [e.get("node") for e in value["edges"] if isinstance(e, dict)]
        value = nodes
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


_GRAPHQL = ("discussion", "issue", "pullRequest")


def graphql_nodes(value: Any) -> list[Any] | None:
    """The discussions, issues or pull requests of a ``gh api graphql`` answer
    (``data.repository.issue``, ``...issues {nodes}``...), None when ``value`` is none."""
    data = value.get("data") if isinstance(value, dict) else None
    repo = data.get("repository") if isinstance(data, dict) else None
    if not isinstance(repo, dict):
        return None
    for key in _GRAPHQL:
        if isinstance(repo.get(key), dict):
            return [repo[key]]
        if isinstance(repo.get(key + "s"), dict):
            return connection(repo[key + "s"])
    return None


def _login(value: Any) -> str | None:
    return as_str(value.get("login")) if isinstance(value, dict) else None


def gh_issue(
    issue: dict[str, Any], where: str, tally: Tally, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    """The issue (or pull request), then its comments and reviews."""
    number = as_int(issue.get("number"))
    m = HTML_URL.match(as_str(issue.get("url")) or "")
    if number is None or m is None:
        raise record_error(
            where, "gh JSON without a number or url", "add number,url to gh's --json fields"
        )
    repo = m.group(1)
    ident = f"github:{repo}#{number}"
    title = as_str(issue.get("title")) or ""
    labels = [name for x in _list(issue, "labels") if (name := as_str(dict(x).get("name")))]
    yield message(
        "github",
        body_text(issue.get("body")) or title,
        tally.speaker(_login(issue.get("author"))),
        timestamp=tally.iso(issue.get("createdAt")),
        source_id=ctx.loc(f"{repo}#{number}"),
        id=ident,
        thread=ident,
        subject=title,
        tags=labels,
        extra={
            "number": number,
            "state": as_str(issue.get("state")),
            "html_url": as_str(issue.get("url")),
            "closed_at": as_str(issue.get("closedAt")),
            "bot": True if dict(issue.get("author") or {}).get("is_bot") else None,
        },
    )
    for kind, key, time in (
        ("comment", "comments", "createdAt"),
        ("review", "reviews", "submittedAt"),
    ):
        for n, item in enumerate(_list(issue, key), 1):
            yield _reply(item, kind, time, ident, ctx.loc(f"{repo}#{number}/{kind}-{n}"), tally)


def _reply(
    item: dict[str, Any], kind: str, time: str, issue: str, loc: str, tally: Tally
) -> ConversationMessage:
    url = as_str(item.get("url")) or ""
    number = _FRAGMENT.search(url)
    # Neither the URL's number nor a node id (gh asked for fewer fields): the content's
    # hash, not the position, which a comment deleted upstream would give to another.
    ident = number.group(1) if number else as_str(item.get("id"))
    state = as_str(item.get("state")) if kind == "review" else None
    return message(
        "github",
        body_text(item.get("body")) or (f"[review {state}]" if state else ""),
        tally.speaker(_login(item.get("author"))),
        timestamp=tally.iso(item.get(time)),
        source_id=loc,
        id=f"{issue}/{kind}/{ident}" if ident else None,
        thread=issue,
        reply_to=issue,
        extra={
            "html_url": url or None,
            "author_association": as_str(item.get("authorAssociation")),
            "state": state,
        },
    )
