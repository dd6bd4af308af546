"""KakaoTalk chat history saved as text (a chat room's menu → Export chat / 대화 내보내기,
"KakaoTalk_20241209_1430_12_345_NAME.txt"; the PC app's "Save chat" / 대화 내용 저장).
Kakao publishes no specification; the layouts read here are those the exports show and
that parsers of them read (github.com/1kko/kakaotalkparse, the PC and mobile patterns of
suziewithz/kakaoship's ``log_samples/temp.py`` and es5es5/talk-parser's ``parser.py``,
m00nlygreat/katalk's ``export2csv.py``): the app writes it in the phone's language, and
its layout depends on where it was saved.

    홍길동 님과 카카오톡 대화                        (EN: KakaoTalk Chats with Ann)
    교사모임 (17명) 카카오톡 대화                     (a group room, its member count)
    저장한 날짜 : 2024-12-09 14:30:00               (EN: Date Saved : ...)

PC (Windows) — a dashed date line, then ``[Name] [time] text``:

    --------------- 2024년 12월 9일 월요일 ---------------   (Monday, December 9, 2024)
    [홍길동] [오후 2:30] 안녕하세요                           ([Ann] [2:30 PM] Hello)
    홍길동님이 들어왔습니다.                                  (an event: no time)

Mobile (Android, iOS) — a date line, then each message with its whole date:

    2024년 12월 9일 월요일                  (2024. 12. 9. 월요일; Monday, December 9, 2024)
    2024년 12월 9일 오후 2:30, 홍길동 : 안녕   (Android; 2024. 12. 9. 14:30, ... 24-hour)
    2024. 12. 9. 오후 2:31, 김철수 : 네        (iOS)
    December 9, 2024, 2:32 PM, Ann : Hello   (English; Dec 9, 2024 at 2:32 PM, ...;
                                              2014's: 2:32PM, December 9, 2024, ...)
    2024. 12. 9. 오후 2:33: 홍길동님이 나갔습니다.  (an event: ``:`` after the time)

Mac — a CSV: ``Date,User,Message`` then ``2024-12-09 14:30:05,"Ann","Hello"``.

- Speaker: the name (``[Name]``, or before `` : ``). Listeners: the other sender when the
  file has exactly two, else none.
- Time: the date line's day and the message's time (``오전``/``오후``, ``AM``/``PM``,
  or a 24-hour clock), or the message's own date; local to the phone and without a
  zone: read in ``--tz``. Only the Mac CSV has seconds. A message before any date line
  (PC), or whose time does not read (``[25:30]``, ``오후 13:05``), is rejected with its
  line, and so are the lines that continue it.
- Text: the rest of the line; a line that starts no message continues the previous one.
- Events: a mobile line with ``:`` (or no `` : ``) after its time, and on PC a line
  without time that says someone joined, left, was invited or removed
  (``...님이 들어왔습니다.``, ``... joined this chatroom.``), are tagged ``system``
  without a speaker; a PC event takes the time of the message before it. Such a
  sentence alone on a line of a message over several lines is read as an event too
  (the export cannot tell them apart); English invitations, whose wording is ordinary
  prose, are left to the message they follow.
- Thread: the chat's name from the header, else the file's name; ids: content hashes,
  scoped to the thread.
- ``사진``, ``동영상``, ``이모티콘``, ``음성메시지``, ``파일: NAME`` (``Photo``,
  ``Video``, ``Emoticon``, ``File: NAME``...) go to ``extra.media``; ``삭제된
  메시지입니다.`` / ``This message was deleted.`` to ``extra.deleted``.
- Detection: the header and its saved-date line 95; a cut file whose head holds a PC
  date line or two mobile message lines 80; the Mac CSV's header row 90.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread (the chat's name from the header, else the file's name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import PurePath

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import SYSTEM_TAG, csv_rows, numbered_lines, other_party
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "kakaotalk"
_TITLES = (
    re.compile(r"(.+?)\s*님과(?:의)?\s*카카오톡\s*대화"),
    # a group room: its name, the member count in brackets after it (2013-2017 exports)
    re.compile(r"(.+?)(?:\s*\(\d+명\))?\s+카카오톡\s*대화"),
    re.compile(r"KakaoTalk Chats with\s+(.+)", re.I),
)
_SAVED = re.compile(r"(?:저장한\s*날짜|Date Saved|Saved Date)\s*:.*", re.I)
_MONTHS = {m: k for k, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}  # fmt: skip
_MONTH = r"(?P<mon>[A-Za-z]{3,9})\.?"
# The date of a line: Korean (2024년 12월 9일), dotted (2024. 12. 9.), English (December 9, 2024).
_DATE = (
    r"(?:(?P<y>\d{4})년\s*(?P<m>\d{1,2})월\s*(?P<d>\d{1,2})일"
    r"|(?P<y2>\d{4})\.\s*(?P<m2>\d{1,2})\.\s*(?P<d2>\d{1,2})\.?"
    rf"|{_MONTH}\s+(?P<d3>\d{{1,2}}),\s*(?P<y3>\d{{4}}))"
)
_SP = r"[\s\u202f\u00a0]"
_TIME = (
    rf"(?:(?P<pre>오전|오후){_SP}*)?(?P<h>\d{{1,2}}):(?P<mi>\d{{2}})"
    rf"(?:{_SP}*(?P<ap>[AaPp])\.?[Mm]\.?)?"
)
_WEEKDAY = r"(?:[월화수목금토일]요일|[A-Za-z]+day)"
_DAY_LINE = re.compile(rf"-*\s*(?:{_WEEKDAY},?\s*)?{_DATE},?(?:\s*{_WEEKDAY}|\s+{_TIME})?\s*-*")
_PC = re.compile(rf"\[(?P<name>[^\]]*)\] \[{_TIME}\] ?(?P<rest>.*)")
_MOBILE = re.compile(rf"{_DATE},?(?:\s+at)?\s+{_TIME}(?P<sep>,|:)\s?(?P<rest>.*)")
# Older English exports (2014) write the time first: "9:46AM, February 20, 2014, Ann : hi",
# under a date line "9:46AM, February 20, 2014".
_MOBILE_TIME_FIRST = re.compile(rf"{_TIME},\s*{_DATE}(?P<sep>,|:)\s?(?P<rest>.*)")
_DAY_LINE_TIME_FIRST = re.compile(rf"{_TIME},\s*{_DATE}")
_EVENT = re.compile(
    r".+님[이을]\s(?:들어왔습니다|나갔습니다|초대(?:했|하였)습니다|내보냈습니다)\."
    r"|.+ (?:joined|left) (?:this|the) chatroom\.",
)
_MEDIA = {
    "사진": "photo", "동영상": "video", "이모티콘": "emoticon", "음성메시지": "voice",
    "Photo": "photo", "Video": "video", "Emoticon": "emoticon", "Voice Message": "voice",
}  # fmt: skip
_FILE = re.compile(r"(?:파일|File): .+")
_PHOTOS = re.compile(r"사진 \d+장|Photos? \d+|\d+ Photos")
_DELETED = ("삭제된 메시지입니다.", "This message was deleted.", "This message has been deleted.")
CSV_HEADER = "Date,User,Message"
_MAC = "the KakaoTalk Mac app"
_CSV_ROW = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,")


def _day(m: re.Match[str]) -> date | None:
    """The date a match of ``_DATE`` holds, else None."""
    try:
        if m["y"]:
            return date(int(m["y"]), int(m["m"]), int(m["d"]))
        if m["y2"]:
            return date(int(m["y2"]), int(m["m2"]), int(m["d2"]))
        month = _MONTHS.get(m["mon"][:3].lower())
        return date(int(m["y3"]), month, int(m["d3"])) if month else None
    except ValueError:
        return None


def day_line(line: str) -> date | None:
    """The day of a date line (PC's dashed one, or mobile's), else None."""
    m = _DAY_LINE.fullmatch(line.strip()) or _DAY_LINE_TIME_FIRST.fullmatch(line.strip())
    return _day(m) if m is not None else None


def title(line: str) -> str | None:
    """The chat's name from the first line of the header, else None."""
    for pattern in _TITLES:
        m = pattern.fullmatch(line.lstrip("\ufeff").strip())
        if m is not None:
            return m[1].strip()
    return None


