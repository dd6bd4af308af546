"""iMessage (and SMS) conversations as imessage-exporter writes them with ``-f txt``: one
file a chat (github.com/ReagentX/imessage-exporter, ``imessage-exporter/src/exporters/txt``
and its tests hold the layout; ``imessage-database/src/util/dates.rs`` the time format).

A message is a block ended by a blank line: its time line (``May 17, 2022  5:29:42 PM``,
``%b %d, %Y %l:%M:%S %p``, maybe followed by `` (Read by you after 1 hour, 49 seconds)``),
its sender line (``Me``, a contact's name, a phone number or address), then its body.
An announcement is one line, the time then what happened (``... You named the
conversation Garden``, ``... Ann added Ben to the conversation.``).

- Time: the exporting Mac's local time, without a zone: read in ``--tz``. The read
  receipt goes to ``extra.read`` (``by``, ``after``).
- Speaker: the sender line as written. Announcements name their actor first; ``You``
  (the exporter's word for the owner there) is ``Me``, the owner's sender line, so one
  person has one name. Listeners: the other sender of a chat of two, else none.
- Thread: the file's name without ``.txt`` (the exporter names a file after its chat);
  ids: content hashes, scoped to the thread.
- Replies: a threaded reply is printed indented by four spaces inside the message it
  answers (its own time, sender and body), and printed again in its place with ``This
  message responded to an earlier message.``. The indented copy is read, with
  ``replyTo`` the answered message; the copy in place is then skipped (counted in one
  warning); one whose indented copy was not in the file is kept with ``extra.reply``.
- Body lines the exporter adds: ``Reactions:``/``Tapbacks:`` and their ``Loved by Ann``
  lines go to ``extra.reactions``; ``Sent with Confetti`` to ``extra.effect``; ``This
  message was deleted from the conversation!`` to ``extra.deleted``; an edit history
  (the first version after its time, then ``Edited 5 seconds later: ...``) keeps the last
  version as the text and the earlier ones in ``extra.edits``. Attachments are the
  paths (or ``Attachment missing!``) the exporter wrote, kept as text.
- Announcements are messages tagged ``system``. ``Unable to format announcement!``
  lines are skipped and counted in a warning; text before the first time line is
  rejected with its line.
- Detection: a first line that is such a time, followed by a sender line or an
  announcement, 85.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread (the file's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import EmptyCounter, numbered_lines, other_party
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_STAMP = re.compile(
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{2}), (\d{4}) ([ \d]\d):(\d{2}):(\d{2}) ([AP]M)"
)
READ = re.compile(r" \(Read by (.+?) after (.+)\)\Z")
_EDITED = re.compile(r"Edited (.+?) later: (.*)\Z", re.S)
_REACTION = re.compile(r"(.+?) (?:by|from) (.+)")
_EFFECT = re.compile(r"Sent with [A-Z][A-Za-z ]+\Z")
_ACTIONS = re.compile(
    r"(.+?) (named the conversation |renamed the conversation to |added |removed |left the "
    r"conversation|changed the group photo|removed the group photo|changed the chat "
    r"background|removed the chat background|changed their phone number|kept an audio "
    r"message|unsent a message|performed unknown action|started sharing|stopped sharing)"
)
REPLIED = "This message responded to an earlier message."
DELETED = "This message was deleted from the conversation!"
NO_ANNOUNCEMENT = "Unable to format announcement!"
INDENT = "    "


def stamp_time(line: str) -> tuple[datetime, str] | None:
    """The time at the start of ``line`` and the rest of the line; None if it has none."""
    m = _STAMP.match(line)
    if m is None:
        return None
    hour = int(m[4]) % 12 + (12 if m[7] == "PM" else 0)
    try:
        when = datetime(int(m[3]), _MONTHS.index(m[1]) + 1, int(m[2]), hour, int(m[5]), int(m[6]))
    except ValueError:
        return None
    return when, line[m.end() :]


def sniff_imessage(source: Source) -> int:
    lines = [ln for ln in head_lines(source, 6)]
    while lines and not lines[0].strip():
        lines.pop(0)
    if len(lines) < 2 or (got := stamp_time(lines[0])) is None:
        return 0
    rest = got[1]
    header = rest == "" or READ.fullmatch(rest) is not None
    if header and lines[1].strip() and stamp_time(lines[1]) is None:
        return 85
    return 85 if rest.startswith(" ") and _ACTIONS.match(rest[1:]) else 0


@dataclass
class Block:
    """A message being read: header, sender, body lines and what the body said."""

    line: int
    when: datetime
    rest: str
    sender: str | None = None
    body: list[str] = field(default_factory=list)
    replies: list[Block] = field(default_factory=list)


@dataclass
class ChatState:
    ids: ContentIds
    thread: str
    speakers: list[str]
    pending: dict[tuple[str, str, str], int] = field(default_factory=dict)
    twice: int = 0
    unformatted: EmptyCounter = field(default_factory=EmptyCounter)


def _senders(source: Source, ctx: ImportContext) -> list[str]:
    """The first three distinct senders (a first pass: a chat of two has a listener)."""
    seen: dict[str, None] = {}
    prev: str | None = None
    for _, line in numbered_lines(source, ctx.text_decoder()):
        if prev is not None and line.strip() and stamp_time(line) is None:
            seen.setdefault(line.strip())
            if len(seen) > 2:
                break
        got = stamp_time(line)
        prev = line if got is not None and (got[1] == "" or READ.fullmatch(got[1])) else None
    return list(seen)


def _blocks(source: Source, ctx: ImportContext, state: ChatState) -> Iterator[Block]:
    """Top-level blocks: a time line after a blank line (or first) starts one."""
    cur: Block | None = None
    blank = True
    for n, line in numbered_lines(source, ctx.text_decoder()):
        got = stamp_time(line) if blank else None
        if got is not None:
            if cur is not None:
                yield cur
            cur = Block(n, got[0], got[1])
        elif blank and line == NO_ANNOUNCEMENT:
            state.unformatted.skip(ctx.loc(n))
            if cur is not None:
                cur.body.append("")  # the body's lines keep their numbers
        elif cur is None:
            if line.strip():
                ctx.reject(ctx.loc(n), "text before the first imessage-exporter time line", line)
        elif cur.sender is None and not _is_announcement(cur):
            cur.sender = line.strip()
        else:
            cur.body.append(line)
        blank = not line.strip()
    if cur is not None:
        yield cur


def _is_announcement(msg: Block) -> bool:
    return msg.rest != "" and READ.fullmatch(msg.rest) is None


def _split_replies(msg: Block) -> Block:
    """Indented blocks of the body (``    <time>`` then ``    <sender>``) become replies."""
    own: list[str] = []
    reply: Block | None = None
    for k, line in enumerate(msg.body):
        inner = line[len(INDENT) :] if line.startswith(INDENT) else None
        got = stamp_time(inner) if inner is not None else None
        if got is not None and (got[1] == "" or READ.fullmatch(got[1])):
            reply = Block(msg.line + 2 + k, got[0], got[1])
            msg.replies.append(reply)
        elif reply is not None and (inner is not None or not line.strip()):
            if reply.sender is None:
                reply.sender = (inner or "").strip()
            else:
                reply.body.append(inner or "")
        else:
            reply = None
            own.append(line)
    msg.body = own
    return msg


def _parts(body: list[str]) -> tuple[str, dict[str, Any], bool]:
    """The text, the ``extra`` the exporter's lines give, and whether it is a reply."""
    extra: dict[str, Any] = {}
    text: list[str] = []
    edits: list[str] = []
    reactions: list[dict[str, str]] = []
    replied = in_reactions = False
    for line in body:
        stripped = line.strip()
        if in_reactions and (m := _REACTION.fullmatch(stripped)):
            reactions.append({"reaction": m[1], "by": m[2]})
            continue
        in_reactions = False
        if stripped in ("Reactions:", "Tapbacks:"):
            in_reactions = True
        elif stripped == REPLIED:
            replied = True
        elif stripped == DELETED:
            extra["deleted"] = True
        elif _EFFECT.match(stripped):
            extra["effect"] = stripped.removeprefix("Sent with ")
        elif (m := _EDITED.match(line)) is not None:
            edits.append("\n".join(text).strip())
            text = [m[2]]
        elif not text and (got := stamp_time(line)) is not None and got[1].startswith(" "):
            text.append(got[1][1:])  # an edit history's first version, after its time
        else:
            text.append(line)
    extra["edits"] = edits or None
    extra["reactions"] = reactions or None
    return "\n".join(text).strip(), extra, replied


