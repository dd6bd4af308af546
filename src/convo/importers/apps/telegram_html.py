"""Telegram Desktop's HTML export (Settings → Advanced → Export Telegram data, the default
"Human-readable HTML" format): ``messages.html``, ``messages2.html``... a chat, as
``Telegram/SourceFiles/export/output/export_output_html.cpp`` in
github.com/telegramdesktop/tdesktop writes them (and as the parsers of these files read
them: ``div.message``, ``div.from_name``, ``div.pull_right.date.details[title]``).

- The chat: the page header's ``div.text.bold`` (the chat's name) is the thread.
- A message: ``<div class="message default clearfix" id="message123">``; a ``joined``
  one (no ``from_name``) is the previous message's sender's. Speaker: its
  ``div.from_name`` (without a ``via @bot`` detail); a message that continues a sender
  from the file before (``messages2.html`` opening with a joined message) is the last
  sender of that page (``messages.html`` beside it, read once more by a regular
  expression); without that page its speaker is unknown, counted in one warning.
  Listeners: the sender of the message replied to (when it is in the file read so
  far), else the other sender of a chat of two (a first pass over the file finds its
  senders), else none: as ``telegram`` reads the JSON export of the same chat.
- Time: the date's ``title``, ``05.03.2024 10:15:30 UTC+01:00`` (its offset; an old
  export's time without one is read in ``--tz``). Service messages (``message
  service``: joins, pins, calls) carry no time of their own and get the previous
  message's, tagged ``system``; the day separators between them (negative ids,
  ``4 March 2024``: English month names whatever the app's language) are no messages,
  but a service message after a separator of a day no dated message had yet (a group's
  creation opens its first page) gets that day's start, at the previous time's offset
  (else in ``--tz``), ``extra.time_source`` ``day``; one before any date is warned
  about.
- Text: ``div.text`` as text (``<br>`` a line break, links and emphasis as their text).
  A forwarded message's text is its own; its original sender goes to
  ``extra.forwarded_from``. Media (``div.media_wrap``): the file's link, title and
  description in ``extra.media`` (``Not included, change data exporting settings to
  download.`` is kept there), and the title (else the link) as the text of a message
  without words.
- Replies: ``div.reply_to`` links ``#go_to_message123`` (also in another file of the
  export): ``replyTo`` is that message's id.
- Ids: ``telegram-html:<chat>:<id>``: a message id is unique within its chat, and the
  HTML names the chat only by its name (the JSON export's numeric chat id, which
  ``telegram`` uses, is not in it). Records say ``format: telegram``.
- The page is parsed as it is read (``html.parser``, 64 KiB at a time); a message
  ``div`` without a numeric id is rejected with its line; a file with no message is
  warned about.
- Detection: an HTML head with ``<title>Exported Data</title>`` or the page's
  ``class="page_body chat_page"``/``class="message default`` 90.

Ids and their scope (docs/ids.md): ``telegram-html:<chat name>:<id>``, the scope the
chat's name in the page header (its spaces and colons as ``build.clean_scope`` writes
them).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path, PurePath
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import format_timestamp_utc, naive_ts
from convo.importers.apps.common import SYSTEM_TAG, other_party
from convo.importers.build import clean_scope, message, scoped_id
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.registry import Format

CHUNK = 64 * 1024
_TITLE = re.compile(
    r"(\d{2})\.(\d{2})\.(\d{4}) (\d{2}):(\d{2}):(\d{2})(?: UTC([+-])(\d{2}):(\d{2}))?"
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip
# A day separator's text: tdesktop's FormatDateText, English whatever the app's language.
_DAY = re.compile(r"(\d{1,2}) (" + "|".join(_MONTHS) + r") (\d{4})")
_REPLY = re.compile(r"go_to_message(-?\d+)")
_ID = re.compile(r"message(-?\d+)\Z")
_SPACE = re.compile(r"[ \t\r\n\u00a0]+")
_VIA = re.compile(r"\s+via\s+@\S+\Z")


def sniff_telegram_html(source: Source) -> int:
    text = source.head_text()
    if "<title>Exported Data</title>" in text or 'class="page_body chat_page"' in text:
        return 90
    return 90 if 'class="message default' in text and "pull_right date details" in text else 0


def telegram_time(title: str, ctx: ImportContext) -> str | None:
    """A date ``title``'s time (``dd.mm.yyyy HH:MM:SS`` and maybe `` UTC+hh:mm``), UTC."""
    m = _TITLE.match(title)
    if m is None:
        return None
    try:
        when = datetime(int(m[3]), int(m[2]), int(m[1]), int(m[4]), int(m[5]), int(m[6]))
    except ValueError:
        return None
    if m[7] is None:
        return naive_ts(when, ctx.options.tz)
    delta = timedelta(hours=int(m[8]), minutes=int(m[9]))
    try:
        return format_timestamp_utc(when.replace(tzinfo=timezone(delta if m[7] == "+" else -delta)))
    except (ValueError, OverflowError):
        return None


