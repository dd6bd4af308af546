"""``ingest --rejects FILE`` on every ingest path: every rejected record kept with its
file and line; the file written atomically, never over an input, an output or the store."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app
from convo.cli.runtime import Reporter
from convo.importers.context import Rejection

GOOD = b'{"textChunks": ["m%d"], "metadata": {"speaker": "A"}, "timestamp": "2024-01-01T00:00:00Z"}'


def _file(path, n: int = 60) -> tuple:
    """A JSONL file whose every 7th line is not JSON and every 11th not a record."""
    lines, bad = [], []
    for i in range(1, n + 1):
        if i % 7 == 0:
            lines.append(b"{broken %d" % i)
        elif i % 11 == 0:
            lines.append(b'{"n": %d}' % i)
        else:
            lines.append(GOOD % i)
            continue
        bad.append(i)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, bad


def _rejects(path) -> list[tuple[str, bytes]]:
    return [
        (r["where"], r["raw"].encode()) for r in map(orjson.loads, path.read_bytes().splitlines())
    ]


def _expected(name: str, path, bad: list[int]) -> list[tuple[str, bytes]]:
    lines = path.read_bytes().splitlines()
    return [(f"{name}:{i}", lines[i - 1]) for i in bad]


def test_two_files_in_one_process(runner, tmp_path):
    a, bad_a = _file(tmp_path / "a.jsonl")
    b, bad_b = _file(tmp_path / "b.jsonl", 30)
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app,
        [
            "ingest",
            str(a),
            str(b),
            "-j",
            "1",
            "-o",
            str(tmp_path / "o.jsonl"),
            "--rejects",
            str(rej),
        ],
    )
    assert r.exit_code == 1, r.output
    assert _rejects(rej) == _expected(str(a), a, bad_a) + _expected(str(b), b, bad_b)


def test_one_file_cut_into_parallel_ranges(runner, tmp_path, monkeypatch):
    from convo.pipeline import split
    from convo.pipeline.plan import plan_units

    monkeypatch.setattr(split, "PART_BYTES", 8192)
    a, bad = _file(tmp_path / "big.jsonl", 2000)
    assert sum(u.part is not None for u in split.split_units(plan_units([a]), None, 2, 8192)) > 4
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app, ["ingest", str(a), "-j", "2", "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rej)]
    )
    assert r.exit_code == 1, r.output
    assert _rejects(rej) == _expected(str(a), a, bad)


def test_standard_input(runner, tmp_path):
    a, bad = _file(tmp_path / "a.jsonl")
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app,
        ["ingest", "-", "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rej)],
        input=a.read_bytes(),
    )
    assert r.exit_code == 1, r.output
    assert _rejects(rej) == _expected("stdin", a, bad)


def test_a_folder(runner, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    a, bad_a = _file(folder / "a.jsonl")
    b, bad_b = _file(folder / "b.jsonl", 20)
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app, ["ingest", str(folder), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rej)]
    )
    assert r.exit_code == 1, r.output
    assert _rejects(rej) == _expected(str(a), a, bad_a) + _expected(str(b), b, bad_b)


def test_the_file_appears_whole_when_the_run_ends(tmp_path):
    """Written through a temporary file: until the reporter closes, an earlier rejects
    file is untouched (a run killed half-way leaves it whole)."""
    rej = tmp_path / "rejects.jsonl"
    rej.write_bytes(b"earlier run\n")
    reporter = Reporter(quiet=True, rejects_path=str(rej))
    reporter.reject(Rejection("a.jsonl:3", "invalid JSON", None, b"{x"))
    assert rej.read_bytes() == b"earlier run\n"
    reporter.close()
    assert _rejects(rej) == [("a.jsonl:3", b"{x")]
    assert [p.name for p in tmp_path.iterdir()] == ["rejects.jsonl"]  # no temporary file


def test_a_file_of_the_folder_being_read_is_refused_and_kept(runner, tmp_path):
    """It was opened for writing before the folder was walked: the input it named lost
    its records, replaced by the rejects of the others."""
    folder = tmp_path / "in"
    folder.mkdir()
    a, _ = _file(folder / "a.jsonl")
    before = a.read_bytes()
    r = runner.invoke(
        app, ["ingest", str(folder), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(a)]
    )
    assert r.exit_code == 2 and "refusing to write over an input being read" in r.output
    assert a.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == ["a.jsonl"]


@pytest.mark.parametrize(
    ("first", "second"), [("-o", "--rejects"), ("--rejects", "--warnings"), ("-o", "--warnings")]
)
def test_two_outputs_on_one_file_are_refused(runner, tmp_path, first, second):
    """One rename replaced the other's file: the rejects (or the records) were lost."""
    a, _ = _file(tmp_path / "a.jsonl")
    out = tmp_path / "out.jsonl"
    args = ["ingest", str(a), first, str(out), second, str(tmp_path / "." / "out.jsonl")]
    if "-o" not in (first, second):
        args += ["-o", str(tmp_path / "o.jsonl")]
    r = runner.invoke(app, args)
    assert r.exit_code == 2 and "name the same file" in r.output and "Traceback" not in r.output
    assert not out.exists()


