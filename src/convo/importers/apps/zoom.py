"""Zoom in-meeting chat .txt, every layout Zoom has saved (``meeting_saved_chat.txt``):

- the current one, ``HH:MM:SS<TAB>Name:<TAB>text``;
- the one-line layout of Zoom 4 and early 5 (``HH:MM:SS<TAB> From  Name : text``, and
  ``From  Name  to  Bob(Privately) : text``, ``to  Everyone``);
- the two-line layout of later Zoom 5 (``HH:MM:SS From Name to Everyone:``, the text on
  the next lines, each indented by a tab; ``to Bob (Direct Message):``,
  ``to Bob(privately):``).

The speaker is the name without ``From``; ``to B`` (not Everyone, All Panelists, the
hosts or the waiting room) makes B the listener, and a private message (``Privately``,
``Direct Message``) has ``extra.private``. A ``From`` layout is recognised by its word
and its spacing (a space after the time, or a tab and a space), or by its ``to``: a name
``From Mars`` in the tab layout stays a name. The time is an offset on
``--start-date``'s day (in its zone, else ``--tz``), else on the epoch (TypeAgent's rule
for undated transcripts). A line whose time is damaged
(``10:0a:12<TAB>Bob:<TAB>hi``) is its own message with a warning (time unknown,
``extra.damaged_header``), never glued to the previous speaker's text. Ids hash the
offset, not the day, so re-ingesting with another ``--start-date`` finds the same messages.

A reaction (``Reacted to "Garbage collection i..." with 👍``) is tagged ``reaction`` and a
reply's ``Replying to "..."`` line leaves its text for ``extra.replying_to``; both reply
to the message their quote starts (the newest such) and speak to its sender.

Ids and their scope (docs/ids.md): no message ids: the content hash of the offset, its
conversation the file's name; ``meeting_saved_chat.txt`` is a name every meeting has, so
its folder (the meeting's) is hashed with it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc, local_midnight
from convo.importers.apps.common import numbered_lines
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

# A line that starts like a chat line but whose time does not parse (``10:0a:12\tBob:\thi``).
_DAMAGED = re.compile(r"^\d{1,2}[:.][^\t]{1,8}\t(.*)$")
_ZOOM = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(\t ?| +)(.+?)\s*:(?:[\t ]+(.*))?$")
_FROM = re.compile(r"From\s+(.+?)(?:\s+to\s+(.+))?")
_PRIVATE = re.compile(r"\s*\((?:privately|direct message)\)$", re.I)
_EVERYONE = ("everyone", "all panelists", "hosts and panelists", "all attendees", "waiting room")


@dataclass(frozen=True)
class _ChatLine:
    """A chat line's parts: its time (h, m, s), speaker, listener, privacy and text."""

    clock: tuple[str, str, str]
    name: str
    to: str
    private: bool
    text: str


def chat_line(line: str) -> _ChatLine | None:
    """The parts of a line that starts a chat message in any Zoom layout, else None."""
    m = _ZOOM.match(line)
    if m is None:
        return None
    sep, head = m[4], m[5]
    f = _FROM.fullmatch(head) if head.startswith("From") else None
    if f is not None and (sep != "\t" or f[2]):
        name, to = f[1], f[2] or ""
    elif sep == "\t":
        name, to = head, ""
    else:
        return None  # a space after the time is Zoom's only in a From layout
    private = bool(_PRIVATE.search(to))
    to = _PRIVATE.sub("", to).strip()
    if to.lower().startswith(_EVERYONE):
        to = ""
    return _ChatLine((m[1], m[2], m[3]), name.strip(), to, private, m[6] or "")


def sniff_zoom(source: Source) -> int:
    lines = head_lines(source, 5)
    if lines and chat_line(lines[0]):
        return 80
    return 0


