"""``convo.typeagent.pythons``: a Python >= 3.12 is found wherever it is, not only in
``~/.pyenv`` (the TypeAgent tests must not skip on another HOME)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from convo.typeagent import pythons


def _fake(path: Path, minor: int) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.exit({int(minor < 12)})'\n"
    )
    path.chmod(0o755)
    return str(path)


def test_found_behind_a_pyenv_shim_on_path_with_another_home(tmp_path, monkeypatch):
    root = tmp_path / "somewhere" / ".pyenv"
    real = _fake(root / "versions" / "3.12.9" / "bin" / "python3", 12)
    (root / "shims").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", f"{root / 'shims'}{os.pathsep}{tmp_path / 'empty'}")
    monkeypatch.delenv("PYENV_ROOT", raising=False)
    monkeypatch.delenv("CONVO_PYTHON312", raising=False)
    monkeypatch.setattr(pythons.sys, "executable", "/nonexistent/python3.11")
    monkeypatch.setattr(pythons, "SYSTEM", ())
    assert pythons.find_python312() == real


def test_on_path_and_explicit_and_old_ones_passed_over(tmp_path, monkeypatch):
    old = _fake(tmp_path / "bin" / "python3.12", 11)  # a shim of an unselected version
    new = _fake(tmp_path / "bin" / "python3.13", 13)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("PYENV_ROOT", raising=False)
    monkeypatch.delenv("CONVO_PYTHON312", raising=False)
    monkeypatch.setattr(pythons.sys, "executable", "/nonexistent/python3.11")
    monkeypatch.setattr(pythons, "SYSTEM", ())
    assert pythons.find_python312() == new
    monkeypatch.setenv("CONVO_PYTHON312", old)
    assert pythons.find_python312() == new  # named but too old: passed over
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert pythons.find_python312() is None
