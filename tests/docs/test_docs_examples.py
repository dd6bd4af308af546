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


def test_readme_library_example_runs(monkeypatch, capsys):
    """The README's "Use as a library" block runs from the project folder (sample_data/)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Use as a library") :]
    blocks = BLOCK.findall(section)
    assert blocks
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], "README.md[library]", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out.splitlines()
    assert out and all("Alice" in line for line in out)
