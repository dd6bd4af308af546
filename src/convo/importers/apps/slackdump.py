"""slackdump's own archive (``slackdump archive``): its SQLite database and its chunk
files (``slackdump``).

Current slackdump writes ``slackdump.sqlite`` (tables ``CHUNK``, ``MESSAGE``, ``CHANNEL``,
``S_USER``, ``CHANNEL_USER``, ``WORKSPACE``, each row's ``DATA`` the API's JSON; read by
``convo.importers.apps.slackdump_db``, each message's latest copy, channel by channel);
earlier versions wrote chunk files:

Shape (rusq/slackdump ``cmd/slackdump/internal/man/assets/chunk.md``, ``internal/chunk``):
gzip-compressed JSONL, one API answer a line: ``{"t": type, "ts": nanoseconds, "id":
channel, "n": count, "r": thread_ts, "l": last, "p": thread parent, "m": [messages],
"u": [users], "ci": channel info, "ch": [channels], "cu": [channel user ids], "w":
workspace}``, type 0 = ``conversations.history`` (newest first), 1 =
``conversations.replies`` (a thread's replies; its first message in ``p``), 3 = users, 4
= channels, 5 = channel info, 6 = workspace, 7 = channel users (2, 8-11: files, stars,
bookmarks, searches, holding no conversation). An archive folder holds one
``<channel id>.json.gz`` per conversation beside ``users.json.gz``, ``channels.json.gz``
and ``workspace.json.gz``; older versions wrote one ``chunks.jsonl.gz``. The messages
are the Slack API's, as in an export.

Decisions:
- Two passes over the file: the first learns users (type 3 here and in
  ``users.json.gz`` beside), channels (types 4, 5, 7) and which channels have history;
  the second reads the messages, each chunk through the Slack export's reader
  (``convo.importers.apps.slack.channel_messages``), so the records are the export's:
  same names, mrkdwn rendering, ``system`` subtypes, ids ``slack:<channel id>:<ts>``
  (an archive and an export of one channel give the same ids) and ``format: slack``.
- A history chunk is read oldest first; a thread's parent (``p``) is read only when its
  channel has no history in the file (an archive of threads alone), else it is the
  history's copy; a reply also sent to the channel (``thread_broadcast``) is read once,
  from the history. Locations: ``FILE:LINE#N``, the Nth message of the chunk's ``m``
  (``#p`` its parent).
- A chunk file with no messages (``users.json.gz``, ``workspace.json.gz``...) is
  recognised and says so in a warning. A line that is not a chunk is rejected with its
  line number.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from convo.core.io import Source
from convo.core.jsonl import iter_lines
from convo.core.record import ConversationMessage
from convo.importers.apps.common import EmptyCounter
from convo.importers.apps.slack import channel_messages
from convo.importers.apps.slack_names import Conv, user_names
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "slackdump"
_DB_MAGIC = b"SQLite format 3\x00"
_HISTORY, _THREAD, _USERS, _CHANNELS, _INFO, _WORKSPACE, _MEMBERS = 0, 1, 3, 4, 5, 6, 7


def _is_chunk(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and type(value.get("t")) is int
        and 0 <= value["t"] <= 11
        and type(value.get("ts")) is int
    )


def sniff(source: Source) -> int:
    if source.head.startswith(_DB_MAGIC):
        from convo.importers.apps import slackdump_db  # sqlite3 only for a database

        return 90 if slackdump_db.is_archive(source) else 0
    head = json_head(source)
    if not head.startswith('{"t":'):
        return 0
    first = head.split("\n", 1)[0]
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return 0
    return 90 if _is_chunk(value) else 0


def _open(source: Source) -> BinaryIO:
    """The source from its start; standard input spooled (read twice: two passes)."""
    if source.is_stdin:
        return open(source.real_path(), "rb")
    return source.open()


def _chunks(
    source: Source, ctx: ImportContext, *, report: bool
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each chunk with its line number (``report``: bad lines rejected, once)."""
    with _open(source) as stream:
        for line in iter_lines(stream):
            try:
                value = orjson.loads(line.raw)
            except orjson.JSONDecodeError:
                value = None
            if _is_chunk(value):
                yield line.number, value
            elif report and line.raw.strip():
                ctx.reject(f"{source.name}:{line.number}", "not a slackdump chunk", line.raw)