def read_zoom(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    start = ctx.options.start_date
    base = None if start is None else local_midnight(start, ctx.options.tz)
    cur: dict[str, Any] | None = None
    ids = ContentIds(source.name)
    quoted = _Quoted()
    for n, line in numbered_lines(source, ctx.text_decoder()):
        m = chat_line(line)
        damaged = None if m else _DAMAGED.match(line)
        if damaged:  # never glued to the previous speaker's text
            if cur is not None:
                yield _zoom_message(cur, ctx, ids, quoted)
            ctx.warn(ctx.loc(n), "damaged chat line time; read as its own message, time unknown")
            cur = _damaged(n, damaged[1])
            continue
        if not m:
            if cur is not None:
                cur["text"].append(line.lstrip("\t"))
            elif line.strip():
                ctx.reject(ctx.loc(n), "text before the first Zoom chat line", line)
            continue
        if cur is not None:
            yield _zoom_message(cur, ctx, ids, quoted)
        cur = _started(n, m, base)
    if cur is not None:
        yield _zoom_message(cur, ctx, ids, quoted)


def _started(n: int, m: _ChatLine, base: datetime | None) -> dict[str, Any]:
    """A message from its chat line: the time is an offset on ``base`` (else the epoch)."""
    h, mi, s = m.clock
    secs = int(h) * 3600 + int(mi) * 60 + int(s)
    if base is not None:
        ts = format_timestamp_utc((base + timedelta(seconds=secs)).astimezone(UTC))
    else:
        ts = epoch_plus(secs)
    return {
        "line": n,
        "name": m.name,
        "to": [m.to] if m.to else [],
        "private": m.private or None,
        "text": [m.text],
        "ts": ts,
        "secs": secs,
        "offset": f"{h}:{mi}:{s}",
    }


def _damaged(n: int, rest: str) -> dict[str, Any]:
    """A message from a line whose time is damaged: the name when ``Name:`` follows."""
    name, sep, text = rest.partition(":")
    return {"line": n, "name": name.strip() if sep else "", "to": [], "ts": None,
            "text": [text.lstrip("\t ") if sep else rest], "offset": None, "secs": None}  # fmt: skip


# Zoom 5.13+ writes a reaction and a reply as text quoting the message they answer, cut
# to 20 characters and ``...`` (``Reacted to "Garbage collection i..." with 👍``;
# ``Replying to "To be clear, I'm one..."`` then the reply's text on the next lines), in
# every layout (meeting notes and archivers quoting real chats).
_REACTED = re.compile(r'Reacted to "(.*)" with (\S+)')
_REPLYING = re.compile(r'Replying to "(.*)"')


class _Quoted:
    """The recent messages a reaction or reply may quote: (text, speaker, id), newest
    last; a quote is the start of a message's text (``...`` when cut)."""

    KEPT = 500  # a reaction answers a recent message; a file of reactions stays linear

    def __init__(self) -> None:
        self.recent: deque[tuple[str, str | None, str]] = deque(maxlen=self.KEPT)

    def find(self, quote: str) -> tuple[str | None, str] | None:
        """The speaker and id of the newest message ``quote`` starts."""
        cut = quote.endswith("...")
        start = quote[:-3] if cut else quote
        for text, speaker, mid in reversed(self.recent):
            if (text.startswith(start) if cut else text == quote) and start:
                return speaker, mid
        return None


def _answer(text: str, cur: dict[str, Any], quoted: _Quoted) -> tuple[str, dict[str, Any]]:
    """A reaction or reply's text, and what it answers: its ``replyTo``, listener, tags
    and ``extra`` (``reaction``, ``replying_to``); ({} when the text answers nothing)."""
    first, _, rest = text.partition("\n")
    reacted = _REACTED.fullmatch(first) if not rest else None
    replying = None if reacted else _REPLYING.fullmatch(first)
    if not reacted and not replying:
        return text, {}
    match = reacted or replying
    assert match is not None
    found = quoted.find(match[1])
    out: dict[str, Any] = {"reply_to": found[1] if found else None}
    if found and found[0] and found[0] != cur["name"] and not cur["to"]:
        out["listeners"] = [found[0]]
    if reacted:
        out.update(tags=["reaction"], extra={"reaction": {"emoji": reacted[2], "to": reacted[1]}})
        return text, out
    out["extra"] = {"replying_to": match[1]}
    return rest.strip("\n"), out


def _zoom_message(
    cur: dict[str, Any], ctx: ImportContext, ids: ContentIds, quoted: _Quoted
) -> ConversationMessage:
    text, answer = _answer("\n".join(cur["text"]).strip(), cur, quoted)
    msg = message(
        text,
        speaker=cur["name"] or None,
        listeners=answer.get("listeners", cur["to"]),
        timestamp=cur["ts"],
        source_id=ctx.loc(cur["line"]),
        format="zoomchat",
        reply_to=answer.get("reply_to"),
        tags=answer.get("tags"),
        extra={
            "offset": cur["offset"],
            "private": cur.get("private"),
            "damaged_header": True if cur["ts"] is None else None,
            **answer.get("extra", {}),
        },
    )
    ids.assign(msg, timestamp=None if cur["secs"] is None else epoch_plus(cur["secs"]))
    if msg.id and "reaction" not in answer.get("extra", {}):
        quoted.recent.append((text, cur["name"] or None, msg.id))
    return msg


DESCRIPTION = "Zoom in-meeting chat .txt (HH:MM:SS<TAB>Name:<TAB>text)"
EXAMPLE = "00:11:09\tAlice Smith:\thello"
FIELDS = Fields(
    speaker="the name (without `From`)",
    listeners="`B` of `to B` (not Everyone, the panelists, the hosts or the waiting room)",
    time="the line's `HH:MM:SS` as an offset on `--start-date`'s day, else on the epoch "
    "(an undated time)",
    zone="`--start-date`'s zone, else `--tz` (default UTC)",
    thread="none",
    id="no message ids: " + CONTENT_HASH + ", hashing the offset (not the day)",
    scope="the file's name; `meeting_saved_chat.txt`: its folder too",
    reply_to="the message a reaction's or reply's quote starts (the newest such)",
    tags="`reaction` on a reaction",
    extra="`offset`, `private` (a private message), `damaged_header`, `reaction` (`emoji`, "
    "`to`), `replying_to`",
)

FORMATS = (
    Format(
        "zoomchat", "chat", DESCRIPTION, ("*.txt",), sniff_zoom, read_zoom, EXAMPLE, fields=FIELDS
    ),
)
