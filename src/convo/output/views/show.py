"""``show``: a readable conversation; replies are indented under their parents.

The layout follows the family of the record's format (``views.common.families``):
``transcript`` records are cues with offsets; ``email`` gets a header block (From, To,
Cc, Subject, Date) and its body; everything else (chat, forum, records, formats not
registered) is turns, with the role for agent formats. One colour per person. The reply
tree needs every selected message, so ``show`` keeps them until the end (use filters or
``--limit`` on huge stores).

When the selection holds several conversations (a thread, else a source file), each
gets a heading: its subject, else its file, else its thread id, and its message count;
conversations come in the order their first message was selected, each message under
its own. Piped, it is the same
conversation in plain text for grep and diff: no colour, no padding, no hard wrap (a
line is as long as its text), headings ``=== label · N messages ===``.
"""

from __future__ import annotations

from typing import Any

from convo.core import fields
from convo.core.plural import counted
from convo.core.text.terminal import one_line, printable
from convo.core.timestamps import offset_text
from convo.output.views.common import (
    GENERIC_FAMILY,
    display_time,
    families,
    record_time,
    shown,
    shown_field,
    speaker_style,
)
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match

MAX_DEPTH = 8
TAB = 4


def transcript_time(record: dict[str, Any], *, utc: bool = False) -> str:
    """A cue's offset (``extra.start``), else its time (epoch-based times are offsets)."""
    start = fields.extra(record).get("start")
    if isinstance(start, int | float) and not isinstance(start, bool):
        try:
            return offset_text(start)
        except (OverflowError, ValueError):  # inf or nan
            pass
    return display_time(fields.timestamp(record), utc=utc)


def _tree_index(records: list[dict[str, Any]]) -> tuple[dict[int, list[int]], list[int]]:
    index: dict[str, int] = {}
    for i, r in enumerate(records):
        rid = fields.record_id(r)
        if rid is not None and rid not in index:
            index[rid] = i
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, r in enumerate(records):
        parent = fields.string(r, "replyTo")
        p = index.get(parent) if parent is not None else None
        if p is None or p == i:
            roots.append(i)
        else:
            children.setdefault(p, []).append(i)
    return children, roots