class _Archive:
    """What the first pass learns."""

    def __init__(self) -> None:
        self.users: dict[str, str] = {}
        self.convs: dict[str, Conv] = {}
        self.members: dict[str, list[str]] = {}
        self.with_history: set[str] = set()
        self.broadcasts: dict[str, set[str]] = {}  # channel -> ts of its broadcast replies
        self.owner = ""
        self.messages = 0

    def learn(self, c: dict[str, Any]) -> None:
        t = c["t"]
        if t == _USERS:
            self.users.update(user_names(c.get("u")))
        elif t in (_INFO, _CHANNELS):
            for ch in [c.get("ci")] if t == _INFO else as_list(c.get("ch")):
                self._channel(as_dict(ch))
        elif t == _MEMBERS:
            self.members[as_str(c.get("id"))] = [as_str(u) for u in as_list(c.get("cu"))]
        elif t == _WORKSPACE:
            self.owner = as_str(as_dict(c.get("w")).get("user_id"))
        elif t in (_HISTORY, _THREAD):
            self.messages += 1
            if t == _HISTORY:
                cid = as_str(c.get("id"))
                self.with_history.add(cid)
                for m in map(as_dict, as_list(c.get("m"))):  # a broadcast reply's copy
                    if m.get("subtype") == "thread_broadcast":
                        self.broadcasts.setdefault(cid, set()).add(as_str(m.get("ts")))

    def _channel(self, ch: dict[str, Any]) -> None:
        cid = as_str(ch.get("id"))
        if not cid:
            return
        kind = (
            "dm"
            if ch.get("is_im")
            else "mpim"
            if ch.get("is_mpim")
            else "group"
            if ch.get("is_private")
            else "channel"
        )
        members = [as_str(u) for u in as_list(ch.get("members"))]
        if kind == "dm" and as_str(ch.get("user")):
            members = [as_str(ch["user"])]
        self.convs[cid] = Conv(cid, as_str(ch.get("name")) or cid, kind, members)

    def conv(self, cid: str) -> Conv:
        conv = self.convs.get(cid) or Conv(cid, cid, "channel")
        members = conv.members or self.members.get(cid, [])
        if conv.kind == "dm" and self.owner and self.owner not in members:
            members = [*members, self.owner]
        return Conv(conv.id, conv.name, conv.kind, members)


def _beside(source: Source, archive: _Archive, ctx: ImportContext) -> None:
    """Users and channels from the archive's own files beside this one."""
    if source.path is None or source.is_stdin:
        return
    for name in ("users.json.gz", "channels.json.gz", "workspace.json.gz"):
        path = source.path.with_name(name)
        if path != source.path and path.is_file():
            for _, c in _chunks(Source(path), ctx, report=False):
                archive.learn(c)


def _ordered(c: dict[str, Any], archive: _Archive) -> tuple[list[Any], list[str]]:
    """A chunk's messages oldest first, each with its place in the chunk (``p``: the
    thread's parent): a history chunk reversed; a thread's parent only when its channel
    has no history here; a thread's broadcast reply the history holds left out."""
    msgs = as_list(c.get("m"))
    labelled = [(str(k), m) for k, m in enumerate(msgs, 1)]
    if c["t"] == _HISTORY:
        labelled.reverse()  # conversations.history answers newest first
    else:
        cid = as_str(c.get("id"))
        if cid not in archive.with_history and isinstance(c.get("p"), dict):
            labelled.insert(0, ("p", c["p"]))
        held = archive.broadcasts.get(cid, set())
        labelled = [(k, m) for k, m in labelled if as_str(as_dict(m).get("ts")) not in held]
    return [m for _, m in labelled], [k for k, _ in labelled]


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if source.head.startswith(_DB_MAGIC):
        yield from _read_db(source, ctx)
        return
    archive = _Archive()
    _beside(source, archive, ctx)
    for _, c in _chunks(source, ctx, report=True):
        archive.learn(c)
    if not archive.messages:
        ctx.warn(
            source.name, "slackdump archive file with no messages (users, channels or workspace)"
        )
        return
    empty = EmptyCounter()
    for number, c in _chunks(source, ctx, report=False):
        if c["t"] in (_HISTORY, _THREAD):
            msgs, labels = _ordered(c, archive)
            conv = archive.conv(as_str(c.get("id")))
            where = f"{source.name}:{number}"
            yield from channel_messages(
                msgs, conv, archive.users, archive.convs, where, ctx, empty, labels
            )
    empty.report(ctx)


def _read_db(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """The SQLite archive: what the chunk files hold, each message's latest copy."""
    from convo.importers.apps import slackdump_db

    archive = _Archive()
    with slackdump_db.Archive(source) as db:
        archive.users.update(user_names(db.users()))
        for ch in db.channels():
            archive.learn({"t": _INFO, "ci": ch})
        archive.members.update(db.members())
        archive.owner = db.owner()
        empty = EmptyCounter()
        for cid, rows in db.messages():
            labels = [label for label, _ in rows]
            yield from channel_messages(
                [m for _, m in rows], archive.conv(cid), archive.users, archive.convs,
                source.name, ctx, empty, labels,
            )  # fmt: skip
        empty.report(ctx)


DESCRIPTION = (
    "slackdump archive: slackdump.sqlite, or chunk files (<channel>.json.gz, users.json.gz; "
    "chunks.jsonl.gz)"
)
EXAMPLE = (
    '{"t": 0, "ts": 1737844845379943000, "id": "C0123", "n": 1, "l": true, "m": [{"type": '
    '"message", "user": "U1", "text": "hi <@U2>", "ts": "1737716342.919259"}]}'
)
FIELDS = Fields(
    speaker="as `slack`: the user's display name (users from the archive's users chunks)",
    listeners="as `slack`: @-mentions, else the DM's other member",
    time="as `slack`: the message's `ts`",
    zone="UTC (epoch seconds)",
    thread="as `slack`: the channel's name (channel info chunks), a DM's members",
    id="`slack:<channel id>:<ts>`, the export's own",
    scope="the channel (as `slack`)",
    reply_to="as `slack`: the thread's first message",
    tags="as `slack`: `system` for subtype messages",
    extra="as `slack`: `ts`, `channel_id`, `channel_type`, `user_id`, `bot_id`, `thread_ts`, "
    "`reply_count`, `subtype`, `edited`, `raw_text` (mentions rendered), `reactions`, "
    "`files`, `attachments`",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("*.json", "*.jsonl", "*.sqlite"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
