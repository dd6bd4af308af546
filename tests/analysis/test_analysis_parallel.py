"""stats and knowledge on several cores give what one core gives: output, warnings, exit code."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from convo.analysis import parallel
from convo.cli.app import app

NAMES = ["Alice Smith <alice@x.org>", "Bob Jones <bob@x.org>", "carol", "Dave", "user", "Erin"]
WORDS = ["deploy", "pipeline", "budget", "review", "release", "schedule", "database", "token"]


def _record(rng: random.Random, i: int) -> dict:
    fmt = rng.choice(["mbox", "slack", "discord"])
    rec = {
        "textChunks": [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + "?"],
        "metadata": {"speaker": rng.choice(NAMES), "listeners": rng.sample(NAMES, 2)},
        "tags": rng.sample(["ops", "bug", "urgent"], rng.randint(0, 2)),
        "timestamp": f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:00:00Z",
        "id": f"m{i}",
        "format": fmt,
    }
    if i and rng.random() < 0.3:
        rec["replyTo"] = f"m{rng.randrange(i + 40)}"  # parents before and after
    if fmt == "mbox":
        rec["subject"] = "Re: " + rng.choice(WORDS)
    return rec


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """A JSONL file of a few hundred records with bad lines, cut into ~8 ranges."""
    rng = random.Random(3)
    lines = []
    for i in range(600):
        lines.append(orjson.dumps(_record(rng, i)))
        if i % 97 == 5:
            lines.append(b'{"broken": ')
        if i % 150 == 7:
            lines.append(b"not json at all")
    p = tmp_path / "store.jsonl"
    p.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "RANGE_MIN_BYTES", p.stat().st_size // 8)
    return p


def _run(*args: str):
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["stats", "-f", "json"],
        ["stats", "-f", "json", "-s", "bob"],
        ["knowledge", "-f", "json"],
        ["knowledge", "-f", "jsonl"],
        ["knowledge", "-f", "jsonl", "--tag", "ops"],
        ["knowledge", "-f", "json", "--metadata-only"],
    ],
)
def test_two_cores_equal_one(store, command):
    tasks = parallel.plan([parallel_part(store)], parallel.Filters(), 2)
    assert tasks is not None and len(tasks) > 4  # the file really is cut
    one = _run(*command, "--jobs", "1", str(store))
    two = _run(*command, "--jobs", "2", str(store))
    assert one == two and one[1]
    assert one[0] == 1 and ":10: rejected" in one[2]  # "not json at all", always reported


@pytest.mark.parametrize("command", [["stats", "-f", "json"], ["knowledge", "-f", "json"]])
def test_a_people_file_reaches_the_workers(store, tmp_path, command):
    """With a people file, each range's names are its persons' on every core."""
    people = tmp_path / "people.toml"
    people.write_text(
        '[people.alice]\nname = "Alice"\nnames = ["carol"]\naddresses = ["alice@x.org"]\n'
    )
    one = _run("--people", str(people), *command, "--jobs", "1", str(store))
    two = _run("--people", str(people), *command, "--jobs", "2", str(store))
    assert one == two
    assert "Alice Smith" not in one[1] and "carol" not in one[1] and '"Alice"' in one[1]


def parallel_part(path: Path):
    from convo.pipeline.inputs import RawFile

    return RawFile(str(path))


def test_small_or_limited_inputs_stay_in_this_process(store, monkeypatch):
    part = parallel_part(store)
    assert parallel.plan([part], parallel.Filters(limit=3), 2) is None
    assert parallel.plan([part], parallel.Filters(), 1) is None
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 1 << 40)
    assert parallel.plan([part], parallel.Filters(), 2) is None


def test_range_lines_reach_any_output_whole(tmp_path):
    """A range's lines are appended after what the output holds: to a file descriptor
    (by the kernel), to a pipe, and to an object without one."""
    import io
    import os
    import threading

    from convo.analysis.knowledge.ranges import _copy

    data = b"".join(b'{"id":"m%d"}\n' % i for i in range(50_000))

    def part() -> str:
        path = tmp_path / "part.out"
        path.write_bytes(data)
        return str(path)

    with open(tmp_path / "out", "wb") as out:
        out.write(b"head\n")  # buffered: flushed before the kernel appends
        _copy(part(), out)
        _copy(part(), out)
        out.write(b"tail\n")
    assert (tmp_path / "out").read_bytes() == b"head\n" + data + data + b"tail\n"
    assert not (tmp_path / "part.out").exists()
    memory = io.BytesIO()
    _copy(part(), memory)
    assert memory.getvalue() == data
    r, w = os.pipe()
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(os.fdopen(r, "rb").read()))
    reader.start()
    with os.fdopen(w, "wb") as pipe:
        _copy(part(), pipe)
    reader.join()
    assert got == [data]


@pytest.mark.parametrize("metadata_only", [False, True])
def test_knowledge_progress_counts_each_pass_to_the_total(store, metadata_only):
    """Issue 35 §4: on several cores, knowledge says the input bytes through its passes."""
    import io

    from convo.analysis.knowledge.ranges import knowledge_of_parts
    from convo.pipeline.inputs import record_parts
    from convo.query.filters import Filters

    heard: list[tuple[int, int]] = []
    knowledge_of_parts(
        record_parts([str(store)], store=None, stdin_has_data=False), Filters(), summary=False, metadata_only=metadata_only,
        jobs=2, out=io.BytesIO(), on_progress=lambda done, total: heard.append((done, total)),
    )  # fmt: skip
    passes = 1 if metadata_only else 2
    assert heard[0] == (0, passes * store.stat().st_size)
    assert heard[-1][0] == heard[-1][1]  # all through at the end
    dones = [d for d, _ in heard]
    assert dones == sorted(dones) and len(heard) > 4  # rises range by range


def test_knowledge_in_one_process_tracks_the_records(store):
    import io

    from convo.analysis.knowledge.ranges import knowledge_of_parts
    from convo.pipeline.inputs import record_parts
    from convo.query.filters import Filters

    seen = []

    def track(records):
        for r in records:
            seen.append(r)
            yield r

    out = io.BytesIO()
    knowledge_of_parts(record_parts([str(store)], store=None, stdin_has_data=False), Filters(), summary=False, jobs=1, out=out,
                       track=track)  # fmt: skip
    assert len(seen) == len(out.getvalue().splitlines()) == 600


@pytest.mark.parametrize("summary", [False, True])
def test_knowledge_jobs_1_scans_a_large_file_in_this_process(store, monkeypatch, summary):
    """``--jobs 1`` means one process: the lines of a file past the scan's size floor are
    not found on other cores (``query.parallel.ParallelScan``), and the output is the
    same as with the scan on every core."""
    import io

    import convo.query.parallel as scan
    from convo.analysis.knowledge.ranges import knowledge_of_parts
    from convo.pipeline.inputs import record_parts
    from convo.query.filters import Filters

    def run() -> bytes:
        out = io.BytesIO()
        agg = knowledge_of_parts(
            record_parts([str(store)], store=None, stdin_has_data=False), Filters(),
            summary=summary, jobs=1, out=out,
        )  # fmt: skip
        return orjson.dumps(agg.to_dict(20)) if agg is not None else out.getvalue()

    monkeypatch.setattr(scan, "MIN_PARALLEL", 1)  # every file is large
    monkeypatch.setattr(scan, "cpu_count", lambda: 4)
    started = []
    real = scan.ParallelScan.__init__

    def spy(self, *args, **kwargs):
        started.append(args)
        real(self, *args, **kwargs)

    monkeypatch.setattr(scan.ParallelScan, "__init__", spy)
    assert run() and started == []
    from convo.analysis.parallel import selected

    def ids(on_cores: bool) -> list[str]:
        parts = list(record_parts([str(store)], store=None, stdin_has_data=False))
        return [r["id"] for r in selected(parts, Filters(), scan_on_cores=on_cores)]

    local = ids(False)
    assert started == []
    assert ids(True) == local and len(local) == 600
    assert started  # the plain reading of a large file: on every core