@dataclass
class Parsed:
    """One message as the page gives it."""

    line: int
    id: str
    service: bool
    joined: bool
    time: str | None = None
    sender: str | None = None
    text: list[str] = field(default_factory=list)
    reply: str | None = None
    forwarded_from: str | None = None
    media: dict[str, str] = field(default_factory=dict)


# What the text inside a div of these classes is (the innermost one wins).
_CAPTURED = {"text": "text", "body details": "service"}
_MEDIA_CAPTURED = {"title bold": "media_title", "description": "media_description"}


class _Page(HTMLParser):
    """The page's messages, a ``Parsed`` each, as its bytes are fed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.done: list[Parsed] = []
        self.bad: list[tuple[int, str, str]] = []  # line, reason, what was there
        self.chat: str | None = None
        self.cur: Parsed | None = None
        self.stack: list[str] = []  # the classes of the open divs (and spans) of a message
        self.depth = 0  # open divs of the current message
        self.header = 0  # open divs of the page header
        self.capture: str | None = None
        self.parts: list[str] = []
        self.capture_depth = 0

    # -- tags
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = {k: v or "" for k, v in attrs}
        cls = got.get("class", "")
        if tag == "br" and self.capture:
            self.parts.append("\n")
        elif tag == "div" and self.cur is None:
            self._outer_div(cls, got)
        elif self.cur is None:
            return
        elif tag == "div":
            self.depth += 1
            self.stack.append(cls)
            self._div(cls, got)
        elif tag == "a":
            self._link(got.get("href", ""))
        elif tag == "span" and self.capture in ("sender", "forwarded"):
            self._name_detail(cls)

    def _name_detail(self, cls: str) -> None:
        """A span in a sender's name: a "via @bot" or a forward's date is not the name."""
        if cls in ("details", "date details"):
            self.capture_depth = -1

    def _outer_div(self, cls: str, got: dict[str, str]) -> None:
        """A div outside any message: a message's, or the page header's."""
        if cls.startswith("message"):
            self._open(cls, got.get("id", ""))
        elif cls == "page_header":
            self.header = 1
        elif self.header:
            self.header += 1
            if cls == "text bold":
                self._start_capture("chat", 0)

    def _open(self, cls: str, ident: str) -> None:
        m = _ID.search(ident)
        line = self.getpos()[0]
        classes = cls.split()
        if m is None:
            self.bad.append((line, "Telegram message without a numeric id", ident))
        self.cur = Parsed(line, m[1] if m else "", "service" in classes, "joined" in classes)
        self.depth = 1
        self.stack = [cls]

    def _div(self, cls: str, got: dict[str, str]) -> None:
        cur = self.cur
        assert cur is not None
        forwarded = any(c.startswith("forwarded") for c in self.stack[:-1])
        if cls == "pull_right date details" and cur.time is None:
            cur.time = got.get("title", "")
        elif cls == "from_name":
            self._start_capture("forwarded" if forwarded else "sender", self.depth)
        elif cls in _MEDIA_CAPTURED and any("media_wrap" in c for c in self.stack):
            self._start_capture(_MEDIA_CAPTURED[cls], self.depth)
        elif cls in _CAPTURED and not any(c.startswith("reply_to") for c in self.stack):
            self._start_capture(_CAPTURED[cls], self.depth)

    def _link(self, href: str) -> None:
        cur = self.cur
        assert cur is not None
        if any(c.startswith("reply_to") for c in self.stack):
            m = _REPLY.search(href)
            cur.reply = m[1] if m else cur.reply
        elif any("media_wrap" in c for c in self.stack) and href and "href" not in cur.media:
            cur.media["href"] = href

    def handle_endtag(self, tag: str) -> None:
        if self.header and tag == "div":
            self.header -= 1
            if self.capture == "chat":
                self._end_capture()
            return
        if self.cur is None:
            return
        if tag == "span" and self.capture_depth == -1:
            self.capture_depth = self.depth
        if tag != "div":
            return
        if self.capture and self.capture_depth == self.depth:
            self._end_capture()
        self.depth -= 1
        if self.stack:
            self.stack.pop()
        if self.depth == 0:
            self.done.append(self.cur)
            self.cur = None

    def handle_data(self, data: str) -> None:
        if self.capture and self.capture_depth != -1:
            self.parts.append(_SPACE.sub(" ", data))

    # -- captures
    def _start_capture(self, what: str, depth: int) -> None:
        if self.capture and self.capture != what:
            self._end_capture()
        self.capture, self.capture_depth, self.parts = what, depth, []

    def _end_capture(self) -> None:
        what, self.capture = self.capture, None
        lines = (ln.strip() for ln in "".join(self.parts).split("\n"))
        text = "\n".join(ln for ln in lines).strip()
        self.parts = []
        cur = self.cur
        if what == "chat":
            self.chat = text or None
        elif cur is None:
            return
        elif what == "sender":
            cur.sender = _VIA.sub("", text) or None
        elif what == "forwarded":
            cur.forwarded_from = text or None
        elif what in ("text", "service"):
            cur.text.append(text)
        elif what in ("media_title", "media_description") and text:
            cur.media[what.removeprefix("media_")] = text


def _parsed(source: Source) -> Iterator[tuple[_Page, Parsed | tuple[int, str, str]]]:
    """The page's messages (and its message divs without an id) in order."""
    page = _Page()
    with open(source.real_path(), "rb") as f:  # two passes: stdin and .gz are spooled
        decoder = _decoder()
        while True:
            chunk = f.read(CHUNK)
            page.feed(decoder.decode(chunk, final=not chunk))
            if not chunk:
                page.close()
                if page.cur is not None:  # the page is cut short
                    page.bad.append((page.cur.line, "Telegram message not finished (the page "
                                     "is cut short)", "\n".join(page.cur.text)[:200]))  # fmt: skip
            for bad in page.bad:
                yield page, bad
            for done in page.done:
                yield page, done
            page.bad.clear()
            page.done.clear()
            if not chunk:
                return


