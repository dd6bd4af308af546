"""GitLab issues, merge requests, their notes and discussions, REST API JSON (``gitlab``).

Shape (docs.gitlab.com/api/notes and docs.gitlab.com/api/discussions): ``GET
/projects/:id/issues/:iid/notes`` (and ``merge_requests``, ``epics``, ``snippets``) returns
``[{"id", "body", "author": {"id", "username", "name"}, "created_at", "updated_at",
"system", "noteable_id", "noteable_type": "Issue"|"MergeRequest"|..., "noteable_iid",
"project_id", "resolvable", "resolved"?, "confidential", "internal", "type":
null|"DiffNote"|"DiscussionNote", "position"?}]``; ``.../discussions`` returns ``[{"id",
"individual_note", "notes": [note, ...]}]``. The lists of issues and merge requests
(docs.gitlab.com/api/issues, ``GET /projects/:id/issues`` or ``/issues``, and
``/merge_requests``) hold ``[{"id", "iid", "project_id", "title", "description", "state",
"author", "assignees", "labels", "created_at", "closed_at", "web_url", "references",
"source_branch"? (a merge request), ...}]``. A JSON array (streamed), JSONL, or one
object (one issue, as ``GET /projects/:id/issues/:iid`` gives it).

Decisions:
- speaker = ``author.username`` (``author.name`` in ``extra.author_name``); listeners = the
  ``@username`` mentions in the body, else (a reply in a discussion) the first note's author.
- thread = ``gitlab:<host>:<project_id>/<issues|merge_requests|...>/<noteable_iid>``
  (the noteable's ``noteable_id`` when there is no iid); id = ``gitlab:<host>:note/<id>``;
  in a discussion the later notes reply to its first note; a first or single note
  replies to nothing (the issue itself is not in the file).
- Ids and their scope (docs/ids.md): note and project ids are numbered per GitLab
  instance (gitlab.com and every self-managed one), so an id names its instance: the
  host of the author's ``web_url`` (every note's author has one in the API), else the
  last such host in the file, else the folder the file sits in; from standard input with neither, no scope (``gitlab:note/<id>``, with
  a warning).
- System notes (``system: true``: "changed the description", "closed") are tagged
  ``system``; ``DiffNote`` positions, resolution state, ``confidential``/``internal`` go to
  ``extra``.
- An issue or merge request is one message, the opening post of its thread: text = its
  title, a blank line and its description; speaker = ``author.username``; listeners =
  the ``@mentions`` of the description; tags = its ``labels``; thread = the one its notes
  have (``gitlab:<project_id>/issues/<iid>``; ``merge_requests`` for one with a
  ``source_branch`` or a ``/merge_requests/`` URL); id = ``gitlab:issue/<id>`` or
  ``gitlab:merge_request/<id>`` (GitLab's ``id``, unique on its instance as a note's is:
  the id's scope is the instance, as for notes); ``state``, ``web_url``, ``closed_at``,
  the assignees' usernames, ``milestone`` title, ``user_notes_count`` in ``extra``.
- timestamp = ``created_at``. Anything that is not a note (or a discussion of notes),
  an issue or a merge request is rejected with its location.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import clean_scope, folder_scope, message, scoped_id, source_scope
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import body_text
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "gitlab"
KINDS = {
    "Issue": "issues",
    "MergeRequest": "merge_requests",
    "Epic": "epics",
    "Snippet": "snippets",
}
_MENTION = re.compile(r"(?<![\w.`])@([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_])")


def _is_note(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("author"), dict)
        and "body" in obj
        and ("noteable_type" in obj or "noteable_id" in obj)
    )


def _is_discussion(obj: Any) -> bool:
    return isinstance(obj, dict) and "individual_note" in obj and isinstance(obj.get("notes"), list)


def _is_issue(obj: Any) -> bool:
    """An issue or merge request of the REST API (its project, its number, its text)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("author"), dict)
        and "iid" in obj
        and "project_id" in obj
        and "title" in obj
        and "description" in obj
    )


