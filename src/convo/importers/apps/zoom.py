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

Ids and their scope (docs/ids.md): no message ids: the content hash of the offset, its
conversation the file's name; ``meeting_saved_chat.txt`` is a name every meeting has, so
its folder (the meeting's) is hashed with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc
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
    base = None
    if start is not None:
        zone = start.tzinfo or ctx.options.tz
        base = datetime(start.year, start.month, start.day, tzinfo=zone)
    cur: dict[str, Any] | None = None
    ids = ContentIds(source.name)
    for n, line in numbered_lines(source, ctx.text_decoder()):
        m = chat_line(line)
        damaged = None if m else _DAMAGED.match(line)
        if damaged:  # never glued to the previous speaker's text
            if cur is not None:
                yield _zoom_message(cur, ctx, ids)
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
            yield _zoom_message(cur, ctx, ids)
        cur = _started(n, m, base)
    if cur is not None:
        yield _zoom_message(cur, ctx, ids)


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


def _zoom_message(cur: dict[str, Any], ctx: ImportContext, ids: ContentIds) -> ConversationMessage:
    msg = message(
        "\n".join(cur["text"]).strip(),
        speaker=cur["name"] or None,
        listeners=cur["to"],
        timestamp=cur["ts"],
        source_id=ctx.loc(cur["line"]),
        format="zoomchat",
        extra={
            "offset": cur["offset"],
            "private": cur.get("private"),
            "damaged_header": True if cur["ts"] is None else None,
        },
    )
    ids.assign(msg, timestamp=None if cur["secs"] is None else epoch_plus(cur["secs"]))
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
    extra="`offset`, `private` (a private message), `damaged_header`",
)

FORMATS = (
    Format(
        "zoomchat", "chat", DESCRIPTION, ("*.txt",), sniff_zoom, read_zoom, EXAMPLE, fields=FIELDS
    ),
)
