"""GitHub REST issues (a list or one issue) and issue comments (API shape).

The issue is the thread's first message: id and thread ``github:OWNER/REPO#N``, subject
its title, labels as tags. A comment's id is ``github:OWNER/REPO#N/comment/ID`` and it
replies to the issue's id, found from ``issue_url`` (or ``pull_request_url`` for review
comments), so comments imported from another file still hang under their issue.
A top-level array (the API's list pages) is streamed item by item (convo.jsonstream).

Ids and their scope (docs/ids.md): the repository scopes the number:
``github:OWNER/REPO#N``, comments ``.../comment/ID``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import RecordError
from convo.core.io import Source, strip_bom
from convo.core.jsonstream import JsonArray
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.forums.common import (
    Tally,
    as_int,
    as_str,
    items,
    json_values,
    message,
    record_error,
)
from convo.importers.jsoninput import sniff_json
from convo.importers.registry import Format

FMT = "github"
_API = re.compile(r"https?://[^/]+/(?:api/v3/)?repos/([^/]+/[^/]+)/(?:issues|pulls)/(\d+)")
_REPO_API = re.compile(r"https?://[^/]+/(?:api/v3/)?repos/([^/]+/[^/]+)/?$")
_HTML = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/(?:issues|pull)/(\d+)")


def _repo(issue: dict) -> str | None:
    for key in ("repository_url",):
        m = _REPO_API.match(as_str(issue.get(key)) or "")
        if m:
            return m.group(1)
    for key in ("url", "html_url"):
        value = as_str(issue.get(key)) or ""
        m = _API.match(value) or _HTML.match(value)
        if m:
            return m.group(1)
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _body(value: Any) -> str:
    text = as_str(value) or ""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _login(user: Any) -> Any:
    return user.get("login") if isinstance(user, dict) else None


def _bot(user: Any) -> bool | None:
    return True if isinstance(user, dict) and user.get("type") == "Bot" else None


def _reactions(value: Any) -> int | None:
    return as_int(value.get("total_count")) or None if isinstance(value, dict) else None


def _issue(issue: dict, where: str, tally: Tally, ctx: ImportContext) -> ConversationMessage:
    number = as_int(issue.get("number"))
    repo = _repo(issue)
    if number is None or repo is None:
        raise record_error(
            where,
            "GitHub issue without a number or repository URL",
            "use the REST API's issue JSON",
        )
    ident = f"github:{repo}#{number}"
    title = as_str(issue.get("title")) or ""
    labels = [
        name
        for label in _list(issue.get("labels"))
        if (name := as_str(label.get("name") if isinstance(label, dict) else label))
    ]
    milestone = issue.get("milestone")
    return message(
        FMT,
        _body(issue.get("body")) or title,
        tally.speaker(_login(issue.get("user"))),
        timestamp=tally.iso(issue.get("created_at")),
        source_id=ctx.loc(f"{repo}#{number}"),
        id=ident,
        thread=ident,
        subject=title,
        tags=labels,
        extra={
            "number": number,
            "state": issue.get("state"),
            "pull_request": True if isinstance(issue.get("pull_request"), dict) else None,
            "html_url": issue.get("html_url"),
            "comments": issue.get("comments") or None,
            "author_association": issue.get("author_association"),
            "closed_at": issue.get("closed_at"),
            "milestone": milestone.get("title") if isinstance(milestone, dict) else None,
            "assignees": [a for u in _list(issue.get("assignees")) if (a := as_str(_login(u)))]
            or None,
            "reactions": _reactions(issue.get("reactions")),
            "bot": _bot(issue.get("user")),
        },
    )


def _comment(comment: dict, where: str, tally: Tally, ctx: ImportContext) -> ConversationMessage:
    cid = as_int(comment.get("id"))
    link = as_str(comment.get("issue_url")) or as_str(comment.get("pull_request_url")) or ""
    m = _API.match(link) or _HTML.match(as_str(comment.get("html_url")) or "")
    if cid is None or m is None:
        raise record_error(
            where,
            "GitHub comment without an id or issue_url",
            "use the REST API's issue-comments JSON",
        )
    issue = f"github:{m.group(1)}#{m.group(2)}"
    return message(
        FMT,
        _body(comment.get("body")),
        tally.speaker(_login(comment.get("user"))),
        timestamp=tally.iso(comment.get("created_at")),
        source_id=ctx.loc(f"{m.group(1)}#{m.group(2)}/comment-{cid}"),
        id=f"{issue}/comment/{cid}",
        thread=issue,
        reply_to=issue,
        extra={
            "html_url": comment.get("html_url"),
            "author_association": comment.get("author_association"),
            "reactions": _reactions(comment.get("reactions")),
            "bot": _bot(comment.get("user")),
            "path": comment.get("path"),
        },
    )


_GITHUB = re.compile(r'"(?:html_url|url|issue_url)"\s*:\s*"https?://(?:api\.)?github\.com/')
_GITHUB_ISSUE = re.compile(r'github\.com/(?:repos/)?[^/"]+/[^/"]+/(?:issues|pull)s?/\d+')
_GITHUB_USER = re.compile(r'"user"\s*:\s*\{')


_SNIFF = ((90, (_GITHUB, _GITHUB_ISSUE, _GITHUB_USER)),)


def sniff_github(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    tally = Tally(ctx)
    for where, record in _records(source, ctx):
        try:
            if not isinstance(record, dict):
                raise RecordError("not a GitHub issue or comment (expected an object)", where=where)
            if "issue_url" in record or "pull_request_url" in record:
                yield _comment(record, where, tally, ctx)
            elif "number" in record:
                yield _issue(record, where, tally, ctx)
            else:
                raise RecordError(
                    "neither a GitHub issue (number) nor a comment (issue_url)", where=where
                )
        except RecordError as e:
            ctx.reject_error(e, record)
    tally.finish()


def _records(source: Source, ctx: ImportContext) -> Iterator[tuple[str, Any]]:
    """Each issue or comment with its location; a top-level array is streamed."""
    if strip_bom(source.head).lstrip().startswith(b"["):
        with source.open() as stream:
            for i, item in enumerate(JsonArray(stream, where=source.name).values(), 1):
                yield f"{source.name}#item-{i}", item
        return
    for top, value in json_values(source, ctx):
        yield from items(top, value)


DESCRIPTION = "GitHub REST issues (list or one) and issue comments JSON"
EXAMPLE = '[{"number": 12, "title": "...", "user": {"login": "alice"}, "body": "..."}]'
FIELDS = Fields(
    speaker="`user.login`",
    listeners="the `@` mentions",
    time="`created_at`",
    zone=NAIVE_IN_TZ + "; GitHub writes UTC (`Z`)",
    thread="the issue: `github:<owner>/<repo>#<n>`",
    id="`github:<owner>/<repo>#<n>` (the issue), `github:<owner>/<repo>#<n>/comment/<id>`",
    scope="the repository, in the issue's URL",
    reply_to="a comment: its issue (from `issue_url`)",
    subject="the issue's `title`",
    tags="the issue's labels",
    extra="`html_url`, `author_association`, `state`",
)

FORMATS = (
    Format("github", "forum", DESCRIPTION, ("*.json",), sniff_github, read, EXAMPLE, fields=FIELDS),
)