def _decoder() -> Any:
    import codecs

    return codecs.getincrementaldecoder("utf-8-sig")(errors="replace")


@dataclass
class _Run:
    chat: str
    speakers: list[str]
    scope: str | None = None
    last_sender: str | None = None
    last_time: str | None = None
    last_title: str = ""  # the date title the last time was read from
    day: str = ""  # the latest day separator's day, as a title writes it: dd.mm.yyyy
    untimed: int = 0  # service messages with no time: before any dated message or day
    orphans: int = 0
    count: int = 0
    senders: SpillMap[str, str] = field(default_factory=SpillMap)  # message id: its sender


# A sender's name as tdesktop writes it (a forward's original sender is inside
# ``div.forwarded.body``, just before its ``from_name``: not a sender of the chat).
_FROM = re.compile(r'(<div class="forwarded body">\s*)?<div class="from_name">\s*([^<]*?)\s*<')


_PAGE_NAME = re.compile(r"messages(\d+)\.html")


def _previous_sender(source: Source) -> str | None:
    """The last sender of the pages before this one (``messages.html`` for
    ``messages2.html``, ``messages2.html`` for ``messages3.html``), when they lie beside
    it: the sender a page opening with a joined message continues."""
    m = _PAGE_NAME.fullmatch(PurePath(source.name).name)
    if m is None or source.path is None or source.is_stdin:
        return None
    for n in range(int(m[1]) - 1, 0, -1):  # a page of joined messages only: the one before
        before = Path(source.path).with_name("messages.html" if n == 1 else f"messages{n}.html")
        if not before.is_file():
            return None
        last = _last_sender(before)
        if last is not None:
            return last
    return None


