"""Shared test helpers: the real-file corpus, a CLI runner, and golden-file comparison."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DATA = ROOT / "sample_data"
GOLDEN = Path(__file__).resolve().parent / "golden"

# Bounded examples in `make test`; `make fuzz` sets CONVO_FUZZ=1 for long runs.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile("fuzz", max_examples=5000, deadline=None)
settings.load_profile("fuzz" if os.environ.get("CONVO_FUZZ") else "default")


def corpus_dir() -> Path:
    return Path(os.environ.get("CONVO_CORPUS") or ROOT.parent / "shared" / "corpus")


@pytest.fixture
def corpus() -> Path:
    """The shared corpus of real files; tests using it skip when it is absent."""
    path = corpus_dir()
    if not path.is_dir():
        pytest.skip(f"corpus not found at {path} (set CONVO_CORPUS)")
    return path


def corpus_files(family: str) -> list[Path]:
    """Files of one corpus family, for parametrize (empty when the corpus is absent)."""
    folder = corpus_dir() / family
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file())


@pytest.fixture
def runner():
    from typer.testing import CliRunner

    return CliRunner()


@pytest.fixture(scope="session")
def _cache_home(tmp_path_factory):
    """One cache folder for the session (the tokenizer's table, convo.embed.bpe_table,
    made once rather than once a test)."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path, monkeypatch, _cache_home):
    """Never touch the user's real store or cache; no forced terminal unless a test asks."""
    # The default store (no --store, no $CONVO_STORE) under a private XDG_DATA_HOME.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # no user config
    monkeypatch.setenv("XDG_CACHE_HOME", str(_cache_home))
    monkeypatch.delenv("CONVO_CONFIG", raising=False)
    monkeypatch.delenv("CONVO_STORE", raising=False)
    monkeypatch.delenv("CONVO_FORCE_TTY", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def saved_store(path: Path, source: Path = SAMPLE_DATA, *, index: bool = False) -> Path:
    """A store at ``path`` holding ``source`` (the sample data), as `convo ingest --save`
    makes it; with ``index``, its index built too."""
    from typer.testing import CliRunner

    from convo.cli.app import app

    r = CliRunner().invoke(app, ["--store", str(path), "ingest", "--save", str(source)])
    assert r.exit_code in (0, 1), r.output  # 1: sample files with records rejected on purpose
    if index:
        assert CliRunner().invoke(app, ["--store", str(path), "index"]).exit_code == 0
    return path


def records(text: str | bytes) -> list[dict]:
    """Parse JSONL output into dicts."""
    if isinstance(text, str):
        text = text.encode()
    return [orjson.loads(line) for line in text.splitlines() if line.strip()]


def assert_golden(name: str, actual: list[dict], update: bool | None = None) -> None:
    """Compare records with tests/golden/NAME (JSONL); CONVO_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    if update is None:
        update = os.environ.get("CONVO_UPDATE_GOLDEN") == "1"
    text = b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in actual)
    if update or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
        if not update:
            pytest.fail(f"golden file {path} was missing and has been written; re-run")
    expected = [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]
    assert actual == expected