def test_devices_may_be_named_twice(runner, tmp_path):
    a, _ = _file(tmp_path / "a.jsonl")
    r = runner.invoke(
        app,
        [
            "ingest",
            str(a),
            "-o",
            str(tmp_path / "o.jsonl"),
            "--rejects",
            "/dev/null",
            "--warnings",
            "/dev/null",
        ],
    )
    assert r.exit_code == 1, r.output


def test_an_unwritable_rejects_file_is_one_line_before_anything_is_written(runner, tmp_path):
    a, _ = _file(tmp_path / "a.jsonl")
    (tmp_path / "plain").write_text("a file, not a folder")
    out = tmp_path / "o.jsonl"
    r = runner.invoke(
        app, ["ingest", str(a), "-o", str(out), "--rejects", str(tmp_path / "plain" / "r.jsonl")]
    )
    assert r.exit_code == 2 and "cannot write here" in r.output and "Traceback" not in r.output
    assert not out.exists()


def test_a_failed_run_that_rejected_nothing_leaves_the_earlier_file(runner, tmp_path):
    """The rejects file (data) is atomic; the warnings file is this run's log, emptied
    when the run starts as a shell's ``>`` does (``tests/cli/test_warnings_log.py``)."""
    rej, warn = tmp_path / "rejects.jsonl", tmp_path / "warnings.jsonl"
    rej.write_bytes(b"an earlier run's\n")
    warn.write_bytes(b"an earlier run's\n")
    missing = str(tmp_path / "missing.jsonl")
    args = ["ingest", missing, "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rej)]
    r = runner.invoke(app, [*args, "--warnings", str(warn)])
    assert r.exit_code == 2 and "no such file" in r.output
    assert rej.read_bytes() == b"an earlier run's\n"
    assert warn.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rejects.jsonl", "warnings.jsonl"]


def test_strict_keeps_the_record_it_stopped_at(runner, tmp_path):
    a, bad = _file(tmp_path / "a.jsonl")
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app, ["ingest", str(a), "--strict", "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rej)]
    )
    assert r.exit_code == 1 and not (tmp_path / "o.jsonl").exists()
    assert _rejects(rej) == _expected(str(a), a, bad)[:1]


def test_the_rejects_file_named_as_an_input_says_how_to_fix_it(runner, tmp_path):
    """Ingesting the --rejects file itself (the natural "fix it and re-ingest") names
    it and gives the command that extracts the raws, not "--from FORMAT"; the raws,
    fixed, ingest; a --warnings file is named as one too."""
    src, _ = _file(tmp_path / "in.jsonl", 8)
    rejects, warnings = tmp_path / "rejects.jsonl", tmp_path / "warnings.jsonl"
    store = tmp_path / "s.jsonl"
    r = runner.invoke(
        app, ["--store", str(store), "ingest", str(src), "--save", "--rejects", str(rejects),
              "--warnings", str(warnings)],
    )  # fmt: skip
    assert r.exit_code == 1, r.output
    again = runner.invoke(app, ["--store", str(store), "ingest", str(rejects), "--save"])
    assert again.exit_code == 2
    assert "it is a --rejects file" in again.stderr and ".raw" in again.stderr
    assert "--from FORMAT" not in again.stderr
    fixed = tmp_path / "fixed.jsonl"  # what the hint's jq command writes, each raw fixed
    raws = [orjson.loads(x)["raw"] for x in rejects.read_bytes().splitlines()]
    fixed.write_text("".join(GOOD.decode() % (100 + i) + "\n" for i, _ in enumerate(raws)))
    r = runner.invoke(app, ["--store", str(store), "ingest", str(fixed), "--save"])
    assert r.exit_code == 0, r.output
    w = runner.invoke(app, ["ingest", str(warnings)])
    assert w.exit_code == 2 and "it is a --warnings file" in w.stderr
