"""Slack workspace exports: the export folder, its .zip, or one channel-day JSON file.

An export holds ``users.json``, ``channels.json`` (public), ``groups.json`` (private),
``dms.json`` (1:1, folders named by the D-id) and ``mpims.json`` (group DMs), plus one
folder per conversation with a ``YYYY-MM-DD.json`` array of messages per day.

Decisions:
- speaker = the user's display name (profile ``display_name``, else ``real_name``, else
  ``name``; ``user_profile`` embedded in a message fills gaps, and so does a person's
  ``username`` on an older export's ``file_share``, for that user's later messages too). A message without a
  ``user`` takes the one its subtype carries (``file_comment``: ``comment.user``;
  ``message_changed``: ``message.user``, whose text it shows; ``message_deleted``:
  ``previous_message.user``). Bots: ``username``, else ``bot_profile.name``, else the
  name ``bots.json`` (when the export has one) or an earlier ``bot_add`` message
  (``added an integration to this channel: <...services/B1|github>``) gives the
  ``bot_id``; a raw id only when nothing names it.
- ``thread`` = the channel name (DM: the other member's name pair, ``dm:<id>`` when unknown);
  Slack threads show as ``replyTo`` = ``slack:<channel id>:<thread_ts>`` on replies, and
  ``extra.thread_ts`` on parent and replies. ``thread_broadcast`` replies are ordinary replies
  with ``extra.subtype``; their embedded ``root`` copy is not emitted twice.
- Subtype messages (joins, topic changes, pins, huddles: ``slack_huddle``) are kept, with
  ``extra.subtype`` and the tag ``system``; ``bot_message``/``file_share``/``me_message``/``thread_broadcast`` are not
  tagged ``system``.
- mrkdwn: ``<@U1>`` and ``<@U1|name>`` become ``@Name`` (and Name a listener),
  ``<#C1|x>`` ``#x``, ``<url|label>`` ``label (url)``, ``<!here>``/``<!channel>``/
  ``<!everyone>`` ``@here``..., ``<!subteam^S1|@team>`` ``@team``, ``<!date^..|text>``
  its text; ``&lt; &gt; &amp;`` unescaped. The raw text is kept in ``extra.raw_text``
  when rendering changed it.
- A message without ``ts`` (no time, no id) is kept with the content-hash id and an
  unknown time (a warning says so).
- In a 1:1 DM without mentions the listener is the other member.
- A .zip is read in place (see ``slack_archive``).
- The metadata files alone (``users.json``, ``dms.json``...) are recognised, yield no
  messages and say so in a warning (ingest the folder or the .zip instead).
- A channel-day file read on its own (a top-level array) is streamed by convo.jsonstream
  (a first look for the channel name, then the messages); day files inside a folder or
  .zip are small and read whole.

Ids and their scope (docs/ids.md): ``slack:<channel id>:<ts>``: ts is unique to the
microsecond within a channel, and channel ids are Slack-wide (a shared channel has one
id in both workspaces, so its messages are the same records); a day file read alone
names its channel as it can (``channel_name``, the export's folder, else ``slack``; a
slackdump dump names its own: ``convo.importers.apps.slack_dayfile``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, parse_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter
from convo.importers.apps.slack_archive import DirTree, ExportTree, ZipTree
from convo.importers.apps.slack_blocks import blocks_text
from convo.importers.apps.slack_dayfile import single_day
from convo.importers.apps.slack_files import (
    CANVAS,
    META_FILES,
    canvases_note,
    is_metadata,
    no_messages,
    other_file,
)
from convo.importers.apps.slack_huddle import SLACKBOT, huddle, starter
from convo.importers.apps.slack_huddle import SUBTYPE as HUDDLE
from convo.importers.apps.slack_names import (
    Conv,
    dm_label,
    render_mrkdwn,
    speaker_name,
    user_names,
)
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format

# The conversation lists of an export and the kind of conversation each holds.
_META_KINDS = (("channels", "channel"), ("groups", "group"), ("dms", "dm"), ("mpims", "mpim"))
_DAY_FILE = re.compile(r"(?:^|/)([^/]+)/(\d{4}-\d{2}-\d{2})\.json$")
_DAY_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.json")
_SLACK_TS = re.compile(r'"(?:ts|thread_ts)"\s*:\s*"\d{9,10}\.\d{6}"')
_TS_TYPES = (str, int, float, type(None))
_BOT_LINK = re.compile(r"<https?://[^|<>]*/services/(B[A-Z0-9]+)\|([^<>|]{1,80})>")
_NOT_SYSTEM = {"bot_message", "thread_broadcast", "file_share", "me_message", "file_comment"}


def sniff_dir(source: Source) -> int:
    assert source.path is not None
    try:
        entries = list(source.path.iterdir())
        if not {p.name for p in entries if p.is_file()} & set(META_FILES):
            return 0
        for sub in entries:
            if sub.is_dir() and any(_DAY_NAME.fullmatch(f.name) for f in sub.iterdir()):
                return 95
    except OSError:
        return 0
    names = {p.name for p in entries}
    return 70 if {"users.json", "channels.json"} <= names else 0


def sniff_file(source: Source) -> int:
    head = source.head
    if head.startswith(b"PK\x03\x04"):
        if re.search(
            rb"(?:^|/)(?:channels|users|dms|mpims|groups)\.json", head[:65536]
        ) or re.search(rb"/\d{4}-\d{2}-\d{2}\.json", head):
            return 85
        return 0
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    if _SLACK_TS.search(text) and (has_key(text, "text") or has_key(text, "subtype")):
        return 85
    if text.startswith("[") and is_metadata(text, source.match_name):
        return 60
    return 60 if other_file(source.match_name, text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """The export folder, its .zip, or a single channel-day JSON file."""
    if source.is_dir:
        assert source.path is not None
        yield from _read_tree(DirTree(source.path, source.name), ctx)
        return
    if source.head.startswith(b"PK\x03\x04"):
        tree = ZipTree(source.real_path(), source.name, ctx)
        try:
            yield from _read_tree(tree, ctx)
        finally:
            tree.close()
        return
    yield from _read_single(source, ctx)


def _load(tree: ExportTree, rel: str) -> Any:
    return parse_json(tree.read(rel), f"{tree.name}/{rel}")


def _read_tree(tree: ExportTree, ctx: ImportContext) -> Iterator[ConversationMessage]:
    paths = tree.paths()
    prefix = _meta_prefix(paths)
    users, convs = _metadata(lambda n: prefix + n in paths, lambda n: _load(tree, prefix + n))
    days = [p for p in paths if p.startswith(prefix) and _DAY_FILE.search(p[len(prefix) :])]
    if not days:
        raise InputError(
            "no channel folders with YYYY-MM-DD.json files",
            where=tree.name,
            hint="is this a Slack export?",
        )
    canvases = [p for p in paths if PurePosixPath(p).name == CANVAS]
    if canvases:
        ctx.warn(tree.name, canvases_note(len(canvases)))
    empty = EmptyCounter()
    for rel in days:
        folder = PurePosixPath(rel).parent.name
        conv = convs.get(folder) or Conv(folder, folder, "channel")
        where = f"{tree.name}/{rel}"
        try:
            data = _load(tree, rel)
        except InputError as e:
            ctx.reject(e.where or where, e.what, hint="the day file is not valid JSON")
            continue
        yield from channel_messages(data, conv, users, convs, where, ctx, empty)
    empty.report(ctx)


def _meta_prefix(paths: list[str]) -> str:
    """The folder holding the metadata files ("" at the top; an export zipped with its
    top folder has one)."""
    for p in paths:
        pp = PurePosixPath(p)
        if pp.name in META_FILES:
            return "" if len(pp.parts) == 1 else str(pp.parent) + "/"
    return ""


def _metadata(
    has: Callable[[str], bool], load: Callable[[str], Any]
) -> tuple[dict[str, str], dict[str, Conv]]:
    """User names and conversations from the metadata files ``has`` finds (by file name)."""
    users = user_names(load("users.json")) if has("users.json") else {}
    if has("bots.json"):  # bot ids (B...) never collide with user ids (U.../W...)
        users.update((k, v) for k, v in user_names(load("bots.json")).items() if k not in users)
    convs: dict[str, Conv] = {}
    for meta, kind in _META_KINDS:
        if has(f"{meta}.json"):
            for c in as_list(load(f"{meta}.json")):
                _add_conv(convs, c, kind)
    return users, convs


def _read_single(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if what := other_file(source.match_name, json_head(source)):
        ctx.warn(source.name, f"a Slack export's {what}, no messages; ingest the export folder")
        return
    data, first, has_messages, n, dumped = single_day(source)
    if said := no_messages(source.match_name, n, has_messages):
        ctx.warn(source.name, said)
        return
    users: dict[str, str] = {}
    convs: dict[str, Conv] = {}
    folder = "slack"
    if source.path is not None and not source.is_stdin:
        users, convs = _neighbours(source.path.parent.parent, ctx)
        if users or convs:  # a day file inside an export folder: its folder is the channel
            folder = source.path.parent.name or folder
    cname = as_str(first.get("channel_name")) or as_str(first.get("channel")) or folder
    conv = dumped or convs.get(cname) or Conv(cname, cname, "channel")
    empty = EmptyCounter()
    yield from channel_messages(data, conv, users, convs, source.name, ctx, empty)
    empty.report(ctx)


def _neighbours(root: Path, ctx: ImportContext) -> tuple[dict[str, str], dict[str, Conv]]:
    """users/channels from the export folder around a day file read on its own.

    A broken users.json or channels.json there is reported (names then stay user ids)."""
    try:
        return _metadata(
            lambda n: (root / n).is_file(),
            lambda n: parse_json((root / n).read_bytes(), str(root / n)),
        )
    except (InputError, OSError) as e:
        ctx.warn(
            str(getattr(e, "where", None) or root),
            f"export metadata beside the day file is unreadable ({getattr(e, 'what', e)}); "
            "user names stay as ids",
        )
        return {}, {}


def _add_conv(convs: dict[str, Conv], c: Any, kind: str) -> None:
    c = as_dict(c)
    cid = as_str(c.get("id"))
    if not cid:
        return
    conv = Conv(
        cid, as_str(c.get("name")) or cid, kind, [as_str(x) for x in as_list(c.get("members"))]
    )
    convs[cid] = conv
    convs.setdefault(conv.name, conv)


def channel_messages(
    data: Any,
    conv: Conv,
    users: dict[str, str],
    convs: dict[str, Conv],
    where: str,
    ctx: ImportContext,
    empty: EmptyCounter,
    labels: list[str] | None = None,
) -> Iterator[ConversationMessage]:
    """The records of a list of one conversation's messages (a day file; a slackdump
    archive's chunk: ``convo.importers.apps.slackdump``); ``where#N`` locates the Nth,
    ``where#LABEL`` with ``labels`` (one a message, when the list is not the source's order)."""
    if not isinstance(data, list | Iterator):
        ctx.reject(where, "a Slack day file must be a JSON array of messages")
        return
    for i, m in enumerate(data, 1):
        loc = f"{where}#{labels[i - 1] if labels else i}"
        if type(m) is not dict or not isinstance(m.get("ts"), _TS_TYPES):
            ctx.reject(loc, "not a Slack message (not an object, or ts not a string)", m)
            continue
        if m.get("subtype") == "bot_add":
            _learn_bot(m, users)
        msg = _message(m, conv, users, convs, loc)
        if msg is None:
            empty.skip(loc)
            continue
        if msg.timestamp is None:
            what = f"unreadable ts {m['ts']!r}" if m.get("ts") is not None else "no ts"
            ctx.warn(loc, f"{what}; time left unknown")
        yield msg


