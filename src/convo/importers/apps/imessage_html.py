"""iMessage (and SMS) chats as imessage-exporter writes them with ``-f html``: one page a
chat (github.com/ReagentX/imessage-exporter, ``imessage-exporter/src/exporters/html.rs``
and ``resources/example.html``), read as the same records as its ``-f txt`` export
(``convo.importers.apps.imessage``, whose decisions hold; records say ``imessage``).

The page: a head with the exporter's CSS (``.message .sent.iMessage``), then for each
message ``<div class="message">`` holding ``<div class="sent iMessage">`` (the service
after ``sent``) or ``<div class="received">``; in it ``<span class="timestamp">`` (the
time, a link to the Messages app in recent versions, and ``(Read by ... after ...)``),
``<span class="sender">``, ``<span class="subject">``, and its parts: ``<span
class="bubble">`` text, ``<div class="attachment">`` (``<img src>``, ``<video>``'s
``<source src>``, ``<audio src>``, a download link), ``<span class="attachment_error">``
(a file it could not find), ``<div class="sticker">``, ``<div class="app">`` (a link
preview or an app's balloon: its texts and link), ``<div class="edited">`` (a table of the
versions, the last one in ``<tfoot>``), ``<span class="unsent">``, then
``<span class="expressive">`` (``Sent with Confetti``), ``<div class="reactions">``
(``tapbacks`` since 2.x: ``<b>Loved</b> by Ann``), ``<div class="replies">`` (each
``<div class="reply">`` a whole message: a threaded reply, printed again in its place with
``<span class="reply_context">``), ``<span class="deleted">``. An announcement is
``<div class ="announcement">`` with its time and the sentence.

- What the txt export writes as lines, this reader gives the txt reader as lines (the
  subject, the texts, the files' paths, ``Sent with ...``, ``Tapbacks:`` and ``Loved by
  Ann``, an edit history's ``Edited 5 seconds later: ...``), so both exports of one chat
  give the same speakers, times, texts, replies and ``extra``.
- Thread: the file's name without ``.html``. The page is parsed as it streams.
- Detection: an HTML head holding the exporter's style or message markup, 85.

Ids and their scope (docs/ids.md): as the txt export's: content hashes, scoped to the
thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import PurePath

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.apps.common import parsed_page
from convo.importers.apps.imessage import (
    READ,
    Block,
    ChatState,
    read_blocks,
    stamp_time,
)
from convo.importers.build import ContentIds
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "imessage-html"
# what only the exporter's pages hold: its style's selectors, its message markup
_MARKS = (".message .sent.iMessage", 'class="sent iMessage"', 'class="timestamp"')
# elements whose text a message keeps, by their class
_CAPTURED = {
    "timestamp", "sender", "subject", "bubble", "attachment", "attachment_error", "app",
    "app_error", "expressive", "reaction", "tapback", "reply_context", "deleted", "unsent",
    "shareplay", "shared_location", "transcription", "genmoji_prompt", "announcement",
    "message_part", "edit_time", "edit_cell",
}  # fmt: skip
_NOTES = ("expressive", "deleted", "reply_context")
_FIELD = {"timestamp": "time", "sender": "sender", "subject": "subject"}
_VOID = {"img", "hr", "br", "meta", "link", "source", "input", "audio", "wbr"}
_ONE_SPACE_HOUR = re.compile(r"(, \d{4}) (\d:)")  # ``%l`` pads the hour: two spaces


@dataclass
class _Page:
    """A message as the page gives it (its replies inside it)."""

    line: int
    announcement: bool = False
    time: str = ""
    sender: str = ""
    subject: str = ""
    lines: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # effect, deleted, replied
    edits: list[str] = field(default_factory=list)  # ``Edited 5 seconds later: text``
    delay: str = ""  # the edit being read: its delay
    replies: list[_Page] = field(default_factory=list)


class _Parser(HTMLParser):
    """The page's top-level messages and announcements, as ``_Page``s, fed a piece at a
    time (``done`` holds those finished)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str, list[str]]] = []  # tag, class, text captured
        self.open: list[_Page] = []  # the messages being read, replies innermost
        self.done: list[_Page] = []
        self.unformatted: list[int] = []  # lines of ``Unable to format announcement!``

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = dict(attrs)
        classes = (got.get("class") or "").split()
        role = classes[0] if classes else ""
        if tag == "div" and role in ("message", "announcement") and not self._inside("edited"):
            self.open.append(_Page(self.getpos()[0], announcement=role == "announcement"))
        elif self._inside("edited"):
            role = {"td": "edit_cell", "span": "edit_time"}.get(tag, "")
        src = got.get("src") or got.get("href") or ""
        if self.open and tag in ("img", "source", "audio", "a") and self._media_here():
            lines = self.open[-1].lines
            lines += [src] if src and src not in lines[-1:] else []
        self._breaks(tag, src)
        if tag not in _VOID:
            self.stack.append((tag, role, []))

    def _breaks(self, tag: str, href: str) -> None:
        """A block element starts a line of the text kept (an app's title, its caption);
        an app's link is a line of its own."""
        buf = self._buffer()
        if buf is not None and tag in ("br", "div", "p", "tr"):
            buf.append("\n")
        if buf is not None and tag == "a" and href and not href.startswith("sms:"):
            buf.append(f"\n{href}\n" if self._inside("app") else "")

    def _inside(self, role: str) -> bool:
        return any(r == role for _, r, _ in self.stack)

    def _media_here(self) -> bool:
        """Within a file's part of the innermost message (not a preview's picture)."""
        for _, role, _ in reversed(self.stack):
            if role in ("attachment", "sticker"):
                return True
            if role in ("message", "app", "reaction", "tapback", "bubble"):
                return False
        return False

    def _buffer(self) -> list[str] | None:
        """Where text goes now: the innermost element whose text is kept."""
        for _, role, buf in reversed(self.stack):
            if role in _CAPTURED:
                return buf
        return None

    def handle_data(self, data: str) -> None:
        buf = self._buffer()
        if buf is not None:
            buf.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _, _ in self.stack):
            return
        while self.stack:
            t, role, buf = self.stack.pop()
            if role in _CAPTURED and self.open:
                self._keep(self.open[-1], role, "".join(buf).strip())
            if role in ("message", "announcement") and self.open and t == "div":
                self._close(self.open.pop())
            if t == tag:
                return

    def _keep(self, page: _Page, role: str, text: str) -> None:
        if role in ("reaction", "tapback"):
            page.reactions += _tapback(text)
        elif role == "edit_time":
            page.delay = text
        elif role == "edit_cell" and text:
            page.edits.append(f"{page.delay.removesuffix(':')}: {text}" if page.delay else text)
            page.delay = ""
        elif role in _NOTES:
            page.notes.append(text)
        elif role == "app":  # its link, title and caption, a line each (as the txt)
            page.lines += [" ".join(x.split()) for x in text.splitlines() if x.strip()]
        elif role in ("timestamp", "sender", "subject"):
            setattr(page, _FIELD[role], getattr(page, _FIELD[role]) or text)
        elif text and (role != "attachment" or "Unable to embed" in text):
            page.lines.append(text)  # an attachment's words are the exporter's: its path is kept

    def _close(self, page: _Page) -> None:
        if self.open and not page.announcement:
            self.open[-1].replies.append(page)
        elif page.announcement and not page.time:
            self.unformatted.append(page.line)
        elif not self.open:
            self.done.append(page)