def _last_sender(before: Path) -> str | None:
    """The last sender a page names (not a forward's original sender)."""
    last, tail, decoder = None, "", _decoder()
    with open(before, "rb") as f:
        while chunk := f.read(1 << 20):
            text = tail + decoder.decode(chunk)
            for found in _FROM.finditer(text):  # the overlap is read twice: the last holds
                name = _VIA.sub("", _SPACE.sub(" ", html.unescape(found[2])).strip())
                if not found[1] and name:
                    last = name
            tail = text[-4096:]  # a name cut by the chunk's end is found in the next one
    return last


def _senders(source: Source) -> list[str]:
    """The page's first three senders, by a regular expression over its text (a first
    pass, for a chat of two's listener). Measured on 100,000 generated messages (34 MB,
    load ~9, 2026-12-04): this pass 1.5 s of CPU, the same pass through the parser
    6.2 s; the whole ingest 13.2 s before, 9.5 s after. ``tests/importers/
    test_formats_telegram_html.py`` holds it equal to the parser's senders."""
    seen: dict[str, None] = {}
    tail = ""
    decoder = _decoder()
    with open(source.real_path(), "rb") as f:
        while chunk := f.read(1 << 20):
            text = tail + decoder.decode(chunk)
            for m in _FROM.finditer(text):
                name = _VIA.sub("", _SPACE.sub(" ", html.unescape(m[2])).strip())
                if not m[1] and name:
                    seen.setdefault(name)
                    if len(seen) > 2:
                        return list(seen)
            tail = text[-4096:]  # a name cut by the chunk's end is found in the next one
    return list(seen)


def _separator(p: Parsed, run: _Run) -> None:
    """Keep a day separator's day (``4 March 2024``) for the service messages after it."""
    m = _DAY.fullmatch(" ".join(" ".join(p.text).split()))
    if m is not None:
        run.day = f"{int(m[1]):02d}.{_MONTHS.index(m[2]) + 1:02d}.{m[3]}"


def _service_time(run: _Run, ctx: ImportContext) -> tuple[str | None, bool]:
    """A service message's time (it has none of its own) and whether it is only its
    day's: the previous message's time when that is on the latest day separator's day
    (or there is no separator), else that day's start, at the previous time's offset."""
    if not run.day or (run.last_time and run.last_title.startswith(run.day)):
        return run.last_time, False
    offset = _TITLE.fullmatch(run.last_title)
    zone = f" UTC{offset[7]}{offset[8]}:{offset[9]}" if offset and offset[7] else ""
    return telegram_time(f"{run.day} 00:00:00{zone}", ctx), True


def _who(p: Parsed, run: _Run, ctx: ImportContext) -> tuple[str | None, str | None]:
    """The speaker and time of a message: a service message has neither (it takes the
    previous message's time, else its day's); a joined one continues the previous
    sender."""
    if p.service:
        ts, _ = _service_time(run, ctx)
        run.untimed += ts is None
        return None, ts
    if p.sender is None and p.joined and run.last_sender is None:
        run.orphans += 1
    speaker = p.sender or (run.last_sender if p.joined else None)
    run.last_sender = speaker
    ts = telegram_time(p.time or "", ctx)
    if ts:
        run.last_time, run.last_title = ts, (p.time or "").strip()
    return speaker, ts


