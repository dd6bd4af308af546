"""§1: an output is never the store, its index or lock, or an input being read."""

from __future__ import annotations

import os

import pytest

from convo.cli.app import app

from .helpers import VTT, write_store


@pytest.fixture
def store(tmp_path, runner):
    s = write_store(tmp_path / "s.jsonl")
    r = runner.invoke(app, ["--store", str(s), "index", "--rebuild"])
    assert r.exit_code == 0, r.output
    return s


def _refused(r, before: dict, what: str) -> None:
    assert r.exit_code == 2, r.output
    assert f"refusing to write over {what}" in r.output
    for path, data in before.items():
        assert path.read_bytes() == data, path


@pytest.mark.parametrize(
    "target, what",
    [
        ("s.jsonl", "the store"),
        ("s.jsonl.index.sqlite", "the store's index"),
        ("s.jsonl.index.sqlite-journal", "the store's index"),
        (".s.jsonl.lock", "the store's lock file"),
        ("hard.jsonl", "the store"),
        ("soft.jsonl", "the store"),
    ],
)
def test_export_onto_the_store_or_its_files_is_refused(runner, store, target, what):
    os.link(store, store.parent / "hard.jsonl")
    (store.parent / "soft.jsonl").symlink_to("s.jsonl")
    (store.parent / ".s.jsonl.lock").touch()
    before = {p: p.read_bytes() for p in (store, store.parent / "s.jsonl.index.sqlite")}
    out = str(store.parent / target)
    r = runner.invoke(app, ["--store", str(store), "export", "--to", "csv", "-o", out])
    _refused(r, before, what)


def test_ingest_output_onto_the_store_is_refused(runner, store, tmp_path):
    (tmp_path / "a.vtt").write_text(VTT)
    before = {store: store.read_bytes()}
    r = runner.invoke(
        app, ["--store", str(store), "ingest", str(tmp_path / "a.vtt"), "-o", str(store)]
    )
    _refused(r, before, "the store")
    # ingest's own --store beside -o is a usage error first (it names a store not written)
    r = runner.invoke(
        app, ["ingest", "--store", str(store), str(tmp_path / "a.vtt"), "-o", str(store)]
    )
    assert r.exit_code == 2 and "--store names the store --save appends to" in r.output
    assert store.read_bytes() == before[store]


@pytest.mark.parametrize("option", ["-o", "--rejects"])
def test_ingest_output_onto_its_input_is_refused(runner, tmp_path, option):
    src = tmp_path / "a.vtt"
    src.write_text(VTT)
    extra = ["-o", str(tmp_path / "out.jsonl")] if option == "--rejects" else []
    r = runner.invoke(app, ["ingest", str(src), *extra, option, str(src)])
    _refused(r, {src: VTT.encode()}, "an input being read")


def test_export_onto_a_named_input_is_refused(runner, tmp_path):
    src = write_store(tmp_path / "in.jsonl")
    before = {src: src.read_bytes()}
    r = runner.invoke(app, ["export", "--to", "csv", "-o", str(src), str(src)])
    _refused(r, before, "an input being read")


def test_an_input_read_inside_a_folder_is_refused_before_the_rename(runner, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.vtt").write_text(VTT)
    r = runner.invoke(app, ["ingest", str(folder), "-o", str(folder / "a.vtt")])
    _refused(r, {folder / "a.vtt": VTT.encode()}, "an input being read")
    assert [p.name for p in folder.iterdir()] == ["a.vtt"]  # no temporary file left


def test_a_different_file_is_written(runner, store, tmp_path):
    r = runner.invoke(
        app, ["--store", str(store), "export", "--to", "csv", "-o", str(tmp_path / "o.csv")]
    )
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o.csv").read_text().count("\n") >= 4


def test_html_text_carries_no_control_characters():
    """A speaker named with NUL and ESC reached `convo report`'s page (and a terminal,
    with -o -) as raw bytes."""
    from convo.core.text.markup import html_text

    assert html_text("A\x00li\x1b[2Jce <b>\t\n") == "A\ufffdli\ufffd[2Jce &lt;b&gt;\t\n"
