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
