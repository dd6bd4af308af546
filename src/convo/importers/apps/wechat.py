"""WeChat chats as WeChatMsg / MemoTrace (github.com/LC044/WeChatMsg, 留痕) exports them:
its CSV and its TXT (format ``wechat``). The exporter reads the Windows client's
decrypted database; its writers (``app/util/exporter/exporter_csv.py`` and
``exporter_txt.py``, later ``exporter/exporter_txt.py`` on ``wxManager``) write:

CSV (``NAME_utf8.csv``, UTF-8 with BOM) — the header ``localId,TalkerId,Type,SubType,
IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender``, then a row a
message: the database's ``MSG`` columns (``CreateTime`` epoch seconds, ``StrTime`` the
local ``YYYY-MM-DD HH:MM:SS``), then the sender's remark, nickname and wxid (versions
before 2024 wrote those three for group chats only: such a row has nine cells).

TXT (``NAME.txt``) — messages apart by a blank line, each a title line and its text:

    2024-03-01 09:15:00 张三          (the time and the sender's display name)
    早上好                             (the text; [图片], [语音], [视频], [表情包], [文件]...)

    2024-03-01 09:16:00              (a system message: the time alone, then its text;
    你撤回了一条消息                    the first versions wrote the time and the text on
                                     one line)

Decisions:
- speaker: the CSV's remark, else nickname, else wxid; a nine-cell row's ``IsSender``
  says ``me`` or the chat (its file's name); the TXT's display name. Listeners: the
  other sender of a chat of two, else none. Thread: the file's name (WeChatMsg names
  it for the contact or group), without ``_utf8``.
- time: the CSV's ``CreateTime`` (an instant, exact), else its ``StrTime``; the TXT's
  title time, local and without a zone: read in ``--tz``.
- text: the CSV's ``StrContent`` for a text message (``Type`` 1) and a system one
  (10000, its ``CDATA`` and re-edit link removed, tagged ``system``); other types hold
  XML there, so their text is the TXT's placeholder (``[图片]``...) and ``extra`` keeps
  ``type``/``subtype``. In the TXT, a title line with no text after it is a system
  message of the first versions (its text the title's rest), and a line of the shape of
  a title after a blank line starts a message (a message's own text cannot hold one).
  A reply's quoted message, written after its text as ``引用:NAME:TEXT`` (``引用:未知``),
  goes to ``extra.quote`` (``speaker``, ``text``); a shared link's card (``[链接]:title:
  ...`` then ``description:``, ``url:``, ``name:`` lines, indented by the writer) loses
  that indentation and its fields go to ``extra.link``.
- a CSV row whose times do not read, or too short, is rejected with its line; so is
  TXT text before the first title line.

Ids and their scope (docs/ids.md): the database's ``localId`` repeats across its
``MSG0.db``, ``MSG1.db``... files, so it is kept in ``extra`` and the id is the content
hash, its conversation the thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.encoding import LineDecoder
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import format_timestamp_utc, naive_ts
from convo.importers.apps.common import SYSTEM_TAG, csv_rows, numbered_lines, other_party
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "wechat"
CSV_HEADER = "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime,Remark,NickName,Sender"
_TITLE = re.compile(r"(?P<t>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?: (?P<rest>.*))?")
_PLACEHOLDERS = {
    "3": "[图片]", "34": "[语音]", "43": "[视频]", "47": "[表情包]", "48": "[位置]",
    "42": "[名片]", "50": "[通话]",
}  # fmt: skip
_APP = {"6": "[文件]", "3": "[音乐分享]", "5": "[链接]", "57": "[引用]", "19": "[聊天记录]",
        "2000": "[转账]", "33": "[小程序]", "36": "[小程序]"}  # fmt: skip
_SYSTEM_TYPES = ("10000", "10002")
_CARD = "[链接]:title:"  # a shared link's first line (its other lines indented)
_QUOTE = "引用:"  # a reply's quoted message, after its text
_REVOKE = re.compile(r'<!\[CDATA\[|\s*<a href="weixin://revoke_edit_click">[^<]*</a>|\]\]>')


def sniff(source: Source) -> int:
    lines = source.head_text().lstrip("\ufeff").splitlines()[:40]
    first = next((ln for ln in lines if ln.strip()), "")
    if first.strip() == CSV_HEADER:
        return 95
    if not _TITLE.fullmatch(first):
        return 0
    # A title opens the file and another follows a blank line: the export's rhythm (an
    # ISO-dated log has no blank lines between its lines).
    k0 = lines.index(first)
    apart = any(
        _TITLE.fullmatch(lines[k]) and not lines[k - 1].strip() for k in range(k0 + 2, len(lines))
    )
    return 70 if apart else 0


def _thread(source: Source) -> str:
    stem = PurePath(strip_compressed(source.name)).stem
    return stem.removesuffix("_utf8")


@dataclass
class _Row:
    line: int
    ts: str | None
    speaker: str | None
    text: str
    system: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _build(
    row: _Row, ctx: ImportContext, thread: str, speakers: list[str], ids: ContentIds
) -> ConversationMessage:
    msg = message(
        row.text, speaker=row.speaker,
        listeners=[] if row.system else other_party(speakers, row.speaker),
        timestamp=row.ts, source_id=ctx.loc(row.line), format=NAME, thread=thread,
        tags=[SYSTEM_TAG] if row.system else None, extra=row.extra or None,
    )  # fmt: skip
    ids.assign(msg)
    return msg


# --- the CSV ---------------------------------------------------------------------------


def _csv_speaker(cells: list[str], chat: str) -> str | None:
    if len(cells) >= 12:
        return cells[9].strip() or cells[10].strip() or cells[11].strip() or None
    return "me" if cells[4].strip() == "1" else chat


def _csv_time(cells: list[str], ctx: ImportContext) -> str | None:
    try:
        return format_timestamp_utc(datetime.fromtimestamp(int(cells[5]), tz=ctx.options.tz))
    except (ValueError, OverflowError, OSError):
        pass
    try:
        return naive_ts(datetime.strptime(cells[8].strip(), "%Y-%m-%d %H:%M:%S"), ctx.options.tz)
    except ValueError:
        return None


def _csv_text(kind: str, sub: str, content: str) -> tuple[str, bool]:
    """The text of a row and whether it is a system message."""
    if kind in _SYSTEM_TYPES:
        return _REVOKE.sub("", content).strip(), True
    if kind == "1" or (content.strip() and not content.lstrip().startswith("<")):
        return content, False
    if kind == "49":
        return _APP.get(sub, "[应用消息]"), False
    return _PLACEHOLDERS.get(kind, f"[{kind}]"), False


def _csv_row(n: int, cells: list[str], chat: str, ctx: ImportContext) -> _Row | None:
    if len(cells) < 9:
        ctx.reject(
            ctx.loc(n), f"a row of {len(cells)} cells, not WeChatMsg's 9 or 12", ",".join(cells)
        )
        return None
    ts = _csv_time(cells, ctx)
    if ts is None:
        ctx.reject(
            ctx.loc(n), f"time {cells[5][:20]!r} / {cells[8][:20]!r} does not read", ",".join(cells)
        )
        return None
    text, system = _csv_text(cells[2].strip(), cells[3].strip(), cells[7])
    extra: dict[str, Any] = {"local_id": cells[0]}
    if cells[2].strip() not in ("1", *_SYSTEM_TYPES):
        extra.update(type=cells[2].strip(), subtype=cells[3].strip())
    speaker = None if system else _csv_speaker(cells, chat)
    return _Row(n, ts, speaker, text, system, extra)


def _read_csv(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    chat = _thread(source)
    seen: dict[str, None] = {}
    for _, cells in csv_rows(source, decode, "WeChatMsg", "export the chat again, or as TXT"):
        if len(cells) >= 9 and cells[2].strip() not in _SYSTEM_TYPES:
            seen.setdefault(_csv_speaker(cells, chat) or "")
        if len(seen) > 2:
            break
    speakers = [s for s in seen if s]
    ids = ContentIds(source.name)
    for n, cells in csv_rows(source, decode, "WeChatMsg", "export the chat again, or as TXT"):
        row = _csv_row(n, cells, chat, ctx)
        if row is not None:
            yield _build(row, ctx, chat, speakers, ids)


# --- the TXT ---------------------------------------------------------------------------


def _blocks(
    source: Source, decode: LineDecoder, ctx: ImportContext | None
) -> Iterator[tuple[int, re.Match[str], list[str]]]:
    """Each message's title (its line and match) and the lines after it; text before the
    first title is rejected through ``ctx`` (None: the first pass, which says nothing)."""
    cur: tuple[int, re.Match[str]] | None = None
    body: list[str] = []
    blank = True
    for n, line in numbered_lines(source, decode):
        m = _TITLE.fullmatch(line) if blank else None
        blank = not line.strip()
        if m is None:
            if cur is not None:
                body.append(line)
            elif line.strip() and ctx is not None:
                ctx.reject(ctx.loc(n), "text before the first WeChatMsg title line", line)
            continue
        if cur is not None:
            yield cur[0], cur[1], body
        cur, body = (n, m), []
    if cur is not None:
        yield cur[0], cur[1], body


def _card(body: list[str]) -> tuple[list[str], dict[str, Any]]:
    """A shared link's card (``[链接]:title:...``, then ``description:``, ``url:`` and
    ``name:`` lines, each indented by the writer's source): its lines unindented, and
    its fields for ``extra.link``; other bodies as they are."""
    lines = [ln.strip() for ln in body]
    if not lines or not lines[0].startswith(_CARD):
        return body, {}
    fields: dict[str, Any] = {"title": lines[0].removeprefix(_CARD)}
    for ln in lines[1:]:
        key, colon, value = ln.partition(":")
        if colon and key in ("description", "url", "name") and value not in ("", "None"):
            fields[key] = value
    return lines, {"link": fields}


def _quote(text: str) -> tuple[str, dict[str, Any]]:
    """A reply's text and its quote: the exporter writes the quoted message after the
    reply's text as ``引用:NAME:TEXT`` (``引用:未知`` when it is not known)."""
    lines = text.split("\n")
    k = next((k for k in range(len(lines) - 1, 0, -1) if lines[k].startswith(_QUOTE)), None)
    if k is None:
        return text, {}
    quoted = "\n".join(lines[k:]).removeprefix(_QUOTE)
    name, colon, said = quoted.partition(":")
    quote = {"speaker": name, "text": said} if colon else {"text": quoted}
    return "\n".join(lines[:k]).rstrip(), {"quote": quote}


