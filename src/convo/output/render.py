"""Output: the six formats every read command writes, and the terminal views.

``jsonl`` passes each selected line through byte for byte and never touches rich. The
others build their text from parsed records; everything from a record goes through
``safety.printable`` before a terminal sees it, and rich gets ``Text`` objects only
(never markup strings).
"""

from __future__ import annotations

import csv
import zlib
from datetime import UTC, datetime
from typing import IO, Any

from convo.core import fields
from convo.core.text.terminal import one_line, printable
from convo.query.scan import Match

FORMATS = ("table", "jsonl", "json", "csv", "markdown", "text")
CSV_COLUMNS = ("timestamp", "speaker", "listeners", "tags", "text", "id", "source_id")
PALETTE = (
    "cyan", "magenta", "green", "yellow", "blue", "bright_red",
    "bright_cyan", "bright_magenta", "bright_green", "bright_blue", "orange3", "purple",
)  # fmt: skip


def speaker_style(name: str | None) -> str:
    """One stable colour per speaker name, the same in every run."""
    if not name:
        return "dim"
    return PALETTE[zlib.crc32(name.casefold().encode()) % len(PALETTE)]


def display_time(ts: str, *, utc: bool = False) -> str:
    """A record timestamp for people: local time unless ``utc``; epoch-based ones as offsets.

    A transcript without a start date is stored as epoch + offset, so anything on the
    first day of 1970 is shown as ``+HH:MM:SS``.
    """
    if ts.startswith("1970-01-01T"):
        return "+" + printable(ts[11:19], newlines=False) if ts != "1970-01-01T00:00:00Z" else "—"
    if utc:
        return printable(ts[:10] + " " + ts[11:19] + "Z", newlines=False)
    try:
        dt = datetime(
            int(ts[0:4]), int(ts[5:7]), int(ts[8:10]), int(ts[11:13]), int(ts[14:16]), int(ts[17:19]),
            tzinfo=UTC,
        )  # fmt: skip
    except ValueError:
        return printable(ts, newlines=False)
    return dt.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def who(record: dict[str, Any]) -> str:
    speaker = fields.speaker(record) or "?"
    listeners = fields.listeners(record)
    if listeners:
        shown = ", ".join(listeners[:3]) + (f" +{len(listeners) - 3}" if len(listeners) > 3 else "")
        return f"{speaker} → {shown}"
    return speaker


class Writer:
    """Receives matches one at a time; ``close()`` finishes the document."""

    count = 0

    def write(self, m: Match) -> None:
        raise NotImplementedError

    def write_many(self, matches: list[Match]) -> None:
        for m in matches:
            self.write(m)

    def close(self) -> None:
        pass


class JsonlWriter(Writer):
    """The original lines, byte for byte (``env.safe_stdout_bytes`` escapes them on a terminal)."""

    def __init__(self, out: IO[bytes]):
        self.out = out

    def write(self, m: Match) -> None:
        self.count += 1
        self.out.write(m.raw + b"\n")

    def write_many(self, matches: list[Match]) -> None:
        if not matches:
            return
        self.count += len(matches)
        self.out.write(b"\n".join([m.raw for m in matches]) + b"\n")


class JsonWriter(Writer):
    """One JSON array; records written as they came (original bytes)."""

    def __init__(self, out: IO[bytes]):
        self.out = out

    def write(self, m: Match) -> None:
        self.out.write(b"[\n" if self.count == 0 else b",\n")
        self.count += 1
        self.out.write(m.raw)

    def close(self) -> None:
        self.out.write(b"[]\n" if self.count == 0 else b"\n]\n")


class CsvWriter(Writer):
    """Flat columns; lists joined with ``; `` and chunks with newlines (quoted by csv)."""

    def __init__(self, out: IO[str], *, tty: bool = False):
        self.out = out
        self.csv = csv.writer(out, lineterminator="\n")
        self.csv.writerow(CSV_COLUMNS)
        self.clean = printable if tty else (lambda s: s)

    def write(self, m: Match) -> None:
        self.count += 1
        r = m.record
        self.csv.writerow(
            self.clean(v)
            for v in (
                fields.timestamp(r),
                fields.speaker(r) or "",
                "; ".join(fields.listeners(r)),
                "; ".join(t for t in r.get("tags") or () if isinstance(t, str)),
                "\n".join(
                    c
                    for c in r.get("textChunks") or r.get("text_chunks") or ()
                    if isinstance(c, str)
                ),
                r.get("id") or "",
                r.get("source_id") or "",
            )
        )


def _md_cell(text: str) -> str:
    return printable(text, newlines=False).replace("\\", "\\\\").replace("|", "\\|")


