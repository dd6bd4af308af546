"""``convo index --check``: every index row against the store, line by line."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from convo.index import schema
from convo.index.rows import end_of_whole_lines, iter_spans, parse, row_of
from convo.index.state import freshness

MAX_PROBLEMS = 20

_ROWS = """
SELECT m.byte_offset, m.byte_length, m.id, m.timestamp, s.name, m.thread, m.format, m.role,
    m.subject,
    (SELECT json_group_array(n.name) FROM message_listeners ml JOIN names n
        ON n.name_id = ml.name_id WHERE ml.message_id = m.message_id),
    (SELECT json_group_array(t.tag) FROM message_tags t WHERE t.message_id = m.message_id)
FROM messages m LEFT JOIN names s ON s.name_id = m.speaker_id ORDER BY m.message_id
"""


@dataclass
class CheckResult:
    ok: bool
    messages: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was not checked, and why


def _expected(path: Path) -> Iterator[tuple]:
    import orjson

    with open(path, "rb") as f:
        end = end_of_whole_lines(f, os.fstat(f.fileno()).st_size, 0)
        for offset, length, raw in iter_spans(f, 0):
            if offset >= end:
                return
            record = parse(raw)
            if record is None:
                continue
            r = row_of(record)
            yield (
                offset, length, r.id, r.timestamp, r.speaker, r.thread, r.format, r.role,
                r.subject, sorted(set(r.listeners)), _tag_rows(r.tags),
            )  # fmt: skip
    _ = orjson


def _tag_rows(tags: list[str]) -> list[tuple[str, str]]:
    """The index's tag rows: one per tag case-insensitively, the first spelling (the
    rows are keyed by the folded tag; ``writer`` inserts or ignores)."""
    first: dict[str, str] = {}
    for t in tags:
        first.setdefault(t.casefold(), t)
    return sorted(first.items())


def _actual(conn: sqlite3.Connection) -> Iterator[tuple]:
    import orjson

    for row in conn.execute(_ROWS):
        listeners = sorted(set(orjson.loads(row[9])))
        tags = sorted({(t.casefold(), t) for t in orjson.loads(row[10])})
        yield (*row[:9], listeners, tags)


def check(store_path: str | os.PathLike[str]) -> CheckResult:
    """Compare the index with the store; ``ok`` only when every row agrees."""
    path = Path(store_path)
    ipath = schema.index_path(path)
    if not ipath.exists():
        return CheckResult(False, problems=["no index"])
    try:
        conn = schema.connect(ipath)  # FTS5's integrity-check needs a writable handle
        conn.execute("BEGIN")
        return _compare(path, conn)
    except (OSError, sqlite3.Error) as e:
        return CheckResult(False, problems=[f"the index cannot be read ({e})"])


def _compare(path: Path, conn: sqlite3.Connection) -> CheckResult:
    problems: list[str] = []
    notes: list[str] = []
    with open(path, "rb") as f:
        state, reason = freshness(schema.read_meta(conn), f)
    if state != "fresh":
        problems.append(f"stale: {reason}")
    n = 0
    expected, actual = _expected(path), _actual(conn)
    while len(problems) < MAX_PROBLEMS:
        want, got = next(expected, None), next(actual, None)
        if want is None and got is None:
            break
        n += 1
        if want != got:
            where = f"byte {want[0]}" if want else f"index row {n}"
            problems.append(f"{where}: store has {_short(want)}, index has {_short(got)}")
    problems += _counts(conn)
    try:
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
    except sqlite3.OperationalError as e:
        if "readonly" not in str(e):  # a read-only file system: not a mismatch
            problems.append(f"full-text index: {e}")
        notes.append("the full-text index was not checked (read-only)")
    except sqlite3.Error as e:
        problems.append(f"full-text index: {e}")
    schema.close_quietly(conn)
    return CheckResult(not problems, n, problems, notes)


def _counts(conn: sqlite3.Connection) -> list[str]:
    """``value_counts`` against the rows it counts (``schema.COUNTED``)."""
    kept = {(f, v): n for f, v, n in conn.execute("SELECT field, value, n FROM value_counts")}
    rows = {
        (f, v): n
        for f in schema.COUNTED
        for v, n in conn.execute(
            f"SELECT {f}, count(*) FROM messages WHERE {f} IS NOT NULL GROUP BY {f}"
        )
    }
    return [
        f"value_counts: {f} {v!r} counted {kept.get((f, v), 0)}, the rows hold {rows.get((f, v), 0)}"
        for f, v in sorted(kept.keys() | rows.keys())
        if kept.get((f, v)) != rows.get((f, v))
    ]


def _short(row: tuple | None) -> str:
    if row is None:
        return "nothing"
    return f"id {row[2]!r} at byte {row[0]}"
