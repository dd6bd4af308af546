"""Every example of README.md and docs/ runs (the convention: tests/docs/examples.py and
docs/contributing-docs.md): console blocks against a fresh store of sample_data/, their
shown output compared; python blocks in order; the rest marked "not run" and counted.

``CONVO_UPDATE_DOCS=1`` writes the output the commands give under them instead of
comparing (review the diff before committing)."""

from __future__ import annotations

import difflib
import os
import shutil
import warnings
from pathlib import Path

import pytest
from tests.docs.examples import Block, Shell, blocks, matches, rewrite, shell_blocks

from conftest import ROOT, saved_store

GENERATED = ROOT / "docs" / "reference"
EMPTY_STORE = "<!-- examples: empty store -->"  # a page that starts from no store at all  # generated pages: their own test keeps them fresh


def pages() -> list[Path]:
    found = [ROOT / "README.md"]
    found += sorted(p for p in (ROOT / "docs").rglob("*.md") if GENERATED not in p.parents)
    return found


def page_blocks(path: Path) -> list[Block]:
    return blocks(path.read_text(encoding="utf-8"))


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


RUNNABLE = [p for p in pages() if any(b.runs for b in page_blocks(p))]


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory) -> Path:
    """The store `convo ingest --save sample_data/` makes, with its index, built once."""
    folder = tmp_path_factory.mktemp("docs-store")
    work = folder / "work"
    work.mkdir()
    (work / "sample_data").symlink_to(ROOT / "sample_data")
    store = folder / "convo" / "messages.jsonl"
    store.parent.mkdir()
    here = Path.cwd()
    os.chdir(work)  # source ids as a person's run gives them: sample_data/...
    try:
        saved_store(store, Path("sample_data"), index=True)
    finally:
        os.chdir(here)
    return store.parent


@pytest.mark.parametrize("page", RUNNABLE, ids=name)
def test_page_examples_run(page, sample_store, tmp_path, monkeypatch, capfd):
    work = tmp_path / "work"
    work.mkdir()
    (work / "sample_data").symlink_to(ROOT / "sample_data")
    shell = Shell(ROOT, work, tmp_path / "home")
    if EMPTY_STORE not in page.read_text(encoding="utf-8"):
        shutil.copytree(sample_store, shell.data_home / "convo")
    monkeypatch.chdir(work)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    for key, value in shell.env.items():  # python blocks see what the shell examples see
        monkeypatch.setenv(key, value)
    namespace: dict = {"__name__": "__docs__"}
    failures: list[str] = []
    outputs: dict[int, list[str]] = {}
    for block in page_blocks(page):
        if not block.runs:
            continue
        if block.lang == "python":
            code = "\n".join(block.lines)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                exec(compile(code, f"{name(page)}:{block.start + 1}", "exec"), namespace)
            continue
        for cmd in block.commands:
            actual = shell.run(cmd.text)
            outputs[cmd.line] = actual
            if not matches(cmd.expected, actual):
                diff = difflib.unified_diff(cmd.expected, actual, "shown", "run", lineterm="")
                failures.append(f"{name(page)}:{cmd.line}: $ {cmd.text}\n" + "\n".join(diff))
    capfd.readouterr()
    if os.environ.get("CONVO_UPDATE_DOCS") == "1":
        rewrite(page, {k: v for k, v in outputs.items() if f":{k}: " in "".join(failures)})
        return
    assert not failures, "\n\n".join(failures)


def test_every_shell_example_runs_or_says_why():
    """A shell block either runs (console) or says why not (title="not run: ...")."""
    unmarked = [
        f"{name(p)}:{b.start}"
        for p in pages()
        for b in shell_blocks(page_blocks(p))
        if not b.runs and not b.not_run
    ]
    assert unmarked == [], 'mark these with title="not run: REASON" or make them console'


def test_every_block_names_its_language():
    """A fence without a language could hide a shell example from the run."""
    bare = [f"{name(p)}:{b.start}" for p in pages() for b in page_blocks(p) if not b.lang]
    assert bare == [], "give these blocks a language (text for plain text)"


def test_examples_are_counted():
    """The count the docs convention page states; a page's examples cannot vanish silently."""
    run = not_run = commands = 0
    for p in pages():
        for b in page_blocks(p):
            if b.runs:
                run += 1
                commands += len(b.commands)
            elif b.not_run:
                not_run += 1
    assert commands >= 40 and run >= 30, (run, commands)
    assert not_run <= 20, not_run
    print(f"examples: {run} blocks run ({commands} commands), {not_run} shown but not run")
