"""GitHub REST issues (a list or one issue) and issue comments (API shape), pull request
reviews and review comments, and the GitHub CLI's ``gh issue view --json`` / ``gh pr view
--json`` objects (``convo.importers.forums.github_cli``).

The issue is the thread's first message (a pull request of ``pulls`` or ``pulls/N`` too:
it carries an ``issue_url`` as comments do, and a ``number`` as issues do): id and thread ``github:OWNER/REPO#N``, subject
its title, labels as tags. A comment's id is ``github:OWNER/REPO#N/comment/ID`` and it
replies to the issue's id, found from ``issue_url`` (or ``pull_request_url`` for review
comments), so comments imported from another file still hang under their issue; a
review comment answering another (``in_reply_to_id``) replies to that one. A review
(``pulls/N/reviews``: ``submitted_at``, ``state``) is ``github:OWNER/REPO#N/review/ID``,
its text the body, else ``[review APPROVED]``.
A top-level array (the API's list pages) is streamed item by item (convo.jsonstream).
Issue events (a timeline's, kept as ``system`` messages) and activity events (the
Events API, GH Archive: read as the message they carry, if any) are
``convo.importers.forums.github_events``'s; GitHub Discussions (GraphQL)
``convo.importers.forums.github_discussions``'.

Ids and their scope (docs/ids.md): the repository scopes the number:
``github:OWNER/REPO#N``, comments ``.../comment/ID``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from convo.core.errors import RecordError
from convo.core.io import Source, strip_bom
from convo.core.jsonstream import JsonArray
from convo.core.record import ConversationMessage
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.forums.common import (
    Tally,
    as_int,
    as_str,
    body_text,
    items,
    json_values,
    message,
    record_error,
)
from convo.importers.forums.github_archive import archive_message, archive_note, is_archive
from convo.importers.forums.github_cli import HTML_URL, gh_issue, graphql_nodes, is_gh_cli
from convo.importers.forums.github_discussions import discussion, is_discussion
from convo.importers.forums.github_events import (
    activity_message,
    event_speaker,
    event_text,
    event_time,
    is_activity,
    is_issue_event,
    skipped_note,
)
from convo.importers.jsoninput import sniff_json
from convo.importers.registry import Format

FMT = "github"
_API = re.compile(r"https?://[^/]+/(?:api/v3/)?repos/([^/]+/[^/]+)/(?:issues|pulls)/(\d+)")
_REPO_API = re.compile(r"https?://[^/]+/(?:api/v3/)?repos/([^/]+/[^/]+)/?$")


def _repo(issue: dict) -> str | None:
    for key in ("repository_url",):
        m = _REPO_API.match(as_str(issue.get(key)) or "")
        if m:
            return m.group(1)
    for key in ("url", "html_url"):
        value = as_str(issue.get(key)) or ""
        m = _API.match(value) or HTML_URL.match(value)
        if m:
            return m.group(1)
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


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
        body_text(issue.get("body")) or title,
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
            "pull_request": True
            if isinstance(issue.get("pull_request"), dict) or "diff_url" in issue
            else None,
            "merged_at": issue.get("merged_at"),
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
    m = _API.match(link) or HTML_URL.match(as_str(comment.get("html_url")) or "")
    if cid is None or m is None:
        raise record_error(
            where,
            "GitHub comment without an id or issue_url",
            "use the REST API's issue-comments JSON",
        )
    issue = f"github:{m.group(1)}#{m.group(2)}"
    review = "submitted_at" in comment and "diff_hunk" not in comment
    state = as_str(comment.get("state")) if review else None
    answers = as_int(comment.get("in_reply_to_id"))
    return message(
        FMT,
        body_text(comment.get("body")) or (f"[review {state}]" if state else ""),
        tally.speaker(_login(comment.get("user"))),
        timestamp=tally.iso(comment.get("submitted_at" if review else "created_at")),
        source_id=ctx.loc(f"{m.group(1)}#{m.group(2)}/{'review' if review else 'comment'}-{cid}"),
        id=f"{issue}/{'review' if review else 'comment'}/{cid}",
        thread=issue,
        reply_to=f"{issue}/comment/{answers}" if answers is not None else issue,
        extra={
            "html_url": comment.get("html_url"),
            "author_association": comment.get("author_association"),
            "reactions": _reactions(comment.get("reactions")),
            "bot": _bot(comment.get("user")),
            "path": comment.get("path"),
            "line": comment.get("line"),
            "review": comment.get("pull_request_review_id"),
            "state": state,
        },
    )


_GITHUB = re.compile(r'"(?:html_url|url|issue_url)"\s*:\s*"https?://(?:api\.)?github\.com/')
_GITHUB_ISSUE = re.compile(r'github\.com/(?:repos/)?[^/"]+/[^/"]+/(?:issues|pull)s?/\d+')
_GITHUB_USER = re.compile(r'"user"\s*:\s*\{')
_GH_AUTHOR = re.compile(r'"author"\s*:\s*\{[^{}]*"login"\s*:')
_GH_TIME = re.compile(r'"createdAt"\s*:\s*"')


_GH_EVENT = re.compile(r'"type"\s*:\s*"[A-Za-z]+Event"')
_GH_PAYLOAD = re.compile(r'"payload"\s*:\s*\{')
_GH_REPO = re.compile(r'"repo"\s*:\s*\{[^{}]*"url"\s*:\s*"https?://api\.github\.com/repos/')


_GITHUB_DISCUSSION = re.compile(r'"url"\s*:\s*"https?://github\.com/[^/"]+/[^/"]+/discussions/\d+')


_ARCHIVE_TYPE = re.compile(r'"type"\s*:\s*"(?:issue|issue_comment|pull_request[a-z_]*)"')


_SNIFF = (
    (90, (_GITHUB, _GITHUB_ISSUE, _GITHUB_USER)),
    (88, (_GITHUB_DISCUSSION, _GH_AUTHOR, _GH_TIME)),  # GraphQL discussions
    (86, (_ARCHIVE_TYPE, _GITHUB_ISSUE)),  # the migration archive (account export)
    (88, (_GITHUB, _GITHUB_ISSUE, _GH_AUTHOR, _GH_TIME)),  # gh issue/pr view --json
    (85, (_GH_EVENT, _GH_PAYLOAD, _GH_REPO)),  # activity events (Events API, GH Archive)
)


def sniff_github(source: Source) -> int:
    return sniff_json(source, _SNIFF)


class _Reader:
    """One file's records; issue events wait (up to ``_PENDING``) for the issue a later
    comment names, as a timeline's events name none."""

    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.tally = Tally(ctx)
        self.skipped: Counter[str] = Counter()
        self.archived: Counter[str] = Counter()  # the migration archive's other objects
        self.issue: str | None = None
        self.pending: list[ConversationMessage] = []

    def record(self, record: Any, where: str) -> Iterator[ConversationMessage]:
        if not isinstance(record, dict):
            raise RecordError("not a GitHub issue or comment (expected an object)", where=where)
        if is_activity(record):
            found = activity_message(record, self.skipped)
            if found is None:
                return
            record = found
        if is_archive(record):
            msg = archive_message(record, where, self.tally, self.ctx, self.archived)
            if msg is not None:
                yield from self.known(msg)
        elif is_discussion(record):
            yield from self.known_all(discussion(record, where, self.tally, self.ctx))
        elif is_gh_cli(record):
            yield from gh_issue(record, where, self.tally, self.ctx)
        elif "number" in record:  # an issue, or a pull request (``pulls``: its issue_url)
            yield from self.known(_issue(record, where, self.tally, self.ctx))
        elif "issue_url" in record or "pull_request_url" in record:
            yield from self.known(_comment(record, where, self.tally, self.ctx))
        elif record.get("event") == "line-commented":  # a timeline's review comments
            for k, comment in enumerate(_list(record.get("comments")), 1):
                yield from self.record(comment, f"{where}/{k}")
        elif is_issue_event(record):
            yield from self.event(record, where)
        else:
            raise RecordError(
                "neither a GitHub issue (number) nor a comment (issue_url)", where=where
            )

    def known_all(self, msgs: Iterator[ConversationMessage]) -> Iterator[ConversationMessage]:
        first = True
        for msg in msgs:
            yield from self.known(msg) if first else (msg,)
            first = False

    def known(self, msg: ConversationMessage) -> list[ConversationMessage]:
        """The message, after the events that waited for its issue."""
        self.issue = msg.thread or self.issue
        waiting, self.pending = self.pending, []
        for event in waiting:
            event.thread = event.reply_to = self.issue
        return [*waiting, msg]

    def event(self, record: dict[str, Any], where: str) -> Iterator[ConversationMessage]:
        issue = record.get("issue")
        number = as_int(issue.get("number")) if isinstance(issue, dict) else None
        repo = _repo(issue) if isinstance(issue, dict) else None
        thread = f"github:{repo}#{number}" if repo and number is not None else self.issue
        ident = as_int(record.get("id"))
        msg = message(
            FMT,
            event_text(record),
            self.tally.speaker(event_speaker(record)),
            timestamp=self.tally.iso(event_time(record)),
            source_id=self.ctx.loc(f"event-{ident}") if ident is not None else where,
            id=f"github:event/{ident}" if ident is not None else None,
            thread=thread,
            reply_to=thread,
            tags=[SYSTEM_TAG],
            extra={"event": record.get("event"), "commit_id": record.get("commit_id")},
        )
        if thread is None and len(self.pending) < _PENDING:
            self.pending.append(msg)
            return
        yield msg

    def finish(self) -> Iterator[ConversationMessage]:
        yield from self.pending  # events of an issue the file never named: no thread
        if self.skipped:
            self.ctx.warn(self.ctx.source.name, skipped_note(self.skipped))
        if self.archived:
            self.ctx.warn(self.ctx.source.name, archive_note(self.archived))
        self.tally.finish()


