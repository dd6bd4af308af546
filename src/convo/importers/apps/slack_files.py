"""The files of a Slack export beside its channel folders' day files, for
``convo.importers.apps.slack``: the metadata it reads (users, conversation lists), and
the files it holds that are no messages, recognised so that ingesting one of them says
what it is instead of "format not recognised".

- ``integration_logs.json`` (``{"logs": [{"user_name", "change_type", "app_type",
  ...}]}``): every official export holds it (sebseager/slack-exporter issue 5 lists an
  export's files).
- ``canvases.json`` and ``canvas_in_the_conversation.json`` (a canvas a channel holds,
  in its folder beside the day files): exports since canvases (2023) hold them, and
  readers of exports pass them over (zulip's Slack import, slacklog-generator pull
  request 169, several archivers): a canvas is a document, not messages. In an export
  folder or zip they are counted in one warning, not read.
"""

from __future__ import annotations

import re

from convo.core.plural import counted
from convo.importers.jsoninput import has_key

META_FILES = ("users.json", "channels.json", "groups.json", "dms.json", "mpims.json")
_CONV_ID = re.compile(r'"id"\s*:\s*"[CDG][A-Z0-9]{6,}"')
# The export's files that hold no messages, and what each is.
OTHER_FILES = {
    "integration_logs.json": "integration log",
    "canvases.json": "list of canvases",
    "canvas_in_the_conversation.json": "channel canvas",
}
CANVAS = "canvas_in_the_conversation.json"


def is_metadata(text: str, name: str) -> bool:
    """A users or conversations list: by its name, or by the keys every one has."""
    if name in META_FILES:
        return True
    if has_key(text, "members") and has_key(text, "created") and _CONV_ID.search(text):
        return True
    return has_key(text, "team_id") and has_key(text, "profile") and has_key(text, "real_name")


def canvases_note(n: int) -> str:
    """What an export's ``n`` channel canvases are said to be: not read."""
    return f"{counted(n, 'channel canvas', 'channel canvases')} ({CANVAS}) not read: no messages"


def no_messages(name: str, n: int, has_messages: bool) -> str:
    """What a single file of ``n`` elements, none a message, is said to be ('' when it
    holds messages): metadata (slackdump writes ``[]`` for an empty ``dms.json``), or an
    empty day list, said as an empty file is."""
    if (n and not has_messages) or (not n and name in META_FILES):
        return (
            "Slack export metadata (users/channels list), no messages; ingest the export "
            "folder or .zip"
        )
    return "" if n else "an empty Slack message list; nothing imported"


def other_file(name: str, text: str) -> str:
    """What an export file that holds no messages is (``OTHER_FILES``), else ''. By its
    name, and its shape: the integration log an object with ``logs``, a canvas list an
    array."""
    what = OTHER_FILES.get(name, "")
    if name == "integration_logs.json":
        return what if text.startswith("{") and has_key(text, "logs") else ""
    return what if text.startswith("[") else ""
