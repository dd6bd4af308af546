"""``python -m convo.typeagent.child RECORDS DB NAME``: build a TypeAgent database in this
interpreter (Python >= 3.12 with ``typeagent``), for ``convo.typeagent.run``.

RECORDS is a JSONL file of validated convo records. Progress and the result are JSON
lines on stdout: ``{"done": N, "new": M}`` after each batch, then ``{"built": {...}}``
(``database.Built``'s fields). An error is one line on stderr and exit status 1 (its
traceback too with ``CONVO_TYPEAGENT_DEBUG=1``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys

import orjson

from convo.typeagent.database import build


def _say(value: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(value) + b"\n")
    sys.stdout.buffer.flush()


def main(argv: list[str]) -> int:
    records_path, db, name = argv
    with open(records_path, "rb") as f:
        records = [orjson.loads(line) for line in f if line.strip()]
    built = asyncio.run(
        build(records, db, name=name, on_batch=lambda done, new: _say({"done": done, "new": new}))
    )
    _say({"built": dataclasses.asdict(built)})
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:  # one line for the parent to show, never a traceback
        if os.environ.get("CONVO_TYPEAGENT_DEBUG") == "1":
            raise
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        sys.exit(1)
