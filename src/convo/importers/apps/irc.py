"""IRC client and bouncer logs (``irc``): irssi, WeeChat, ZNC, Limnoria, HexChat/XChat, mIRC,
IRCCloud.

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
- Limnoria/Supybot with a ``timestampFormat`` that carries the zone
  (``2022-03-01T10:00:00+0000  <alice> text``): the offset is kept, so ``--tz`` does not
  apply.
- Bouncers. dircproxy's user log (``log_dir``; dircproxy's ``irc_log.c``):
  ``[01 Mar 10:00] <alice!~a@host> text``, ``* alice waves``, ``-bob!~b@h- notice``,
  ``[nick!u@h] VERSION`` (CTCP), ``--> ``/``<-- ``/``--- ``/``*** `` events; the year from
  the file name, else ``--start-date``'s, else unknown. bip (``log.c``): ``01-03-2022
  10:00:05 < alice!~a@host: text`` (``>`` for the user's own lines, ``< * nick`` actions,
  ``-!-`` events). A sender's whole mask (``nick!user@host``) gives its nick.
- Eggdrop (its ``logfile``s: ``[10:00:00] <alice> text`` as ZNC's, and its events
  ``bob (~b@h) joined #chan.``, ``bob (~b@h) left irc: bye``, ``Nick change: a -> b``,
  ``Topic changed on #chan by ...``, ``#chan: mode change '+o bob' by ...``, ``Action:
  alice waves``).
- Dated lines in brackets: IRCCloud's log export (``[2020-01-15 13:01:13] <nick> text``;
  ``→ nick joined (~u@h)``, ``⇐ nick quit (...)``, ``← nick left #chan``, ``— nick
  checks in`` for an action, ``* Channel mode is +cnt`` for a notice of the client; the
  file's first line the channel's name alone), and a ZNC or Textual log whose timestamp
  format carries the date (an offset, ``[2024-01-01T12:00:00+0100]``, is kept).
- mIRC: ``Session Start: Mon Jan 01 12:00:00 2024``, ``Session Ident: #chan`` (the
  channel), ``Session Time:`` (a new day), ``[12:00] <nick> text``; its ``*`` lines are
  events (``* Now talking in #chan``, ``* bob (~b@h) has joined #chan``, ``* alice sets
  mode: +o bob``) or actions (``* alice waves``). mIRC's colour and formatting codes
  (``\x03`` with its colours, bold, italic, underline, reverse, reset), which mIRC and
  ZNC keep in a log, are dropped from every line.
- Detection: 80% of the head's lines in one client's shape, one message among them, and
  three lines at least, or a whole file shorter than that whose every line is a log
  line; the head is read whatever its bytes (one byte that is not UTF-8 changes no
  shape).

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
  line (each line UTF-8, else the file's legacy encoding, guessed and named in a warning,
  or ``--encoding``: ``convo.core.encoding``).

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the channel (the thread), else the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from convo.core.io import HEAD_BYTES, Source
from convo.core.jsonl import iter_lines
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
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
_CTCP = re.compile(r"\[([^\]\s]+)\] ")  # dircproxy: ``[nick!user@host] VERSION``
_BIP_MSG = re.compile(r"([<>]) (\* )?([^\s:]+):? (.*)", re.S)  # ``< nick!u@h: text``
_EVENT_WORDS = re.compile(
    r"has (joined|left|quit)|\bis now known as\b|\bgives\b|\bremoves\b|\bsets mode\b|"
    r"changes? (the )?topic|\bhas changed the topic\b|\bNow talking (?:on|in)\b|\bTopic for\b|"
    r"\bkicked\b|^\S+ set [+-]\S|^(?:Channel mode is|Topic is|Set by \S+ on|Socket closed|"
    r"Disconnected|Attempting to rejoin|Retrieving #)"
)
# mIRC's colour (\x03 and up to two colours) and formatting codes, kept in mIRC and ZNC logs
_CODES = re.compile(r"\x03(?:\d{1,2}(?:,\d{1,2})?)?|[\x02\x0f\x11\x16\x1d\x1e\x1f]")
# IRCCloud's event marks: a join, a part, a quit, a nick change; an em dash: an action
_ARROWS = ("→ ", "← ", "⇐ ", "⇒ ", "↔ ")
_LONE_CHANNEL = re.compile(r"[#&][^\s,]+")
_EGGDROP_ACTION = re.compile(r"Action: (\S+) ?(.*)", re.S)
_EGGDROP_EVENT = re.compile(
    r"\S+ \(\S*\) (?:joined|left|returned to) |\S+ joined [#&!+]|Nick change: \S+ -> |"
    r"Topic changed on \S+ by |\S+ kicked from \S+ by |[#&!+]\S*: mode change |"
    r"Last message repeated \d+ times?"
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
        self.channel = ""  # mIRC's ``Session Ident:``, IRCCloud's first line

    def at(self, clock: str) -> str | None:
        clock = clock if clock.count(":") == 2 else clock + ":00"
        return f"{self.date} {clock}" if self.date else None


def _body(body: str, when: str | None) -> Line:
    """The part after the time, in the irssi / ZNC / Limnoria / dircproxy shapes (a
    bouncer names a sender by its whole mask, ``nick!user@host``: the nick is kept)."""
    m = _MSG.match(body)
    if m:
        return Line("message", m[2].split("!", 1)[0], m[1], m[3], when)
    if body.startswith(("-!- ", "*** ", "--- ", "--> ", "<-- ")):
        return Line("system", "", "", body, when)
    m = _CTCP.match(body)
    if m:
        return Line("system", m[1].split("!", 1)[0], "", body, when)
    if body.startswith(_ARROWS):
        return Line("system", "", "", body, when)
    m = _ACTION.match(body.lstrip())
    if m and body.lstrip().startswith("* "):
        if _EVENT_WORDS.search(body.lstrip()[2:]):  # mIRC's and IRCCloud's events
            return Line("system", "", "", body.lstrip()[2:], when)
        return Line("action", m[1].lstrip(_MODES), "", m[2], when)
    if body.startswith("\u2014 ") and len(body) > 2:  # IRCCloud's action
        nick, _, rest = body[2:].partition(" ")
        return Line("action", nick.lstrip(_MODES), "", rest, when)
    m = _NOTICE.match(body)
    if m:
        return Line("notice", m[1].split("!", 1)[0], "", m[2], when)
    return _eggdrop(body, when)


def _eggdrop(body: str, when: str | None) -> Line:
    """Eggdrop's channel log lines (its ``irc.mod``'s ``putlog``: ``nick (u@h) joined
    #chan.``, ``Nick change: a -> b``, ``Topic changed on #chan by ...``, ``Action: nick
    waves``), else a line of no known shape."""
    m = _EGGDROP_ACTION.match(body)
    if m:
        return Line("action", m[1], "", m[2], when)
    if _EGGDROP_EVENT.match(body):
        return Line("system", "", "", body, when)
    return Line("unknown", "", "", body, when)


def _irssi(m: re.Match[str], st: _State) -> Line:
    return _body(m[2], st.at(m[1]))


def _znc(m: re.Match[str], st: _State) -> Line:
    return _body(m[2], st.at(m[1]))


def _dated(m: re.Match[str], st: _State) -> Line:
    return _body(m[4], f"{m[1]} {m[2]}" + (m[3] or ""))  # an offset is kept: UTC known


def _limnoria(m: re.Match[str], st: _State) -> Line:
    return _body(m[3], m[1].replace("T", " ") + (m[2] or ""))  # an offset is kept: UTC known


def _dircproxy(m: re.Match[str], st: _State) -> Line | None:
    month = MONTHS.get(m[2])
    if month is None:
        return None
    when = f"{st.year:04d}-{month:02d}-{m[1]} {m[3]}:00" if st.year else None
    return _body(m[4], when)


def _bip(m: re.Match[str], st: _State) -> Line:
    when = f"{m[3]}-{m[2]}-{m[1]} {m[4]}"
    body = m[5]
    hit = _BIP_MSG.match(body)
    if hit is None:
        return _body(body, when)
    nick = hit[3].split("!", 1)[0]
    return Line("action" if hit[2] else "message", nick, "", hit[4], when)


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
    _Dialect(
        "limnoria",
        r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?  (.*)$",
        _limnoria,
    ),
    _Dialect(
        "dated",
        r"^\[(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?\] (.*)$",
        _dated,
    ),
    _Dialect("bip", r"^(\d\d)-(\d\d)-(\d{4}) (\d\d:\d\d:\d\d) (.*)$", _bip),
    _Dialect("dircproxy", r"^\[(\d\d) ([A-Z][a-z]{2}) (\d\d:\d\d)\] (.*)$", _dircproxy),
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
    "Session Start:",
    "Session Close",
    "Session Time:",
    "Session Ident:",
)


def _known(d: _Dialect, line: str) -> Line | None:
    m = d.regex.match(line)
    parsed = d.build(m, _State("2000-01-01")) if m else None
    return parsed if parsed is not None and parsed.kind != "unknown" else None


def _dialect_of(lines: list[str]) -> tuple[_Dialect | None, int]:
    """The dialect most lines parse in (80% at least, one real message among them), and
    how many lines it explains (headers count)."""
    filled = [x for x in lines if x.strip()]
    body = [x for x in filled if not _is_header(x)]
    headers = len(filled) - len(body)
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
        start.startswith("[") and not _BRACKET_TIME.match(start)
    ):
        return 0
    lines = _head_lines(source, text, 60)
    dialect, n = _dialect_of(lines)
    if dialect is None:
        return 0
    if n < 3:  # a short log counts when it is whole and every line of it is a log line
        whole = len(source.head) < HEAD_BYTES
        return 60 if whole and n == sum(1 for x in lines if x.strip()) else 0
    # ``[date time] <nick>`` is WhatsApp's bracket too: the nick in angle brackets decides
    return 90 if dialect.name == "dated" else 70


# the brackets a log line may open with: ``[10:00``, ``[01 Mar 10:00]``, ``[2022-03-01 ``
_BRACKET_TIME = re.compile(r"\[(?:\d\d(?::| [A-Z][a-z]{2} )|\d{4}-\d\d-\d\d[ T]\d)")


def _is_header(line: str) -> bool:
    """A log's structure: open, close and day lines, mIRC's session lines, and the
    channel's name alone on a line (IRCCloud's first line)."""
    return line.startswith(_HEADERS) or _LONE_CHANNEL.fullmatch(line.strip()) is not None


def _head_lines(source: Source, text: str, limit: int) -> list[str]:
    """The head's first lines; its last one only when the head is the whole file (else
    it may be cut). Whatever bytes a line holds, its shape is read: one byte that is not
    UTF-8 (read as cp1252 here) changes no time, nick or bracket."""
    lines = text.lstrip("\ufeff").split("\n")
    if len(source.head) >= HEAD_BYTES and len(lines) > 1:
        lines.pop()
    return [_CODES.sub("", x.rstrip("\r")) for x in lines[:limit]]


def _date_from_name(name: str) -> str | None:
    m = _DATE_IN_NAME.search(name)
    if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31:
        return f"{m[1]}-{m[2]}-{m[3]}"
    return None


def _header(line: str, st: _State) -> None:
    if _LONE_CHANNEL.fullmatch(line.strip()) or line.startswith("Session Ident:"):
        channel = line.removeprefix("Session Ident:").strip()
        st.channel = channel if channel[:1] in "#&" else st.channel
        return
    m = _DAY_CHANGED.match(line) or _CTIME.search(line)
    if m and MONTHS.get(m[1]):
        st.date = f"{int(m[3]):04d}-{MONTHS[m[1]]:02d}-{int(m[2]):02d}"
        st.year = int(m[3])


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    dialect, _ = _dialect_of(_head_lines(source, source.head_text(), 200))
    dialect = dialect or DIALECTS[-1]
    st = _State(_date_from_name(source.match_name))
    if st.year is None and ctx.options.start_date is not None:
        st.year = ctx.options.start_date.year  # dircproxy's [DD Mon HH:MM] lines lack one
    m = _CHANNEL.search(source.match_name)
    folder = source.path.parent.name if source.path is not None else ""
    thread = m[1] if m else folder if folder.startswith("#") else source.match_name or source.name
    nicks: set[str] = set()
    undated = 0
    decode = ctx.text_decoder()
    with source.open() as stream:  # streamed: one line in memory at a time
        for raw in iter_lines(stream):
            line = _CODES.sub("", decode(raw.raw))
            if _is_header(line):
                _header(line, st)
                thread = st.channel or thread  # the log's own word over its file's name
                continue
            hit = dialect.regex.match(line)
            parsed = dialect.build(hit, st) if hit else None
            if parsed is None or parsed.kind == "unknown":
                ctx.reject(ctx.loc(raw.number), f"not a {dialect.name} log line", line)
                continue
            undated += parsed.when is None
            yield _record(parsed, ctx, raw.number, thread, nicks)
    if undated:
        ctx.warn(source.name, f"{counted(undated, 'line')} without a known date "
                 f"{plural(undated, 'gets', 'get')} the epoch sentinel")  # fmt: skip


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


DESCRIPTION = (
    "IRC logs: irssi, WeeChat, ZNC, Limnoria, HexChat/XChat, mIRC line formats; IRCCloud exports"
)
EXAMPLE = "10:00 <@alice> hello bob"
FIELDS = Fields(
    speaker="the nick without its mode prefix (events: none)",
    listeners="nicks already seen that the line addresses (`bob: hi`, `bob, hi`)",
    time="the line's clock time on the known date (log headers, day changes, the file "
    "name); no known date: the epoch sentinel, with one warning",
    zone="read in `--tz` (default UTC); a Limnoria time with its offset keeps it",
    thread="the channel in the file name (`#chan`), else the file name",
    id="no message ids: " + CONTENT_HASH,
    scope="the channel (the thread), else the file's name",
    tags="`action` (`/me`), `notice`, `system` (joins, parts, quits, modes, topics)",
    extra="`mode` (the nick's mode prefix)",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("*.log", "*.txt", "*.weechatlog"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
