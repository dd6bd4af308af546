"""A Slack huddle in an export: a ``huddle_thread`` message, posted by Slackbot with an
empty ``text`` (some with a ``blocks`` line, "A huddle started"), whose ``room`` says who
started it (``created_by``), who took part (``participant_history``) and when
(``date_start``, ``date_end``; 0 while it runs), as real exports and the API answers
hold it (zulip's Slack import fixtures, users' huddle trackers). Its thread holds the
messages sent during the huddle.

The record is the huddle: speaker the one who started it, listeners the others who took
part, the chunk ``[huddle] Ann, Ben (17 min)``, the room in ``extra.huddle``; it is
tagged ``system`` as other subtype messages are.
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str

SUBTYPE = "huddle_thread"
SLACKBOT = "USLACKBOT"


def starter(m: dict[str, Any]) -> str:
    """Who started a huddle (its room's ``created_by``), else ''."""
    return as_str(as_dict(m.get("room")).get("created_by")) if m.get("subtype") == SUBTYPE else ""


def huddle(m: dict[str, Any], users: dict[str, str]) -> tuple[str, list[str], dict[str, Any]]:
    """The huddle's chunk, the names of those who took part, and its room for ``extra``."""
    room = as_dict(m.get("room"))
    ids = [as_str(u) for u in as_list(room.get("participant_history") or room.get("participants"))]
    names = [users.get(u, u) for u in ids if u]
    start, end = room.get("date_start"), room.get("date_end")
    minutes = ""
    if isinstance(start, int | float) and isinstance(end, int | float) and end > start > 0:
        minutes = f"{max(1, round((end - start) / 60))} min"
    shown = ", ".join(names)
    detail = f"{shown} ({minutes})" if shown and minutes else shown or minutes
    kept = {
        k: room[k] for k in ("id", "name", "date_start", "date_end", "created_by") if room.get(k)
    }
    return f"[huddle] {detail}".rstrip(), names, {**kept, "participants": ids}
