"""Google Chat in Google Takeout: ``Google Chat/Groups/<DM or Space>/messages.json``
(``google-chat``).

Shape (Takeout's Google Chat export, as read by users' converters found with the code
search): ``{"messages": [{"creator": {"name", "email", "user_type"}, "created_date":
"Tuesday, March 1, 2022 at 10:00:00 AM UTC", "updated_date"?, "text", "topic_id",
"message_id", "annotations"?, "attached_files"?: [{"original_name", "export_name"}],
"reactions"?: [{"emoji": {"unicode"}, "reactor_emails"}], "quoted_message_metadata"?,
"message_state"?, "deleted_date"?}]}``, with ``group_info.json`` beside it (``{"name"?,
"members": [{"name", "email", "user_type"}]}``). Newer exports put a narrow no-break
space before AM/PM.

Decisions:
- speaker = ``creator.name`` (else the email); listeners = the group's other members from
  ``group_info.json`` (else the other people seen writing in the file so far).
- text = ``text``; attached files ``[file NAME]`` chunks; a quoted message's text in
  ``extra.quoted``; reactions, annotations and the author's email in ``extra``.
- timestamp = ``created_date`` (its " at " and narrow spaces normalised, then read as any
  date; in the account's language when not English: ``2015. február 15., vasárnap
  21:54:36 UTC``, ``takeout_dates``; one it cannot read is warned); thread = the group's ``name`` (else its folder name, ``DM xxx`` / ``Space xxx``),
  ``extra.topic_id`` keeps the Space thread; id = ``gchat:<message_id>``.
- A deleted or empty message (no text, no file) is skipped and counted in one warning;
  something that is not a message object is rejected. ``messages`` is streamed.
- The export's other files are recognised so that ingesting the whole ``Google Chat``
  folder reads every group and exits 0: ``group_info.json`` (read with the
  ``messages.json`` beside it; alone, or beside none, a warning says it holds no
  messages) and ``Users/User <id>/user_info.json`` (``{"user", "membership_info":
  [{"group_id", "group_name"?, "membership_state"}]}``: the account's memberships, no
  messages; read silently). Checked against the Takeout layout as documented with a
  real export's samples (docs/formats.md, "Checked against the exporters").

Ids and their scope (docs/ids.md): ``message_id`` starts with the group's id
(``AAAA.../topic/msg``), so it is unique everywhere (``gchat:<message_id>``, no scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import EmptyCounter
from convo.importers.apps.takeout_dates import localized_date
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "google-chat"
_AT = re.compile(r"(\d{4}) at ")


GROUP_INFO = "group_info.json"
USER_INFO = "user_info.json"


def sniff(source: Source) -> int:
    text = json_head_with(source, key="messages", opens="{")
    if text:
        if has_key(text, "creator") and (
            has_key(text, "topic_id") or has_key(text, "created_date")
        ):
            return 90
        return 0
    return 80 if _sidecar(source) else 0


def _sidecar(source: Source) -> str:
    """``group_info.json`` or ``user_info.json`` when ``source`` is one (by its name and
    the keys every such file has); "" otherwise."""
    name = source.match_name
    if name == GROUP_INFO:
        text = json_head_with(source, key="members", opens="{")
        return GROUP_INFO if text and has_key(text, "user_type") else ""
    if name == USER_INFO:
        text = json_head_with(source, key="membership_info", opens="{")
        return USER_INFO if text and has_key(text, "user") else ""
    return ""


def created(value: Any) -> str | None:
    """``Tuesday, March 1, 2022 at 10:00:00\u202fAM UTC`` as a record timestamp; a date
    in the account's other language (``2015. február 15., vasárnap 21:54:36 UTC``) by
    ``takeout_dates``."""
    text = as_str(value).replace("\u202f", " ").replace("\u00a0", " ")
    return iso_ts(_AT.sub(r"\1 ", text)) or localized_date(text)


def _group(source: Source) -> tuple[str, list[str]]:
    """(name, member names) from ``group_info.json`` beside the file, when there is one."""
    folder = source.path.parent if source.path is not None and not source.is_stdin else None
    info: dict[str, Any] = {}
    if folder is not None and (folder / "group_info.json").is_file():
        try:
            info = as_dict(load_json(Source(folder / "group_info.json")))
        except InputError:
            info = {}
    members = [
        as_str(m.get("name")) or as_str(m.get("email"))
        for m in map(as_dict, as_list(info.get("members")))
    ]
    name = as_str(info.get("name")) or (folder.name if folder is not None else "")
    return name, [m for m in members if m]


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    kind = _sidecar(source)
    if kind:
        _read_sidecar(source, kind, ctx)
        return
    doc = StreamedDoc(source, ("messages",))
    doc.expect("not a Google Chat messages.json (no messages list)")
    name, members = _group(source)
    seen: dict[str, None] = dict.fromkeys(members)
    empty = EmptyCounter()
    for msg, line in doc.items():
        where = ctx.loc(line)
        if not isinstance(msg, dict) or not isinstance(msg.get("creator"), dict):
            ctx.reject(where, "not a Google Chat message (no creator)", msg)
            continue
        rec = _message(msg, where, name or source.name, seen)
        if rec is None:
            empty.skip(where)
            continue
        if rec.timestamp is None:
            ctx.warn(where, f"unreadable created_date {as_str(msg.get('created_date'))[:80]!r}")
        yield rec
    empty.report(ctx, "deleted or empty messages")


def _read_sidecar(source: Source, kind: str, ctx: ImportContext) -> None:
    """A ``group_info.json`` beside its ``messages.json`` (which reads it) or a
    ``user_info.json`` yields nothing; a lone ``group_info.json`` says so in a warning."""
    folder = source.path.parent if source.path is not None and not source.is_stdin else None
    if kind == GROUP_INFO and (folder is None or not (folder / "messages.json").is_file()):
        ctx.warn(
            ctx.loc(1),
            "a Google Chat group_info.json holds no messages (the group's members); "
            "ingest the messages.json beside it",
        )


def _message(
    msg: dict[str, Any], where: str, thread: str, seen: dict[str, None]
) -> ConversationMessage | None:
    creator = msg["creator"]
    speaker = as_str(creator.get("name")) or as_str(creator.get("email"))
    seen.setdefault(speaker, None)
    files = [as_dict(f) for f in as_list(msg.get("attached_files"))]
    chunks = [as_str(msg.get("text"))] + [
        f"[file {as_str(f.get('original_name')) or as_str(f.get('export_name'))}]" for f in files
    ]
    if not any(c.strip() for c in chunks):
        return None
    quoted = as_dict(msg.get("quoted_message_metadata"))
    mid = as_str(msg.get("message_id"))
    return message(
        chunks,
        speaker=speaker or None,
        listeners=[p for p in seen if p != speaker],
        timestamp=created(msg.get("created_date")),
        id=f"gchat:{mid}" if mid else None,
        source_id=where,
        format=NAME,
        thread=thread,
        tags=["bot"] if as_str(creator.get("user_type")) == "Bot" else [],
        extra={
            "email": as_str(creator.get("email")),
            "topic_id": as_str(msg.get("topic_id")),
            "updated_date": as_str(msg.get("updated_date")),
            "quoted": as_str(quoted.get("text")) or quoted or None,
            "reactions": as_list(msg.get("reactions")),
            "annotations": as_list(msg.get("annotations")),
            "attached_files": files,
        },
    )


DESCRIPTION = (
    "Google Chat in Google Takeout (Groups/*/messages.json, group_info.json; "
    "Users/*/user_info.json is recognised and holds no messages)"
)
EXAMPLE = (
    '{"messages": [{"creator": {"name": "Alice", "email": "a@x.com", "user_type": "Human"}, '
    '"created_date": "Tuesday, March 1, 2022 at 10:00:00 AM UTC", "text": "hi", "topic_id": "t1"}]}'
)
FIELDS = Fields(
    speaker="`creator.name` (else the email)",
    listeners="the group's other members from `group_info.json` (else the others seen "
    "writing so far)",
    time="`created_date` (`Tuesday, March 1, 2022 at 10:00:00 AM UTC`, or in the account's "
    "language: `2015. február 15., vasárnap 21:54:36 UTC`)",
    zone="the zone the date names (UTC); a date without one is read as UTC",
    thread="the group's `name` (else its folder, `DM xxx` / `Space xxx`)",
    id="`gchat:<message_id>`",
    scope="none: `message_id` starts with the group's id",
    tags="`bot` when the creator's `user_type` is `Bot`",
    extra="`email`, `topic_id`, `updated_date`, `quoted`, `reactions`, `annotations`, "
    "`attached_files`",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("messages.json", GROUP_INFO, USER_INFO),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
