"""The ingest progress bar: bytes of the inputs read, by source, with rate and time left."""

from __future__ import annotations

import io
import time
from types import SimpleNamespace

import pytest
from rich.console import Console

from convo.output import progress as p


def test_file_sizes_walks_folders_by_source_name(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.json").write_bytes(b"x" * 10)
    (tmp_path / "b.vtt").write_bytes(b"y" * 5)
    sizes = p.file_sizes([str(tmp_path / "d"), str(tmp_path / "b.vtt"), "-"])
    assert sizes == {str(tmp_path / "d" / "a.json"): 10, str(tmp_path / "b.vtt"): 5}


def test_the_meter_counts_bytes_read_and_never_passes_the_total(monkeypatch):
    reads = iter([1000, 1040, 1090, 10**9])
    monkeypatch.setattr(p, "bytes_read", lambda: next(reads))
    meter = p.ByteMeter({"a.mbox": 100, "slack/c1.json": 30, "slack/c2.json": 20, "b.vtt": 7})
    assert meter.total == 157
    meter.seen("a.mbox#msg-1")
    assert meter.position() == 40
    assert meter.position() == 90
    assert meter.position() == 157  # capped


def test_without_proc_the_meter_counts_sources_through(monkeypatch):
    monkeypatch.setattr(p, "bytes_read", lambda: None)
    meter = p.ByteMeter({"a.mbox": 100, "slack/c1.json": 30, "slack/c2.json": 20, "b.vtt": 7})
    meter.seen("a.mbox#msg-1")
    assert meter.position() == 0
    meter.seen("slack#c1/1")  # a folder format: its files count when it is through
    assert meter.position() == 100
    meter.seen("bench.mbox#msg-0")  # a re-imported record's own source id: no file
    meter.seen("b.vtt#1")
    assert meter.position() == 150 and meter.unknown == {"bench.mbox"}


@pytest.fixture
def at_once(monkeypatch):
    """Bars drawn from the start (short work in these tests draws none otherwise)."""
    monkeypatch.setattr(p, "DELAY", 0)


def _terminal(out: io.StringIO) -> SimpleNamespace:
    """An environment whose stderr is a terminal that writes to ``out``."""
    return SimpleNamespace(
        stderr_isatty=True,
        console=lambda stderr=False: Console(file=out, force_terminal=True, width=100),
    )


def test_a_terminal_gets_a_byte_bar(tmp_path, at_once):
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"z" * 2048)
    out = io.StringIO()
    env = _terminal(out)
    items = [SimpleNamespace(source_id=f"{f}#{i}") for i in range(200)]
    with p.progress(env, "importing", paths=[str(f)]) as track:
        assert list(track(items)) == items
    shown = out.getvalue()
    assert "importing" in shown and "2.0/2.0 kB" in shown
    off = SimpleNamespace(stderr_isatty=False)
    with p.progress(off, "importing", paths=[str(f)]) as track:
        assert list(track(items)) == items


def test_short_work_draws_no_bar(tmp_path):
    """A query that a fresh index answers at once flashed "indexing 0/?"; a bar is
    drawn only once the work has taken ``DELAY`` seconds."""
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"z" * 2048)
    for paths in ([str(f)], None):  # the byte bar, the spinner
        out = io.StringIO()
        with p.progress(_terminal(out), "indexing", paths=paths) as track:
            assert list(track(range(10))) == list(range(10))
        assert out.getvalue() == ""


def test_long_work_draws_the_bar(tmp_path, monkeypatch):
    monkeypatch.setattr(p, "DELAY", 0.05)
    out = io.StringIO()
    with p.progress(_terminal(out), "indexing") as track:
        for _ in track(range(3)):
            time.sleep(0.1)
    assert "indexing" in out.getvalue()


def test_blocks_of_lines_pass_as_their_messages(tmp_path, monkeypatch, at_once):
    """A ``ReadyBlock`` (a worker's lines, ``--jobs``) counts as its messages: the bar
    looks at the clock when a block crosses a multiple of CHECK, not every CHECK blocks."""
    from convo.store.lines import ReadyBlock

    f = tmp_path / "a.mbox"
    f.write_bytes(b"z" * 4096)
    out = io.StringIO()
    env = _terminal(out)
    looks = []
    monkeypatch.setattr(p.time, "monotonic", lambda: looks.append(1) or float(len(looks)))
    items = [ReadyBlock(b"{}\n" * p.CHECK, p.CHECK) for _ in range(5)]
    with p.progress(env, "importing", paths=[str(f)]) as track:
        assert list(track(items)) == items
    assert len(looks) >= 1 + 2 * 5  # the start, then a look and an update per block
    assert "4.1/4.1 kB" in out.getvalue()


def test_with_jobs_the_bar_counts_the_input_through_not_what_the_parent_reads(monkeypatch):
    """Issue 35: the parent of ``--jobs`` reads the workers' event files (more bytes than
    the input); the blocks say how much input is through."""
    from convo.store.lines import ReadyBlock

    monkeypatch.setattr(p, "bytes_read", lambda: 10**12)
    meter = p.ByteMeter({"a.mbox": 1000})
    block = ReadyBlock(b"{}\n", 1, done=250)
    meter.reported = block.done
    assert meter.position() == 250


def test_the_bar_shows_messages_rate_and_time(tmp_path, at_once):
    from convo.store.lines import ReadyBlock

    f = tmp_path / "a.mbox"
    f.write_bytes(b"z" * 4096)
    out = io.StringIO()
    items = [ReadyBlock(b"{}\n" * p.CHECK, p.CHECK, done=(i + 1) * 800) for i in range(5)]
    with p.progress(_terminal(out), "importing", paths=[str(f)]) as track:
        assert list(track(items)) == items
    shown = out.getvalue()
    assert "msgs" in shown and "left" in shown and "4.1/4.1 kB" in shown


def test_worker_reads_count_reading_not_seeks(monkeypatch):
    """A --jobs worker opens an input and seeks to its range: only the reading counts,
    and a closed descriptor's reading is kept."""
    looks = iter([
        {("7", "3"): 0},  # just opened
        {("7", "3"): 40 << 20},  # sought to its range
        {("7", "3"): (40 << 20) + 1000},
        {},  # closed
    ])  # fmt: skip
    monkeypatch.setattr(p, "_children", lambda: ["7"])
    monkeypatch.setattr(p, "_positions", lambda pid, inputs: next(looks))
    reads = p.WorkerReads(["a.mbox"])
    assert [reads.total() for _ in range(4)] == [0, 0, 1000, 1000]


class _FakeBar:
    def __init__(self):
        self.tasks: list[dict] = []

    def add_task(self, label, total=None, **fields):
        self.tasks.append({"label": label, "total": total, **fields})
        return len(self.tasks) - 1

    def update(self, task, **values):
        self.tasks[task].update(values)


def test_work_bar_says_bytes_with_total_or_messages_with_rate():
    from convo.output.progress import Work

    work = Work(_FakeBar(), "knowledge")
    work.bytes(0, 4_000_000)
    work.bytes(2_000_000, 4_000_000)
    task = work.bar.tasks[0]
    assert task["completed"] == 2_000_000 and task["total"] == 4_000_000
    assert task["what"].startswith("2.0/4.0 MB")
    other = Work(_FakeBar(), "knowledge")
    assert list(other.track(range(2500))) == list(range(2500))
    assert other.bar.tasks[0]["what"] == "2,500 msgs read"
    assert list(Work(None, "x").track([1, 2])) == [1, 2]  # piped: no bar, the items pass