def _txt_row(n: int, m: re.Match[str], body: list[str], ctx: ImportContext) -> _Row:
    ts = (
        naive_ts(datetime.strptime(m["t"], "%Y-%m-%d %H:%M:%S"), ctx.options.tz)
        if _valid(m["t"])
        else None
    )
    body, extra = _card(body)
    text = "\n".join(body).strip("\n")
    rest = (m["rest"] or "").strip()
    if not text.strip():  # the first versions' system line: the time and the text
        return _Row(n, ts, None, rest, system=True)
    if not rest:  # the time alone: a system message
        return _Row(n, ts, None, text, system=True)
    if not extra:
        text, extra = _quote(text)
    return _Row(n, ts, rest, text, extra=extra)


def _valid(stamp: str) -> bool:
    try:
        datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return False
    return True


def _read_txt(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    decode = ctx.text_decoder()
    seen: dict[str, None] = {}
    for n, m, body in _blocks(source, decode, None):
        row = _txt_row(n, m, body, ctx)
        if row.speaker:
            seen.setdefault(row.speaker)
        if len(seen) > 2:
            break
    speakers, chat, ids = list(seen), _thread(source), ContentIds(source.name)
    for n, m, body in _blocks(source, decode, ctx):
        row = _txt_row(n, m, body, ctx)
        if row.ts is None:
            ctx.reject(ctx.loc(n), f"time {m['t']!r} is not a day and time", m[0])
        elif row.text.strip():
            yield _build(row, ctx, chat, speakers, ids)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    head = [ln for ln in head_lines(source, 3) if ln.strip()]
    if head and head[0].lstrip("\ufeff").strip() == CSV_HEADER:
        return _read_csv(source, ctx)
    return _read_txt(source, ctx)


DESCRIPTION = "WeChat chats as WeChatMsg / MemoTrace export them (its CSV and TXT)"
EXAMPLE = "2024-03-01 09:15:00 张三\n早上好\n\n2024-03-01 09:16:00 李四\n早！\n"
FIELDS = Fields(
    speaker="the CSV's `Remark`, else `NickName`, else `Sender`; the TXT title's display name; none for "
    "system messages",
    listeners="the other sender of a chat of two, else none",
    time="the CSV's `CreateTime` (epoch seconds), else `StrTime`; the TXT title's time",
    zone="the CSV's `CreateTime` is an instant; `StrTime` and the TXT's times are naive: read in `--tz`",
    thread="the file's name (the contact or group WeChatMsg named it for), without `_utf8`",
    id="no message ids (the database's `localId` repeats across its files): " + CONTENT_HASH,
    scope="the chat (the thread)",
    tags="`system` for system messages (`Type` 10000/10002; a title without a name)",
    extra="the CSV's `local_id`; `type`/`subtype` for messages other than text; the TXT's "
    "`quote` (a reply's quoted message) and `link` (a shared link's card)",
)
FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*_utf8.csv", "*.csv", "*.txt"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
