"""``jsonl`` and ``json``: the selected records as they were, byte for byte.

On a terminal the bytes go through ``env.safe_stdout_bytes`` (control, C1 and bidi
characters written as JSON escapes); piped, they are the input lines unchanged.
"""

from __future__ import annotations

from convo.output.writers.base import RecordWriter

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import IO

    from convo.query.matches import Match


class JsonlWriter(RecordWriter):
    """The original lines, one a line."""

    def __init__(self, out: IO[bytes]):
        self.out = out

    def write(self, m: Match) -> None:
        self.count += 1
        self.out.write(m.raw + b"\n")

    def write_many(self, matches: list[Match]) -> None:
        if not matches:
            return
        self.count += len(matches)
        joined = getattr(matches, "joined", None)  # a parallel scan's batch: lines as read
        self.out.write(
            joined if joined is not None else b"\n".join([m.raw for m in matches]) + b"\n"
        )


class JsonWriter(RecordWriter):
    """One JSON array; records written as they came (original bytes)."""

    def __init__(self, out: IO[bytes]):
        self.out = out

    def write(self, m: Match) -> None:
        self.out.write(b"[\n" if self.count == 0 else b",\n")
        self.count += 1
        self.out.write(m.raw)

    def close(self) -> None:
        self.out.write(b"[]\n" if self.count == 0 else b"\n]\n")