def build_block(
    msg: Block, ctx: ImportContext, state: ChatState, reply_to: str | None
) -> ConversationMessage | None:
    read = READ.fullmatch(msg.rest)
    ts = naive_ts(msg.when, ctx.options.tz)
    tags: list[str] = []
    extra: dict[str, Any]
    if _is_announcement(msg):
        action = msg.rest[1:]
        m = _ACTIONS.match(action)
        speaker = ("Me" if m[1] == "You" else m[1]) if m else None
        text, extra, replied = action, {}, False
        tags = ["system"]
    else:
        speaker = msg.sender or None
        text, extra, replied = _parts(msg.body)
        key = (ts or "", speaker or "", text)
        if reply_to is not None:
            state.pending[key] = state.pending.get(key, 0) + 1
        elif replied and state.pending.get(key):
            state.pending[key] -= 1
            state.twice += 1
            return None
        extra["reply"] = True if replied and reply_to is None else None
    if read:
        extra["read"] = {"by": read[1], "after": read[2]}
    built = message(
        text or "", speaker=speaker,
        listeners=other_party(state.speakers, speaker), timestamp=ts,
        source_id=ctx.loc(msg.line), format="imessage", thread=state.thread,
        reply_to=reply_to, tags=tags, extra=extra,
    )  # fmt: skip
    state.ids.assign(built)
    return built


