"""Issue 20 item 3: every reader is linear in its input. One record whose text is a single
huge line (25 MB, then 4x as long) through the line reader (``validate``), the query
scanner (``query``) and ``ingest``; and a gzip bomb (one record, then zeros) whose memory
must stay flat. Linear readers take about 4x as long for the 4x line; a quadratic one 16x."""

from __future__ import annotations

import zlib
from pathlib import Path

TITLE = "Linear time and flat memory on hostile input (issue 20)"
MB = 1 << 20


def gen_line(size: int):
    def make(path: Path) -> None:
        with open(path, "wb") as f:
            f.write(b'{"textChunks": ["')
            chunk = b"word " * (MB // 5)
            for _ in range(size // len(chunk)):
                f.write(chunk)
            f.write(b'"], "metadata": {"speaker": "A", "listeners": []}, "tags": [], ')
            f.write(b'"timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "id": "big", ')
            f.write(b'"format": "jsonl"}\n')

    return make


class _Net:
    """A median with the start-up time taken off (what ``h.compare`` reads). Not a
    dataclass: run.py loads benchmark modules without registering them in sys.modules."""

    def __init__(self, median: float):
        self.median = median


def gen_bomb(zeros: int):
    def make(path: Path) -> None:
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        rec = (
            b'{"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}, "tags": [], '
            b'"timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "id": "r0", "format": "jsonl"}\n'
        )
        with open(path, "wb") as f:
            f.write(comp.compress(rec))
            block = bytes(MB)
            for _ in range(zeros // MB):
                f.write(comp.compress(block))
            f.write(comp.flush())

    return make


def run(h) -> None:
    small = (25 * MB) // (10 if h.quick else 1)
    files = {n: h.data(f"line-{n >> 20}mb.jsonl", gen_line(n)) for n in (small, 4 * small)}
    tiny = h.data("line-empty.jsonl", gen_line(0))
    out = Path(h.data_dir) / "linear-out.jsonl"
    commands = {
        "validate": lambda p: [h.convo(), "validate", str(p)],
        "query": lambda p: [h.convo(), "query", "--speaker", "A", str(p)],
        "ingest": lambda p: [h.convo(), "ingest", "--quiet", str(p), "-o", str(out)],
    }
    for name, argv in commands.items():
        base = h.time_cmd(f"convo {name}: one short line (start-up)", argv(tiny), repeat=3).median
        a, b = (
            h.time_cmd(f"convo {name}: one {n >> 20} MB line", argv(p), repeat=3)
            for n, p in files.items()
        )
        net_a, net_b = _Net(max(a.median - base, 1e-3)), _Net(max(b.median - base, 1e-3))
        h.compare(
            f"convo {name}: a 4x longer line takes (start-up excluded)", net_b, net_a, target=6.0
        )
    bomb = h.data("bomb-10gb.jsonl.gz", gen_bomb((10 << 30) // (10 if h.quick else 1)))
    m = h.time_cmd(
        "convo ingest: one record then 10 GB of zeros (.gz)",
        [h.convo(), "ingest", "--quiet", str(bomb), "-o", str(out)],
        repeat=1,
    )
    h.memory("peak RSS, ingest of a 10 GB gzip bomb", m, limit_mb=200)
    if out.exists():
        out.unlink()
    h.note(
        "A linear reader takes about 4x as long for a 4x longer line (the target allows 6x "
        "for start-up and noise); `carry += data` on every read made it 16x."
    )