def _tapback(text: str) -> list[str]:
    """A tapback's line as the txt writes it (``Loved by Ann``; a sticker ``from Ann``)."""
    text = " ".join(text.split())
    return [f"Sticker {text}" if text.startswith("from ") else text] if text else []


def _when(text: str) -> tuple[datetime, str] | None:
    """The time and the rest (`` (Read by ...)``, an announcement's sentence) of a
    timestamp's text."""
    got = stamp_time(_ONE_SPACE_HOUR.sub(r"\1  \2", " ".join(text.split(" ")).strip()))
    return None if got is None else (got[0], got[1].rstrip())


def _block(page: _Page) -> Block | None:
    """The txt export's block for a page's message: its lines as the txt writes them."""
    got = _when(page.time)
    if got is None:
        return None
    if page.announcement:  # the sentence after the time, as the txt writes it
        return Block(page.line, got[0], " " + " ".join(" ".join(page.lines).split()))
    read = got[1] if READ.fullmatch(got[1]) else ""
    body = [page.subject] * bool(page.subject) + page.edits + page.lines + page.notes
    if page.reactions:
        body += ["Tapbacks:", *page.reactions]
    block = Block(page.line, got[0], read, page.sender or None, body)
    block.replies = [b for b in map(_block, page.replies) if b is not None]
    return block


