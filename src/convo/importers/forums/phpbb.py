"""phpBB post tables in the PHPUnit/DbUnit XML dataset shape
(``<dataset><table name="phpbb_posts"><column>..</column><row><value>..</value>``).

Two streaming passes: the first keeps only ``phpbb_users`` (id → name) and
``phpbb_topics`` (title, first post), which may come after the posts; the second turns
each ``phpbb_posts`` row into a message. phpBB topics are flat, so every post but the
topic's first replies to that first post (``topic_first_post_id``, else the first post
of the topic met in the file). A posts table without ``post_text`` is refused: there is
nothing to import. Stored text (s9e XML ``<r>..</r>`` or BBCode with entities) becomes
plain text.

Memory is flat with the dataset: what the posts look up (user id -> name, topic id ->
title and first post, the first post met of each topic) is kept in
``convo.core.spillmap.SpillMap``s, the keys set last in memory and older ones in a
temporary table (``tests/importers/test_lookup_memory.py``).

Ids and their scope (docs/ids.md): post and topic ids are numbered per board, so an id
names its board: ``phpbb:<board>:<post id>``, threads ``phpbb:<board>:topic-<topic
id>``. The board is the ``server_name`` of the dataset's ``phpbb_config`` table when it
has one, else the folder the file sits in; from standard input with neither, no scope
(``phpbb:<post id>``, with a warning).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.text.html import html_to_text
from convo.importers.build import scoped_id, source_scope
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import Tally, as_int, message
from convo.importers.registry import Format
from convo.importers.xmlstream import iter_events

FMT = "phpbb"
_S9E_MARKUP = re.compile(r"<([se])>.*?</\1>", re.S)  # the original BBCode kept beside the text
_BBCODE = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?(?::[a-z0-9]+)?\]", re.I)


class _Table:
    def __init__(self, name: str, line: int):
        self.name = name
        self.line = line
        self.columns: list[str] = []


_Item = tuple[_Table, dict, int]


class _Rows:
    """The state of one pass over the dataset: the wanted table open, its current row and
    the text of the ``<column>`` or ``<value>`` being read."""

    def __init__(self, wanted: set[str]):
        self.wanted = wanted
        self.table: _Table | None = None
        self.row: list[str | None] | None = None
        self.row_line = 0
        self.in_text = False
        self.buf: list[str] = []

    def text(self, data: str) -> None:
        if self.in_text:
            self.buf.append(data)

    def start(self, tag: str, attrs: dict, line: int) -> _Item | None:
        if tag == "table":
            name = attrs.get("name", "")
            self.table = _Table(name, line) if name in self.wanted else None
            if self.table is not None:
                return self.table, {}, -1  # announces the table (its header comes next)
        elif self.table is not None:
            if tag in ("column", "value"):
                self.in_text = True
                self.buf.clear()
            elif tag == "row":
                self.row, self.row_line = [], line
            elif tag == "null" and self.row is not None:
                self.row.append(None)
        return None

    def end(self, tag: str) -> _Item | None:
        table = self.table
        if table is None:  # outside the wanted tables nothing is collected
            return None
        item = None
        if tag == "column":
            table.columns.append("".join(self.buf).strip())
        elif tag == "value" and self.row is not None:
            self.row.append("".join(self.buf))
        elif tag == "row" and self.row is not None:
            item = table, dict(zip(table.columns, self.row, strict=False)), self.row_line
            self.row = None
        elif tag == "table":
            self.table = None
        self.in_text = False
        return item


def _tables(source: Source, wanted: set[str], path: Path | None) -> Iterator[_Item]:
    """(table, row as column → value, line) for rows of the wanted tables, streamed."""
    rows = _Rows(wanted)
    for kind, tag, data, line in iter_events(source, text=True, path=path):
        item = None
        if kind == "text":
            rows.text(data)
        elif kind == "start":
            item = rows.start(tag, data, line)
        elif kind == "end":
            item = rows.end(tag)
        if item is not None:
            yield item


def _text(value: str) -> str:
    value = value.strip()
    if value.startswith(("<r>", "<t>", "<r ", "<t ")):
        return html_to_text(_S9E_MARKUP.sub("", value))
    return _BBCODE.sub("", html.unescape(value)).strip()


def sniff_phpbb(source: Source) -> int:
    text = source.head_text()
    if "<dataset" in text and re.search(r'<table\s+name="phpbb_', text):
        return 85
    return 0


class _Board:
    """What the first pass learns: user id → name, topic id → title and first post id,
    and the board's ``server_name`` (from ``phpbb_config``)."""

    def __init__(self, source: Source, path: Path | None):
        self.users: SpillMap[str, str] = SpillMap()
        self.titles: SpillMap[str, str] = SpillMap()
        self.firsts: SpillMap[str, str] = SpillMap()
        self.server: str | None = None
        try:
            self._read(source, path)
        except BaseException:
            self.close()
            raise

    def _read(self, source: Source, path: Path | None) -> None:
        for table, row, _ in _tables(source, _FIRST_PASS, path):
            if table.name == "phpbb_users" and row.get("user_id") and row.get("username"):
                self.users.set(row["user_id"], row["username"])
            elif table.name == "phpbb_topics" and row.get("topic_id"):
                topic = row["topic_id"]
                # a topic met twice: the later row wins, both fields (as one dict entry did)
                for kept, value in (
                    (self.titles, row.get("topic_title")),
                    (self.firsts, row.get("topic_first_post_id")),
                ):
                    kept.set(topic, "" if value is None else value)
            elif table.name == "phpbb_config" and row.get("config_name") == "server_name":
                self.server = row.get("config_value")

    def topic(self, topic: str) -> tuple[str | None, str | None]:
        """(title, first post id) of a topic, None where the dataset has none."""
        return self.titles.get(topic) or None, self.firsts.get(topic) or None

    def close(self) -> None:
        self.users.close()
        self.titles.close()
        self.firsts.close()