def sniff(source: Source) -> int:
    text = json_head_with(source, '"noteable_') or json_head_with(source, '"iid"')
    if not text:
        return 0
    items = [x for v in sample_values(text) for x in (v if isinstance(v, list) else [v])][:40]
    if items:
        good = sum(1 for x in items if _is_gitlab(x))
        return 90 if good * 2 >= len(items) else 0
    if '"noteable_type"' in text and '"author"' in text:
        return 80
    return 80 if all(k in text for k in _ISSUE_KEYS) else 0


_ISSUE_KEYS = ('"project_id"', '"description"', '"author"', '"web_url"')


def _is_gitlab(obj: Any) -> bool:
    return _is_note(obj) or _is_discussion(obj) or _is_issue(obj)


def _host(note: dict[str, Any]) -> str | None:
    url = as_str(as_dict(note.get("author")).get("web_url"))
    return urlsplit(url).hostname if url.startswith(("http://", "https://")) else None


class _Instance:
    """The scope of the notes' ids: each note's host, else the last host seen in the
    file (one file is one instance's), else the source's folder."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source, self.ctx = source, ctx
        self.folder = folder_scope(source)
        self.last: str | None = None
        self.warned = self.folder is not None

    def of(self, note: dict[str, Any]) -> str | None:
        host = clean_scope(_host(note))
        if host is not None:
            self.last = host
            return host
        if self.last is None and not self.warned:
            self.warned = True  # source_scope says once that the ids are unscoped
            return source_scope(
                self.source, self.ctx, None, what="instance", example="gitlab:note/<id>"
            )
        return self.last or self.folder


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    inst = _Instance(source, ctx)
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        items = sample if isinstance(sample, list) else [sample]
        for k, item in enumerate(items, 1):
            here = sub(ctx, where, f"item-{k}") if isinstance(sample, list) else where
            if _is_discussion(item):
                yield from _discussion(item, here, ctx, inst)
            elif _is_note(item):
                yield _note(item, here, None, (None, inst.of(item)))
            elif _is_issue(item):
                yield _issue(item, here, inst.of(item))
            else:
                ctx.reject(here, "not a GitLab issue, merge request, note or discussion", item)


def _discussion(
    disc: dict[str, Any], where: str, ctx: ImportContext, inst: _Instance
) -> Iterator[ConversationMessage]:
    first: ConversationMessage | None = None
    for k, note in enumerate(disc["notes"], 1):
        loc = sub(ctx, where, f"note-{k}")
        if not _is_note(note):
            ctx.reject(loc, "not a GitLab note", note)
            continue
        facts = (as_str(disc.get("id")) or None, inst.of(note))
        rec = _note(note, loc, first.id if first else None, facts)
        if first is None:
            first = rec
        elif not rec.metadata.recipients and first.speaker and first.speaker != rec.speaker:
            rec.metadata.recipients = [first.speaker]
        yield rec


def _thread(note: dict[str, Any], host: str | None) -> str:
    kind = KINDS.get(
        as_str(note.get("noteable_type")), as_str(note.get("noteable_type")).lower() or "notes"
    )
    number = as_str(note.get("noteable_iid")) or as_str(note.get("noteable_id"))
    project = as_str(note.get("project_id")) or "?"
    return scoped_id(NAME, host, f"{project}/{kind}/{number or '?'}")


def _note(
    note: dict[str, Any], where: str, reply_to: str | None, facts: tuple[str | None, str | None]
) -> ConversationMessage:
    """A note as a message; ``facts`` = its discussion's id and its instance's host."""
    discussion, host = facts
    author = note["author"]
    speaker = as_str(author.get("username")) or as_str(author.get("name"))
    body = body_text(note.get("body"))
    nid = as_str(note.get("id"))
    heard = _heard(body, speaker)
    return message(
        body,
        speaker=speaker or None,
        listeners=heard,
        timestamp=iso_ts(note.get("created_at")),
        id=scoped_id(NAME, host, f"note/{nid}") if nid else None,
        source_id=where,
        format=NAME,
        thread=_thread(note, host),
        reply_to=reply_to,
        tags=[SYSTEM_TAG] if note.get("system") else [],
        extra={
            "author_name": as_str(author.get("name")),
            "type": as_str(note.get("type")),
            "discussion": discussion,
            "position": as_dict(note.get("position")),
            "resolved": note.get("resolved") if note.get("resolvable") else None,
            "confidential": True if note.get("confidential") or note.get("internal") else None,
            "updated_at": as_str(note.get("updated_at"))
            if note.get("updated_at") != note.get("created_at")
            else None,
            "attachment": note.get("attachment"),
            "suggestions": as_list(note.get("suggestions")),
        },
    )


def _heard(body: str, speaker: str) -> list[str]:
    """The @-mentioned users of ``body``, its speaker and ``@all`` left out."""
    return [m for m in dict.fromkeys(_MENTION.findall(body)) if m != speaker and m != "all"]


def _issue(issue: dict[str, Any], where: str, host: str | None) -> ConversationMessage:
    """An issue or merge request: the opening post of its thread (the thread its notes
    name, scoped by the instance's ``host`` as they are)."""
    url = as_str(issue.get("web_url"))
    is_mr = "source_branch" in issue or "/merge_requests/" in url
    kind = "merge_requests" if is_mr else "issues"
    speaker = as_str(issue["author"].get("username")) or as_str(issue["author"].get("name"))
    title, body = as_str(issue.get("title")), body_text(issue.get("description"))
    heard = _heard(body, speaker)
    gid = as_str(issue.get("id"))
    return message(
        f"{title}\n\n{body}".strip(),
        speaker=speaker or None,
        listeners=heard,
        timestamp=iso_ts(issue.get("created_at")),
        id=scoped_id(NAME, host, f"{kind[:-1]}/{gid}") if gid else None,
        source_id=where,
        format=NAME,
        thread=scoped_id(
            NAME,
            host,
            f"{as_str(issue.get('project_id')) or '?'}/{kind}/{as_str(issue.get('iid'))}",
        ),
        subject=title or None,
        tags=[t for t in (as_str(x) for x in as_list(issue.get("labels"))) if t],
        extra=_issue_extra(issue, url),
    )


def _issue_extra(issue: dict[str, Any], url: str) -> dict[str, Any]:
    assignees = [as_str(as_dict(a).get("username")) for a in as_list(issue.get("assignees"))]
    return {
        "author_name": as_str(issue["author"].get("name")),
        "state": as_str(issue.get("state")),
        "web_url": url,
        "closed_at": as_str(issue.get("closed_at")),
        "assignees": [a for a in assignees if a],
        "milestone": as_str(as_dict(issue.get("milestone")).get("title")),
        "user_notes_count": issue.get("user_notes_count"),
        "confidential": True if issue.get("confidential") else None,
    }


DESCRIPTION = "GitLab issues, merge requests, their notes and discussions (REST API JSON)"
EXAMPLE = (
    '[{"id": 302, "body": "LGTM @bob", "author": {"username": "alice"}, '
    '"created_at": "2024-01-02T10:00:00Z", "noteable_type": "Issue", "noteable_iid": 7, "project_id": 5}]'
)
FIELDS = Fields(
    speaker="`author.username`",
    listeners="the `@username` mentions, else (a reply in a discussion) the first note's author",
    time="`created_at`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="`gitlab:<host>:<project>/<kind>/<iid>` (`issues`, `merge_requests`...)",
    id="`gitlab:<host>:note/<id>`; an issue or merge request `gitlab:<host>:issue/<id>`, "
    "`gitlab:<host>:merge_request/<id>`",
    scope="the instance: the host of the author's `web_url` (else the last one in the "
    "file), else the folder; standard input: none (`gitlab:note/<id>`, with a warning)",
    reply_to="a later note of a discussion: its first note",
    tags="`system` on system notes; an issue's `labels`",
    extra="`author_name`, `position` (diff notes), resolution, `confidential`/`internal`; "
    "an issue's `state`, `web_url`, `closed_at`, assignees, `milestone`",
)

FORMATS = (
    Format(NAME, "forum", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
