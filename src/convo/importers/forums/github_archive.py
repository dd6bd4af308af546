"""GitHub's migration archive: what "Export account data" (a user's settings) and an
organization's migration (``gh api orgs/ORG/migrations``, GitHub Enterprise Importer's
``ghe-migrator``) download, a tarball of ``issues_000001.json``,
``issue_comments_000001.json``, ``pull_requests_000001.json``,
``pull_request_review_comments_000001.json``, ``pull_request_reviews_000001.json``...
(arrays; archives made by migration tools hold one object a file).

Each object says what it is in ``type`` and names everything by URL: ``url`` (its page:
``.../issues/N``, ``.../pull/N``, ``...#issuecomment-ID``, ``...#discussion_rID``,
``...#pullrequestreview-ID``), ``user`` (``https://github.com/LOGIN``, or a bare name
in archives made by migration tools), ``issue`` / ``pull_request`` (the page it is on),
``labels`` (``.../labels/NAME``, URL-quoted), ``created_at``.

Records are the REST reader's (``convo.importers.forums.github``): an issue or pull
request ``github:OWNER/REPO#N`` (the thread; its title the subject, its labels tags), a
comment ``.../comment/ID``, a review comment ``.../comment/ID`` too (as the REST API's
id), a review ``.../review/ID``, each replying to its issue (a review comment to the one
its ``in_reply_to`` names). The archive's other objects (repositories, users, teams,
milestones, attachments, issue events) are no messages: counted in one warning.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import unquote

from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.forums.common import Tally, as_str, body_text, message, record_error

FMT = "github"
_PAGE = re.compile(r"https?://[^/]+/([^/]+/[^/]+)/(?:issues|pull)/(\d+)(?:#([a-z_]+?)-?r?(\d+))?$")
THREADS = ("issue", "pull_request")
REPLIES = {
    "issue_comment": "comment",
    "pull_request_review_comment": "comment",
    "pull_request_review": "review",
}


def is_archive(record: dict[str, Any]) -> bool:
    """An object of the migration archive: a ``type`` and a ``url`` that are strings, no
    ``id`` (the REST API's objects have one)."""
    return (
        isinstance(record.get("type"), str)
        and isinstance(record.get("url"), str)
        and "id" not in record
        and "number" not in record
    )


def _login(value: Any) -> str | None:
    """``https://github.com/LOGIN`` (or a bare name) → ``LOGIN``."""
    text = as_str(value)
    if not text:
        return None
    return text.rstrip("/").rsplit("/", 1)[-1] if "://" in text else text


def archive_message(
    record: dict[str, Any], where: str, tally: Tally, ctx: ImportContext, skipped: Counter[str]
) -> ConversationMessage | None:
    """The message of one archive object; None (counted in ``skipped``) for one that is
    no message."""
    kind = record["type"]
    if kind not in THREADS and kind not in REPLIES:
        skipped[kind] += 1
        return None
    m = _PAGE.match(record["url"])
    if m is None:
        raise record_error(where, f"GitHub archive {kind} without its page URL")
    if kind in THREADS:
        return _thread(record, kind, m, tally, ctx)
    if m.group(4) is None:
        raise record_error(where, f"GitHub archive {kind} without its id in its URL")
    return _reply(record, kind, m, tally, ctx)


def _thread(
    record: dict[str, Any], kind: str, m: re.Match[str], tally: Tally, ctx: ImportContext
) -> ConversationMessage:
    repo, number = m.group(1), m.group(2)
    ident = f"github:{repo}#{number}"
    title = as_str(record.get("title")) or ""
    labels = [
        unquote(x.rsplit("/", 1)[-1]) for x in record.get("labels") or () if isinstance(x, str)
    ]
    return message(
        FMT, body_text(record.get("body")) or title, tally.speaker(_login(record.get("user"))),
        timestamp=tally.iso(record.get("created_at")), source_id=ctx.loc(f"{repo}#{number}"),
        id=ident, thread=ident, subject=title, tags=labels,
        extra={"number": int(number), "html_url": record["url"],
               "closed_at": as_str(record.get("closed_at")),
               "pull_request": True if kind == "pull_request" else None},
    )  # fmt: skip


def _reply(
    record: dict[str, Any], kind: str, m: re.Match[str], tally: Tally, ctx: ImportContext
) -> ConversationMessage:
    repo, number, sub = m.group(1), m.group(2), m.group(4)
    ident = f"github:{repo}#{number}"
    what = REPLIES[kind]
    answers = _PAGE.match(as_str(record.get("in_reply_to")) or "")
    parent = answers.group(4) if answers else None
    state = as_str(record.get("state")) if what == "review" else None
    return message(
        FMT, body_text(record.get("body")) or (f"[review {state}]" if state else ""),
        tally.speaker(_login(record.get("user"))),
        timestamp=tally.iso(record.get("created_at") or record.get("submitted_at")),
        source_id=ctx.loc(f"{repo}#{number}/{what}-{sub}"), id=f"{ident}/{what}/{sub}",
        thread=ident, reply_to=f"{ident}/comment/{parent}" if parent else ident,
        extra={"html_url": record["url"], "state": state, "path": as_str(record.get("path"))},
    )  # fmt: skip


def archive_note(skipped: Counter[str]) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in skipped.most_common())
    return f"{counted(sum(skipped.values()), 'migration-archive object')} that {plural(sum(skipped.values()), 'is', 'are')} no message left out ({kinds})"
