"""``--jobs``: the parallel ingest gives the bytes, rejects, warnings and summary of one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, corpus_dir
from convo.core.errors import InputError
from convo.core.jsonl import dumps
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest
from convo.pipeline.parallel import ParallelIngest, default_jobs
from convo.pipeline.plan import plan_units


def _run(make, paths, **kw):
    rejects, warnings = [], []
    ingest = make(on_reject=rejects.append, on_warning=warnings.append, **kw)
    out = b"".join(dumps(m.serialize()) for m in ingest.messages(paths))
    return out, [r.to_record() for r in rejects], warnings, ingest.stats


def _same(paths, options=None, format_name=None):
    one = _run(Ingest, paths, options=options, format_name=format_name)
    two = _run(ParallelIngest, paths, options=options, format_name=format_name, jobs=2)
    assert two[0] == one[0]
    assert two[1:] == one[1:]
    return one


def test_sample_data_byte_identical() -> None:
    out, _, _, stats = _same([SAMPLE_DATA])
    assert out and stats.sources > 1


def test_corpus_byte_identical() -> None:
    corpus = corpus_dir()
    if not corpus.is_dir():
        pytest.skip(f"corpus not found at {corpus}")
    _, rejects, _, stats = _same([corpus])
    assert rejects and stats.rejected  # the corpus holds broken files: they must be reported


def test_several_inputs_and_options(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (SAMPLE_DATA / "chat").glob("*.json"))
    _same(files, options=ImportOptions(tags=["x"]))


def test_forced_format(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (SAMPLE_DATA / "transcripts").glob("*.vtt"))
    _same(files, format_name="vtt")


def test_an_unreadable_input_among_several_is_counted(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    good = sorted(str(p) for p in (SAMPLE_DATA / "chat").glob("*.json"))[:2]
    _, _, _, stats = _same([*good, str(bad)], format_name="discord")
    assert stats.failed


def test_a_single_unreadable_input_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.unknown"
    bad.write_bytes(b"\x00\x01 nothing")
    with pytest.raises(InputError):
        list(ParallelIngest(jobs=2).messages([bad]))


def test_plan_follows_the_walk() -> None:
    units = plan_units([SAMPLE_DATA])
    names = [u.path for u in units]
    assert names == sorted(names, key=names.index)  # stable
    assert any(u.path.endswith("slack-export") for u in units)  # a claimed folder is one unit
    assert default_jobs(1) == 1


def test_odd_folders_same_as_one_process(tmp_path: Path) -> None:
    """Links to one folder, a parent link, a FIFO, a dangling link, an unrecognised file:
    the same warnings, rejects and records with two processes as with one."""
    import os
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE_DATA / "transcripts", tree / "a")
    shutil.copytree(SAMPLE_DATA / "email", tree / "b")
    (tree / "x1").symlink_to(tree / "a")
    (tree / "b" / "up").symlink_to("..")
    (tree / "dangling").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tree / "pipe")
    (tree / "notes.bin").write_bytes(b"\x00\x01\x02 not a conversation")
    _, rejects, warnings, stats = _same([tree])
    assert rejects and warnings and stats.skipped