def _pages(source: Source, parser: _Parser) -> Iterator[_Page]:
    """The page's top-level messages as the parser finishes them (the file streamed)."""
    return parsed_page(source, parser)


def _senders(source: Source) -> list[str]:
    """The first three distinct senders (a first pass: a chat of two has a listener)."""
    seen: dict[str, None] = {}
    for page in _pages(source, _Parser()):
        for p in (page, *page.replies):
            if p.sender:
                seen.setdefault(p.sender)
        if len(seen) > 2:
            break
    return list(seen)


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff \r\n")
    if not text.startswith("<") or not any(m in text for m in _MARKS[:2]):
        return 0
    return 85 if 'class="message' in text or ".announcement" in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    thread = strip_compressed(PurePath(source.name).name).removesuffix(".html")
    state = ChatState(ContentIds(source.name), thread, _senders(source))
    parser = _Parser()
    blocks = _blocks(_pages(source, parser), ctx)
    yield from read_blocks(blocks, source, ctx, state)
    for line in parser.unformatted:
        state.unformatted.skip(ctx.loc(line))
    state.unformatted.report(ctx, "'Unable to format announcement!' notes (nothing else written)")


def _blocks(pages: Iterator[_Page], ctx: ImportContext) -> Iterator[Block]:
    for page in pages:
        block = _block(page)
        if block is None:
            ctx.reject(ctx.loc(page.line), "an imessage-exporter message without a time it "
                       "writes", page.time or " ".join(page.lines)[:200])  # fmt: skip
        else:
            yield block


DESCRIPTION = "iMessage / SMS chats exported by imessage-exporter -f html"
EXAMPLE = (
    '<html>\n<head>\n<meta charset="UTF-8">\n</head>\n<body>\n<div class="message">\n'
    '<div class="sent iMessage">\n<p><span class="timestamp">May 17, 2022  5:29:42 PM</span>\n'
    '<span class="sender">Me</span></p>\n<hr><div class="message_part">\n'
    '<span class="bubble">Hello world</span>\n</div>\n</div>\n</div>\n'
)
FIELDS = Fields(
    speaker='`<span class="sender">` (`Me`, a contact, a number); an announcement\'s actor '
    "(`You` as `Me`)",
    listeners="the other sender of a chat of two, else none",
    time="the message's `<span class=\"timestamp\">` (the exporting Mac's local time)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the file's name without `.html` (the chat)",
    id="no message ids: " + CONTENT_HASH,
    scope="the file's name (the thread)",
    reply_to="a threaded reply (in the `replies` of the message it answers): that message",
    tags="`system` for announcements",
    extra="as `imessage`'s txt: `read` (`by`, `after`), `reactions`, `edits`, `effect`, "
    "`deleted`, `reply`",
)
FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.html",), sniff, read, EXAMPLE, fields=FIELDS),)
