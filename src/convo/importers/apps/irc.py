"""IRC client and bouncer logs (``irc``): irssi, WeeChat, ZNC, Limnoria, HexChat/XChat.

Line formats (each client's default log format; found with the code search in the
clients' sources and in parsers of real logs, e.g. log2timeline/plaso's XChat parser):
- irssi: ``--- Log opened Tue Mar 01 10:00:00 2022``, ``--- Day changed Wed Mar 02
  2022``, ``10:00 <@alice> text``, ``10:01  * alice waves``, ``10:02 -!- bob [~b@h] has
  joined #chan`` (time ``HH:MM`` or ``HH:MM:SS``).
- WeeChat: ``2022-03-01 10:00:00<TAB>@alice<TAB>text``; prefix `` *`` for actions,
  ``-->``/``<--``/``--`` for joins, quits and other events.
- ZNC (``log`` module): ``[10:00:00] <alice> text``, ``[10:00:01] * alice waves``,
  ``[10:00:02] *** Joins: bob (~b@h)``; the date comes from the file name
  (``2022-03-01.log``, ``net_#chan_20220301.log``).
- Limnoria ChannelLogger: ``2022-03-01T10:00:00  <alice> text``, ``...  * alice waves``,
  ``...  *** bob <~b@h> has joined #chan``.
- HexChat/XChat: ``**** BEGIN LOGGING AT Tue Mar  1 10:00:00 2022``, ``Mar 01 10:00:00
  <alice><TAB>text``, ``Mar 01 10:00:05 *<TAB>bob (~b@h) has joined #chan`` (the year from
  the last BEGIN LOGGING line).

Decisions:
- One message per line. speaker = the nick without its mode prefix (``@+%~&!``, kept in
  ``extra.mode``); listeners = nicks already seen in the log that the line addresses
  (``bob: hi``, ``bob, hi``).
- ``/me`` actions: the action text, tag ``action``; notices (``-nick- text``): tag
  ``notice``; joins, parts, quits, modes, topics and other events: the line, tag
  ``system``, no speaker. HexChat's ``*`` lines are events when they read like one
  (``has joined``, ``has quit``, ``gives``, ``sets mode``...), actions otherwise.
- timestamp: the line's wall-clock time on the known date, read in ``--tz``; without a
  known date (a ZNC file not named by date) the epoch sentinel, with one warning.
- thread = the channel in the file name (``#chan``), else the file name.
- A line of no known shape is rejected with its line number (never glued to the
  previous message); log open/close headers are structure. The file is streamed line by
  line (each line UTF-8, else cp1252).

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the channel (the thread), else the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from convo.core.io import Source, decode_text
from convo.core.jsonl import iter_lines
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.registry import Format

NAME = "irc"
MONTHS = {
    m: i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}
_MODES = "@+%~&!"
_MSG = re.compile(r"<\s*([@+%~&!]?)([^>\s]+)\s*>\s?(.*)", re.S)
_ACTION = re.compile(r"\*\s+(\S+)\s?(.*)", re.S)
_NOTICE = re.compile(r"-([^-\s]+)-\s?(.*)", re.S)
_EVENT_WORDS = re.compile(
    r"has (joined|left|quit)|\bis now known as\b|\bgives\b|\bremoves\b|\bsets mode\b|"
    r"changes? (the )?topic|\bhas changed the topic\b|\bNow talking on\b|\bTopic for\b|\bkicked\b"
)
_DATE_IN_NAME = re.compile(r"(\d{4})-?(\d\d)-?(\d\d)")
_CHANNEL = re.compile(r"([#&][^_\s/]+?)(?:[_.][^#]*)?$")
_CTIME = re.compile(r"\w{3} (\w{3}) +(\d{1,2}) [\d:]+ (\d{4})")
_DAY_CHANGED = re.compile(r"--- Day changed \w{3} (\w{3}) (\d{1,2}) (\d{4})")


@dataclass
class Line:
    kind: str  # message, action, notice, system
    nick: str
    mode: str
    text: str
    when: str | None  # "YYYY-MM-DD HH:MM:SS" local, or "HH:MM:SS" with the date unknown


class _Dialect:
    """One client's line shape: a regex, and how its groups become a ``Line``."""

    def __init__(
        self, name: str, pattern: str, build: Callable[[re.Match[str], _State], Line | None]
    ):
        self.name = name
        self.regex = re.compile(pattern)
        self.build = build


