"""Run the ```python blocks of docs/library.md in order, in an empty folder."""

from __future__ import annotations

import re
import warnings

from conftest import ROOT

DOC = ROOT / "docs" / "library.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_library_examples_run(tmp_path, monkeypatch, capsys):
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for i, code in enumerate(blocks, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(code, f"{DOC.name}[block {i}]", "exec"), namespace)
    assert (tmp_path / "team.html").read_text().startswith("<!DOCTYPE html>")
    assert "Shall we use JWT?" in capsys.readouterr().out