def _listeners(p: Parsed, speaker: str | None, run: _Run) -> list[str]:
    """The sender of the message replied to, else the other of two senders (and remember
    who sent this one)."""
    if not speaker:
        return []
    replied = run.senders.get(p.reply) if p.reply else None
    if p.id:
        run.senders.set(p.id, speaker)
    if replied and replied != speaker:
        return [replied]
    return other_party(run.speakers, speaker)


def _build(p: Parsed, run: _Run, ctx: ImportContext) -> ConversationMessage | None:
    if p.service and p.id.startswith("-"):
        _separator(p, run)
        return None  # a day separator
    day_only = p.service and _service_time(run, ctx)[1]
    speaker, ts = _who(p, run, ctx)
    text = "\n".join(t for t in p.text if t) or p.media.get("title") or p.media.get("href") or ""
    run.count += 1
    return message(
        text, speaker=speaker, listeners=_listeners(p, speaker, run),
        timestamp=ts, id=scoped_id("telegram-html", run.scope, p.id),
        source_id=ctx.loc(p.line), format="telegram", thread=run.chat,
        reply_to=scoped_id("telegram-html", run.scope, p.reply) if p.reply else None,
        tags=[SYSTEM_TAG] if p.service else None,
        extra={"forwarded_from": p.forwarded_from, "media": p.media or None,
               "time_source": "day" if day_only and ts else None},
    )  # fmt: skip


def read_telegram_html(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    fallback = PurePath(source.name).name
    run: _Run | None = None
    for page, got in _parsed(source):
        if run is None:
            run = _Run(page.chat or fallback, _senders(source))
            run.scope = clean_scope(run.chat)
            run.last_sender = _previous_sender(source)
        if isinstance(got, tuple):
            ctx.reject(ctx.loc(got[0]), got[1], got[2])
            continue
        msg = _build(got, run, ctx) if got.id else None  # no id: rejected above
        if msg is not None:
            yield msg
    if run is None or not run.count:
        ctx.warn(source.name, "no Telegram messages in this page; nothing imported")
    elif run.orphans:
        n = run.orphans
        ctx.warn(source.name, f"{counted(n, 'message')} {plural(n, 'continues', 'continue')} a "
                 f"sender from the export's previous page; {plural(n, 'its', 'their')} speaker is "
                 "unknown")  # fmt: skip
    if run is not None and run.untimed:
        n = run.untimed
        ctx.warn(source.name, f"{counted(n, 'service message')} before any date; "
                 f"{plural(n, 'its time is', 'their time is')} unknown")  # fmt: skip


DESCRIPTION = "Telegram Desktop HTML export (messages.html, messages2.html...)"
EXAMPLE = (
    '<div class="message default clearfix" id="message7"><div class="body">'
    '<div class="pull_right date details" title="05.03.2024 10:15:30 UTC+01:00">10:15</div>'
    '<div class="from_name">Alice</div><div class="text">Hello</div></div></div>'
)
FIELDS = Fields(
    speaker="`div.from_name` (a joined message: the previous sender's)",
    listeners="the sender of the message replied to, else the other sender of a chat of two, else none",
    time="the date's `title` (`dd.mm.yyyy HH:MM:SS UTC+hh:mm`); service messages: the "
    "previous message's, or the start of the day separator's day before them",
    zone="the title's `UTC+hh:mm`; an old export's time without one in `--tz`",
    thread="the chat's name in the page header",
    id="`telegram-html:<chat name>:<id>`",
    scope="the chat's name (the page header)",
    reply_to="the message `div.reply_to` links to",
    tags="`system` for service messages",
    extra="`forwarded_from`, `media` (`href`, `title`, `description`), `time_source` (`day`: a "
    "service message dated by its day separator)",
)
FORMATS = (
    Format("telegram-html", "chat", DESCRIPTION, ("messages*.html", "*.html"),
           sniff_telegram_html, read_telegram_html, EXAMPLE, fields=FIELDS),
)  # fmt: skip
