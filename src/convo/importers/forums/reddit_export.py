"""Reddit's data request export: the CSV files of reddit.com/settings/data-request
(``reddit-export``).

Shape (the GDPR/CCPA "request your data" zip, flat CSVs with a header row, quoted
multi-line bodies, some with a UTF-8 BOM; columns as Reddit writes them, read by
name, since their order has moved):
- ``posts.csv``: ``id,permalink,date,ip,subreddit,gildings,title,url,body``;
- ``comments.csv``: ``id,permalink,date,ip,subreddit,gildings,link,parent,body,media``
  (older exports without ``media``, some with ``gildings_silver``/``gildings_supergold``);
- ``messages.csv`` (and ``messages_archive.csv``): ``id,permalink,thread_id,date,ip,from,
  to,subject,body``: private messages sent and received;
- ``chat_history.csv``: ``message_id,created_at,updated_at,username,message,
  thread_parent_message_id,channel_url,subreddit,channel_name,conversation_type``.
``id`` is the base-36 id without its kind prefix; ``parent`` is a fullname (``t1_...``
a comment, ``t3_...`` the post); ``link`` is the post's URL; times are ``YYYY-MM-DD
HH:MM:SS UTC``. Large tables may be split (``comments_1.csv``...); every file is read
on its own, by its header. The other files (votes, saved, subscriptions, statistics,
IP logs) hold no conversation and are not detected.

Decisions:
- Posts and comments are the account's own, and no row names their author: speaker =
  the account, from the export's folder (``export_<username>_<YYYYMMDD>``, the name
  Reddit gives the zip), else the name in every row of a ``messages.csv`` beside the
  file (from or to); else none, said once in a warning. Listeners: the ``u/`` and
  ``@`` mentions (the parent's author is not in the export).
- thread = the post, ``reddit:t3_<id>`` (a comment's from its ``link``); replyTo = the
  ``parent`` (``reddit:t1_...``), else the post; a post's subject its ``title``, its
  text the title, the body and the ``url`` of a link post. ``subreddit``, ``permalink``,
  ``gildings``, ``media`` in ``extra``; the ``ip`` column is never copied.
- Messages: speaker ``from``, listeners ``to``, subject ``subject``; thread
  ``reddit:t4_<thread_id>`` (a conversation's first message: its own id).
- Chat: speaker ``username``; listeners the channel's other members seen in the file
  (two passes over it; a direct chat: the other person); thread
  ``reddit-chat:<channel_url>``; replyTo the ``thread_parent_message_id``;
  ``channel_name``, ``subreddit``, ``conversation_type``, ``updated_at`` in ``extra``.
- A row without an id or a readable date is rejected with its line; ``[deleted]`` and
  ``[removed]`` bodies are kept as they are.

Ids and their scope (docs/ids.md): posts, comments and messages: Reddit's fullnames,
unique everywhere, the same ids the ``reddit`` format gives (``reddit:t3_<id>``,
``reddit:t1_<id>``, ``reddit:t4_<id>``), so a comment read from a thread's JSON and
from the export is one record. Chat: ``reddit-chat:<channel_url>:<message_id>``, the
channel its scope (SendBird message ids are the chat service's, not Reddit's).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import numbered_lines
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import message
from convo.importers.registry import Format

NAME = "reddit-export"
KINDS = {
    "posts": frozenset({"id", "permalink", "date", "subreddit", "title", "url", "body"}),
    "comments": frozenset({"id", "permalink", "date", "subreddit", "link", "parent", "body"}),
    "messages": frozenset({"id", "permalink", "thread_id", "date", "from", "to", "body"}),
    "chat": frozenset({"message_id", "created_at", "username", "message", "channel_url"}),
}
_FOLDER = re.compile(r"export_(.+)_\d{8}$")
_POST_URL = re.compile(r"/comments/([0-9a-z]+)")
_UTC = re.compile(r"^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?(?: ?UTC|Z|\+00:?00)?$")


def kind_of(header: str) -> str | None:
    """Which export file a header row is (``posts``, ``comments``, ``messages``,
    ``chat``), or None."""
    cols = {c.strip().strip('"').lower() for c in header.lstrip("\ufeff").split(",")}
    for kind, needed in KINDS.items():
        if needed <= cols:
            return kind
    return None


def sniff(source: Source) -> int:
    first = source.head_text().split("\n", 1)[0].rstrip("\r")
    return 90 if kind_of(first) else 0


def _when(value: str | None) -> str | None:
    """``2024-05-02 18:11:04 UTC`` (Reddit's form) or any ISO time, as a record time."""
    text = (value or "").strip()
    m = _UTC.match(text)
    if m:
        return iso_ts(f"{m[1]}T{m[2]}Z")
    return iso_ts(text) if text else None


def _rows(source: Source, ctx: ImportContext) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row by lower-cased column) for every data row; multi-line cells joined."""
    lines = numbered_lines(source, ctx.text_decoder(what="CSV text that is not UTF-8"))
    where = {"n": 0}

    def feed() -> Iterator[str]:
        for n, line in lines:
            where["n"] = n
            yield line + "\n"

    reader = csv.reader(feed())
    header = next(reader, None)
    if header is None:
        return
    cols = [c.strip().lower() for c in header]
    cols[0] = cols[0].lstrip("\ufeff")
    start = where["n"] + 1
    for row in reader:
        if not any(cell.strip() for cell in row):
            start = where["n"] + 1
            continue
        yield start, dict(zip(cols, row, strict=False))
        start = where["n"] + 1


def _account(source: Source) -> str | None:
    """The account the export belongs to: its folder's name, else the one name in every
    row of a ``messages.csv`` beside it."""
    if source.path is None:
        return None
    path = Path(source.path).absolute()
    m = _FOLDER.match(path.parent.name)
    if m:
        return m[1]
    beside = path.with_name("messages.csv")
    if path.name == beside.name or not beside.is_file():
        return None
    common: set[str] | None = None
    with beside.open(encoding="utf-8-sig", errors="replace", newline="") as f:
        for row in csv.DictReader(f):
            names = {(row.get("from") or "").strip(), (row.get("to") or "").strip()} - {""}
            common = names if common is None else common & names
            if not common:
                return None
    return next(iter(common)) if common and len(common) == 1 else None


def _fullname(prefix: str, raw: str | None) -> str | None:
    text = (raw or "").strip()
    if not text:
        return None
    return text if re.match(r"t\d_", text) else f"{prefix}{text}"


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext, kind: str):
        self.source, self.ctx, self.kind = source, ctx, kind
        self.account: str | None = None
        self.members: dict[str, list[str]] = {}

    def _prepare(self) -> None:
        """The account (posts, comments) or the channels' members (chat: a first pass)."""
        if self.kind in ("posts", "comments"):
            self.account = _account(self.source)
            if self.account is None:
                self.ctx.warn(
                    self.source.name,
                    "the export does not name its account: speaker left empty (keep the "
                    "folder's name export_<username>_<date>, or messages.csv beside it)",
                )
        if self.kind == "chat":
            for _, row in _rows(self.source, self.ctx):
                who = (row.get("username") or "").strip()
                seen = self.members.setdefault((row.get("channel_url") or "").strip(), [])
                if who and who not in seen:
                    seen.append(who)

    def read(self) -> Iterator[ConversationMessage]:
        self._prepare()
        for n, row in _rows(self.source, self.ctx):
            where = self.ctx.loc(n)
            when = _when(row.get("created_at" if self.kind == "chat" else "date"))
            ident = (row.get("message_id" if self.kind == "chat" else "id") or "").strip()
            if not ident or when is None:
                what = "an id" if not ident else "a readable date"
                self.ctx.reject(where, f"Reddit export row without {what}", row)
                continue
            yield getattr(self, self.kind)(row, ident, when, where)

    def posts(self, row: dict[str, str], ident: str, when: str, where: str) -> ConversationMessage:
        title, body, url = row.get("title") or "", row.get("body") or "", row.get("url") or ""
        permalink = row.get("permalink") or ""
        parts = [title, body] + ([url] if url and url not in permalink else [])
        post = f"reddit:{_fullname('t3_', ident)}"
        return message(
            NAME, "\n\n".join(p for p in parts if p), self.account, timestamp=when,
            source_id=where, reddit=True, id=post, thread=post, subject=title or None,
            extra=_extra(row, ("subreddit", "permalink", "gildings", "url") if url != permalink
                         else ("subreddit", "permalink", "gildings")),
        )  # fmt: skip

    def comments(
        self, row: dict[str, str], ident: str, when: str, where: str
    ) -> ConversationMessage:
        m = _POST_URL.search(row.get("link") or "") or _POST_URL.search(row.get("permalink") or "")
        post = f"reddit:t3_{m[1]}" if m else None
        parent = _fullname("t1_", row.get("parent"))
        return message(
            NAME, row.get("body") or "", self.account, timestamp=when, source_id=where,
            reddit=True, id=f"reddit:{_fullname('t1_', ident)}", thread=post,
            reply_to=f"reddit:{parent}" if parent else post,
            extra=_extra(row, ("subreddit", "permalink", "gildings", "link", "media")),
        )  # fmt: skip

    def messages(
        self, row: dict[str, str], ident: str, when: str, where: str
    ) -> ConversationMessage:
        sender = (row.get("from") or "").strip() or None
        to = (row.get("to") or "").strip()
        own = f"reddit:{_fullname('t4_', ident)}"
        thread = _fullname("t4_", row.get("thread_id"))
        msg = message(
            NAME, row.get("body") or "", sender, timestamp=when, source_id=where,
            id=own, thread=f"reddit:{thread}" if thread else own,
            subject=(row.get("subject") or "").strip() or None,
            extra=_extra(row, ("permalink",)),
        )  # fmt: skip
        if to and to != sender:
            msg.metadata.recipients = [to, *(x for x in msg.metadata.recipients if x != to)]
        return msg

    def chat(self, row: dict[str, str], ident: str, when: str, where: str) -> ConversationMessage:
        who = (row.get("username") or "").strip() or None
        channel = (row.get("channel_url") or "").strip()
        parent = (row.get("thread_parent_message_id") or "").strip()
        scope = f"reddit-chat:{channel}" if channel else "reddit-chat"
        msg = message(
            NAME, row.get("message") or "", who, timestamp=when, source_id=where,
            id=f"{scope}:{ident}", thread=scope if channel else None,
            reply_to=f"{scope}:{parent}" if parent else None,
            extra=_extra(row, ("channel_name", "subreddit", "conversation_type", "updated_at")),
        )  # fmt: skip
        others = [x for x in self.members.get(channel, []) if x != who]
        msg.metadata.recipients = list(dict.fromkeys([*others, *msg.metadata.recipients]))
        return msg


