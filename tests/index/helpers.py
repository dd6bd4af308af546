"""Stores for the index tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


def write_store(path: Path, records: list[Any], *, newline: bool = True) -> Path:
    lines = [r if isinstance(r, bytes) else orjson.dumps(r) for r in records]
    path.write_bytes(b"\n".join(lines) + (b"\n" if newline and lines else b""))
    return path


def rec(i: int, **kw: Any) -> dict[str, Any]:
    r: dict[str, Any] = {
        "id": f"m{i}",
        "timestamp": f"2024-01-{1 + i % 28:02d}T00:00:{i % 60:02d}Z",
        "metadata": {"speaker": kw.pop("speaker", "Alice Smith <alice@x.org>")},
        "textChunks": [kw.pop("text", f"message number {i}")],
        "tags": kw.pop("tags", []),
        "format": kw.pop("format", "slack"),
    }
    r.update(kw)
    return r


def ids(lines) -> list[str]:
    return [orjson.loads(x)["id"] for x in lines]


# -- the index's reads, as the tests below the Store API ask for them


def IndexQuery(**kw: Any):
    """A Query of the shared filter options (times as record strings)."""
    from convo.query.model import Options, build

    return build("", Options(**kw), tz="UTC")


def lookup(store: Path, query: Any, *, order: str = "store", limit: int | None = None):
    """The lines the index selects for ``query`` (a list), or why it cannot (a string)."""
    from convo.index.lookup import read_spans, reader
    from convo.query.plan import compile_where

    with reader(store) as r:
        if isinstance(r, str):
            return r
        plan = compile_where(r.conn, query.where)
        return list(read_spans(r.f, r.spans(plan.cond, plan.params, order=order, limit=limit)))


def count(store: Path, query: Any):
    """How many records the index counts for ``query``, or why it cannot (a string)."""
    from convo.index.lookup import reader
    from convo.query.plan import compile_where

    with reader(store) as r:
        if isinstance(r, str):
            return r
        plan = compile_where(r.conn, query.where)
        return r.count(plan.cond, plan.params)


def where(**kw: Any):
    """``index.search``'s candidates for the shared filter options."""
    from convo.query.plan import compile_where

    query = IndexQuery(**kw)

    def narrow(conn):
        plan = compile_where(conn, query.where)
        return plan.cond, plan.params

    return narrow
