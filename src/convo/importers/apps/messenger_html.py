"""Facebook Messenger and Instagram chats from Meta's download in HTML (its default
format), ``messages/inbox/<thread>/message_N.html``: format ``messenger-html``, records
``messenger`` (``instagram`` under ``your_instagram_activity`` or an ``instagram-...``
folder).

Every message is a ``<div class="pam ... uiBoxWhite noborder">`` block holding its
sender, its content and its date, by class (as readers of real downloads in public
repositories, found with the code search, pick them out):
- 2018-2021: sender ``_2pio`` (``_3-96 _2pio _2lek _2lel``), content ``_2let``, date
  ``_2lem``, reactions ``<ul class="_tqp">``; the chat's name in ``_3b0d``.
- since 2022: sender ``_2pim`` (``_3-95 _2pim _a6-h _a6-i``, a ``<div>`` or an ``<h2>``),
  content ``_a6-p``, date ``_a6-o``.
The first block, without a date, names the participants (``Participants: Ann, Bo and
Cy``). The content: the text, then a photo's ``<img src>``, a video's or audio's
``src``, a file's or link's ``<a href>``, then the reactions as ``<li>`` items (the
emoji, then who).

Decisions: speaker = the sender's name; listeners = the other of two participants;
thread = the page's ``<title>`` (the chat's name); time = the date as written, in the
account's own zone and language, read in ``--tz``: English month names (``Jan 01, 2023
10:00:00 am``, ``Jan 1, 2019, 10:00 AM``, ``1 Jan 2019, 10:00``) and numeric dates
(``01.01.2019, 10:00``); a date that does not read keeps the message without a time,
warned. Newest first on the page: read oldest first (a page holds at most 10,000
messages, Meta's ``message_N`` split; they are held to be turned round).
Detection: the dated blocks of a page named ``message_N.html`` or naming its
``Participants:`` (the download's pages of posts and comments have the same blocks). Media as ``[photo] path`` chunks
(``[video]``, ``[audio]``, ``[link]``), reactions in ``extra.reactions``.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import PurePath
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import EmptyCounter, other_party, parsed_page
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "messenger-html"
_ROLES = {"_2pio": "sender", "_2pim": "sender", "_2let": "content", "_a6-p": "content",
          "_2lem": "date", "_a6-o": "date", "_tqp": "reactions", "_3b0d": "title",
          "_2lek": "participants"}  # fmt: skip
_VOID = {"img", "br", "hr", "meta", "link", "source", "input", "wbr"}
_MEDIA = {"img": "photo", "video": "video", "audio": "audio", "source": "video", "a": "link"}
_INSTAGRAM = re.compile(r"(?:^|[/\\])(?:your_instagram_activity|instagram-[^/\\]*)[/\\]", re.I)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CLOCK = r"(\d{1,2}):(\d\d)(?::(\d\d))?\s*([AaPp]\.?[Mm]\.?)?"
_DATES = (
    re.compile(rf"^([A-Za-z]{{3}})[a-z]*\.? (\d{{1,2}}),? (\d{{4}}),?(?: at)? {_CLOCK}$"),
    re.compile(rf"^(\d{{1,2}})\.? ([A-Za-z]{{3}})[a-z]*\.? (\d{{4}}),?(?: at)? {_CLOCK}$"),
    re.compile(rf"^(\d{{1,2}})[./](\d{{1,2}})[./](\d{{4}}),? {_CLOCK}$"),
)


@dataclass
class _Block:
    line: int
    sender: str = ""
    date: str = ""
    text: list[str] = field(default_factory=list)
    media: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)


class _Page(HTMLParser):
    """The page's blocks as they finish (``done``), its title and participants."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # tag, role
        self.block: _Block | None = None
        self.depth = 0  # the block's div depth
        self.done: list[_Block] = []
        self.title = ""
        self.in_title = False
        self.participants_text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = dict(attrs)
        classes = (got.get("class") or "").split()
        if tag == "title":
            self.in_title = True
        if tag == "div" and "uiBoxWhite" in classes and self.block is None:
            self.block, self.depth = _Block(self.getpos()[0]), len(self.stack)
        role = next((_ROLES[c] for c in classes if c in _ROLES), "")
        if self.block is not None:
            role = self._in_block(self.block, tag, got) or role
        if tag not in _VOID:
            self.stack.append((tag, role))

    def _in_block(self, block: _Block, tag: str, got: dict[str, str | None]) -> str:
        """What a tag inside a message adds: a reaction (an ``<li>``: its role), a
        file or link (its chunk), a line break."""
        here = self._role()
        if tag == "li" and here in ("content", "reactions"):
            block.reactions.append("")
            return "reaction"
        if here == "content":
            src = got.get("src") or got.get("href")
            if tag in _MEDIA and src:
                if block.media[-1:] == [f"[link] {src}"]:  # a photo inside its own link: once
                    block.media.pop()
                block.media.append(f"[{_MEDIA[tag]}] {src}")
            if tag in ("div", "p", "br"):
                block.text.append("\n")
        return ""

    def _role(self) -> str:
        return next((r for _, r in reversed(self.stack) if r), "")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
        role, block = self._role(), self.block
        if block is None:
            if role == "participants":  # 2018-2021: ``Participants: ...`` before the blocks
                self.participants_text += data
            return
        if role == "sender":
            block.sender += data
        elif role == "date":
            block.date += data
        elif role == "reaction":
            block.reactions[-1] += data
        elif role == "content":
            block.text.append(data)
        elif role == "title":
            self.title = self.title or data

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            t, _ = self.stack.pop()
            if t == "div" and self.block is not None and len(self.stack) == self.depth:
                self.done.append(self.block)
                self.block = None
            if t == tag:
                return


