"""Stack Exchange API answers (``api.stackexchange.com/2.3/...``): the JSON wrapper
``{"items": [...], "has_more", "quota_max", "quota_remaining"}`` around questions
(``question_id``, ``title``, ``body`` with ``filter=withbody``, and ``answers`` and
``comments`` inline when the filter asks for them), answers (``answer_id``) or comments
(``comment_id``, ``post_id``).

Records are the data dump's (``convo.importers.forums.stackexchange``, format
``stackexchange``): a question starts the thread ``se:<site>:<id>`` with its title as
subject and its tags; an answer replies to its question, a comment
(``se:<site>:c<id>``) to its post. The site is the host of the item's ``link``
(``stackoverflow.com``: ``stackoverflow``; ``cooking.stackexchange.com``: ``cooking``),
as the dump names it; without a link the ids are ``se:<id>``.

The API escapes HTML in titles and names (``&amp;``, ``&#39;``): unescaped. Bodies are
HTML (``body``), else ``body_markdown``. Speaker: ``owner.display_name``; listeners the
@-mentions, else the author of the post answered or commented on when the answer nests
it (an answer: its question's owner; a comment: its post's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import Tally, as_int, as_str, json_values, message, unescape
from convo.importers.forums.stackexchange import FMT, site_name
from convo.importers.jsoninput import as_list, sniff_json
from convo.importers.registry import Format

_HOST = re.compile(r"https?://([^/]+)/")


def _site(item: dict[str, Any]) -> str | None:
    m = _HOST.match(as_str(item.get("link")) or "")
    if not m:
        return None
    return site_name(m.group(1).removeprefix("www."))


def _owner(item: dict[str, Any]) -> str | None:
    owner = item.get("owner")
    name = as_str(owner.get("display_name")) if isinstance(owner, dict) else None
    return unescape(name) if name else None


def _body(item: dict[str, Any]) -> str:
    body = as_str(item.get("body"))
    return html_to_text(body) if body else unescape(as_str(item.get("body_markdown")) or "")


class _Reader:
    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.tally = Tally(ctx)

    def ident(self, site: str | None, local: str) -> str:
        return f"se:{site}:{local}" if site else f"se:{local}"

    def post(
        self, item: dict[str, Any], site: str | None, where: str, heard: str | None = None
    ) -> Iterator[ConversationMessage]:
        """A question or an answer, then what it nests (comments, answers); ``where``:
        the element's place, for a rejection."""
        qid = as_int(item.get("question_id"))
        aid = as_int(item.get("answer_id"))
        if qid is None:
            self.ctx.reject(where, "Stack Exchange item without an id", item)
            return
        thread = self.ident(site, str(qid))
        msg = self._post(item, site, thread, aid)
        _answers(msg, heard)
        yield msg
        speaker = msg.metadata.speaker
        for c in _objects(item.get("comments")):
            yield self.comment(c, site, thread, speaker)
        for a in _objects(item.get("answers")):
            yield from self.post(a, site, where, speaker)

    def _post(
        self, item: dict[str, Any], site: str | None, thread: str, aid: int | None
    ) -> ConversationMessage:
        title = unescape(as_str(item.get("title")) or "") if aid is None else None
        local = thread.rsplit(":", 1)[-1] if aid is None else str(aid)
        return message(
            FMT,
            _body(item) or title or "",
            self.tally.speaker(_owner(item)),
            timestamp=self.tally.epoch(item.get("creation_date")),
            source_id=self.ctx.loc(f"{'q' if aid is None else 'a'}{local}"),
            id=self.ident(site, local),
            thread=thread,
            reply_to=thread if aid is not None else None,
            subject=title,
            tags=[t for t in as_list(item.get("tags")) if isinstance(t, str)],
            extra={
                "score": item.get("score"),
                "accepted": True if item.get("is_accepted") is True else None,
                "link": as_str(item.get("link")),
            },
        )

    def comment(
        self, item: dict[str, Any], site: str | None, thread: str | None, heard: str | None
    ) -> ConversationMessage:
        cid = as_int(item.get("comment_id"))
        post = as_int(item.get("post_id"))
        speaker = self.tally.speaker(_owner(item))
        msg = message(
            FMT,
            _body(item),
            speaker,
            timestamp=self.tally.epoch(item.get("creation_date")),
            source_id=self.ctx.loc(f"c{cid}"),
            id=self.ident(site, f"c{cid}") if cid is not None else None,
            thread=thread,
            reply_to=self.ident(site, str(post)) if post is not None else None,
            extra={"score": item.get("score"), "post_id": post if thread is None else None},
        )
        _answers(msg, heard)
        return msg


def _objects(value: Any) -> list[dict[str, Any]]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _answers(msg: ConversationMessage, heard: str | None) -> None:
    """Without a mention, a reply speaks to the author of the post it answers."""
    if heard and heard != msg.metadata.speaker and not msg.metadata.recipients:
        msg.metadata.recipients = [heard]


_ITEMS = re.compile(r'"items"\s*:\s*\[')
_WRAPPER = re.compile(r'"(?:quota_max|quota_remaining|has_more)"\s*:')
_IDS = re.compile(r'"(?:question_id|answer_id|comment_id)"\s*:\s*\d')
_SNIFF = ((90, (_ITEMS, _IDS)), (90, (_WRAPPER, _IDS)))


def sniff(source: Source) -> int:
    return sniff_json(source, _SNIFF)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(ctx)
    for where, value in json_values(source, ctx):
        items = value.get("items") if isinstance(value, dict) else value
        for item in items if isinstance(items, list) else [value]:
            if not isinstance(item, dict):
                ctx.reject(where, "not a Stack Exchange item (expected an object)", item)
            elif "comment_id" in item and "question_id" not in item:
                yield reader.comment(item, _site(item), None, None)
            else:
                yield from reader.post(item, _site(item), where)
    reader.tally.finish()


DESCRIPTION = "Stack Exchange API JSON (items: questions with answers/comments, answers, comments)"
EXAMPLE = '{"items": [{"question_id": 21, "title": "...", "owner": {"display_name": "Ann"}}]}'
FIELDS = Fields(
    speaker="`owner.display_name` (unescaped)",
    listeners="the `@` mentions, else the author of the post it answers when nested in it",
    time="`creation_date` (epoch seconds)",
    zone="epoch seconds: UTC",
    thread="the question: `se:<site>:<question_id>` (the site from the item's `link`)",
    id="`se:<site>:<id>` (question, answer), `se:<site>:c<comment_id>`",
    scope="the site, from the host of the item's `link`",
    reply_to="an answer: its question; a comment: its post",
    subject="the question's `title`",
    tags="the question's tags",
    extra="`score`, `accepted`, `link`, `post_id` (a comment read alone)",
)

FORMATS = (
    Format(
        "stackexchange-api",
        "forum",
        DESCRIPTION,
        ("*.json",),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
