"""Plain-text chat exports: WhatsApp ``.txt``, Zoom in-meeting chat, Discord copied as text.

WhatsApp decisions:
- Both layouts: iOS ``[8/15/23, 9:12:33 AM] Name: text`` and Android
  ``15/08/2023, 21:12 - Name: text``; 12 or 24 h clock, 2- or 4-digit years (``yy`` is
  20yy), ``/``, ``.`` or ``-`` separators, U+200E/U+202F marks tolerated.
- Day/month order is decided per file from the values seen: a first field above 12 means
  D/M, a second above 12 means M/D; when no value decides, the order whose dates run
  forward with fewer steps back wins; a tie falls back to M/D for ``/`` dates with AM/PM
  (US) and D/M otherwise, with a warning. A year-first date is Y/M/D.
- Times are naive and read in ``--tz``. The file is read twice (dates first; stdin is
  spooled to a temporary file), so memory stays flat.
- Lines without a header continue the previous message. A header whose rest has no
  ``Name: `` (Android system lines) and the encryption notice are kept with speaker
  null and the tag ``system``.
- ``<Media omitted>``, ``image omitted``, ``<attached: f>`` set ``extra.media``.
- Two speakers in the file: each is the other's listener; else ``@Name`` mentions of known
  speakers are the listeners. No ids in the source (content hash).

Zoom decisions: ``HH:MM:SS<TAB>Name:<TAB>text`` (and ``HH:MM:SS From A to B:``); the
time is an offset on ``--start-date``'s day (in its zone, else ``--tz``), else on the epoch
(TypeAgent's rule for undated transcripts). ``to B`` (not Everyone) makes B the listener.

Discord text decisions: see ``read_discord_text`` (M/D/Y dates, Today/Yesterday need
--start-date, empty ``[time]`` continuations skipped with a warning count).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from convo.core.io import Source, decode_text
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, message
from convo.importers.context import ImportContext

_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_STRIP_MARKS = {ord(c): None for c in _MARKS}
_DATE = r"(\d{1,4})([./-])(\d{1,2})[./-](\d{1,4})"
_TIME = r"(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?:[\s\u202f\u00a0]*([AaPp])\.?\s?[Mm]\.?)?"
_IOS = re.compile(rf"^[{_MARKS}]*\[{_DATE},?\s+{_TIME}\]\s?(.*)$")
_ANDROID = re.compile(rf"^[{_MARKS}]*{_DATE},?\s+{_TIME}\s[-–]\s(.*)$")
_MEDIA = re.compile(
    r"^(?:<Media omitted>|(image|video|audio|sticker|GIF|document|Contact card) omitted|"
    r"<attached: (.+)>|(.+) \(file attached\))$",
    re.I,
)
_SYSTEM_TEXT = (
    "Messages and calls are end-to-end encrypted",
    "Messages to this chat and calls are",
)


def _header(line: str) -> re.Match[str] | None:
    return _IOS.match(line) or _ANDROID.match(line)


def sniff_whatsapp(source: Source) -> int:
    lines = [x for x in source.head_text().lstrip("\ufeff").splitlines() if x.strip()][:8]
    if not lines or not _header(lines[0]):
        return 0
    hits = sum(1 for x in lines if _header(x))
    return 85 if hits >= 2 or len(lines) == 1 else 70


def _lines(source: Source) -> Iterator[tuple[int, str]]:
    """Numbered lines without their ends; UTF-16 when a BOM says so, else UTF-8 (cp1252 fallback)."""
    path: Path = source.real_path()
    with open(path, "rb") as f:
        if f.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            f.seek(0)
            with io.TextIOWrapper(f, encoding="utf-16", errors="replace", newline=None) as text:
                for n, line in enumerate(text, 1):
                    yield n, line.rstrip("\r\n")
            return
        f.seek(0)
        for n, raw in enumerate(f, 1):
            if n == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            yield n, decode_text(raw).rstrip("\r\n")


def _split(rest: str) -> tuple[str | None, str]:
    name, sep, text = rest.partition(": ")
    if not sep or len(name) > 100 or '"' in name or "\u201c" in name:
        return None, rest  # a system line ('X changed the subject to "a: b"')
    return name.strip(_MARKS + " "), text


def _scan(source: Source) -> tuple[str, bool, list[str]]:
    """One pass: the date order ('DM', 'MD' or 'YMD'), whether it is a guess, the speakers."""
    ampm = slash = differ = False
    order = ""
    speakers: list[str] = []
    back = {"DM": 0, "MD": 0}  # steps back in time under each reading
    prev: dict[str, tuple[int, int, int] | None] = {"DM": None, "MD": None}
    for _, line in _lines(source):
        m = _header(line)
        if not m:
            continue
        name, text = _split(m[9])
        if name and name not in speakers and not text.strip(_MARKS).startswith(_SYSTEM_TEXT):
            speakers.append(name)
        if order:
            continue
        a, sep, b, c = int(m[1]), m[2], int(m[3]), int(m[4])
        if len(m[1]) == 4:
            order = "YMD"
        elif a > 12:
            order = "DM"
        elif b > 12:
            order = "MD"
        if order:
            continue
        ampm = ampm or bool(m[8])
        slash = slash or sep == "/"
        differ = differ or a != b
        for key, day in (("DM", (c, b, a)), ("MD", (c, a, b))):
            last = prev[key]
            if last is not None and day < last:
                back[key] += 1
            prev[key] = day
    if order:
        return order, False, speakers
    if back["DM"] != back["MD"]:
        return ("DM" if back["DM"] < back["MD"] else "MD"), False, speakers
    return ("MD" if slash and ampm else "DM"), differ, speakers


def _when(m: re.Match[str], order: str, zone: Any) -> str | None:
    a, b, c = int(m[1]), int(m[3]), int(m[4])
    y, mo, d = (a, b, c) if order == "YMD" else (c, b, a) if order == "DM" else (c, a, b)
    if y < 100:
        y += 2000
    h, mi, s = int(m[5]), int(m[6]), int(m[7] or 0)
    if m[8]:
        h = h % 12 + (12 if m[8].lower() == "p" else 0)
    try:
        return format_timestamp_utc(datetime(y, mo, d, h, mi, s, tzinfo=zone))
    except (ValueError, OverflowError):
        return None


def read_whatsapp(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    order, guessed, speakers = _scan(source)
    if guessed:
        ctx.warn(
            source.name,
            f"day/month order is ambiguous; read as {'D/M' if order == 'DM' else 'M/D'}",
        )
    zone = ctx.options.tz
    cur: dict[str, Any] | None = None
    for n, line in _lines(source):
        m = _header(line)
        if not m:
            if cur is not None:
                cur["text"].append(line)
            elif line.strip():
                ctx.reject(ctx.loc(n), "text before the first WhatsApp message header", line)
            continue
        if cur is not None:
            yield _wa_message(cur, speakers, ctx)
        name, text = _split(m[9])
        cur = {"line": n, "name": name, "text": [text], "ts": _when(m, order, zone)}
    if cur is not None:
        yield _wa_message(cur, speakers, ctx)


def _wa_message(
    cur: dict[str, Any], speakers: list[str], ctx: ImportContext
) -> ConversationMessage:
    loc = ctx.loc(cur["line"])
    text = "\n".join(cur["text"]).strip(_MARKS + " ")
    name = cur["name"]
    system = name is None or text.startswith(_SYSTEM_TEXT)
    clean = text.translate(_STRIP_MARKS) if not text.isascii() else text
    media = _MEDIA.match(clean.strip())
    kind = None
    if media:
        kind = (media[1] or ("file" if (media[2] or media[3]) else "media")).lower()
    if cur["ts"] is None:
        ctx.warn(loc, "impossible date; time left unknown")
    listeners: list[str] = []
    if not system:
        listeners = [s for s in speakers if s != name and f"@{s}" in clean]
        if not listeners and len(speakers) == 2:
            listeners = [s for s in speakers if s != name]
    return message(
        clean or text,
        speaker=None if system else name,
        listeners=listeners,
        timestamp=cur["ts"],
        source_id=loc,
        format="whatsapp",
        tags=[SYSTEM_TAG] if system else [],
        extra={
            "media": kind,
            "file": (media[2] or media[3]) if media else None,
            "chat_name": name if system and name else None,
        },
    )


# --- Zoom in-meeting chat -------------------------------------------------------------

_ZOOM = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})\t(?:From\s+(.+?)\s+to\s+(.+?)|(.+?))\s?:\t?(.*)$")


def sniff_zoom(source: Source) -> int:
    lines = [x for x in source.head_text().lstrip("\ufeff").splitlines() if x.strip()][:5]
    if lines and _ZOOM.match(lines[0]):
        return 80
    return 0


def read_zoom(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    start = ctx.options.start_date
    base = None
    if start is not None:
        zone = start.tzinfo or ctx.options.tz
        base = datetime(start.year, start.month, start.day, tzinfo=zone)
    cur: dict[str, Any] | None = None
    for n, line in _lines(source):
        m = _ZOOM.match(line)
        if not m:
            if cur is not None:
                cur["text"].append(line.lstrip("\t"))
            elif line.strip():
                ctx.reject(ctx.loc(n), "text before the first Zoom chat line", line)
            continue
        if cur is not None:
            yield _zoom_message(cur, ctx)
        secs = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])
        if base is not None:
            ts = format_timestamp_utc((base + timedelta(seconds=secs)).astimezone(UTC))
        else:
            ts = epoch_plus(secs)
        to = (m[5] or "").strip()
        cur = {
            "line": n,
            "name": (m[4] or m[6] or "").strip(),
            "to": [] if not to or to.lower() in ("everyone", "all panelists") else [to],
            "text": [m[7]],
            "ts": ts,
            "offset": f"{m[1]}:{m[2]}:{m[3]}",
        }
    if cur is not None:
        yield _zoom_message(cur, ctx)


def _zoom_message(cur: dict[str, Any], ctx: ImportContext) -> ConversationMessage:
    return message(
        "\n".join(cur["text"]).strip(),
        speaker=cur["name"] or None,
        listeners=cur["to"],
        timestamp=cur["ts"],
        source_id=ctx.loc(cur["line"]),
        format="zoomchat",
        extra={"offset": cur["offset"]},
    )


# --- Discord copied from the client as text --------------------------------------------

_DT_DAY = r"(?:(\d{1,2})/(\d{1,2})/(\d{4})|(Today|Yesterday) at)"
_DT_TIME = r"(\d{1,2}):(\d{2})(?:\s*([AaPp])[Mm])?"
_DISCORD_HEAD = re.compile(rf"^(\S.{{0,80}}?) [—–] {_DT_DAY} {_DT_TIME}\s*$")
_DISCORD_CONT = re.compile(rf"^\[{_DT_TIME}\]\s*$")


def sniff_discord_text(source: Source) -> int:
    lines = [x for x in source.head_text().lstrip("\ufeff").splitlines() if x.strip()][:5]
    return 75 if lines and _DISCORD_HEAD.match(lines[0]) else 0


def read_discord_text(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Messages under ``name — MM/DD/YYYY h:mm AM`` headers and ``[h:mm AM]`` continuations.

    Dates are M/D/Y (the US client); ``Today``/``Yesterday`` are relative to --start-date's
    day, and unknown (with a warning) without it. Times are naive, read in --tz. Link
    previews pasted along (``Website`` + title lines) stay part of the text.
    """
    speakers: list[str] = []
    for _, line in _lines(source):
        m = _DISCORD_HEAD.match(line)
        if m and m[1].strip() not in speakers:
            speakers.append(m[1].strip())
    start = ctx.options.start_date
    zone = ctx.options.tz
    warned = False
    day: date | None = None
    cur: dict[str, Any] | None = None
    empty = EmptyCounter()
    for n, line in _lines(source):
        head = _DISCORD_HEAD.match(line)
        cont = None if head else _DISCORD_CONT.match(line)
        if not head and not cont:
            if cur is not None:
                cur["text"].append(line)
            elif line.strip():
                ctx.reject(ctx.loc(n), "text before the first Discord message header", line)
            continue
        if cur is not None:
            yield from _discord_text_message(cur, speakers, ctx, empty)
        if head:
            name, clock = head[1].strip(), (head[6], head[7], head[8])
            if head[5]:
                day = None
                if start is not None:
                    day = start.date() - timedelta(days=1 if head[5] == "Yesterday" else 0)
                elif not warned:
                    ctx.warn(
                        source.name,
                        "'Today'/'Yesterday' dates need --start-date; time left unknown",
                    )
                    warned = True
            else:
                try:
                    day = date(int(head[4]), int(head[2]), int(head[3]))
                except ValueError:
                    day = None
        else:
            assert cont is not None
            name, clock = (cur["name"] if cur else None), (cont[1], cont[2], cont[3])
        cur = {"line": n, "name": name, "text": [], "ts": _clock_ts(day, clock, zone)}
    if cur is not None:
        yield from _discord_text_message(cur, speakers, ctx, empty)
    empty.report(ctx)


def _clock_ts(day: date | None, clock: tuple[str, str, str | None], zone: Any) -> str | None:
    if day is None:
        return None
    h, mi = int(clock[0]), int(clock[1])
    if clock[2]:
        h = h % 12 + (12 if clock[2].lower() == "p" else 0)
    try:
        return format_timestamp_utc(datetime(day.year, day.month, day.day, h, mi, tzinfo=zone))
    except (ValueError, OverflowError):
        return None


def _discord_text_message(
    cur: dict[str, Any], speakers: list[str], ctx: ImportContext, empty: EmptyCounter
) -> Iterator[ConversationMessage]:
    text = "\n".join(cur["text"]).strip()
    if not text:
        empty.n += 1
        return
    name = cur["name"]
    listeners = [s for s in speakers if s != name and f"@{s}" in text]
    if not listeners and len(speakers) == 2:
        listeners = [s for s in speakers if s != name]
    yield message(
        text,
        speaker=name,
        listeners=listeners,
        timestamp=cur["ts"],
        source_id=ctx.loc(cur["line"]),
        format="discord-text",
    )