def _learn_bot(m: dict[str, Any], users: dict[str, str]) -> None:
    """The name a ``bot_add`` message gives its integration (``added an integration to
    this channel: <https://x.slack.com/services/B0JL|github>``), for the bot's messages
    after it that carry no name of their own."""
    link = _BOT_LINK.search(as_str(m.get("text")))
    if link and link[1] == as_str(m.get("bot_id")) and link[1] not in users:
        users[link[1]] = link[2]


def _subtype_user(m: dict[str, Any]) -> str:
    """The user of a message, or of the object its subtype carries when it has none."""
    uid = starter(m) or as_str(m.get("user"))
    if uid:
        return uid
    for key in ("comment", "message", "previous_message", "file"):
        uid = as_str(as_dict(m.get(key)).get("user"))
        if uid:
            return uid
    return ""


def _files(m: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The message's files for ``extra`` and their ``[file]`` chunks."""
    files, chunks = [], []
    for f in map(as_dict, as_list(m.get("files"))):
        label = as_str(f.get("title")) or as_str(f.get("name")) or as_str(f.get("id"))
        files.append(
            {k: f.get(k) for k in ("id", "name", "title", "mimetype", "url_private") if f.get(k)}
        )
        chunks.append(f"[file] {label}")
    return files, chunks


def _attachments(
    m: dict[str, Any], users: dict[str, str], convs: dict[str, Conv], with_text: bool
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Attachments for ``extra``; with ``with_text``, their texts as chunks and mentions."""
    keys = ("fallback", "pretext", "title", "title_link", "text", "from_url")
    attachments, chunks, mentioned = [], [], []
    for a in map(as_dict, as_list(m.get("attachments"))):
        attachments.append({k: a.get(k) for k in keys if a.get(k)})
        if with_text:  # as Slack shows it: the pretext above the attachment's text
            body = (
                as_str(a.get("text")) or blocks_text(a.get("blocks")) or as_str(a.get("fallback"))
            )
            shown = [as_str(a.get("pretext")), body]
            body, more = render_mrkdwn("\n".join(x for x in shown if x.strip()), users, convs)
            mentioned += more
            if body.strip():
                chunks.append(body)
    return attachments, chunks, mentioned


def _listeners(conv: Conv, users: dict[str, str], uid: str) -> list[str]:
    """The listeners of a message that mentions no one: in a 1:1 DM, the other member."""
    if conv.kind == "dm" and len(conv.members) == 2 and uid in conv.members:
        other = next((u for u in conv.members if u != uid), "")
        return [users.get(other, other)]
    return []


# The keys of what a message may carry beyond its user, text and time. Most messages of
# an export have none of them; ``_message`` looks the rest up only when one is there.
_MORE_KEYS = frozenset(
    ("subtype", "bot_id", "thread_ts", "reply_count", "edited", "files", "attachments", "reactions")
)


def _message(
    m: dict[str, Any], conv: Conv, users: dict[str, str], convs: dict[str, Conv], loc: str
) -> ConversationMessage | None:
    uid = m.get("user")
    if type(uid) is not str or not uid or uid == SLACKBOT:  # a huddle: who started it
        uid = _subtype_user(m)
    # first: it learns names from user_profile for the text (a known user's name is final)
    speaker = users.get(uid)
    if speaker is None:
        speaker = speaker_name(m, users, uid)
    ts = m.get("ts")
    if type(ts) is not str:
        ts = as_str(ts)
    raw = m.get("text")
    if type(raw) is not str or not raw.strip():
        raw = _shown_text(m)
    text, mentioned = render_mrkdwn(raw, users, convs)
    extra = {"ts": ts, "channel_id": conv.id, "channel_type": conv.kind, "user_id": uid}
    if raw != text:
        extra["raw_text"] = raw
    if m.keys().isdisjoint(_MORE_KEYS):  # text only
        if not text.strip():
            return None
        chunks: str | list[str] = text
        reply_to, tags = None, None
    else:
        chunks, reply_to, tags, mentioned = _more(m, conv, users, convs, text, mentioned, extra)
        if not chunks:
            return None
    return message(
        chunks,
        speaker=speaker,
        listeners=mentioned or _listeners(conv, users, uid),
        timestamp=epoch_ts(ts),
        id=f"slack:{conv.id}:{ts}" if ts else None,  # else the content hash
        source_id=loc,
        format="slack",
        thread=conv.name if conv.kind != "dm" else dm_label(conv, users),
        reply_to=reply_to,
        tags=tags,
        extra=extra,
    )


def _shown_text(m: dict[str, Any]) -> str:
    """The text of a message whose own is missing or blank: a ``message_changed`` shows
    the text of the message it carries; a message posted as Block Kit ``blocks`` alone
    (bots, workflows: ``convo.importers.apps.slack_blocks``), theirs."""
    raw = as_str(m.get("text"))
    if not raw.strip() and as_str(m.get("subtype")) == "message_changed":
        raw = as_str(as_dict(m.get("message")).get("text"))
    if not raw.strip() and m.get("blocks"):
        raw = blocks_text(m.get("blocks"))
    return raw


def _more(
    m: dict[str, Any],
    conv: Conv,
    users: dict[str, str],
    convs: dict[str, Conv],
    text: str,
    mentioned: list[str],
    extra: dict[str, Any],
) -> tuple[list[str], str | None, list[str], list[str]]:
    """A message with one of ``_MORE_KEYS``: its chunks (the text's, its files' and its
    attachments'), replyTo, tags and mentioned names; the rest of ``extra`` is added in
    its order."""
    chunks = [text] if text.strip() else []
    files: list[dict[str, Any]] = []
    attachments: list[dict[str, Any]] = []
    if m.get("files") or m.get("attachments"):
        files, file_chunks = _files(m)
        attachments, more_chunks, more = _attachments(m, users, convs, with_text=not chunks)
        chunks += file_chunks + more_chunks
        mentioned = mentioned + more
    subtype = as_str(m.get("subtype"))
    if subtype == HUDDLE:
        chunk, people, extra["huddle"] = huddle(m, users)
        chunks.append(chunk)
        mentioned = mentioned + [p for p in people if p != users.get(extra["user_id"])]
    thread_ts = as_str(m.get("thread_ts"))
    edited = as_dict(m.get("edited"))
    extra["subtype"] = subtype
    extra["bot_id"] = as_str(m.get("bot_id"))
    extra["thread_ts"] = thread_ts
    extra["reply_count"] = m.get("reply_count")
    extra["edited"] = epoch_ts(as_str(edited.get("ts"))) if edited else None
    extra["files"] = files
    extra["attachments"] = attachments
    extra["reactions"] = _reactions(m.get("reactions"), users) if m.get("reactions") else None
    ts = extra["ts"]
    reply_to = f"slack:{conv.id}:{thread_ts}" if thread_ts and thread_ts != ts else None
    tags = [SYSTEM_TAG] if subtype and subtype not in _NOT_SYSTEM else []
    return chunks, reply_to, tags, mentioned


def _reactions(value: Any, users: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "name": as_str(r.get("name")),
            "count": r.get("count"),
            "users": [users.get(as_str(u), as_str(u)) for u in as_list(r.get("users"))],
        }
        for r in map(as_dict, as_list(value))
    ]


FIELDS = Fields(
    speaker="the user's display name; bots: `username`, `bot_profile.name`, `bots.json` or the "
    "`bot_add` message naming the integration",
    listeners="the `<@U…>` mentions; in a 1:1 DM without mentions, the other member",
    time="`ts`",
    zone="epoch seconds: UTC",
    thread="the channel's name (a DM: `dm:<member names>`)",
    id="`slack:<channel>:<ts>` (the channel id; a message without `ts`: " + CONTENT_HASH + ")",
    scope="the channel (ts is unique to the microsecond in it; channel ids are Slack-wide); "
    "a day file read alone: its `channel_name`, the export's folder, else `slack`; a "
    "slackdump dump: its `name`",
    reply_to="`slack:<channel>:<thread_ts>` on thread replies",
    tags="`system` on subtype messages (joins, topic changes...)",
    extra="`ts`, `channel_id`, `channel_type`, `user_id`, `bot_id`, `thread_ts`, `reply_count`, "
    "`subtype`, `edited`, `raw_text` (mentions rendered), `reactions`, `files`, `attachments`",
)
FORMATS = (
    Format(
        name="slack",
        family="chat",
        description="Slack workspace export folder (users.json, channels.json, channel/YYYY-MM-DD.json)",
        patterns=(),
        sniff=sniff_dir,
        read=read,
        example="export/{users.json,channels.json,general/2024-01-02.json}",
        directory=True,
        fields=FIELDS,
    ),
    Format(
        name="slack-file",
        family="chat",
        description="Slack export .zip (read in place), or one channel-day JSON array of messages",
        patterns=("*.zip",),
        sniff=sniff_file,
        read=read,
        example='[{"type": "message", "user": "U1", "text": "hi <@U2>", "ts": "1700000000.000100"}]',
        fields=FIELDS,
    ),
)