_FIRST_PASS = {"phpbb_users", "phpbb_topics", "phpbb_config"}
_Ids = Callable[[str], str]  # a local id → its scoped id (build.scoped_id with the board)


def _poster_name(row: dict, users: SpillMap[str, str]) -> str | None:
    """The name kept on the post (guests), else the user's, else ``user<ID>``."""
    poster = row.get("poster_id")
    name = (row.get("post_username") or "").strip() or users.get(poster or "")
    # User 1 is phpBB's ANONYMOUS: a guest without a name stays unknown.
    if not name and poster and poster != "1":
        name = f"user{poster}"
    return name


def _post_message(
    row: dict,
    first: str,
    title: str | None,
    users: SpillMap[str, str],
    tally: Tally,
    ctx: ImportContext,
    ids: _Ids,
) -> ConversationMessage:
    """One phpbb_posts row as a message; ``first`` is the first post of its topic."""
    post, topic = row["post_id"], row.get("topic_id")
    return message(
        FMT,
        _text(row.get("post_text") or ""),
        tally.speaker(_poster_name(row, users)),
        timestamp=tally.epoch(as_int(row.get("post_time"))),
        source_id=ctx.loc(f"post-{post}"),
        id=ids(post),
        thread=ids(f"topic-{topic}") if topic else None,
        reply_to=ids(first) if first != post else None,
        subject=(row.get("post_subject") or "").strip() or (title if first == post else None),
        extra={
            "forum_id": as_int(row.get("forum_id")),
            "poster_id": as_int(row.get("poster_id")),
            "visibility": as_int(row.get("post_visibility")),
            "delete_reason": row.get("post_delete_reason"),
        },
    )


def _require_text(table: _Table, ctx: ImportContext) -> None:
    if "post_text" not in table.columns:
        raise InputError(
            "phpbb_posts table has no post_text column (no message text to import)",
            where=ctx.loc(table.line),
            hint="export the posts table with post_text",
        )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    path = source.real_path()  # two passes: stdin and .gz are spooled once
    board = _Board(source, path)
    first_seen: SpillMap[str, str] = SpillMap()  # topic -> its first post met in the file
    found = False
    try:
        ids = partial(
            scoped_id,
            FMT,
            source_scope(source, ctx, board.server, what="board", example="phpbb:<post id>"),
        )
        tally = Tally(ctx)
        for table, row, line in _tables(source, {"phpbb_posts"}, path):
            if line < 0:
                found = True
                continue
            _require_text(table, ctx)
            post, topic = row.get("post_id"), row.get("topic_id")
            if not post:
                ctx.reject(ctx.loc(line), "phpbb_posts row without a post_id", row)
                continue
            title, first = board.topic(topic or "")
            if not first:
                first = first_seen.get(topic or "")
                if first is None:
                    first = post
                    first_seen.set(topic or "", post)
            yield _post_message(row, first, title, board.users, tally, ctx, ids)
    finally:
        board.close()
        first_seen.close()
    if not found:
        raise InputError(
            "no phpbb_posts table in this dataset",
            where=source.name,
            hint="convo imports the phpbb_posts table of a DbUnit XML dataset",
        )
    tally.finish()


DESCRIPTION = "phpBB posts table in a DbUnit XML dataset (names from phpbb_users)"
EXAMPLE = '<dataset><table name="phpbb_posts"><column>post_id</column>...</table></dataset>'
FIELDS = Fields(
    speaker="the poster's name from `phpbb_users`",
    listeners="the `@` mentions",
    time="`post_time`",
    zone="epoch seconds: UTC",
    thread="`phpbb:<board>:topic-<topic>`",
    id="`phpbb:<board>:<post>`",
    scope="the board: `server_name` in the dataset's `phpbb_config`, else the folder; "
    "standard input: none (`phpbb:<post>`, with a warning)",
    reply_to="the topic's first post",
    subject="the post's subject",
    extra="`poster_id`",
)

FORMATS = (
    Format("phpbb", "forum", DESCRIPTION, ("*.xml",), sniff_phpbb, read, EXAMPLE, fields=FIELDS),
)