def sniff(source: Source) -> int:
    lines = [ln.lstrip("\ufeff") for ln in head_lines(source, 12) if ln.strip()]
    if not lines:
        return 0
    if lines[0].strip() == CSV_HEADER:
        return 90 if len(lines) == 1 or _CSV_ROW.match(lines[1]) else 0
    if len(lines) > 1 and _SAVED.fullmatch(lines[1].strip()) and title(lines[0]) is not None:
        return 95
    return _sniff_cut(lines)


def _sniff_cut(lines: list[str]) -> int:
    """A file without its header: a PC date line and message, or two mobile messages."""
    if any(ln.startswith("-----") and day_line(ln) for ln in lines):
        return 80 if any(_PC.fullmatch(ln) for ln in lines) else 0
    said = [m for ln in lines if (m := _mobile(ln)) is not None and m["sep"] == ","]
    return 80 if sum(1 for m in said if " : " in m["rest"]) >= 2 else 0


def _mobile(line: str) -> re.Match[str] | None:
    """A mobile message line: its date, time and ``, Name : text`` (or an event's)."""
    m = _MOBILE.fullmatch(line) or _MOBILE_TIME_FIRST.fullmatch(line)
    return m if m is not None and _day(m) is not None else None


_NO_CLOCK = "KakaoTalk message time is not a time of day"
_BEFORE = "text before the first KakaoTalk message"


