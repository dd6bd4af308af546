"""Signal exports (format ``signal``): what the tools that get chats out of Signal Desktop
write. Signal itself exports nothing readable; these are the common tools' outputs.

Text layouts (this module):
- **signal-export** (``sigexport``) ``<chat>/chat.md``: ``[2019-05-29 15:04:33] Aya: text``
  (older versions ``[2019-05-29, 15:04]``), a blank line after each message; a reply
  starts with the quoted text as ``> `` lines, reactions follow as ``(- Name: 👍, ... -)``,
  a sticker as ``(( label ))`` (``[label](../exported_stickers/PACK/ID.ext)`` when its
  file was exported), attachments as ``![name](./media/x.jpg)`` or
  ``[name](./media/x.pdf)``, one it could not include as ``(media not exported)`` (or
  ``attachment``); the owner is ``Me``; times are naive local times.
- **sigtop** ``-f text``: ``Conversation: Name (detail)``, then per message the fields
  ``From:`` (``You`` when outgoing), ``Type:``, ``Sent:``/``Received:`` (RFC 2822 times
  with offsets), ``Attachment:``, ``Reaction:``, an ``Edited: N versions`` history of
  ``|``-prefixed lines, a ``>``-prefixed quote and the body after a blank line.
- **sigtop** ``-f text-short``: ``2006-01-02 15:04 Name: text`` per message.

signalbackup-tools' ``--exporttxt`` (``[Mar 05, 2024 14:03:40] <Name> text``, one file a
chat of an Android backup): ``convo.importers.apps.signal_backup``.

JSON layouts (``convo.importers.apps.signal_json``): signal-export's ``data.json`` (JSON
Lines of ``date``/``sender``/``body``/``quote``/``reactions``/``attachments``) and sigtop's
``-f json`` (an array of Signal Desktop message objects).

Decisions:
- speaker = the sender's display name (sigtop's ``(detail)``, a phone number or
  username, goes to ``extra.contact``); two speakers in a file: each is the other's
  listener; thread = the chat: sigtop's ``Conversation:`` name, else the folder of a
  ``chat.md``/``data.json`` (signal-export names folders by chat), else the file stem.
- Naive times (signal-export) are read in ``--tz``; sigtop's carry their offset.
- A reply's quote goes to ``extra.quote``, not into the text; reactions to
  ``extra.reactions`` (``{"actor", "reaction"}``, as for Messenger); attachments to
  ``extra.attachments`` (``{"name", "path"}`` or sigtop's ``{"name", "type", "size"}``)
  and a ``[attachment] name`` chunk; the edit history's newest version is the text.
- A line that looks like a damaged message header (a date where a header starts but
  the header does not parse) is read as its own message with a warning, never glued to
  the previous speaker's text. No ids in the text layouts (content hash).

Ids and their scope (docs/ids.md): sigtop JSON ids are uuids (``signal:<id>``, no
scope); the text layouts have none: the content hash, its conversation the chat (the
thread), else the folder for ``chat.md``/``data.json``.
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
from convo.core.maildates import mail_date
from convo.core.record import ConversationMessage
from convo.core.timestamps import format_timestamp_utc, naive_ts
from convo.importers.apps import signal_backup, signal_json
from convo.importers.apps.common import SYSTEM_TAG, numbered_lines, other_party, written_count
from convo.importers.build import message
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "signal"

_STAMP = r"(\d{4})-(\d{2})-(\d{2}),? (\d{2}):(\d{2})(?::(\d{2}))?"
_MD = re.compile(rf"^\[{_STAMP}\] (.+?):(?: (.*)|$)")
# sigtop's text-short writes minutes only ("2006-01-02 15:04"): a log line with seconds
# ("2024-01-01 10:00:00 INFO: ...") is not taken for a chat.
_SHORT = re.compile(r"^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})() (.+?):(?: (.*)|$)")
_DAMAGED_MD = re.compile(r"^\[\d{4}-\d{2}-\d{2}[^\]]{0,20}\] ?(.*)$")
_DAMAGED_SHORT = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\S{0,12} (.*)$")
_FIELD = re.compile(r"^(From|Type|Sent|Received|Attachment|Reaction|Edited): (.*)$")
_REACTIONS = re.compile(r"^\(- (.*) -\)$")
_STICKER = re.compile(r"^\(\( (.*) \)\)$")
# an attachment signal-export could not include: ``(media not exported)`` (create.py)
_MISSING = re.compile(r"\((media|attachment) not exported\)")
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\((\./[^)\n]*|\.\./[^)\n]*)\)")
_DETAIL = re.compile(r"^(.*?) \(([^()]*)\)$")
_SIGTOP_ATTACHMENT = re.compile(r"^(.*) \(([^,()]*), (\d+) bytes\)$")
_SIGTOP_REACTION = re.compile(r"^(\S+) from (.*)$")
_SHORT_DETAILS = re.compile(r"^\[([^\]\n]+)\] ?(.*)$", re.S)
_SHORT_DETAIL = re.compile(r"^(?:reply to .+ on \S+ \S+|edited|\d+ attachments?)$")
_CHAT_TYPES = ("incoming", "outgoing")
_DELETED = "(This message was deleted)"


def _layout(lines: list[str]) -> str:
    """The text layout of a sniffing head: 'md', 'sigtop', 'short' or ''."""
    if not lines:
        return ""
    if lines[0].startswith("Conversation: ") and any(x.startswith("Type: ") for x in lines):
        return "sigtop"
    if _MD.match(lines[0]):
        return "md"
    if _SHORT.match(lines[0]) and sum(1 for x in lines if _SHORT.match(x)) >= min(2, len(lines)):
        return "short"
    return ""


def sniff(source: Source) -> int:
    """signal-export's blank line after every message sets it apart from WhatsApp's
    ``[date, time]`` layout; the JSON layouts are sniffed in ``signal_json``."""
    json_score = signal_json.sniff(source) or signal_backup.sniff(source)
    if json_score:
        return json_score
    raw = source.head_text().splitlines()[:40]
    lines = head_lines(source, 12)
    layout = _layout(lines)
    if layout == "sigtop":
        return 90
    if layout == "short":
        return 60
    if layout != "md":
        return 0
    spaced = [i for i, x in enumerate(raw) if _MD.match(x)]
    if len(spaced) >= 2 and all(raw[i - 1].strip() == "" for i in spaced[1:]):
        return 90  # every header after a blank line: signal-export, not WhatsApp
    return 75 if PurePath(source.match_name).name == "chat.md" else 0


def _thread(source: Source, title: str | None = None) -> str:
    if title:
        return title
    path = PurePath(strip_compressed(source.name))
    if path.name in ("chat.md", "data.json", "index.md") and path.parent.name:
        return path.parent.name
    return path.stem or source.name


@dataclass
class _Msg:
    line: int
    speaker: str | None
    text: list[str] = field(default_factory=list)
    timestamp: str | None = None
    fields: dict[str, list[str]] = field(default_factory=dict)
    damaged: bool = False
    short: bool = False  # a sigtop text-short message


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if signal_json.sniff(source):
        yield from signal_json.read(source, ctx, _thread(source))
        return
    if signal_backup.sniff(source):
        yield from signal_backup.read(source, ctx)
        return
    layout = _layout(head_lines(source, 12)) or "md"
    title: list[str] = []
    decode = ctx.text_decoder()  # one for both passes: a guessed encoding is told once

    def messages(report: ImportContext) -> Iterator[_Msg]:
        lines = numbered_lines(source, decode)
        if layout == "sigtop":
            return _sigtop_messages(lines, report, title)
        return _line_messages(lines, report, _MD if layout == "md" else _SHORT)

    # A first, quiet pass finds the speakers (two of them are each other's listeners).
    quiet = ImportContext(source, ImportOptions(tz=ctx.options.tz))
    speakers = list(dict.fromkeys(s for m in messages(quiet) if (s := _speaker_of(m))))
    thread = _thread(source, title[0] if title else None)
    for msg in messages(ctx):
        yield _record(msg, speakers, thread, ctx)


def _speaker_of(msg: _Msg) -> str | None:
    if msg.fields:
        return _split_detail(msg.fields.get("From", [""])[0])[0] or None
    return msg.speaker


def _when(m: re.Match[str], ctx: ImportContext) -> str | None:
    y, mo, d, h, mi, sec = (int(m[i] or 0) for i in range(1, 7))
    try:
        dt = datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None
    return naive_ts(dt, ctx.options.tz)


def _line_messages(
    lines: Iterator[tuple[int, str]], ctx: ImportContext, header: re.Pattern[str]
) -> Iterator[_Msg]:
    """signal-export chat.md and sigtop text-short: a header line starts each message."""
    damaged_header = _DAMAGED_MD if header is _MD else _DAMAGED_SHORT
    cur: _Msg | None = None
    for n, line in lines:
        m = header.match(line)
        damaged = None if m else damaged_header.match(line)
        if m:
            if cur is not None:
                yield cur
            cur = _Msg(n, m[7].strip(), [m[8] or ""], _when(m, ctx), short=header is _SHORT)
            if cur.timestamp is None:
                ctx.warn(ctx.loc(n), "impossible date; time left unknown")
        elif damaged:  # never glued to the previous speaker's text
            if cur is not None:
                yield cur
            ctx.warn(ctx.loc(n), "damaged message header; read as its own message, time unknown")
            name, sep, text = damaged[1].partition(": ")
            cur = _Msg(n, name.strip() if sep else None, [text if sep else damaged[1]])
            cur.damaged = True
        elif cur is not None:
            cur.text.append(line)
        elif line.strip():
            ctx.reject(ctx.loc(n), "text before the first Signal message header", line)
    if cur is not None:
        yield cur


def _sigtop_messages(
    lines: Iterator[tuple[int, str]], ctx: ImportContext, title: list[str]
) -> Iterator[_Msg]:
    """sigtop's text layout: field blocks, each message starting at a ``From:`` or
    ``Type:`` line that follows a blank line and is followed by more fields."""
    cur: _Msg | None = None
    in_fields = False
    prev_blank = True
    for n, line, nxt in _with_next(lines):
        if cur is not None and prev_blank and _two_senders(line, nxt):
            cur.text.append(line)  # a message has one sender: this is the last one's text
            continue
        if _starts_sigtop(line, nxt, prev_blank):
            if cur is not None:
                yield cur
            cur = _Msg(n, None)
            in_fields = _add_sigtop_line(cur, line, True)
        elif cur is not None:
            in_fields = _add_sigtop_line(cur, line, in_fields)
        elif line.startswith("Conversation: "):
            title[:] = [_split_detail(line[14:])[0]]
        elif line.strip():
            ctx.reject(ctx.loc(n), "text before the first sigtop message", line)
        prev_blank = not line.strip()
    if cur is not None:
        yield cur


def _with_next(lines: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """Each numbered line with the text of the line after it ("" at the end)."""
    prev = next(lines, None)
    for item in lines:
        assert prev is not None
        yield prev[0], prev[1], item[1]
        prev = item
    if prev is not None:
        yield prev[0], prev[1], ""


def _starts_sigtop(line: str, nxt: str, prev_blank: bool) -> bool:
    m = _FIELD.match(line) if prev_blank else None
    return bool(m and (m[1] == "Type" or (m[1] == "From" and _FIELD.match(nxt))))


def _two_senders(line: str, nxt: str) -> bool:
    """A ``From:`` line right before another one: the first is a body line that begins
    with ``From:`` (the next message's block opens at the second)."""
    m, after = _FIELD.match(line), _FIELD.match(nxt)
    return bool(m and after and m[1] == "From" and after[1] == "From")


def _add_sigtop_line(cur: _Msg, line: str, in_fields: bool) -> bool:
    """Add a line to a sigtop message; whether its block of fields goes on."""
    m = _FIELD.match(line) if in_fields else None
    if m:
        cur.fields.setdefault(m[1], []).append(m[2])
        return True
    if not (in_fields and not line.strip()):
        cur.text.append(line)
    return False


def _split_detail(value: str) -> tuple[str, str | None]:
    m = _DETAIL.match(value)
    return (m[1], m[2]) if m else (value, None)


def _record(msg: _Msg, speakers: list[str], thread: str, ctx: ImportContext) -> ConversationMessage:
    if msg.fields:
        text, extra = _sigtop_body(msg, ctx)
    elif msg.short:
        text, extra = _short_body(msg.text)
    else:
        text, extra = _md_body(msg.text)
    if msg.damaged:
        extra["damaged_header"] = True
    speaker = msg.speaker
    system = extra.pop("system", False)
    listeners = other_party(speakers, speaker)
    chunks = [text] if text or not extra.get("attachments") else []
    chunks += [
        f"[attachment] {signal_json.attachment_label(a)}" for a in extra.get("attachments", [])
    ]
    return message(
        chunks,
        speaker=speaker,
        listeners=[] if system else listeners,
        timestamp=msg.timestamp,
        source_id=ctx.loc(msg.line),
        format=NAME,
        thread=thread,
        tags=[SYSTEM_TAG] if system else [],
        extra=extra,
    )


def _md_body(lines: list[str]) -> tuple[str, dict[str, Any]]:
    """Text and extra of a signal-export message: quote, reactions, sticker, attachments."""
    body, quote, extra = _md_parts(lines)
    text = "\n".join(body).strip()
    links = [{"name": m[2], "path": m[3]} for m in _LINK.finditer(text)]
    # a sticker whose file was exported: ``[🎉](../exported_stickers/PACK/ID.webp)``
    stickers = [a for a in links if "/exported_stickers/" in a["path"]]
    if stickers:
        extra["sticker"] = stickers[0]["name"]
        extra["sticker_path"] = stickers[0]["path"]
    attachments: list[dict[str, Any]] = [a for a in links if a not in stickers]
    attachments += [{"name": "", "path": "", "missing": m[1]} for m in _MISSING.finditer(text)]
    text = _MISSING.sub("", text).strip()
    if attachments:
        extra["attachments"] = attachments
    if links:
        text = _LINK.sub("", text).strip()
    if text == _DELETED:
        extra["deleted"] = True
    extra["quote"] = "\n".join(quote).strip() or None
    if extra.get("sticker") and not text:
        text = f"[sticker] {extra['sticker']}"
    return text, extra


def _md_parts(lines: list[str]) -> tuple[list[str], list[str], dict[str, Any]]:
    """The body lines, the quote lines (``> `` before the body) and reactions/sticker."""
    extra: dict[str, Any] = {}
    body: list[str] = []
    quote: list[str] = []
    for line in lines:
        reactions = _REACTIONS.match(line)
        sticker = _STICKER.match(line)
        if line.startswith(">") and not "".join(body).strip():
            quote.append(line[2:] if line.startswith("> ") else line[1:])
        elif reactions:
            extra["reactions"] = [_md_reaction(r) for r in reactions[1].split(", ")]
        elif sticker:
            extra["sticker"] = sticker[1]
        else:
            body.append(line)
    return body, quote, extra


def _short_body(lines: list[str]) -> tuple[str, dict[str, Any]]:
    """Text and extra of a text-short message: its leading ``[details]`` taken apart."""
    text = "\n".join(lines).strip()
    m = _SHORT_DETAILS.match(text)
    if not m:
        return text, {}
    if m[1].endswith(" message") and not m[2]:
        return text, {"system": True, "type": m[1].removesuffix(" message")}
    parts = m[1].split(", ")
    if not all(_SHORT_DETAIL.match(p) for p in parts):
        return text, {}
    extra: dict[str, Any] = {"details": parts}
    return m[2], extra


def _md_reaction(item: str) -> dict[str, str]:
    actor, _, emoji = item.rpartition(": ")
    return {"actor": actor, "reaction": emoji} if actor else {"reaction": item}


def _sigtop_body(msg: _Msg, ctx: ImportContext) -> tuple[str, dict[str, Any]]:
    """Text and extra of a sigtop text message; sets its speaker and time."""
    f = msg.fields
    contact = _split_detail(f.get("From", [""])[0])[1]
    msg.speaker = _speaker_of(msg)
    msg.timestamp = _sigtop_time((f.get("Sent") or f.get("Received") or [""])[0])
    if msg.timestamp is None:
        ctx.warn(ctx.loc(msg.line), "no readable Sent time; time left unknown")
    kind = f.get("Type", ["unknown"])[0]
    text, quote = _sigtop_text(msg.text)
    return text, {
        "system": kind not in _CHAT_TYPES,
        "contact": contact,
        "type": None if kind in _CHAT_TYPES else kind,
        "attachments": [_sigtop_attachment(a) for a in f.get("Attachment", [])],
        "reactions": [r for r in map(_sigtop_reaction, f.get("Reaction", [])) if r],
        "quote": quote,
        "edits": f["Edited"][0] if "Edited" in f else None,
    }


def _sigtop_text(lines: list[str]) -> tuple[str, str | None]:
    """The text (the newest version of an edit history) and the quote, without its fields."""
    edits = [x for x in lines if x.startswith("|")]
    quote = [x[2:] if x.startswith("> ") else x[1:] for x in lines if x.startswith(">")]
    body = [x for x in lines if not x.startswith((">", "|"))]
    text = "\n".join(body).strip()
    if edits:  # the newest version; lines outside the history (a damaged or joined
        # file's) are kept before it, not dropped unsaid
        text = "\n".join(x for x in (text, _newest_version(edits)) if x)
    return text, "\n".join(x for x in quote if not _FIELD.match(x)).strip() or None


def _sigtop_time(value: str) -> str | None:
    when = mail_date(value) if value and value != "unknown" else None
    return format_timestamp_utc(when) if when else None


def _sigtop_attachment(value: str) -> dict[str, Any]:
    m = _SIGTOP_ATTACHMENT.match(value)
    return {"name": m[1], "type": m[2], "size": written_count(m[3])} if m else {"name": value}


def _sigtop_reaction(value: str) -> dict[str, str] | None:
    m = _SIGTOP_REACTION.match(value)
    return {"actor": _split_detail(m[2])[0], "reaction": m[1]} if m else None


def _newest_version(edits: list[str]) -> str:
    """The body of the first (newest) version of sigtop's ``|``-prefixed edit history
    (a version with no text, as a damaged file's repeated ``Version:`` line, gives way to
    the next)."""
    body: list[str] = []
    seen_version = False
    for raw in edits:
        line = raw[2:] if raw.startswith("| ") else raw[1:]
        if line.startswith("Version: "):
            if seen_version and any(x.strip() for x in body):
                break
            seen_version = True
        elif not _FIELD.match(line) and not line.startswith(">"):
            body.append(line)
    return "\n".join(body).strip()


DESCRIPTION = (
    "Signal Desktop chats exported by signal-export (chat.md, data.json) "
    "or sigtop (text, text-short, JSON)"
)
PATTERNS = ("chat.md", "data.json", "*.md", "*.txt", "*.json")
EXAMPLE = "[2019-05-29 15:04:33] Aya: We're great!"
FIELDS = Fields(
    speaker="the sender's display name (the owner: `Me` or `You`)",
    listeners="the other one when the file has two speakers, else none",
    time="the message's date and time (sigtop: `Sent:`/`Received:`)",
    zone="signal-export's naive times are read in `--tz` (default UTC); sigtop's carry "
    "their offset",
    thread="the chat: sigtop's `Conversation:` name (sigtop JSON: `conversationId`), else the "
    "folder of a `chat.md`/`data.json`, else the file's stem",
    id="sigtop JSON: `signal:<id>` (a uuid); the text layouts: " + CONTENT_HASH,
    scope="none for uuids; a content hash: the chat (the thread), else the folder",
    tags="`system` on service messages",
    extra="`quote`, `reactions` (`{actor, reaction}`), `attachments`, `sticker`, `contact`, "
    "`edits`, `deleted`, `damaged_header`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, PATTERNS, sniff, read, EXAMPLE, fields=FIELDS),)
