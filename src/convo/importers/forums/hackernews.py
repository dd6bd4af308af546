"""Hacker News: Algolia ``items/ID`` trees (``children``) and official Firebase items
(``kids``, ``by``, ``time``), one item, an array, or one a line; and Algolia's search
API answers (``search``, ``search_by_date``: ``{"hits": [...], "nbHits", "query"}``),
whose hits are read as items: ``objectID`` the id, ``comment_text``/``story_text`` the
text, the kind from ``_tags``; a story hit's ``children`` are only ids, not read.

Listeners: the ``@`` mentions, else (a reply) the parent's author when the parent was
read earlier in the input (every Algolia child; a Firebase item whose parent came
before it), as GitLab discussions name their first author. This needs a map of item id
to author beside the story map.

Algolia trees are walked depth-first with an explicit stack; a poll's ``options`` (its
``pollopt`` items) before its ``children``. Firebase items carry only
``parent``; their thread is the story when the parent chain was seen earlier in the input
(a map of item id to story id), else left out.

Both maps are ``convo.core.spillmap.SpillMap``s: the 262,144 items set last in memory,
older ones in a temporary SQLite table, so memory stays flat however long the dump and
the answers are the ones a dict gives (``tests/importers/test_forum_memory.py``).

Ids and their scope (docs/ids.md): Hacker News is one site: ``hn:<item id>``, no scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import RecordError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.text.html import html_to_text
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import Tally, as_int, as_str, items, json_values, message
from convo.importers.jsoninput import sniff_json
from convo.importers.registry import Format

FMT = "hackernews"
_STORY_TYPES = ("story", "job", "poll")


def _text(item: dict, title: str | None) -> str:
    body = as_str(item.get("text"))
    if body:
        return html_to_text(body)
    url = as_str(item.get("url"))
    gone = item.get("author", item.get("by")) is None
    if item.get("deleted") is True or (gone and not title and not url):
        return "[deleted]"
    if title:
        return f"{title}\n{url}" if url else title
    return url or ""


class _Reader:
    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.tally = Tally(ctx)
        self.story_of: SpillMap[int, int] = SpillMap()
        self.author_of: SpillMap[int, str] = SpillMap()  # item id -> author, for listeners

    def close(self) -> None:
        self.story_of.close()
        self.author_of.close()

    def algolia(self, root: dict, where: str) -> Iterator[ConversationMessage]:
        stack: list[tuple[Any, int | None, str]] = [(root, None, where)]
        while stack:
            item, parent, loc = stack.pop()
            if not isinstance(item, dict) or as_int(item.get("id")) is None:
                self.ctx.reject(loc, "Hacker News item without an id", item)
                continue
            ident = as_int(item["id"])
            story = as_int(item.get("story_id"))
            if story is None:
                story = self.story_of.get(parent) if parent else ident
            parent = parent if parent is not None else as_int(item.get("parent_id"))
            when = item.get("created_at_i")
            yield self._message(
                item,
                ident,
                story,
                parent,
                author=item.get("author"),
                timestamp=self.tally.epoch(when)
                if when is not None
                else self.tally.iso(item.get("created_at")),
                extra={
                    "type": item.get("type"),
                    "points": item.get("points"),
                    "url": item.get("url"),
                },
            )
            if story is not None and ident is not None:
                self.story_of.set(ident, story)
            # a poll's options (``pollopt`` items) come before its comments
            nested = [*_list(item.get("options")), *_list(item.get("children"))]
            for j, child in reversed(list(enumerate(nested, 1))):
                stack.append((child, ident, f"{loc}/{j}"))

    def _message(
        self,
        item: dict,
        ident: int | None,
        story: int | None,
        parent: int | None,
        *,
        author: Any,
        timestamp: str | None,
        extra: dict[str, Any],
    ) -> ConversationMessage:
        """An item of either API as a message; the two differ only in author, time and extra."""
        title = as_str(item.get("title"))
        speaker = self.tally.speaker(author)
        if ident is not None and speaker is not None:
            self.author_of.set(ident, speaker)
        msg = message(
            FMT,
            _text(item, title),
            speaker,
            timestamp=timestamp,
            source_id=self.ctx.loc(f"item-{ident}"),
            id=f"hn:{ident}",
            thread=f"hn:{story}" if story is not None else None,
            reply_to=f"hn:{parent}" if parent is not None else None,
            subject=title,
            extra=extra,
        )
        heard = self.author_of.get(parent) if parent is not None else None
        if not msg.metadata.recipients and heard is not None and heard != speaker:
            msg.metadata.recipients = [heard]  # no mention: the author it answers
        return msg

    def firebase(self, item: dict, where: str) -> ConversationMessage:
        ident = as_int(item.get("id"))
        if ident is None:
            raise RecordError("Hacker News item without an id", where=where)
        kind = as_str(item.get("type"))
        parent = as_int(item.get("parent"))
        story = as_int(item.get("poll")) if kind == "pollopt" else None
        if kind in _STORY_TYPES:
            story = ident
        elif story is None and parent is not None:
            story = self.story_of.get(parent)
        if story is not None:
            self.story_of.set(ident, story)
        kids = item.get("kids")
        return self._message(
            item,
            ident,
            story,
            parent,
            author=item.get("by"),
            timestamp=self.tally.epoch(item.get("time")),
            extra={
                "type": kind,
                "points": as_int(item.get("score")),
                "url": item.get("url"),
                "descendants": as_int(item.get("descendants")),
                "kids": len(kids) if isinstance(kids, list) and kids else None,
                "dead": True if item.get("dead") is True else None,
                "deleted": True if item.get("deleted") is True else None,
            },
        )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


_HIT_KINDS = ("comment", "story", "poll", "pollopt", "job")


def _search_hits(value: dict) -> list[Any] | None:
    """An Algolia search answer's hits as items, or None when ``value`` is no such answer."""
    hits = value.get("hits")
    if "id" in value or not isinstance(hits, list):
        return None
    return [_hit_item(h) if isinstance(h, dict) else h for h in hits]


