"""Issue 9: memory stays flat with input size. Ingest a generated 1 GB JSONL and a 1 GB mbox,
and a 100 MB DiscordChatExporter export (one JSON document, streamed by convo.core.jsonstream)."""

from __future__ import annotations

import os
import random
from pathlib import Path

TITLE = "Memory: 1 GB inputs (issue 9)"
GB = 1 << 30
NAMES = [
    "Alice Smith",
    "Bob Jones",
    "Carol Diaz",
    "Dan Wu",
    "Eve Martin",
    "Frank Olsen",
    "Grace Lee",
]
WORDS = ["auth", "token", "session", "release", "deploy", "review", "merge", "bug", "fix", "test", "schema", "store", "query", "index", "cache", "latency", "budget", "meeting", "notes", "plan", "design", "draft", "ship"]  # fmt: skip


def _addr(name: str) -> str:
    return f"{name} <{name.split()[0].lower()}@example.org>"


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def gen_jsonl(size: int):
    def make(path: Path) -> None:
        import orjson

        rng = random.Random(1)
        written = 0
        i = 0
        with open(path, "wb", buffering=1 << 20) as f:
            while written < size:
                sp = rng.choice(NAMES)
                rec = {
                    "textChunks": [_text(rng, rng.randint(20, 120))],
                    "metadata": {"speaker": _addr(sp), "listeners": [_addr(rng.choice(NAMES))]},
                    "tags": rng.sample(["urgent", "auth", "release", "infra"], rng.randint(0, 2)),
                    "timestamp": f"20{rng.randint(10, 24):02d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
                    "source_id": f"gen.jsonl#{i}",
                    "id": f"gen-{i}",
                    "format": "jsonl",
                }
                line = orjson.dumps(rec) + b"\n"
                f.write(line)
                written += len(line)
                i += 1

    return make


def gen_mbox(size: int):
    def make(path: Path) -> None:
        rng = random.Random(2)
        written = 0
        i = 0
        with open(path, "wb", buffering=1 << 20) as f:
            while written < size:
                sp = rng.choice(NAMES)
                body = "\n".join(_text(rng, 12) for _ in range(rng.randint(3, 20)))
                msg = (
                    f"From {sp.split()[0].lower()}@example.org Mon Jan  1 00:00:00 2024\n"
                    f"From: {_addr(sp)}\nTo: {_addr(rng.choice(NAMES))}\n"
                    f"Subject: {_text(rng, 4)}\nDate: Mon, 1 Jan 2024 {i % 24:02d}:00:00 +0000\n"
                    f"Message-ID: <gen-{i}@example.org>\n"
                    + (
                        f"In-Reply-To: <gen-{i - 1}@example.org>\n"
                        if i and rng.random() < 0.5
                        else ""
                    )
                    + f"Content-Type: text/plain; charset=utf-8\n\n{body}\n\n"
                ).encode()
                f.write(msg)
                written += len(msg)
                i += 1

    return make


def gen_discord(size: int):
    """A DiscordChatExporter export: guild and channel first, then the messages array."""

    def make(path: Path) -> None:
        import orjson

        rng = random.Random(3)
        head = {
            "guild": {"id": "1", "name": "Gen"},
            "channel": {"id": "2", "type": "GuildTextChat", "name": "general"},
            "dateRange": {"after": None, "before": None},
        }
        with open(path, "wb", buffering=1 << 20) as f:
            f.write(orjson.dumps(head, option=orjson.OPT_INDENT_2)[:-2] + b',\n  "messages": [\n')
            written = 0
            i = 0
            while written < size:
                name = rng.choice(NAMES)
                msg = {
                    "id": str(10**17 + i),
                    "type": "Default",
                    "timestamp": f"2024-01-{i % 28 + 1:02d}T{i % 24:02d}:00:00+00:00",
                    "timestampEdited": None,
                    "isPinned": False,
                    "content": _text(rng, rng.randint(5, 60)),
                    "author": {"id": str(NAMES.index(name)), "name": name, "isBot": False},
                    "attachments": [],
                    "embeds": [],
                    "stickers": [],
                    "reactions": [],
                    "mentions": [],
                }
                body = orjson.dumps(msg, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n    ")
                chunk = (b",\n    " if i else b"    ") + body
                f.write(chunk)
                written += len(chunk)
                i += 1
            f.write(b'\n  ],\n  "messageCount": %d\n}\n' % i)

    return make


def run(h) -> None:
    size = GB // 10 if h.quick else GB
    label = f"{size / GB:.1f} GB"
    jsonl = h.data(f"mem-{size}.jsonl", gen_jsonl(size))
    mbox = h.data(f"mem-{size}.mbox", gen_mbox(size))
    out = Path(h.data_dir) / "mem-out.jsonl"
    store = Path(h.data_dir) / "mem-store.jsonl"
    m1 = h.time_cmd(
        f"convo ingest {label} JSONL -o FILE",
        [h.convo(), "ingest", "--quiet", str(jsonl), "-o", str(out)],
        repeat=1,
    )
    h.memory(f"peak RSS, ingest {label} JSONL to a file", m1, limit_mb=200)
    if store.exists():
        store.unlink()
    m2 = h.time_cmd(
        f"convo ingest --save {label} JSONL (empty store)",
        [h.convo(), "ingest", "--quiet", "--save", str(jsonl)],
        env={"CONVO_STORE": str(store)},
        repeat=1,
    )
    h.memory(f"peak RSS, ingest --save {label} JSONL (dedup against the store)", m2, limit_mb=200)
    m3 = h.time_cmd(
        f"convo ingest {label} mbox -o FILE",
        [h.convo(), "ingest", "--quiet", str(mbox), "-o", str(out)],
        repeat=1,
    )
    h.memory(f"peak RSS, ingest {label} mbox to a file", m3, limit_mb=200)
    dsize = (GB // 10) // (10 if h.quick else 1)
    discord = h.data(f"mem-discord-{dsize}.json", gen_discord(dsize))
    m4 = h.time_cmd(
        f"convo ingest {dsize >> 20} MB Discord export (one JSON document) -o FILE",
        [h.convo(), "ingest", "--quiet", str(discord), "-o", str(out)],
        repeat=1,
    )
    h.memory(f"peak RSS, ingest a {dsize >> 20} MB Discord export to a file", m4, limit_mb=200)
    for p in (out, store):
        if p.exists():
            os.unlink(p)
    h.note(
        f"Inputs: {jsonl.stat().st_size / GB:.2f} GB JSONL, {mbox.stat().st_size / GB:.2f} GB mbox, "
        f"{discord.stat().st_size >> 20} MB DiscordChatExporter JSON, generated."
    )
