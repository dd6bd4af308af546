"""TypeAgent's own virtualenv for the compatibility tests, found or made, never skipped.

TypeAgent 0.5.0 needs Python >= 3.12; convo supports 3.11. The fixture finds a Python
>= 3.12 wherever it is (``convo.typeagent.pythons.find_python312``: ``$CONVO_PYTHON312``,
pyenv's versions, ``python3.12``... on ``PATH``, the system's) and builds a virtualenv with
``typeagent==0.5.0``, orjson and the default embedder's packages (wordllama, tokenizers),
so the database tests run convo's own code (``src`` on ``PYTHONPATH``) in it. When no such
Python exists or the install fails, the tests FAIL saying what to do: ``make test`` must
not pass with the real-package check unchecked (``.ci/run`` installs a Python 3.12 when the
machine has none).

The virtualenv lives outside the work tree, in a per-user cache shared by checkouts:
``$CONVO_TEST_CACHE/<KEY>``, else ``$XDG_CACHE_HOME/convo-tests/<KEY>``, else
``~/.cache/convo-tests/<KEY>``. It is built in a temporary folder beside it and renamed
into place when complete, so two test runs at once never see a half-made one. Delete the
folder to rebuild it; a new ``KEY`` (a changed package list) builds a new one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from convo.typeagent.pythons import find_python312

ROOT = Path(__file__).resolve().parents[2]
KEY = "typeagent-0.5.0-wordllama"
PACKAGES = ["typeagent==0.5.0", "orjson", "wordllama>=0.4", "tokenizers>=0.15"]


def _cache_dir() -> Path:
    explicit = os.environ.get("CONVO_TEST_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "convo-tests"


def _build(venv: Path) -> None:
    base = find_python312()
    if base is None:
        pytest.fail(
            "TypeAgent 0.5.0 needs Python >= 3.12 and none was found (pyenv, python3.12/3.13 "
            "on PATH, /usr/bin, /usr/local/bin, /opt): install one (.ci/run does), or name "
            "it with CONVO_PYTHON312=/path/to/python3.12",
            pytrace=False,
        )
    venv.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix="typeagent-build-", dir=venv.parent))
    try:
        made = subprocess.run([base, "-m", "venv", str(build)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.fail(f"{base} -m venv failed: {made.stderr.strip()[-300:]}", pytrace=False)
        r = subprocess.run(
            [str(build / "bin" / "python"), "-m", "pip", "install", "--quiet", *PACKAGES],
            capture_output=True, text=True, timeout=1800,
        )  # fmt: skip
        if r.returncode != 0:
            pytest.fail(f"could not install {PACKAGES}: {r.stderr.strip()[-300:]}", pytrace=False)
        (build / ".ok").touch()
        shutil.rmtree(venv, ignore_errors=True)  # an unfinished one (no .ok)
        # Only bin/python is run, and a moved virtualenv's python still finds its packages.
        build.rename(venv)
    except OSError:
        if not (venv / ".ok").exists():  # another run did not win the rename either
            raise
    finally:
        shutil.rmtree(build, ignore_errors=True)


@pytest.fixture(scope="session")
def typeagent_python() -> str:
    """A Python >= 3.12 with typeagent 0.5.0 and the default embedder installed."""
    venv = _cache_dir() / KEY
    py = venv / "bin" / "python"
    if not (py.exists() and (venv / ".ok").exists()):
        _build(venv)
    return str(py)


@pytest.fixture(scope="session")
def typeagent_env(typeagent_python: str) -> dict[str, str]:
    """The environment that runs this checkout's convo under ``typeagent_python``,
    offline: no proxy and no OpenAI key reach it."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["CONVO_TYPEAGENT_PYTHON"] = typeagent_python
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[k] = "http://127.0.0.1:9"  # a closed port: any network use fails
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"  # convo embed --serve
    env["HF_HUB_OFFLINE"] = "1"
    return env
