"""GitHub activity and issue events, beside the issues and comments of
``convo.importers.forums.github``.

Activity events (the Events API: ``/events``, ``/users/NAME/events``,
``/repos/O/R/events``; GH Archive's hourly dumps, one event a line) wrap what happened
in ``{"id", "type", "actor", "repo", "payload", "created_at"}``. The events that carry
a message are read as that message: an ``IssueCommentEvent``'s or
``PullRequestReviewCommentEvent``'s ``payload.comment`` (an old event's comment names
no ``issue_url``: its ``payload.issue``'s), a ``PullRequestReviewEvent``'s
``payload.review``, the issue or pull request an ``IssuesEvent`` or ``PullRequestEvent``
``opened`` (its author the event's ``actor`` when the object names none). The others (a
push, a star, an issue closed or edited: the issue again, as it then was) hold no new
message: counted by type, said in one warning per file.

Issue events (``issues/N/timeline``, ``issues/N/events``, ``issues/events``: ``{"event":
"labeled", "actor", "created_at", ...}``) are kept as messages tagged ``system``:
``[labeled bug]``, ``[assigned ann]``, ``[closed]``, ``[renamed "a" to "b"]``,
``[cross-referenced from o/r#12]``, ``[committed 1a2b3c4] message``; a timeline's
``commented`` and ``reviewed`` items are the comments and reviews they are, a
``line-commented`` item its review comments. The speaker is the ``actor`` (a commit's
author), the id ``github:event/<id>`` (GitHub's event ids are unique everywhere; an
event without one: a content hash), the thread the issue: its ``issue`` or
``issue_url``, else (a timeline's events name none) the issue the file's comments name.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from convo.core.plural import counted, plural
from convo.importers.forums.common import as_str

# An activity event's type -> the payload key of the message it carries.
_CARRIES = {
    "IssueCommentEvent": "comment",
    "PullRequestReviewCommentEvent": "comment",
    "PullRequestReviewEvent": "review",
    "IssuesEvent": "issue",
    "PullRequestEvent": "pull_request",
}
_OPENED = ("opened", None)


def is_activity(record: dict[str, Any]) -> bool:
    """Whether an object is an activity event (Events API, GH Archive)."""
    return isinstance(record.get("payload"), dict) and isinstance(record.get("type"), str)


def activity_message(record: dict[str, Any], skipped: Counter[str]) -> dict[str, Any] | None:
    """The issue, comment or review an activity event carries (in the REST API's shape),
    or None (counted in ``skipped`` by the event's type)."""
    kind = as_str(record.get("type")) or "?"
    payload: dict[str, Any] = record["payload"]
    key = _CARRIES.get(kind)
    obj = payload.get(key) if key else None
    action = payload.get("action")
    if key in ("issue", "pull_request") and action not in _OPENED:
        obj = None  # the issue again, as it was when closed, edited, labeled...
    if not isinstance(obj, dict):
        skipped[f"{kind} {action}" if key and isinstance(action, str) else kind] += 1
        return None
    obj = dict(obj)
    if not isinstance(obj.get("user"), dict) and isinstance(record.get("actor"), dict):
        obj["user"] = record["actor"]
    if key != "issue" and "issue_url" not in obj and "pull_request_url" not in obj:
        issue = _obj(payload.get("issue") or payload.get("pull_request"))
        if as_str(issue.get("url")):
            obj["issue_url"] = issue["url"]  # an old event's comment: its issue's URL
    return obj


def skipped_note(skipped: Counter[str]) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in skipped.most_common())
    n = sum(skipped.values())
    return f"{counted(n, 'activity event')} that {plural(n, 'holds', 'hold')} no new message left out ({kinds})"


def is_issue_event(record: dict[str, Any]) -> bool:
    """Whether an object is an issue event of a timeline or an events list."""
    return isinstance(record.get("event"), str) and "issue_url" not in record


def event_text(record: dict[str, Any]) -> str:
    """An issue event as a line: ``[labeled bug]``, ``[committed 1a2b3c4] message``..."""
    kind = as_str(record.get("event")) or "event"
    detail = _detail(kind, record)
    text = f"[{kind} {detail}]" if detail else f"[{kind}]"
    if kind == "committed":
        text += f" {as_str(record.get('message')) or ''}".rstrip()
    return text


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _name(value: Any, key: str = "login") -> str:
    return (as_str(value.get(key)) or "") if isinstance(value, dict) else ""


def _detail(kind: str, record: dict[str, Any]) -> str:
    """What an event names beside its kind: a label, a user, a commit, a source issue."""
    if kind in ("labeled", "unlabeled"):
        return _name(record.get("label"), "name")
    if kind in ("assigned", "unassigned"):
        return _name(record.get("assignee"))
    if kind in ("review_requested", "review_request_removed"):
        return _name(record.get("requested_reviewer")) or _name(
            record.get("requested_team"), "name"
        )
    if kind in ("milestoned", "demilestoned"):
        return _name(record.get("milestone"), "title")
    if kind == "renamed":
        rename = _obj(record.get("rename"))
        return f'"{_name(rename, "from")}" to "{_name(rename, "to")}"'
    if kind == "cross-referenced":
        return f"from {_name(_obj(record.get('source')).get('issue'), 'html_url') or '?'}"
    sha = as_str(record.get("sha")) or as_str(record.get("commit_id")) or ""
    return sha[:7]


def event_speaker(record: dict[str, Any]) -> str:
    """Who did it: the ``actor``, else (a commit) its author's name."""
    return (
        _name(record.get("actor"))
        or _name(record.get("user"))
        or _name(record.get("author"), "name")
    )


def event_time(record: dict[str, Any]) -> Any:
    author = record.get("author")
    return record.get("created_at") or (author.get("date") if isinstance(author, dict) else None)
