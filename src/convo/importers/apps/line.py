"""LINE chat history saved as text (a chat's Settings → Export chat history, "[LINE]
Chat history with NAME.txt"). LINE publishes no specification; the layout read here is
the one the exports show and that parsers of them read (OpenChatLab's
``line-native-txt`` parser, github.com/hellodigua/ChatLab, and the exports quoted in
LINE parsers' tests): the app writes it in the phone's language.

    [LINE] Chat history with Marta           (JA: [LINE] Martaとのトーク履歴)
    Saved on: 2024/03/02 21:15               (JA: 保存日時：2024/03/02 21:15)

    2024/03/01(Fri)                          (also 2024.03.01 Friday, Fri, 03/01/2024,
                                              Sun, 26/04/2026, 2024/1/2週二, R7/02/09(日))
    09:15<TAB>Marta<TAB>Good morning!        (times also 9:15AM, 午前9:15, 上午09:15)
    09:16<TAB>Jonas<TAB>"Two lines,
    in quotes"
    09:20<TAB><TAB>Marta joined the group.   (no sender: an event)

- Speaker: the name between the tabs. Listeners: the other sender of a chat of two
  (``Chat history with``, or ``...とのトーク履歴``), else none.
- Time: the date line's day (``Www, a/b/yyyy`` in the order the file's date lines show,
  month first when none does; ``R7/02/09`` a Japanese era's year) and the message's ``HH:MM`` (a 12-hour clock with
  ``AM``/``PM`` or 午前/午後/上午/下午 too), local to the phone and without a zone:
  read in ``--tz``. LINE writes no seconds. ``24:53`` (a clock past midnight under
  the day before) is 00:53 of the next day. A message before any date line, or whose
  time does not read (``25:10``), is rejected with its line, and so are the lines
  that continue it.
- Text: the rest of the line; a message over several lines is wrapped in double
  quotes, which are removed (``""`` inside it is a ``"``). A line that starts no
  message continues the previous one.
- Thread: the chat's name from the header, else the file's name; ids: content hashes,
  scoped to the thread.
- Events (no sender: joins, leaves, unsent messages, calls) are tagged ``system``;
  ``[Photo]``, ``[Sticker]``, ``[Video]``, ``[File]``, ``[Voice message]``,
  ``[Notes]`` and their Japanese and Chinese spellings, and a newer English export's
  bare ``Photos``, ``Stickers``, ``Videos``, ``Audio`` (the whole text), go to
  ``extra.media`` as well as staying the text.
- Detection: the ``[LINE]`` header 95 (an English ``Chat history with NAME`` without
  its ``[LINE]`` when a ``Saved on:`` line follows); without it (a cut file), a date
  line followed by tab-separated message lines in the head 80.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread (the chat's name from the header, else the file's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import PurePath

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import numbered_lines, other_party
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

_HEADER = re.compile(r"\[LINE\] ?(.*)")
_TITLES = (
    (re.compile(r"Chat history with (.+)"), True),
    (re.compile(r"Chat history in (.+)"), False),
    (re.compile(r"ประวัติการ(?:แชท|สนทนา)กับ ?(.+)"), False),  # Thai
    (re.compile(r"(.+)とのトーク履歴"), True),
    (re.compile(r"(.+)のトーク履歴"), False),
    (re.compile(r"[与與](.+)的聊天[记記紀][录錄]"), True),  # 紀錄: Taiwan's spelling too
    (re.compile(r"(.+)的聊天[记記紀][录錄]"), False),
)
_DAYS = (
    re.compile(r"(?P<y>\d{4})[/.](?P<m>\d{1,2})[/.](?P<d>\d{1,2})(?:[ (（].*|[周週].*|星期.*)?"),
    # a Japanese phone set to the Japanese calendar: R7/02/09(日) is Reiwa 7, 2025
    re.compile(r"(?P<era>[RH])(?P<y>\d{1,2})[/.](?P<m>\d{1,2})[/.](?P<d>\d{1,2})(?:[ (（].*)?"),
)
# English exports write the day in the phone's order: Mon, 11/03/2025 or Sun, 26/04/2026.
_SLASHED_DAY = re.compile(r"[A-Za-z]{3,9},? (?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})")
_ERAS = {"R": 2018, "H": 1988}  # Reiwa from 2019, Heisei from 1989
_MESSAGE = re.compile(
    r"(?P<ampm1>午前|午後|上午|下午)?[ \u00a0\u202f]?(?P<h>\d{1,2}):(?P<mi>\d{2})"
    r"[ \u00a0\u202f]?(?P<ampm2>[AaPp][Mm])?\t(?P<rest>.*)"
)  # the AM/PM only after a space, never a tab: "00:00<TAB>PM<TAB>hi" is a sender named PM
_PM = ("午後", "下午", "pm")
_MEDIA = {
    "[Photo]": "photo", "[写真]": "photo", "[照片]": "photo",
    "[Sticker]": "sticker", "[スタンプ]": "sticker", "[贴图]": "sticker", "[貼圖]": "sticker",
    "[Video]": "video", "[動画]": "video", "[视频]": "video", "[影片]": "video",
    "[File]": "file", "[ファイル]": "file", "[文件]": "file", "[檔案]": "file",
    "[Voice message]": "voice", "[ボイスメッセージ]": "voice", "[语音信息]": "voice",
    "[語音訊息]": "voice", "[Location]": "location", "[位置情報]": "location",
    "[位置]": "location", "[Notes]": "note", "[记事本]": "note", "[記事本]": "note",
    "[ノート]": "note",
}  # fmt: skip
# Newer English exports name a media message by a bare word (the whole text).
_MEDIA_WORDS = {"Photos": "photo", "Stickers": "sticker", "Videos": "video", "Audio": "voice"}


def line_day(line: str, day_first: bool = False) -> date | None:
    """The day of a LINE date line, else None; ``day_first``: an English export's
    ``Www, dd/mm/yyyy`` (else ``mm/dd``; a first number over 12 is a day whatever it)."""
    text = line.strip()
    try:
        for pattern in _DAYS:
            m = pattern.fullmatch(text)
            if m is not None:
                era = m.groupdict().get("era")
                year = int(m["y"]) + (_ERAS[era] if era else 0)
                return date(year, int(m["m"]), int(m["d"]))
        m = _SLASHED_DAY.fullmatch(text)
        if m is not None:
            a, b = int(m["a"]), int(m["b"])
            day, month = (a, b) if day_first or a > 12 else (b, a)
            return date(int(m["y"]), month, day)
    except ValueError:
        return None
    return None


def _day_order(line: str) -> bool | None:
    """Whether a ``Www, a/b/yyyy`` date line shows the day first (True), the month first
    (False), or neither (None)."""
    m = _SLASHED_DAY.fullmatch(line.strip())
    if m is None:
        return None
    a, b = int(m["a"]), int(m["b"])
    return True if a > 12 >= b else False if b > 12 >= a else None


def title(line: str) -> tuple[str, bool] | None:
    """The chat's name and whether it is a chat of two, from the ``[LINE]`` header line
    (an English one also without its ``[LINE]``: ``Chat history with NAME``)."""
    m = _HEADER.match(line.lstrip("\ufeff"))
    if m is None:
        for pattern, two in _TITLES[:2]:
            t = pattern.fullmatch(line.lstrip("\ufeff").strip())
            if t is not None:
                return t[1].strip(), two
        return None
    for pattern, two in _TITLES:
        t = pattern.fullmatch(m[1].strip())
        if t is not None:
            return t[1].strip(), two
    return m[1].strip(), False


def sniff_line(source: Source) -> int:
    lines = [ln for ln in head_lines(source, 12) if ln.strip()]
    if not lines:
        return 0
    if _HEADER.match(lines[0].lstrip("\ufeff")) is not None:
        return 95
    if title(lines[0]) is not None:  # without [LINE]: only with its saved-date line
        return 95 if len(lines) > 1 and lines[1].startswith("Saved on:") else 0
    for k, ln in enumerate(lines[:-1]):
        if line_day(ln) is not None:
            m = _MESSAGE.fullmatch(lines[k + 1])
            return 80 if m is not None and "\t" in m["rest"] else 0
    return 0


@dataclass
class _Cur:
    line: int
    ts: str | None
    speaker: str | None
    text: list[str] = field(default_factory=list)


@dataclass
class _Chat:
    thread: str
    two: bool
    day: date | None = None
    speakers: list[str] = field(default_factory=list)
    day_first: bool | None = None  # the order of an English export's date lines, once seen


def _header(source: Source, ctx: ImportContext) -> _Chat:
    """The chat's name and kind, its first three senders and the order of its ``Www,
    a/b/yyyy`` date lines (a first pass, to where it knows them)."""
    chat = _Chat(strip_compressed(PurePath(source.name).name).removesuffix(".txt"), False)
    seen: dict[str, None] = {}
    slashed = False  # an English export's date lines: read on to one that shows the order
    for n, line in numbered_lines(source, ctx.text_decoder()):
        if n == 1 and (got := title(line)) is not None:
            chat.thread, chat.two = got[0] or chat.thread, got[1]
            continue
        if "\t" not in line and chat.day_first is None and _SLASHED_DAY.fullmatch(line.strip()):
            slashed, chat.day_first = True, _day_order(line)
        m = _MESSAGE.fullmatch(line)
        if m is not None and "\t" in m["rest"] and (name := m["rest"].split("\t", 1)[0].strip()):
            seen.setdefault(name)
        if len(seen) > 2 and (not slashed or chat.day_first is not None):
            break
    chat.speakers = list(seen)
    return chat


def _time(m: re.Match[str], day: date, ctx: ImportContext) -> str | None:
    """The message's time on the date line's day; ``24:53`` (a clock past midnight, as
    some versions write a message after midnight under the day before) is 00:53 of the
    next day; None for a time of day that does not read (``25:10``, ``9:75``)."""
    hour, minute = int(m["h"]), int(m["mi"])
    ampm = (m["ampm1"] or m["ampm2"] or "").lower()
    if ampm:
        hour = hour % 12 + (12 if ampm in _PM else 0)
    late = hour == 24 and not ampm
    try:
        when = datetime(day.year, day.month, day.day, 0 if late else hour, minute)
    except ValueError:
        return None
    return naive_ts(when + timedelta(days=1) if late else when, ctx.options.tz)


def _text(lines: list[str]) -> str:
    text = "\n".join(lines)
    if len(lines) > 1 and text.startswith('"') and text.endswith('"'):
        text = text[1:-1].replace('""', '"')
    return text.strip()


def _build(cur: _Cur, ctx: ImportContext, chat: _Chat, ids: ContentIds) -> ConversationMessage:
    text = _text(cur.text)
    media = _MEDIA_WORDS.get(text) or next(
        (kind for mark, kind in _MEDIA.items() if text.startswith(mark)), None
    )
    msg = message(
        text, speaker=cur.speaker,
        listeners=other_party(chat.speakers, cur.speaker) if cur.speaker else [],
        timestamp=cur.ts, source_id=ctx.loc(cur.line), format="line", thread=chat.thread,
        tags=["system"] if cur.speaker is None else None, extra={"media": media},
    )  # fmt: skip
    ids.assign(msg)
    return msg


def _lines(source: Source, ctx: ImportContext) -> Iterator[tuple[int, str]]:
    """The numbered lines after the header (``[LINE] ...`` and its ``Saved on:`` line)."""
    headed = False
    for n, line in numbered_lines(source, ctx.text_decoder()):
        if n == 1 and title(line) is not None:
            headed = True
        elif not (headed and n == 2 and line_day(line) is None and not _MESSAGE.fullmatch(line)):
            yield n, line


def _started(n: int, m: re.Match[str], chat: _Chat, ctx: ImportContext) -> _Cur | None:
    """A message from its first line; None (rejected) before any date line or when its
    time does not read."""
    if chat.day is None:
        ctx.reject(ctx.loc(n), "LINE message before any date line", m[0])
        return None
    ts = _time(m, chat.day, ctx)
    if ts is None:
        ctx.reject(ctx.loc(n), "LINE message time is not a time of day", m[0])
        return None
    speaker, tab, text = m["rest"].partition("\t")
    if not tab:
        speaker, text = "", m["rest"]
    return _Cur(n, ts, speaker.strip() or None, [text])


def read_line(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    chat = _header(source, ctx)
    ids = ContentIds(source.name)
    cur: _Cur | None = None
    rejected = False  # the message the lines continue was rejected
    for n, line in _lines(source, ctx):
        day = line_day(line, bool(chat.day_first)) if "\t" not in line else None
        m = _MESSAGE.fullmatch(line) if day is None else None
        if day is None and m is None:
            if cur is not None:
                cur.text.append(line)
            elif line.strip():
                why = (
                    "continues a rejected LINE message"
                    if rejected
                    else "text before the first LINE message"
                )
                ctx.reject(ctx.loc(n), why, line)
            continue
        if cur is not None:
            yield _build(cur, ctx, chat, ids)
        if day is not None:
            chat.day, cur, rejected = day, None, False
        else:
            assert m is not None
            cur = _started(n, m, chat, ctx)
            rejected = cur is None
    if cur is not None:
        yield _build(cur, ctx, chat, ids)


DESCRIPTION = "LINE chat history .txt ([LINE] Chat history with NAME)"
EXAMPLE = "[LINE] Chat history with Marta\nSaved on: 2024/03/02 21:15\n\n2024/03/01(Fri)\n09:15\tMarta\tGood morning!\n"
FIELDS = Fields(
    speaker="the sender between the tabs; none for an event",
    listeners="the other sender of a chat of two, else none",
    time="the date line's day and the message's `HH:MM` (no seconds)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the chat's name from the `[LINE]` header, else the file's name",
    id="no message ids: " + CONTENT_HASH,
    scope="the chat's name (the thread)",
    tags="`system` for events (no sender)",
    extra="`media` (photo, sticker, video, file, voice, location, note)",
)
FORMATS = (
    Format("line", "chat", DESCRIPTION, ("*.txt",), sniff_line, read_line, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
