"""Ids a reader gives that look like convo's content hashes (``h:...``, as convo's own
JSONL carries them) were exempt from the rule that an id names one message: two
records of one file (an edited copy beside the first), or of two files, under one
``h:`` id but of other text and time came out of one ingest sharing it."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app

from .helpers import record

HASH = "h:bf8aa924603148b9a637b4db"


def _jsonl(path, *recs):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    return path


def _ids(out: str) -> list[str]:
    return [orjson.loads(line)["id"] for line in out.splitlines()]


def test_two_messages_of_one_file_under_one_hash_id(runner, tmp_path):
    src = _jsonl(
        tmp_path / "a.jsonl",
        record(1, id=HASH),
        record(2, id=HASH, textChunks=["edited"]),
        record(1, id=HASH),  # the first again: the same message, the same id
    )
    r = runner.invoke(app, ["ingest", str(src), "-o", "-"])
    assert r.exit_code == 0, r.output
    ids = _ids(r.stdout)
    assert ids[0] == ids[2] == HASH and ids[1] != HASH and ids[1].startswith("h:")
    assert "1 message repeats the id of another message" in r.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_two_files_under_one_hash_id(runner, tmp_path, jobs):
    a = _jsonl(tmp_path / "a.jsonl", record(1, id=HASH))
    b = _jsonl(tmp_path / "b.jsonl", record(2, id=HASH, textChunks=["other"]))
    r = runner.invoke(app, ["ingest", "--jobs", jobs, str(a), str(b), "-o", "-"])
    assert r.exit_code == 0, r.output
    ids = _ids(r.stdout)
    assert ids[0] == HASH and ids[1] != HASH