def _clock(m: re.Match[str]) -> tuple[int, int] | None:
    hour, minute = int(m["h"]), int(m["mi"])
    period = m["pre"] or m["ap"]
    if period:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if period in ("오후", "p", "P") else 0)
    return (hour, minute) if hour < 24 and minute < 60 else None


@dataclass
class _Cur:
    line: int
    ts: str | None
    speaker: str | None
    text: list[str] = field(default_factory=list)
    event: bool = False


@dataclass
class _Chat:
    thread: str
    day: date | None = None
    clock: tuple[int, int] = (0, 0)
    speakers: list[str] = field(default_factory=list)


def _name_text(rest: str) -> tuple[str | None, str]:
    name, sep, text = rest.partition(" : ")
    return (name.strip() or None, text) if sep else (None, rest)


def _sender(line: str) -> str | None:
    """The sender a message line names, else None (an event, or no message line)."""
    m = _PC.fullmatch(line)
    if m is not None:
        return m["name"].strip() or None
    m = _mobile(line)
    return _name_text(m["rest"])[0] if m is not None and m["sep"] == "," else None


def _first_pass(source: Source, ctx: ImportContext) -> _Chat:
    """The chat's name, and its first three senders."""
    chat = _Chat(strip_compressed(PurePath(source.name).name).removesuffix(".txt"))
    seen: dict[str, None] = {}
    for n, line in numbered_lines(source, ctx.text_decoder()):
        if n == 1 and (got := title(line)) is not None:
            chat.thread = got or chat.thread
            continue
        name = _sender(line)
        if name:
            seen.setdefault(name)
            if len(seen) > 2:
                break
    chat.speakers = list(seen)
    return chat


def _stamp(day: date, clock: tuple[int, int] | None, ctx: ImportContext) -> str | None:
    if clock is None:
        return None
    return naive_ts(datetime(day.year, day.month, day.day, *clock), ctx.options.tz)


def _extra(text: str) -> dict[str, object]:
    media = _MEDIA.get(text)
    if media is None and (_FILE.fullmatch(text) or _PHOTOS.fullmatch(text)):
        media = "file" if _FILE.fullmatch(text) else "photo"
    return {"media": media, "deleted": True if text in _DELETED else None}


def _build(cur: _Cur, ctx: ImportContext, chat: _Chat, ids: ContentIds) -> ConversationMessage:
    text = "\n".join(cur.text).strip()
    msg = message(
        text, speaker=cur.speaker,
        listeners=[] if cur.event else other_party(chat.speakers, cur.speaker),
        timestamp=cur.ts, source_id=ctx.loc(cur.line), format=NAME, thread=chat.thread,
        tags=[SYSTEM_TAG] if cur.event else None, extra=_extra(text),
    )  # fmt: skip
    ids.assign(msg)
    return msg