def sniff(source: Source) -> int:
    """A page of the download's blocks, dated, that is a chat: named ``message_N.html``
    or naming its participants (the download's other pages, posts and comments, have the
    same blocks)."""
    head = source.head_text()
    if "uiBoxWhite" not in head or not head.lstrip("\ufeff \r\n").startswith("<"):
        return 0
    chat = "Participants:" in head or _PAGE_NAME.match(PurePath(source.match_name).name)
    dated = any(f'"{c}' in head or f" {c}" in head for c in ("_2lem", "_a6-o"))
    return 85 if chat and dated else 0


_PAGE_NAME = re.compile(r"message_\d+\.html")


def stamp(text: str) -> datetime | None:
    """The date of a block as the download writes it (English month names, numbers)."""
    text = " ".join(text.replace("\u202f", " ").split())
    for k, regex in enumerate(_DATES):
        m = regex.match(text)
        if m is None:
            continue
        if k == 2:
            day, month, year = int(m[1]), int(m[2]), int(m[3])
        else:
            name, day = (m[1], int(m[2])) if k == 0 else (m[2], int(m[1]))
            if name[:3].lower() not in _MONTHS:
                return None
            month, year = _MONTHS.index(name[:3].lower()) + 1, int(m[3])
        hour, minute, second = int(m[4]), int(m[5]), int(m[6] or 0)
        if m[7]:
            hour = hour % 12 + (12 if m[7].lower().startswith("p") else 0)
        try:
            return datetime(year, month, day, hour, minute, second)
        except ValueError:
            return None
    return None


def _blocks(source: Source, page: _Page) -> Iterator[_Block]:
    return parsed_page(source, page)


def _people(text: str) -> list[str]:
    """``Participants: Ann, Bo and Cy`` (a block without a date, or before the blocks)."""
    text = " ".join(text.split())
    if not text.startswith("Participants:"):
        return []
    names = re.split(r", | and ", text.removeprefix("Participants:").strip())
    return [n for n in names if n]


def _record(b: _Block, people: list[str], thread: str, fmt: str, ctx: ImportContext) -> Any:
    text = "\n".join(x.strip() for x in "".join(b.text).split("\n") if x.strip())
    media = [m for m in b.media if not (m.startswith("[link] ") and m[7:] in text)]
    chunks = ([text] if text else []) + media
    if not chunks:
        return None
    speaker = " ".join(b.sender.split()) or None
    when = stamp(b.date)
    loc = ctx.loc(b.line)
    if when is None:
        ctx.warn(loc, f"a date that does not read ({b.date.strip()!r}); time left unknown")
    reactions = [" ".join(r.split()) for r in b.reactions if r.strip()]
    return message(
        chunks,
        speaker=speaker,
        listeners=other_party(people, speaker),
        timestamp=naive_ts(when, ctx.options.tz) if when else None,
        source_id=loc,
        format=fmt,
        thread=thread,
        extra={"date": b.date.strip(), "reactions": reactions or None},
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    page = _Page()
    blocks: list[_Block] = []  # newest first on the page: read oldest first
    people: list[str] = []
    for b in _blocks(source, page):
        if not b.date.strip():
            people = people or _people("".join(b.text))
            continue
        blocks.append(b)
    people = people or _people(page.participants_text)
    fmt = "instagram" if _INSTAGRAM.search(source.name) else "messenger"
    thread = " ".join(page.title.split()) or source.name
    empty = EmptyCounter()
    for b in reversed(blocks):
        rec = _record(b, people, thread, fmt, ctx)
        if rec is None:
            empty.skip(ctx.loc(b.line))
        else:
            yield rec
    empty.report(ctx)


DESCRIPTION = "Facebook Messenger / Instagram chats from Meta's download in HTML (message_N.html)"
EXAMPLE = (
    '<div class="pam _3-95 _2ph- _a6-g uiBoxWhite noborder"><div class="_3-95 _2pim _a6-h '
    '_a6-i">Ann Lee</div><div class="_3-95 _a6-p"><div><div></div><div>Hello</div></div></div>'
    '<div class="_3-94 _a6-o">Jan 01, 2023 10:00:00 am</div></div>'
)
FIELDS = Fields(
    speaker="the block's sender (`_2pio`, since 2022 `_2pim`)",
    listeners="the other of two participants (the page's `Participants:` block)",
    time="the block's date (`_2lem`, `_a6-o`) as written: English month names or numbers",
    zone="naive (the account's zone): read in `--tz` (default UTC)",
    thread="the page's `<title>` (the chat's name)",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread",
    extra="`date` (as written), `reactions` (emoji and name, as written)",
)
FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("message_*.html", "*.html"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
