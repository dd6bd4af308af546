"""``python -m convo.typeagent.child RECORDS DB NAME EXTRACTOR``: build a TypeAgent database in this
interpreter (Python >= 3.12 with ``typeagent``), for ``convo.typeagent.run``.

RECORDS is a JSONL file of validated convo records. Progress and the result are JSON
lines on stdout: ``{"done": N, "new": M}`` after each batch, then ``{"built": {...}}``
(``database.Built``'s fields), after ``{"warning": "..."}`` when messages fell back from
the model to convo's knowledge. EXTRACTOR is ``rules`` or ``llm`` (the model from
``$CONVO_LLM_*``, set by ``run``). An error is one line on stderr and exit status 1 (its
traceback too with ``CONVO_TYPEAGENT_DEBUG=1``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys

import orjson

from convo.analysis.knowledge.llm import Refiner, Settings
from convo.typeagent.database import build


def _say(value: object) -> None:
    sys.stdout.buffer.write(orjson.dumps(value) + b"\n")
    sys.stdout.buffer.flush()


def llm_from_env() -> Refiner:
    """The model ``run`` resolved (``--extractor llm``), from this process's environment."""
    settings = Settings(
        os.environ["CONVO_LLM_URL"],
        os.environ["CONVO_LLM_MODEL"],
        os.environ.get("CONVO_LLM_KEY") or None,
        float(os.environ.get("CONVO_LLM_TIMEOUT", "60")),
    )
    return Refiner(settings)


def main(argv: list[str]) -> int:
    records_path, db, name, extractor = argv
    with open(records_path, "rb") as f:
        records = [orjson.loads(line) for line in f if line.strip()]
    refine = llm_from_env() if extractor == "llm" else None
    built = asyncio.run(
        build(
            records, db, name=name, refine=refine,
            on_batch=lambda done, new: _say({"done": done, "new": new}),
        )
    )  # fmt: skip
    said = refine.warning() if refine is not None else None
    if said:
        _say({"warning": said})
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