def _started(n: int, line: str, chat: _Chat, ctx: ImportContext) -> _Cur | bool | None:
    """The message a line starts (None: rejected), else False (the line starts none)."""
    m = _PC.fullmatch(line)
    if m is not None:
        if chat.day is None:
            ctx.reject(ctx.loc(n), "KakaoTalk message before any date line", line)
            return None
        if _clock(m) is None:
            ctx.reject(ctx.loc(n), _NO_CLOCK, line)
            return None
        chat.clock = _clock(m) or chat.clock
        return _Cur(n, _stamp(chat.day, _clock(m), ctx), m["name"].strip() or None, [m["rest"]])
    m = _mobile(line)
    if m is not None:
        day = _day(m)
        assert day is not None
        if _clock(m) is None:
            ctx.reject(ctx.loc(n), _NO_CLOCK, line)
            return None
        chat.day, chat.clock = day, _clock(m) or chat.clock
        name, text = _name_text(m["rest"]) if m["sep"] == "," else (None, m["rest"])
        return _Cur(n, _stamp(day, _clock(m), ctx), name, [text], event=name is None)
    if chat.day is not None and _EVENT.fullmatch(line.strip()):
        return _Cur(n, _stamp(chat.day, chat.clock, ctx), None, [line.strip()], event=True)
    return False


def _lines(source: Source, ctx: ImportContext) -> Iterator[tuple[int, str]]:
    """The numbered lines after the header (the title and its saved-date line)."""
    headed = False
    for n, line in numbered_lines(source, ctx.text_decoder()):
        if n == 1 and title(line) is not None:
            headed = True
        elif not (headed and n <= 3 and _SAVED.fullmatch(line.strip())):
            yield n, line


def _read_text(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    chat = _first_pass(source, ctx)
    ids = ContentIds(source.name)
    cur: _Cur | None = None
    rejected = False  # the message the lines continue was rejected
    for n, line in _lines(source, ctx):
        day = day_line(line) if not _mobile(line) else None
        started = _started(n, line, chat, ctx) if day is None else None
        if started is False:
            if cur is not None:
                cur.text.append(line)
            elif line.strip():
                why = "continues a rejected KakaoTalk message" if rejected else _BEFORE
                ctx.reject(ctx.loc(n), why, line)
            continue
        if cur is not None:
            yield _build(cur, ctx, chat, ids)
        cur = started if isinstance(started, _Cur) else None
        rejected = day is None and started is None
        if day is not None:
            chat.day, chat.clock = day, (0, 0)
    if cur is not None:
        yield _build(cur, ctx, chat, ids)


def _read_csv(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """The Mac app's CSV: ``Date,User,Message``, one row a message, seconds included."""
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    chat = _Chat(strip_compressed(PurePath(source.name).name).removesuffix(".csv"))
    seen: dict[str, None] = {}
    for _, row in csv_rows(source, decode, _MAC, "export the chat again"):
        if len(row) > 1 and row[1].strip():
            seen.setdefault(row[1].strip())
        if len(seen) > 2:
            break
    chat.speakers = list(seen)
    ids = ContentIds(source.name)
    for n, row in csv_rows(source, decode, _MAC, "export the chat again"):
        try:
            when = datetime.strptime(row[0].strip(), "%Y-%m-%d %H:%M:%S") if len(row) >= 3 else None
        except ValueError:
            when = None
        if when is None:
            ctx.reject(ctx.loc(n), "not a KakaoTalk CSV row (Date,User,Message)", ",".join(row))
            continue
        ts = naive_ts(when, ctx.options.tz)
        yield _build(_Cur(n, ts, row[1].strip() or None, [",".join(row[2:])]), ctx, chat, ids)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    head = [ln for ln in head_lines(source, 3) if ln.strip()]
    if head and head[0].lstrip("\ufeff").strip() == CSV_HEADER:
        return _read_csv(source, ctx)
    return _read_text(source, ctx)


DESCRIPTION = "KakaoTalk chat export .txt (PC, Android, iOS; Korean and English) and the Mac CSV"
EXAMPLE = (
    "KakaoTalk Chats with Ann\nDate Saved : 2024-12-09 14:30:00\n\n"
    "--------------- Monday, December 9, 2024 ---------------\n[Ann] [2:30 PM] Hello\n"
)
FIELDS = Fields(
    speaker="the name (`[Name]`, or before ` : `); none for an event",
    listeners="the other sender of a file with two, else none",
    time="the date line's day (or the message's date) and its `H:MM` (the Mac CSV: seconds)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the chat's name from the header, else the file's name",
    id="no message ids: " + CONTENT_HASH,
    scope="the chat's name (the thread)",
    tags="`system` for events (joins, leaves, invitations)",
    extra="`media` (photo, video, emoticon, voice, file), `deleted`",
)
FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("KakaoTalk*.txt", "*.txt", "*.csv"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
