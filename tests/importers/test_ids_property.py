"""The id property (docs/ids.md): two different exports of one format, ingested into one
store, keep every message; ingesting one of them again adds nothing.

For every format with a fixture, the second export is the fixture made into another
source the way a real one differs: another folder (always), and where the format says
it, another scope in the data (a site, a host, a chat id, an account), another file name
(where the file is the scope), or other global ids (another export of a format whose ids
are unique everywhere has other ids). Hypothesis draws the scope; the examples are few,
so the suite stays fast.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest
from format_cases import CASES, Case
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest
from convo.pipeline.run import run_ingest


def _rewrite(path: Path, case: Case, t: str) -> None:
    for f in [path] if path.is_file() else sorted(path.rglob("*"), reverse=True):
        if f.is_file():
            text = f.read_text(encoding="utf-8")
            for pattern, repl in case.subs:
                text = re.sub(pattern, repl.replace("{t}", t), text)
            f.write_text(text, encoding="utf-8")
        new = f.name
        for pattern, repl in case.subs:  # a folder named by an id (Slack's DM folders)
            new = re.sub(pattern, repl.replace("{t}", t), new)
        if new != f.name and f != path:
            f.rename(f.with_name(new))


def _export(case: Case, root: Path, folder: str, t: str | None) -> Path:
    """The fixture in ``root/folder``; with ``t``, made into another export."""
    src = ROOT / case.path
    (root / folder).mkdir()
    if case.make is not None:
        return case.make(src, root / folder, t)
    dst = root / folder / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy(src, dst)
        for name in case.siblings:
            shutil.copy(src.with_name(name), dst.with_name(name))
    if t is None:
        return dst
    _rewrite(dst, case, t)
    if case.rename:
        dst = dst.rename(dst.with_name(f"{dst.stem}-{t}{dst.suffix}"))
    return dst


def _ids(case: Case, path: Path) -> set[str]:
    run = Ingest(format_name=case.fmt)
    return {m.id for m in run.messages([str(path)]) if m.id}


def _save(case: Case, paths: list[Path], store: Path) -> int:
    run_ingest([str(p) for p in paths], ImportOptions(), format_name=case.fmt, save=True,
               store=str(store))  # fmt: skip
    with store.open("rb") as f:
        return sum(1 for _ in f)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.fmt}-{Path(c.path).name}")
@settings(max_examples=2, deadline=None)
@given(t=st.integers(1, 10**6).map(str))
def test_two_exports_in_one_store_keep_every_message(case: Case, t: str):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one, other = _export(case, root, "one", None), _export(case, root, f"other{t}", t)
        first, second = _ids(case, one), _ids(case, other)
        assert first, "the fixture gives messages"
        assert not first & second, "two exports share ids"
        store = root / "store.jsonl"
        assert _save(case, [one, other], store) == len(first) + len(second)
        assert _save(case, [one], store) == len(first) + len(second)  # again: nothing new


def test_every_format_has_a_case():
    """A new format joins the property."""
    from convo.importers.registry import registry

    assert {f.name for f in registry.formats()} <= {c.fmt for c in CASES}
