"""Summaries as CSV: the rows of ``stats``, ``people``, ``knowledge`` and ``formats``.

Every read command takes ``-f csv``; for the summaries a row is one line of one of
their tables. Cells are escaped as the record CSV's (``core.text.markup.csv_cell``: a
spreadsheet shows them as text); lists are joined with ``; ``; times are UTC, as in
JSON.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from convo.core.text.markup import csv_cell


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join(_cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return csv_cell(str(value))


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """A header line and one line a row."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([_cell(v) for v in row])
    return buf.getvalue().encode()


def dicts_csv(items: list[dict[str, Any]], header: Sequence[str] | None = None) -> bytes:
    """Dicts of one shape (``header``, else their first's keys) as CSV."""
    if header is None:
        header = list(items[0]) if items else []
    return csv_bytes(header, ([d.get(k) for k in header] for d in items))


def dicts_bytes(fmt: str, items: list[dict[str, Any]], header: Sequence[str]) -> bytes:
    """The rows of a summary (``threads``, ``people``) as ``-f json`` (one indented
    array), ``jsonl`` (a line a row) or ``csv`` (``header``'s columns)."""
    import orjson

    if fmt == "csv":
        return dicts_csv(items, header)
    if fmt == "json":
        return orjson.dumps(items, option=orjson.OPT_INDENT_2) + b"\n"
    return b"".join(orjson.dumps(d) + b"\n" for d in items)


STATS_HEADER = ("table", "name", "messages", "words", "first", "last")


def stats_csv(data: dict[str, Any]) -> bytes:
    """``Stats.to_json()`` as rows: the total, each speaker, tag and format, then the
    timeline's buckets (``table`` is the unit; words, first and last empty)."""
    rows: list[Sequence[Any]] = [
        ("total", "", data["messages"], data["words"], data["first"], data["last"])
    ]
    for table in ("speakers", "tags", "formats"):
        rows += [(table[:-1], r["name"], r["messages"], r["words"], r["first"], r["last"])
                 for r in data[table]]  # fmt: skip
    timeline = data["timeline"]
    rows += [(timeline["unit"], b["start"], b["messages"], None, None, None)
             for b in timeline["buckets"]]  # fmt: skip
    return csv_bytes(STATS_HEADER, rows)


KNOWLEDGE_HEADER = ("table", "name", "with", "messages")


def knowledge_csv(data: dict[str, Any]) -> bytes:
    """``Aggregate.to_dict()`` as rows: speakers, pairs (``with`` the listener),
    entities (``with`` their types), topics, and each speaker's topics (``with`` the
    speaker)."""
    rows: list[Sequence[Any]] = [("messages", "", "", data["messages"])]
    rows += [("speaker", s["name"], "", s["messages"]) for s in data["speakers"]]
    rows += [("pair", p["speaker"], p["listener"], p["messages"]) for p in data["pairs"]]
    rows += [("entity", e["name"], e["type"], e["messages"]) for e in data["entities"]]
    rows += [("topic", t["topic"], "", t["messages"]) for t in data["topics"]]
    rows += [("speaker_topic", t["topic"], s["speaker"], t["messages"])
             for s in data["speaker_topics"] for t in s["topics"]]  # fmt: skip
    return csv_bytes(KNOWLEDGE_HEADER, rows)
