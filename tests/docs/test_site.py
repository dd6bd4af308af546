"""The documentation site builds with MkDocs in strict mode (mkdocs.yml), as `make docs`
builds it: a broken link, a missing anchor or a page the navigation names but that does
not exist fails the build, and so this test."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT


def test_site_builds_strict(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "recipes" / "mail-archive.html").is_file()
