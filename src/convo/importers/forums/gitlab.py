"""GitLab issue / merge request notes and discussions, REST API JSON (``gitlab``).

Shape (docs.gitlab.com/api/notes and docs.gitlab.com/api/discussions): ``GET
/projects/:id/issues/:iid/notes`` (and ``merge_requests``, ``epics``, ``snippets``) returns
``[{"id", "body", "author": {"id", "username", "name"}, "created_at", "updated_at",
"system", "noteable_id", "noteable_type": "Issue"|"MergeRequest"|..., "noteable_iid",
"project_id", "resolvable", "resolved"?, "confidential", "internal", "type":
null|"DiffNote"|"DiscussionNote", "position"?}]``; ``.../discussions`` returns ``[{"id",
"individual_note", "notes": [note, ...]}]``. A JSON array (streamed), JSONL, or one
object.

Decisions:
- speaker = ``author.username`` (``author.name`` in ``extra.author_name``); listeners = the
  ``@username`` mentions in the body, else (a reply in a discussion) the first note's author.
- thread = ``gitlab:<project_id>/<issues|merge_requests|...>/<noteable_iid>`` (the
  noteable's ``noteable_id`` when there is no iid); id = ``gitlab:note/<id>``; in a
  discussion the later notes reply to its first note; a first or single note replies to
  nothing (the issue itself is not in the file).
- System notes (``system: true``: "changed the description", "closed") are tagged
  ``system``; ``DiffNote`` positions, resolution state, ``confidential``/``internal`` go to
  ``extra``.
- timestamp = ``created_at``. Anything that is not a note (or a discussion of notes) is
  rejected with its location.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
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


def sniff(source: Source) -> int:
    text = json_head_with(source, '"noteable_')
    if not text:
        return 0
    items = [x for v in sample_values(text) for x in (v if isinstance(v, list) else [v])][:40]
    if items:
        good = sum(1 for x in items if _is_note(x) or _is_discussion(x))
        return 90 if good * 2 >= len(items) else 0
    return 80 if '"noteable_type"' in text and '"author"' in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        items = sample if isinstance(sample, list) else [sample]
        for k, item in enumerate(items, 1):
            here = sub(ctx, where, f"item-{k}") if isinstance(sample, list) else where
            if _is_discussion(item):
                yield from _discussion(item, here, ctx)
            elif _is_note(item):
                yield _note(item, here, None, None)
            else:
                ctx.reject(here, "not a GitLab note or discussion", item)


def _discussion(
    disc: dict[str, Any], where: str, ctx: ImportContext
) -> Iterator[ConversationMessage]:
    first: ConversationMessage | None = None
    for k, note in enumerate(disc["notes"], 1):
        loc = sub(ctx, where, f"note-{k}")
        if not _is_note(note):
            ctx.reject(loc, "not a GitLab note", note)
            continue
        rec = _note(note, loc, first.id if first else None, as_str(disc.get("id")) or None)
        if first is None:
            first = rec
        elif not rec.metadata.recipients and first.speaker and first.speaker != rec.speaker:
            rec.metadata.recipients = [first.speaker]
        yield rec


def _thread(note: dict[str, Any]) -> str:
    kind = KINDS.get(
        as_str(note.get("noteable_type")), as_str(note.get("noteable_type")).lower() or "notes"
    )
    number = as_str(note.get("noteable_iid")) or as_str(note.get("noteable_id"))
    return f"gitlab:{as_str(note.get('project_id')) or '?'}/{kind}/{number or '?'}"


def _note(
    note: dict[str, Any], where: str, reply_to: str | None, discussion: str | None
) -> ConversationMessage:
    author = note["author"]
    speaker = as_str(author.get("username")) or as_str(author.get("name"))
    body = as_str(note.get("body"))
    nid = as_str(note.get("id"))
    heard = [m for m in dict.fromkeys(_MENTION.findall(body)) if m != speaker and m != "all"]
    return message(
        body,
        speaker=speaker or None,
        listeners=heard,
        timestamp=iso_ts(note.get("created_at")),
        id=f"{NAME}:note/{nid}" if nid else None,
        source_id=where,
        format=NAME,
        thread=_thread(note),
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


DESCRIPTION = "GitLab issue/merge request notes and discussions (REST API JSON)"
EXAMPLE = (
    '[{"id": 302, "body": "LGTM @bob", "author": {"username": "alice"}, '
    '"created_at": "2024-01-02T10:00:00Z", "noteable_type": "Issue", "noteable_iid": 7, "project_id": 5}]'
)
FORMATS = (Format(NAME, "forum", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE),)
