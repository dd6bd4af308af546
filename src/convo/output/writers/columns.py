"""The columns the terminal table of ``list``/``query`` can show, and how each is drawn.

The config file's ``columns`` (``cli/config.py``; ``columns = "time,from,to,text"``) picks
them, in its order; the default is ``time,speaker,tags,text``. ``text`` takes the width
the others leave (it is put last when named elsewhere, and added when missing, since a
message table without its text shows nothing to read). A value is escaped for the
terminal (``one_line``) and drawn as rich ``Text``, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from convo.core import fields
from convo.core.errors import UsageError


@dataclass(frozen=True)
class Column:
    name: str
    header: str
    value: Callable[[dict[str, Any], Any], str]  # (record, WriteOptions) -> text
    most: int  # the widest it grows to (the first batch's widest value, at most this)
    style: str = ""


def _time(r: dict[str, Any], options: Any) -> str:
    from convo.output.views.common import record_time

    return record_time(r, utc=options.utc, zone=options.zone)


def _who(r: dict[str, Any], _options: Any) -> str:
    from convo.output.views.common import who

    return who(r)


def _field(name: str) -> Callable[[dict[str, Any], Any], str]:
    return lambda r, _options: fields.string(r, name) or ""


COLUMNS: dict[str, Column] = {c.name: c for c in (
    Column("time", "time", _time, 32, "dim"),
    Column("speaker", "speaker → listeners", _who, 40),
    Column("from", "from", lambda r, _o: fields.speaker(r) or "", 30),
    Column("to", "to", lambda r, _o: ", ".join(fields.listeners(r)), 30),
    Column("tags", "tags", lambda r, _o: ", ".join(fields.tags(r)), 24, "yellow"),
    Column("subject", "subject", _field("subject"), 40),
    Column("thread", "thread", _field("thread"), 30),
    Column("id", "id", lambda r, _o: fields.record_id(r) or "", 30),
    Column("format", "format", _field("format"), 16),
    Column("role", "role", lambda r, _o: fields.role(r) if r.get("role") else "", 9),
    Column("text", "text", lambda r, _o: fields.searchable_text(r), 1000),
)}  # fmt: skip
DEFAULT = ("time", "speaker", "tags", "text")


def parse(value: str, *, where: str | None = None) -> tuple[str, ...]:
    """``"time,from,text"`` as column names, ``text`` last; an unknown name is an error."""
    names = [n.strip().lower() for n in value.split(",") if n.strip()]
    for n in names:
        if n not in COLUMNS:
            raise UsageError(
                f"unknown table column {n!r}", where=where, hint="columns: " + ", ".join(COLUMNS)
            )
    if len(set(names)) != len(names):
        raise UsageError("a table column is named twice", where=where)
    return (*[n for n in names if n != "text"], "text")