class _State:
    def __init__(self, date: str | None):
        self.date = date  # YYYY-MM-DD, when known
        self.year: int | None = int(date[:4]) if date else None

    def at(self, clock: str) -> str | None:
        clock = clock if clock.count(":") == 2 else clock + ":00"
        return f"{self.date} {clock}" if self.date else None


def _body(body: str, when: str | None) -> Line:
    """The part after the time, in the irssi / ZNC / Limnoria shapes."""
    m = _MSG.match(body)
    if m:
        return Line("message", m[2], m[1], m[3], when)
    if body.startswith(("-!- ", "*** ", "--- ")):
        return Line("system", "", "", body, when)
    m = _ACTION.match(body.lstrip())
    if m and body.lstrip().startswith("* "):
        return Line("action", m[1].lstrip(_MODES), "", m[2], when)
    m = _NOTICE.match(body)
    if m:
        return Line("notice", m[1], "", m[2], when)
    return Line("unknown", "", "", body, when)


def _irssi(m: re.Match[str], st: _State) -> Line:
    return _body(m[2], st.at(m[1]))


def _znc(m: re.Match[str], st: _State) -> Line:
    return _body(m[2], st.at(m[1]))


def _limnoria(m: re.Match[str], st: _State) -> Line:
    return _body(m[2], m[1].replace("T", " "))


def _weechat(m: re.Match[str], st: _State) -> Line:
    prefix, text, when = m[2], m[3], m[1]
    if prefix.strip() == "*":
        nick, _, rest = text.partition(" ")
        return Line("action", nick.lstrip(_MODES), "", rest, when)
    if prefix in ("-->", "<--", "--", "=!=", "") or not prefix.strip():
        return Line("system", "", "", f"{prefix} {text}".strip(), when)
    mode = prefix[0] if prefix[0] in _MODES else ""
    return Line("message", prefix.lstrip(_MODES), mode, text, when)


def _hexchat(m: re.Match[str], st: _State) -> Line | None:
    month = MONTHS.get(m[1][:3].title())
    if month is None:
        return None
    when = f"{st.year:04d}-{month:02d}-{int(m[2]):02d} {m[3]}" if st.year else None
    body = m[4]
    if "\t" in body:
        head, _, text = body.partition("\t")
        mm = _MSG.fullmatch(head.strip() + " ")
        if mm and not mm[3].strip():
            return Line("message", mm[2], mm[1], text, when)
        if head.strip() == "*":
            if _EVENT_WORDS.search(text):
                return Line("system", "", "", text, when)
            nick, _, rest = text.partition(" ")
            return Line("action", nick.lstrip(_MODES), "", rest, when)
        return Line("system", "", "", f"{head.strip()} {text}".strip(), when)
    line = _body(body, when)
    if line.kind == "action" and _EVENT_WORDS.search(body):
        return Line("system", "", "", body.lstrip("* ").strip(), when)
    return line


