"""Where a Python >= 3.12 is on this machine, and which one has TypeAgent.

TypeAgent (the ``typeagent`` package, 0.5.0) needs Python >= 3.12 and convo supports
3.11, so the TypeAgent database is built by a Python that has the package, running
``convo.typeagent.child`` with this convo on its path (``convo.typeagent.run``).

``typeagent_python()`` is that interpreter: ``$CONVO_TYPEAGENT_PYTHON`` when set, else
the running Python when it is >= 3.12 and has ``typeagent``. ``find_python312()`` is any
Python >= 3.12 (the tests build TypeAgent's virtualenv from it): ``$CONVO_PYTHON312``,
the running one, pyenv's versions (``$PYENV_ROOT``, ``~/.pyenv``, and the root behind a
pyenv shim on ``PATH``, so another ``HOME`` still finds them), ``python3.12`` ...
``python3.15`` and ``python3`` on ``PATH``, and the system's ``/usr/bin``,
``/usr/local/bin`` and ``/opt``. Each candidate is run once to ask its version (a pyenv
shim for a version that is not selected fails, and is passed over).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

MINOR_MIN = 12
MINORS = range(MINOR_MIN, 16)
SYSTEM = ("/usr/bin/python3*", "/usr/local/bin/python3*", "/opt/*/bin/python3*")
NEEDS = (
    "the TypeAgent database needs the typeagent package under Python >= 3.12: run convo "
    "there with pip install -e 'CONVO_CHECKOUT[typeagent]', or set CONVO_TYPEAGENT_PYTHON to a "
    "Python >= 3.12 where convo's [typeagent] extra (or typeagent==0.5.0 and wordllama) "
    "is installed"
)


def _pyenv_roots() -> Iterator[Path]:
    env = os.environ.get("PYENV_ROOT")
    if env:
        yield Path(env)
    yield Path.home() / ".pyenv"
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder.endswith(os.sep + "shims") or folder.endswith("/shims"):
            yield Path(folder).parent


def candidates() -> Iterator[str]:
    """Paths that may be a Python >= 3.12, most specific first (not yet checked)."""
    explicit = os.environ.get("CONVO_PYTHON312")
    if explicit:
        yield explicit
    yield sys.executable
    for root in _pyenv_roots():
        yield from sorted(glob.glob(str(root / "versions" / "3.1[2-9]*" / "bin" / "python3")))
    for name in [f"python3.{m}" for m in MINORS] + ["python3"]:
        found = shutil.which(name)
        if found:
            yield found
    for pattern in SYSTEM:
        yield from sorted(glob.glob(pattern))


def is_python312(path: str) -> bool:
    """Whether ``path`` runs and is a Python >= 3.12."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        return False
    if os.path.realpath(path) == os.path.realpath(sys.executable):
        return sys.version_info >= (3, MINOR_MIN)
    try:
        r = subprocess.run(
            [path, "-c", f"import sys; sys.exit(sys.version_info < (3, {MINOR_MIN}))"],
            capture_output=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def find_python312() -> str | None:
    """The first Python >= 3.12 of ``candidates()``, or None."""
    seen: set[str] = set()
    for c in candidates():
        if c in seen:
            continue
        seen.add(c)
        if is_python312(c):
            return c
    return None


def typeagent_python() -> str | None:
    """The Python that builds TypeAgent databases (see the module docstring), or None."""
    explicit = os.environ.get("CONVO_TYPEAGENT_PYTHON")
    if explicit:
        return explicit
    if sys.version_info >= (3, MINOR_MIN) and importlib.util.find_spec("typeagent"):
        return sys.executable
    return None
