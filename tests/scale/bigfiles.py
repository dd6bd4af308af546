"""Generated files large enough to be split into many small ranges (``part_size`` of a few
KiB): repeated content (occurrence counters across ranges), rejected records and
warnings with their line numbers."""

from __future__ import annotations

from pathlib import Path

import orjson


def _mail(i: int, *, date: bool = True, mid: bool = True, body: str = "") -> str:
    head = f"From sender{i % 7}@example.org Mon Jan  1 10:{i % 60:02d}:00 2024\n"
    head += f"From: Sender {i % 7} <sender{i % 7}@example.org>\nTo: list@example.org\n"
    head += f"Subject: topic {i % 13}\n"
    if date:
        head += f"Date: Mon, 1 Jan 2024 10:{i % 60:02d}:00 +0000\n"
    if mid:
        head += f"Message-ID: <m{i}@example.org>\n"
    return head + "\n" + (body or f"Message {i}.\n>From the archive, line two.\n") + "\n"


def mbox_file(path: Path, n: int, *, mboxrd: bool = False) -> Path:
    parts = []
    for i in range(n):
        if i % 17 == 5:
            parts.append(_mail(5, mid=False, body="same text\n"))  # repeated content ids
        elif i % 23 == 3:
            parts.append(_mail(i, date=False))  # a warning with its line
        elif i % 29 == 7:
            parts.append(f"From x@y Mon Jan  1 00:00:00 2024\n{'z' * 40}\n\n")  # not mail
        else:
            parts.append(_mail(i))
    if mboxrd:  # the evidence is in the head only; later ranges must un-escape too
        parts[0] = _mail(0, body=">>From the start\n")
    path.write_text("".join(parts))
    return path


def jsonl_file(path: Path) -> Path:
    """convo records with and without ids and source_ids, bad and blank lines, a torn end."""
    lines = []
    for i in range(1, 3001):
        if i % 41 == 0:
            lines.append(b"{not json")
        elif i % 37 == 0:
            lines.append(b"")
        elif i % 3 == 0:  # TypeAgent's serialize(): no id, no source_id
            rec = {"textChunks": [f"repeat {i % 5}"], "metadata": {"speaker": "A"}, "tags": [],
                   "timestamp": "2024-01-01T00:00:00Z"}  # fmt: skip
            lines.append(orjson.dumps(rec))
        else:
            rec = {"textChunks": [f"m{i}"], "metadata": {"speaker": "B", "listeners": []},
                   "tags": [], "timestamp": "2024-01-01T00:00:00Z", "id": f"r{i}",
                   "source_id": f"src#{i}", "format": "slack"}  # fmt: skip
            lines.append(orjson.dumps(rec))
    path.write_bytes(b"\n".join(lines) + b'\n{"textChunks": ["torn"')
    return path