def _hit_item(hit: dict) -> dict:
    tags = [t for t in hit.get("_tags") or [] if isinstance(t, str)]
    kind = next((t for t in tags if t in _HIT_KINDS), None)
    item = {k: hit.get(k) for k in ("author", "created_at", "created_at_i", "title", "url",
                                    "points", "parent_id", "story_id")}  # fmt: skip
    text = hit.get("comment_text") or hit.get("story_text")
    return {"id": hit.get("objectID"), "type": kind, "text": text, **item}


def _is_algolia(item: dict) -> bool:
    return "children" in item or "created_at_i" in item or "author" in item


_HN_ALGOLIA = re.compile(r'"created_at_i"\s*:\s*\d')
_HN_ALGOLIA_KEYS = re.compile(r'"(?:story_id|parent_id|points|children)"\s*:')
_HN_TYPE = re.compile(r'"type"\s*:\s*"(?:story|comment|job|poll|pollopt)"')
# A number, or a string of one: BigQuery's JSON export of the public
# ``bigquery-public-data.hacker_news.full`` table writes every INT64 quoted.
_HN_TIME = re.compile(r'"time"\s*:\s*"?\d{9,}')
_HN_KEYS = re.compile(r'"(?:by|kids|parent|descendants)"\s*:')
_HN_HITS = re.compile(r'"(?:hits|nbHits)"\s*:')
_HN_TAGS = re.compile(r'"_tags"\s*:\s*\[\s*"(?:story|comment|poll|pollopt|job)"')


_SNIFF = (
    (90, (_HN_ALGOLIA, _HN_ALGOLIA_KEYS)),  # an Algolia item tree
    (85, (_HN_TYPE, _HN_TIME, _HN_KEYS)),  # a Firebase item
    (88, (_HN_HITS, _HN_TAGS, _HN_ALGOLIA)),  # an Algolia search answer
)


def sniff_hackernews(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(ctx)
    try:
        for top, value in json_values(source, ctx):
            hits = _search_hits(value) if isinstance(value, dict) else None
            for where, item in items(top, value if hits is None else hits):
                if not isinstance(item, dict):
                    ctx.reject(where, "not a Hacker News item (expected an object)", item)
                    continue
                try:
                    if _is_algolia(item):
                        yield from reader.algolia(item, where)
                    else:
                        yield reader.firebase(item, where)
                except RecordError as e:
                    ctx.reject_error(e, item)
        reader.tally.finish()
    finally:
        reader.close()


DESCRIPTION = (
    "Hacker News items: Algolia items/ID trees or Firebase item JSON (one, an array, or one "
    "a line); Algolia search answers (hits)"
)
EXAMPLE = '{"id": 1, "author": "pg", "created_at_i": 1160418111, "children": [...]}'
FIELDS = Fields(
    speaker="`author` (Algolia) or `by` (Firebase)",
    listeners="the `@` mentions, else the parent's author when the parent is in the input",
    time="`created_at_i` (else `created_at`) or Firebase `time`",
    zone="epoch seconds: UTC; a `created_at` without a zone is read in `--tz` (default UTC)",
    thread="the story: `hn:<id>` (Firebase items: when the parent chain was seen earlier)",
    id="`hn:<id>`",
    scope="none: Hacker News is one site",
    reply_to="the parent item",
    subject="the story's title",
    extra="`type`, `points`, `url`",
)

FORMATS = (
    Format(
        "hackernews",
        "forum",
        DESCRIPTION,
        ("*.json", "*.jsonl"),
        sniff_hackernews,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