class MarkdownWriter(Writer):
    def __init__(self, out: IO[str], *, utc: bool = False):
        self.out = out
        self.utc = utc
        out.write("| time | speaker | listeners | tags | text |\n|---|---|---|---|---|\n")

    def write(self, m: Match) -> None:
        self.count += 1
        r = m.record
        text = "<br>".join(_md_cell(line) for line in fields.searchable_text(r).splitlines())
        row = (
            display_time(fields.timestamp(r), utc=self.utc),
            _md_cell(fields.speaker(r) or ""),
            _md_cell(", ".join(fields.listeners(r))),
            _md_cell(", ".join(t for t in r.get("tags") or () if isinstance(t, str))),
            text,
        )
        self.out.write("| " + " | ".join(row) + " |\n")


class TextWriter(Writer):
    """``time  speaker → listeners: text``, continuation lines indented; for grep and eyes."""

    def __init__(self, out: IO[str], *, utc: bool = False):
        self.out = out
        self.utc = utc

    def write(self, m: Match) -> None:
        self.count += 1
        r = m.record
        lines = printable(fields.searchable_text(r)).splitlines() or [""]
        head = f"{display_time(fields.timestamp(r), utc=self.utc)}  {printable(who(r), newlines=False)}: "
        self.out.write(head + lines[0] + "\n")
        for line in lines[1:]:
            self.out.write("    " + line + "\n")


class TableWriter(Writer):
    """A rich table on a terminal, printed in batches so that long output streams."""

    BATCH = 200

    def __init__(self, console, *, utc: bool = False):
        self.console = console
        self.utc = utc
        self.rows: list[dict[str, Any]] = []
        self.printed_header = False

    def write(self, m: Match) -> None:
        self.count += 1
        self.rows.append(m.record)
        if len(self.rows) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        from rich import box
        from rich.table import Table
        from rich.text import Text

        table = Table(
            box=box.SIMPLE_HEAD if not self.printed_header else None,
            show_header=not self.printed_header,
            pad_edge=False,
            expand=True,
        )
        table.add_column("time", no_wrap=True, width=20)
        table.add_column("speaker → listeners", no_wrap=True, ratio=3, overflow="ellipsis")
        table.add_column("tags", no_wrap=True, ratio=1, overflow="ellipsis")
        table.add_column("text", no_wrap=True, ratio=5, overflow="ellipsis")
        for r in self.rows:
            speaker = fields.speaker(r)
            tags = ", ".join(t for t in r.get("tags") or () if isinstance(t, str))
            text = fields.searchable_text(r)
            table.add_row(
                Text(display_time(fields.timestamp(r), utc=self.utc), style="dim"),
                Text(one_line(who(r)), style=speaker_style(speaker)),
                Text(one_line(tags), style="yellow"),
                Text(one_line(text, 300)),
            )
        self.console.print(table)
        self.printed_header = True
        self.rows.clear()

    def close(self) -> None:
        if self.rows or not self.printed_header:
            if not self.rows and self.count == 0:
                return
            self._flush()


TRANSCRIPT_FORMATS = frozenset({"vtt", "srt", "sbv", "webvtt"})
EMAIL_FORMATS = frozenset({"mbox", "eml", "maildir", "email"})
MAX_DEPTH = 8


def offset_text(seconds: float) -> str:
    """``+HH:MM:SS`` for a transcript offset in seconds."""
    total = max(0, int(seconds))
    return f"+{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def transcript_time(record: dict[str, Any], *, utc: bool = False) -> str:
    """A cue's offset (``extra.start``), else its time (epoch-based times are offsets)."""
    extra = record.get("extra")
    start = extra.get("start") if isinstance(extra, dict) else None
    if isinstance(start, int | float) and not isinstance(start, bool):
        return offset_text(start)
    return display_time(fields.timestamp(record), utc=utc)


