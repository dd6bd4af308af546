"""What every view shares: times for people, one colour per person, ``speaker → listeners``."""

from __future__ import annotations

import zlib
from datetime import tzinfo
from typing import Any

from convo.core import fields
from convo.core.names import split_name
from convo.core.text.terminal import printable
from convo.core.timestamps import offset_text, record_datetime

PALETTE = (
    "cyan", "magenta", "green", "yellow", "blue", "bright_red",
    "bright_cyan", "bright_magenta", "bright_green", "bright_blue", "orange3", "purple",
)  # fmt: skip
GENERIC_FAMILY = "chat"
# A view shows at most this much of one message's text, then a note: rich's layout of a
# text takes time that grows faster than its length (8 MB: 33 s; 50 MB: minutes), so a
# view stays linear in its input by cutting it. ``-f jsonl`` gives the whole message.
SHOWN_CHARS = 100_000
SHOWN_FIELD = 2_000  # of a one-line field (speaker, subject, listeners, tags)


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note saying how much more there is."""
    if len(text) <= limit:
        return text
    more = len(text) - limit
    return f"{text[:limit]}\n… ({more:,} more characters not shown; -f jsonl gives them)"


def shown_field(text: str) -> str:
    """A one-line field cut to ``SHOWN_FIELD`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= SHOWN_FIELD else text[: SHOWN_FIELD - 1] + "…"


def speaker_style(name: str | None) -> str:
    """One stable colour per person: ``Alice <a@x.org>`` and ``alice`` share one."""
    if not name:
        return "dim"
    display, address = split_name(name)
    key = (display or address or name).casefold()
    return PALETTE[zlib.crc32(key.encode()) % len(PALETTE)]


def display_time(ts: str, *, utc: bool = False, zone: tzinfo | None = None) -> str:
    """A record timestamp for people: in ``zone`` (default local time, UTC with ``utc``).

    A transcript without a start date is stored as epoch + offset, so anything on the
    first day of 1970 is shown as ``+HH:MM:SS``.
    """
    if ts.startswith("1970-01-01T"):
        return "+" + printable(ts[11:19], newlines=False) if ts != "1970-01-01T00:00:00Z" else "—"
    if utc and zone is None:
        return printable(ts[:10] + " " + ts[11:19] + "Z", newlines=False)
    try:
        return record_datetime(ts).astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")
    except (ValueError, OverflowError):  # year 1 or 9999 shifted out of range, or garbage
        return printable(ts, newlines=False)


def record_time(record: dict[str, Any], *, utc: bool = False, zone: tzinfo | None = None) -> str:
    """A record's time for people: ``+HH:MM:SS`` for a message of a transcript without a
    start date (its first cue's ``+00:00:00`` too: ``fields.undated_offset``), else
    ``display_time``."""
    offset = fields.undated_offset(record)
    if offset is not None:
        return offset_text(offset)
    return display_time(fields.timestamp(record), utc=utc, zone=zone)


def who(record: dict[str, Any]) -> str:
    """``speaker → first listeners +N``."""
    speaker = fields.speaker_label(record)
    listeners = fields.listeners(record)
    if listeners:
        shown = ", ".join(listeners[:3]) + (f" +{len(listeners) - 3}" if len(listeners) > 3 else "")
        return f"{speaker} → {shown}"
    return speaker


def families() -> dict[str, str]:
    """Format name -> family for every registered format (built-in or third-party).

    A record whose ``format`` is not here gets ``GENERIC_FAMILY``'s view.
    """
    from convo.importers.registry import registry

    return registry.families()


def fit(table: Any, console: Any, flexible: tuple[int, ...]) -> Any:
    """Make ``table`` fit the console by narrowing only its ``flexible`` columns (names,
    text: they end in ``…``), in that order, each down to its ``min_width``. Times and
    counts keep their width: rich alone would shave every column evenly, cutting a date
    to ``2026-04`` without a mark. A column that wraps counts at its longest word, at
    most a third of the width (it wraps into what is left). When that is not enough (a
    terminal under 60 columns), the rightmost other columns are left out, and the
    caption says which. Returns the table."""
    from rich.measure import Measurement

    options = console.options.update_width(1 << 16)  # the natural widths, uncut

    def measure(column: Any) -> Measurement:
        found = [Measurement.get(console, options, c) for c in [column.header, *column.cells]]
        low = max((m.minimum for m in found), default=1)
        high = max((m.maximum for m in found), default=1)
        if column.max_width is not None:
            high = min(high, column.max_width)
        return Measurement(min(low, high), high)

    def excess() -> int:
        sizes = [measure(c) for c in table.columns]
        overhead = Measurement.get(console, options, table).maximum - sum(m.maximum for m in sizes)
        share = console.width // 3  # a wrapping column folds a longer word
        need = overhead + sum(
            m.maximum if c.no_wrap else min(m.minimum, share)
            for c, m in zip(table.columns, sizes, strict=True)
        )
        return need - console.width

    over = excess()
    for i in flexible:
        if over <= 0:
            break
        column, natural = table.columns[i], measure(table.columns[i]).maximum
        narrower = max(column.min_width or 1, natural - over)
        over -= natural - narrower
        column.max_width = narrower
    kept = [table.columns[i] for i in flexible]
    left_out = []
    while over > 0:
        rest = [c for c in table.columns if all(c is not k for k in kept)]
        if not rest:
            break
        table.columns.remove(rest[-1])
        left_out.append(str(rest[-1].header))
        over = excess()
    if left_out:
        note = (f"{', '.join(reversed(left_out))} left out: {console.width} columns are too"
                " few (-f csv or json has them)")  # fmt: skip
        table.caption = f"{table.caption}\n{note}" if table.caption else note
    return table
