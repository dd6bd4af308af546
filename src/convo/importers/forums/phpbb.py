"""phpBB post tables in the PHPUnit/DbUnit XML dataset shape
(``<dataset><table name="phpbb_posts"><column>..</column><row><value>..</value>``).

Two streaming passes: the first keeps only ``phpbb_users`` (id → name) and
``phpbb_topics`` (title, first post), which may come after the posts; the second turns
each ``phpbb_posts`` row into a message. phpBB topics are flat, so every post but the
topic's first replies to that first post (``topic_first_post_id``, else the first post
of the topic met in the file). A posts table without ``post_text`` is refused: there is
nothing to import. Stored text (s9e XML ``<r>..</r>`` or BBCode with entities) becomes
plain text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.importers.context import ImportContext
from convo.importers.forums.common import Tally, as_int, message
from convo.importers.forums.xmlstream import iter_events
from convo.importers.registry import Format

FMT = "phpbb"
_S9E_MARKUP = re.compile(r"<([se])>.*?</\1>", re.S)  # the original BBCode kept beside the text
_BBCODE = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?(?::[a-z0-9]+)?\]", re.I)


class _Table:
    def __init__(self, name: str, line: int):
        self.name = name
        self.line = line
        self.columns: list[str] = []


def _tables(
    source: Source, wanted: set[str], path: Path | None
) -> Iterator[tuple[_Table, dict, int]]:
    """(table, row as column → value, line) for rows of the wanted tables, streamed."""
    in_text = False
    table: _Table | None = None
    row: list[str | None] | None = None
    buf: list[str] = []
    row_line = 0
    for kind, tag, data, line in iter_events(source, text=True, path=path):
        if kind == "text":
            if in_text:
                buf.append(data)
        elif kind == "start":
            if tag == "table":
                name = data.get("name", "")
                table = _Table(name, line) if name in wanted else None
                if table is not None:
                    yield table, {}, -1  # announces the table (its header comes next)
            elif table is None:
                continue
            elif tag in ("column", "value"):
                in_text = True
                buf.clear()
            elif tag == "row":
                row, row_line = [], line
            elif tag == "null" and row is not None:
                row.append(None)
        elif kind == "end" and table is not None:
            if tag == "column":
                table.columns.append("".join(buf).strip())
            elif tag == "value" and row is not None:
                row.append("".join(buf))
            elif tag == "row" and row is not None:
                yield table, dict(zip(table.columns, row, strict=False)), row_line
                row = None
            elif tag == "table":
                table = None
            in_text = False


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


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    path = source.real_path()  # two passes: stdin and .gz are spooled once
    users: dict[str, str] = {}
    topics: dict[str, tuple[str | None, str | None]] = {}
    for table, row, _ in _tables(source, {"phpbb_users", "phpbb_topics"}, path):
        if table.name == "phpbb_users" and row.get("user_id") and row.get("username"):
            users[row["user_id"]] = row["username"]
        elif table.name == "phpbb_topics" and row.get("topic_id"):
            topics[row["topic_id"]] = (row.get("topic_title"), row.get("topic_first_post_id"))
    tally = Tally(ctx)
    first_seen: dict[str, str] = {}
    found = False
    for table, row, line in _tables(source, {"phpbb_posts"}, path):
        if line < 0:
            found = True
            continue
        if "post_text" not in table.columns:
            raise InputError(
                "phpbb_posts table has no post_text column (no message text to import)",
                where=ctx.loc(table.line),
                hint="export the posts table with post_text",
            )
        post, topic = row.get("post_id"), row.get("topic_id")
        if not post:
            ctx.reject(ctx.loc(line), "phpbb_posts row without a post_id", row)
            continue
        title, first = topics.get(topic or "", (None, None))
        first = first or first_seen.setdefault(topic or "", post)
        poster = row.get("poster_id")
        name = (row.get("post_username") or "").strip() or users.get(poster or "")
        if not name and poster and poster != "1":
            name = f"user{poster}"
        yield message(
            FMT,
            _text(row.get("post_text") or ""),
            tally.speaker(name),
            timestamp=tally.epoch(as_int(row.get("post_time"))),
            source_id=ctx.loc(f"post-{post}"),
            id=f"phpbb:{post}",
            thread=f"phpbb:topic-{topic}" if topic else None,
            reply_to=f"phpbb:{first}" if first != post else None,
            subject=(row.get("post_subject") or "").strip() or (title if first == post else None),
            extra={
                "forum_id": as_int(row.get("forum_id")),
                "poster_id": as_int(poster),
                "visibility": as_int(row.get("post_visibility")),
                "delete_reason": row.get("post_delete_reason"),
            },
        )
    if not found:
        raise InputError(
            "no phpbb_posts table in this dataset",
            where=source.name,
            hint="convo imports the phpbb_posts table of a DbUnit XML dataset",
        )
    tally.finish()


FORMATS = (
    Format(
        name="phpbb",
        family="forum",
        description="phpBB posts table in a DbUnit XML dataset (names from phpbb_users)",
        patterns=("*.xml",),
        sniff=sniff_phpbb,
        read=read,
        example='<dataset><table name="phpbb_posts"><column>post_id</column>...</table></dataset>',
    ),
)