def reply_tree(records: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """``(depth, record)`` in reading order: each reply under its parent.

    The tree comes from ``id``/``replyTo`` within ``records``; children are ordered by
    time, roots (no parent among ``records``) keep their input order. Cycles and
    repeated ids cannot loop: each record is placed once.
    """
    index: dict[str, int] = {}
    for i, r in enumerate(records):
        rid = r.get("id")
        if isinstance(rid, str) and rid not in index:
            index[rid] = i
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, r in enumerate(records):
        parent = r.get("replyTo")
        p = index.get(parent) if isinstance(parent, str) else None
        if p is None or p == i:
            roots.append(i)
        else:
            children.setdefault(p, []).append(i)
    out: list[tuple[int, dict[str, Any]]] = []
    placed = [False] * len(records)

    def by_time(i: int) -> str:
        return fields.timestamp(records[i])

    stack = [(0, i) for i in reversed(roots)]
    while stack or not all(placed):
        if not stack:  # only cycles are left: start at their first member
            stack.append((0, placed.index(False)))
        depth, i = stack.pop()
        if placed[i]:
            continue
        placed[i] = True
        out.append((depth, records[i]))
        kids = sorted(children.get(i, ()), key=by_time)
        stack.extend((depth + 1, k) for k in reversed(kids))
    return out


class ConversationWriter(Writer):
    """``show``: a readable conversation; replies are indented under their parents.

    Transcripts are cues with offsets and one stable colour per speaker; email gets a
    header block (From, To, Cc, Subject, Date) and its body; chats are turns (with the
    role for agent formats). The reply tree needs every selected message, so ``show``
    keeps them until the end (use filters or ``--limit`` on huge stores).
    """

    def __init__(self, console, *, utc: bool = False):
        self.console = console
        self.utc = utc
        self.records: list[dict[str, Any]] = []

    def write(self, m: Match) -> None:
        self.count += 1
        self.records.append(m.record)

    def close(self) -> None:
        from rich.padding import Padding

        for depth, r in reply_tree(self.records):
            indent = 2 * min(depth, MAX_DEPTH)
            for part, extra_indent, bottom in self._parts(r):
                self.console.print(
                    Padding(part, (0, 0, bottom, indent + extra_indent), expand=False)
                )
        self.records = []

    def _parts(self, r: dict[str, Any]):
        fmt = r.get("format")
        if fmt in TRANSCRIPT_FORMATS:
            return [(self._cue(r), 0, 0)]
        if fmt in EMAIL_FORMATS:
            return [(self._email_head(r), 0, 0), (self._body(r), 2, 1)]
        return [(self._turn_head(r), 0, 0), (self._body(r), 2, 1)]

    def _body(self, r: dict[str, Any]):
        from rich.text import Text

        chunks = r.get("textChunks") or r.get("text_chunks") or []
        return Text(printable("\n".join(c for c in chunks if isinstance(c, str))))

    def _cue(self, r: dict[str, Any]):
        """``+HH:MM:SS  Speaker: text``, long text wrapped under the text (hanging indent)."""
        from rich.table import Table
        from rich.text import Text

        speaker = fields.speaker(r)
        t = Text()
        if speaker:
            t.append(one_line(speaker), style="bold " + speaker_style(speaker))
            t.append(": ")
        chunks = r.get("textChunks") or r.get("text_chunks") or []
        t.append(one_line(" ".join(c for c in chunks if isinstance(c, str))))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column()
        grid.add_row(Text(transcript_time(r, utc=self.utc), style="dim"), t)
        return grid

    def _email_head(self, r: dict[str, Any]):
        from rich.text import Text

        extra = r.get("extra") if isinstance(r.get("extra"), dict) else {}
        speaker = fields.speaker(r)
        to = _str_list(extra.get("to")) or fields.listeners(r)
        cc = _str_list(extra.get("cc"))
        if cc and not _str_list(extra.get("to")):
            to = [x for x in to if x not in cc]
        t = Text()
        rows = [
            ("From", speaker or "?", "bold " + speaker_style(speaker)),
            ("To", ", ".join(to), ""),
            ("Cc", ", ".join(cc), ""),
            ("Subject", r.get("subject") if isinstance(r.get("subject"), str) else "", "bold"),
            ("Date", display_time(fields.timestamp(r), utc=self.utc), ""),
        ]
        for label, value, style in rows:
            if not value:
                continue
            t.append(f"{label + ':':<9}", style="dim")
            t.append(one_line(value), style=style)
            t.append("\n")
        t.rstrip()
        return t

    def _turn_head(self, r: dict[str, Any]):
        from rich.text import Text

        speaker = fields.speaker(r)
        head = Text()
        head.append(one_line(speaker or "?"), style="bold " + speaker_style(speaker))
        role = r.get("role")
        if isinstance(role, str) and role and role != speaker:
            head.append(f" ({one_line(role)})", style="italic")
        listeners = fields.listeners(r)
        if listeners:
            head.append(" → " + one_line(", ".join(listeners)), style="dim")
        head.append("  " + display_time(fields.timestamp(r), utc=self.utc), style="dim")
        tags = [t for t in r.get("tags") or () if isinstance(t, str)]
        if tags:
            head.append("  #" + " #".join(one_line(t) for t in tags), style="yellow")
        subject = r.get("subject")
        if isinstance(subject, str) and subject:
            head.append("\n" + one_line(subject), style="bold")
        return head


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [x for x in value if isinstance(x, str)]
    return []


def make_writer(fmt: str, env, *, view: str = "list", utc: bool = False) -> Writer:
    """The writer for ``--format`` (``table`` means the view: list table or conversation)."""
    if fmt == "jsonl":
        return JsonlWriter(env.safe_stdout_bytes("json"))
    if fmt == "json":
        return JsonWriter(env.safe_stdout_bytes("json"))
    if fmt == "csv":
        return CsvWriter(env.stdout, tty=env.stdout_isatty)
    if fmt == "markdown":
        return MarkdownWriter(env.stdout, utc=utc)
    if fmt == "text":
        return TextWriter(env.stdout, utc=utc)
    console = env.console()
    if view == "show":
        return ConversationWriter(console, utc=utc)
    return TableWriter(console, utc=utc)
