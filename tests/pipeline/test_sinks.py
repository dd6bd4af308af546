"""The ingest sinks (issue 13): file, stdout and store each get the whole stream, and
``run_ingest`` passes the store-lock options through."""

from __future__ import annotations

import io
import threading

import orjson
import pytest

from conftest import SAMPLE_DATA, records
from convo.core import lock as store_lock
from convo.core.errors import InputError
from convo.importers.context import ImportOptions
from convo.pipeline import sinks
from convo.pipeline.ingest import Ingest
from convo.pipeline.run import run_ingest
from convo.store import Store

VTT = SAMPLE_DATA / "transcripts" / "standup.vtt"


def _messages():
    return Ingest(ImportOptions()).messages([VTT])


def test_file_sink_writes_every_message(tmp_path):
    out = tmp_path / "o.jsonl"
    sinks.to_file(_messages(), str(out))
    assert len(records(out.read_bytes())) == len(list(_messages()))


@pytest.mark.parametrize("strict", [False, True])
def test_stdout_sink(strict):
    buf = io.BytesIO()
    sinks.to_stdout(_messages(), buf, strict=strict)
    assert [r["id"] for r in records(buf.getvalue())] == [m.id for m in _messages()]


class _Writes(io.BytesIO):
    def __init__(self):
        super().__init__()
        self.writes = 0

    def write(self, data):
        self.writes += 1
        return super().write(data)


def test_stdout_sink_writes_blocks_of_lines_not_a_write_a_line():
    """An unbuffered stdout (PYTHONUNBUFFERED=1) made a write a line a system call."""
    out = _Writes()
    lines = list(_messages()) * 100
    sinks.to_stdout(iter(lines), out, strict=False)
    assert len(records(out.getvalue())) == len(lines)
    assert out.writes <= len(out.getvalue()) // sinks.WRITE_BYTES + 1 < len(lines)


def test_stdout_sink_writes_the_lines_made_before_an_error():
    def failing():
        yield from _messages()
        raise InputError("broken", where="x")

    out = io.BytesIO()
    with pytest.raises(InputError):
        sinks.to_stdout(failing(), out, strict=False)
    assert [r["id"] for r in records(out.getvalue())] == [m.id for m in _messages()]


def test_store_sink_dedups_on_a_second_run(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    first = sinks.to_store(_messages(), st)
    again = sinks.to_store(_messages(), st)
    assert first.added > 0 and (again.added, again.duplicates) == (0, first.added)


def test_run_ingest_gives_up_waiting_for_the_lock(tmp_path):
    path = tmp_path / "s.jsonl"
    path.touch()
    ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store_lock.hold(path, str(path)):
            ready.set()
            release.wait(10)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    ready.wait(5)
    try:
        with pytest.raises(InputError, match="the store is locked by pid"):
            run_ingest([str(VTT)], ImportOptions(), save=True, store=str(path), wait=0.2)
    finally:
        release.set()
        t.join(5)
    assert path.read_bytes() == b""
    summary = run_ingest([str(VTT)], ImportOptions(), save=True, store=str(path), wait=1)
    assert summary.appended is not None and summary.appended.added > 0
    assert all(orjson.loads(x)["format"] == "vtt" for x in path.read_bytes().splitlines())