DIALECTS = (
    _Dialect("weechat", r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\t([^\t]*)\t(.*)$", _weechat),
    _Dialect("limnoria", r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)  (.*)$", _limnoria),
    _Dialect("znc", r"^\[(\d\d:\d\d(?::\d\d)?)\] (.*)$", _znc),
    _Dialect("hexchat", r"^([A-Za-z]{3}) (\d\d) (\d\d:\d\d:\d\d) (.*)$", _hexchat),
    _Dialect("irssi", r"^(\d\d:\d\d(?::\d\d)?) (.*)$", _irssi),
)
_HEADERS = (
    "--- Log opened",
    "--- Log closed",
    "--- Day changed",
    "**** BEGIN LOGGING",
    "**** ENDING LOGGING",
)


def _known(d: _Dialect, line: str) -> Line | None:
    m = d.regex.match(line)
    parsed = d.build(m, _State("2000-01-01")) if m else None
    return parsed if parsed is not None and parsed.kind != "unknown" else None


def _dialect_of(lines: list[str]) -> tuple[_Dialect | None, int]:
    """The dialect most lines parse in (80% at least, one real message among them), and
    how many lines it explains (headers count)."""
    body = [x for x in lines if x.strip() and not x.startswith(_HEADERS)]
    headers = sum(1 for x in lines if x.startswith(_HEADERS))
    best: _Dialect | None = None
    best_lines: list[Line] = []
    for d in DIALECTS:
        parsed = [p for p in (_known(d, x) for x in body) if p is not None]
        if len(parsed) > len(best_lines):
            best, best_lines = d, parsed
    if best is None or len(best_lines) * 10 < len(body) * 8:
        return None, 0
    if not any(p.kind == "message" for p in best_lines):
        return None, 0
    return best, len(best_lines) + headers


def sniff(source: Source) -> int:
    text = source.head_text()
    start = text.lstrip("\ufeff \r\n")
    if start.startswith(("{", "<", "WEBVTT")) or (
        start.startswith("[") and not re.match(r"\[\d\d:", start)
    ):
        return 0
    lines = text.lstrip("\ufeff").split("\n")[:60]
    lines = [x.rstrip("\r") for x in (lines[:-1] if len(lines) > 1 else lines)]
    dialect, n = _dialect_of(lines)
    if dialect is None or n < 3:
        return 0
    return 70


def _date_from_name(name: str) -> str | None:
    m = _DATE_IN_NAME.search(name)
    if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31:
        return f"{m[1]}-{m[2]}-{m[3]}"
    return None


def _header(line: str, st: _State) -> None:
    m = _DAY_CHANGED.match(line) or _CTIME.search(line)
    if m and MONTHS.get(m[1]):
        st.date = f"{int(m[3]):04d}-{MONTHS[m[1]]:02d}-{int(m[2]):02d}"
        st.year = int(m[3])


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    head = source.head_text().lstrip("\ufeff").split("\n")[:200]
    dialect, _ = _dialect_of([x.rstrip("\r") for x in head[:-1] or head])
    dialect = dialect or DIALECTS[-1]
    st = _State(_date_from_name(source.match_name))
    m = _CHANNEL.search(source.match_name)
    folder = source.path.parent.name if source.path is not None else ""
    thread = m[1] if m else folder if folder.startswith("#") else source.match_name or source.name
    nicks: set[str] = set()
    undated = 0
    with source.open() as stream:  # streamed: one line in memory at a time
        for raw in iter_lines(stream):
            line = decode_text(raw.raw)
            if line.startswith(_HEADERS):
                _header(line, st)
                continue
            hit = dialect.regex.match(line)
            parsed = dialect.build(hit, st) if hit else None
            if parsed is None or parsed.kind == "unknown":
                ctx.reject(ctx.loc(raw.number), f"not a {dialect.name} log line", line)
                continue
            undated += parsed.when is None
            yield _record(parsed, ctx, raw.number, thread, nicks)
    if undated:
        ctx.warn(source.name, f"{undated} lines without a known date get the epoch sentinel")


def _record(
    line: Line, ctx: ImportContext, n: int, thread: str, nicks: set[str]
) -> ConversationMessage:
    addressed = re.match(r"([^\s:,]+)[:,]\s", line.text)
    listeners = [addressed[1]] if addressed and addressed[1] in nicks else []
    if line.nick:
        nicks.add(line.nick)
    tags = {"action": ["action"], "notice": ["notice"], "system": [SYSTEM_TAG]}.get(line.kind, [])
    return message(
        line.text,
        speaker=line.nick or None,
        listeners=listeners,
        timestamp=iso_ts(line.when, ctx.options.tz) if line.when else None,
        source_id=ctx.loc(n),
        format=NAME,
        thread=thread,
        tags=tags,
        extra={"mode": line.mode or None},
    )


DESCRIPTION = "IRC logs: irssi, WeeChat, ZNC, Limnoria, HexChat/XChat line formats"
EXAMPLE = "10:00 <@alice> hello bob"
FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.log", "*.txt", "*.weechatlog"), sniff, read, EXAMPLE),
)