def _extra(row: dict[str, str], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: row[k] for k in keys if (row.get(k) or "").strip() and row[k] != "0"}


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    first = source.head_text().split("\n", 1)[0].rstrip("\r")
    kind = kind_of(first)
    if kind is None:
        from convo.core.errors import InputError

        raise InputError(
            "not a Reddit data export CSV (posts, comments, messages or chat_history)",
            where=source.name,
            hint="the first line must be the export's header row",
        )
    return _Reader(source, ctx, kind).read()


DESCRIPTION = (
    "Reddit data request export CSVs: posts.csv, comments.csv, messages.csv, chat_history.csv"
)
EXAMPLE = (
    "id,permalink,date,ip,subreddit,gildings,link,parent,body,media\n"
    "lq7a2b9,https://www.reddit.com/r/urbanplanning/comments/1abcd2/bike_lanes/lq7a2b9/,"
    "2024-05-02 18:11:04 UTC,,urbanplanning,0,https://www.reddit.com/r/urbanplanning/"
    'comments/1abcd2/bike_lanes/,t1_lq79zz1,"Agree with this, mostly.",'
)
FIELDS = Fields(
    speaker="posts and comments: the account (the folder `export_<username>_<date>`, else "
    "the one name in every row of `messages.csv` beside it); messages: `from`; chat: "
    "`username`",
    listeners="posts and comments: the `u/` and `@` mentions; messages: `to`; chat: the "
    "channel's other members in the file",
    time="`date` (chat: `created_at`), `YYYY-MM-DD HH:MM:SS UTC`",
    zone="UTC: Reddit writes it",
    thread="the post, `reddit:t3_<id>` (a comment's from its `link`); messages "
    "`reddit:t4_<thread_id>`; chat `reddit-chat:<channel_url>`",
    id="`reddit:t3_<id>`, `reddit:t1_<id>`, `reddit:t4_<id>`; chat "
    "`reddit-chat:<channel_url>:<message_id>`",
    scope="none for fullnames (the `reddit` format's ids); chat: the channel",
    reply_to="a comment's `parent`, else the post; chat: `thread_parent_message_id`",
    subject="a post's `title`; a message's `subject`",
    extra="`subreddit`, `permalink`, `gildings`, `url`, `link`, `media`; chat "
    "`channel_name`, `conversation_type`, `updated_at` (never the `ip`)",
)

FORMATS = (Format(NAME, "forum", DESCRIPTION, ("*.csv",), sniff, read, EXAMPLE, fields=FIELDS),)