def reply_tree(records: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """``(depth, record)`` in reading order: each reply under its parent.

    The tree comes from ``id``/``replyTo`` within ``records``; children are ordered by
    time, roots (no parent among ``records``) keep their input order. Cycles and
    repeated ids cannot loop: each record is placed once.
    """
    children, roots = _tree_index(records)
    out: list[tuple[int, dict[str, Any]]] = []
    placed = [False] * len(records)
    stack = [(0, i) for i in reversed(roots)]
    while stack or not all(placed):
        if not stack:  # only cycles are left: start at their first member
            stack.append((0, placed.index(False)))
        depth, i = stack.pop()
        if placed[i]:
            continue
        placed[i] = True
        out.append((depth, records[i]))
        kids = sorted(children.get(i, ()), key=lambda k: fields.timestamp(records[k]))
        stack.extend((depth + 1, k) for k in reversed(kids))
    return out


def body(record: dict[str, Any]):
    """The message text, terminal-safe, tabs expanded so they cannot break the layout."""
    from rich.text import Text

    return Text(printable(shown(fields.text(record))).expandtabs(TAB))


def conversations(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The records grouped by conversation (``fields.conversation``; a reply joins its
    parent's group when the parent came before it), in the order each group first
    appears."""
    groups: dict[str, list[dict[str, Any]]] = {}
    group_of: dict[str, str] = {}  # record id -> its group's key
    for r in records:
        parent = fields.string(r, "replyTo")
        key = group_of.get(parent) if parent else None
        key = key or fields.conversation(r) or ""
        groups.setdefault(key, []).append(r)
        rid = fields.record_id(r)
        if rid is not None:
            group_of.setdefault(rid, key)
    return list(groups.values())


def conversation_label(records: list[dict[str, Any]]) -> str:
    """A conversation's heading: its subject, else its file, else its thread id."""
    subjects = (fields.string(r, "subject") for r in records)
    name = next((s for s in subjects if s), None) or fields.conversation(records[0])
    n = len(records)
    count = counted(n, "message", grouped=True)
    return f"{one_line(name) or '(no source)'} · {count}"


class ConversationView(RecordWriter):
    def __init__(self, console, options: WriteOptions, plain: bool = False):
        self.console = console
        self.options = options
        self.plain = plain  # piped: plain lines, no padding or wrapping
        self._blank = False  # plain: the last line written was blank
        self.records: list[dict[str, Any]] = []

    def write(self, m: Match) -> None:
        self.count += 1
        self.records.append(m.record)

    def close(self) -> None:
        family = families()
        groups = conversations(self.records)
        for i, group in enumerate(groups):
            if i and self.plain and not self._blank:
                self.console.file.write("\n")
            if len(groups) > 1:
                self._heading(group)
            for depth, r in reply_tree(group):
                indent = 2 * min(depth, MAX_DEPTH)
                kind = family.get(fields.string(r, "format") or "", GENERIC_FAMILY)
                for part, extra_indent, bottom in self._parts(kind, r):
                    self._print(part, indent + extra_indent, bottom)
        self.records = []

    def _heading(self, group: list[dict[str, Any]]) -> None:
        label = conversation_label(group)
        if self.plain:
            self.console.file.write(f"=== {label} ===\n\n")
            return
        from rich.text import Text

        self.console.rule(Text(label, style="bold"), align="left")

    def _print(self, part: Any, indent: int, bottom: int) -> None:
        if not self.plain:
            from rich.padding import Padding

            self.console.print(Padding(part, (0, 0, bottom, indent), expand=False))
            return
        text = part if isinstance(part, str) else part.plain
        pad = " " * indent
        lines = [(pad + line).rstrip() for line in text.split("\n")]
        self.console.file.write("\n".join(lines) + "\n" + "\n" * bottom)
        self._blank = bottom > 0

    def _when(self, r: dict[str, Any]) -> str:
        return record_time(r, utc=self.options.utc, zone=self.options.zone)

    def _parts(self, family: str, r: dict[str, Any]):
        if family == "transcript":
            return [(self._cue(r), 0, 0)]
        if family == "email":
            return [(self._email_head(r), 0, 0), (body(r), 2, 1)]
        return [(self._turn_head(r), 0, 0), (body(r), 2, 1)]

    def _cue(self, r: dict[str, Any]):
        """``+HH:MM:SS  Speaker: text``, long text wrapped under the text (hanging indent;
        piped: one line)."""
        from rich.table import Table
        from rich.text import Text

        speaker = fields.speaker(r)
        t = Text()
        if speaker:
            t.append(one_line(shown_field(speaker)), style="bold " + speaker_style(speaker))
            t.append(": ")
        t.append(one_line(shown(" ".join(fields.chunks(r)))))
        if self.plain:
            return f"{transcript_time(r, utc=self.options.utc)}  {t.plain}"
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column()
        grid.add_row(Text(transcript_time(r, utc=self.options.utc), style="dim"), t)
        return grid

    def _email_head(self, r: dict[str, Any]):
        from rich.text import Text

        extra = fields.extra(r)
        speaker = fields.speaker(r)
        to = _str_list(extra.get("to")) or fields.listeners(r)
        cc = _str_list(extra.get("cc"))
        if cc and not _str_list(extra.get("to")):
            to = [x for x in to if x not in cc]
        attachments = _attachment_names(extra.get("attachments"))
        rows = [
            ("From", speaker or fields.NO_SPEAKER, "bold " + speaker_style(speaker)),
            ("To", ", ".join(to), ""),
            ("Cc", ", ".join(cc), ""),
            ("Subject", fields.string(r, "subject") or "", "bold"),
            ("Date", self._when(r), ""),
            ("Files", ", ".join(attachments), ""),
        ]
        t = Text()
        for label, value, style in rows:
            if not value:
                continue
            t.append(f"{label + ':':<9}", style="dim")
            t.append(one_line(shown_field(value)), style=style)
            t.append("\n")
        t.rstrip()
        return t

    def _turn_head(self, r: dict[str, Any]):
        from rich.text import Text

        speaker = fields.speaker(r)
        head = Text()
        head.append(
            one_line(shown_field(speaker or fields.NO_SPEAKER)),
            style="bold " + speaker_style(speaker),
        )
        role = fields.string(r, "role")
        if role and role != speaker:
            head.append(f" ({one_line(shown_field(role))})", style="italic")
        listeners = fields.listeners(r)
        if listeners:
            head.append(" → " + one_line(shown_field(", ".join(listeners))), style="dim")
        head.append("  " + self._when(r), style="dim")
        tags = fields.tags(r)
        if tags:
            head.append("  #" + one_line(shown_field(" #".join(tags))), style="yellow")
        subject = fields.string(r, "subject")
        if subject:
            head.append("\n" + one_line(shown_field(subject)), style="bold")
        return head


def _str_list(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else fields.str_list(value)


def _attachment_names(value: Any) -> list[str]:
    """Names of ``extra.attachments``: strings, or objects with a ``filename``/``name``."""
    if not isinstance(value, list):
        return []
    names = []
    for a in value:
        if isinstance(a, str):
            names.append(a)
        elif isinstance(a, dict):
            name = a.get("filename") or a.get("name")
            if isinstance(name, str):
                names.append(name)
    return names


def conversation_view(env, options: WriteOptions) -> ConversationView:
    return ConversationView(env.console(), options, plain=not env.stdout_isatty)