_PENDING = 10_000


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(ctx)
    for where, record in _records(source, ctx):
        try:
            yield from reader.record(record, where)
        except RecordError as e:
            ctx.reject_error(e, record)
    yield from reader.finish()


def _records(source: Source, ctx: ImportContext) -> Iterator[tuple[str, Any]]:
    """Each issue or comment with its location; a top-level array is streamed."""
    if strip_bom(source.head).lstrip().startswith(b"["):
        with source.open() as stream:
            for i, item in enumerate(JsonArray(stream, where=source.name).values(), 1):
                yield f"{source.name}#item-{i}", item
        return
    for top, value in json_values(source, ctx):
        found = graphql_nodes(value)
        yield from items(top, value) if found is None else items(f"{top}#data", found)


DESCRIPTION = (
    "GitHub REST issues and pull requests (list or one), issue and review comments, reviews, "
    "issue timelines and events JSON; activity events (Events API, GH Archive); "
    "`gh issue/pr view --json`; the GraphQL API's discussions, issues and pull requests; the "
    "migration archive "
    '("Export account data": `issues_000001.json`, `issue_comments_000001.json`...)'
)
EXAMPLE = '[{"number": 12, "title": "...", "user": {"login": "alice"}, "body": "..."}]'
FIELDS = Fields(
    speaker="`user.login` (`gh --json`: `author.login`; an event: its `actor`, a commit "
    "its author's name)",
    listeners="the `@` mentions",
    time="`created_at` (a review: `submitted_at`; `gh --json`: `createdAt`, `submittedAt`)",
    zone=NAIVE_IN_TZ + "; GitHub writes UTC (`Z`)",
    thread="the issue: `github:<owner>/<repo>#<n>`",
    id="`github:<owner>/<repo>#<n>` (the issue), `github:<owner>/<repo>#<n>/comment/<id>`, "
    "a review `.../review/<id>` (`gh --json`: the id in the comment's URL, else its node id)",
    scope="the repository, in the issue's URL",
    reply_to="a comment: its issue (from `issue_url`); a review comment: the one it "
    "answers (`in_reply_to_id`)",
    subject="the issue's `title`",
    tags="the issue's labels; `system` on issue events (`[labeled bug]`, `[closed]`...)",
    extra="`html_url`, `author_association`, `state` (an issue's; a review's), "
    "`pull_request`, `merged_at`, `path`, `line`, `review` (a review comment's review id), "
    "`event`, `commit_id` (an issue event's)",
)

FORMATS = (
    Format("github", "forum", DESCRIPTION, ("*.json",), sniff_github, read, EXAMPLE, fields=FIELDS),
)
