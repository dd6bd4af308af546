"""Shared pieces of the hostile-input suite (issue 42: reliability, round 3)."""

from __future__ import annotations

from pathlib import Path

import orjson

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Alice>Hello there\n\n00:00:03.000 --> 00:00:04.000\n<v Bob>Hi\n"


def record(n: int, **over) -> dict:
    rec = {
        "textChunks": [f"message {n}"],
        "metadata": {"speaker": "Alice", "listeners": []},
        "tags": [],
        "timestamp": f"2024-03-06T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "source_id": f"x#{n}",
        "id": f"m{n}",
        "format": "slack",
    }
    rec.update(over)
    return rec


def write_store(path: Path, n: int = 3, **over) -> Path:
    path.write_bytes(b"".join(orjson.dumps(record(i, **over)) + b"\n" for i in range(n)))
    return path