def read_imessage(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    thread = strip_compressed(PurePath(source.name).name).removesuffix(".txt")
    state = ChatState(ContentIds(source.name), thread, _senders(source, ctx))
    blocks = _blocks(source, ctx, state)
    yield from read_blocks(map(_split_replies, blocks), source, ctx, state)


def read_blocks(
    blocks: Iterator[Block], source: Source, ctx: ImportContext, state: ChatState
) -> Iterator[ConversationMessage]:
    """The records of a chat's top-level blocks, each followed by its threaded replies
    (imessage-exporter's txt and HTML exports alike)."""
    for block in blocks:
        parent = build_block(block, ctx, state, None)
        if parent is not None:
            yield parent
        for reply in block.replies:
            got = build_block(reply, ctx, state, parent.id if parent is not None else None)
            if got is not None:
                yield got
    if state.twice:
        ctx.warn(source.name, f"{counted(state.twice, 'threaded reply', 'threaded replies')} "
                 "printed twice (under the message they answer and in place); read once")  # fmt: skip
    state.unformatted.report(ctx, "'Unable to format announcement!' lines (nothing else written)")


DESCRIPTION = "iMessage / SMS chats exported by imessage-exporter -f txt"
EXAMPLE = "May 17, 2022  5:29:42 PM\nMe\nHello world\n"
FIELDS = Fields(
    speaker="the sender line (`Me`, a contact, a number); an announcement's actor (`You` as `Me`)",
    listeners="the other sender of a chat of two, else none",
    time="the message's time line (the exporting Mac's local time)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the file's name without `.txt` (the chat)",
    id="no message ids: " + CONTENT_HASH,
    scope="the file's name (the thread)",
    reply_to="a threaded reply (indented under the message it answers): that message",
    tags="`system` for announcements",
    extra="`read` (`by`, `after`), `reactions`, `edits`, `effect`, `deleted`, `reply` (a "
    "reply whose message is not in the file)",
)
FORMATS = (
    Format("imessage", "chat", DESCRIPTION, ("*.txt",), sniff_imessage, read_imessage,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
