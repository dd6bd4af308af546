"""Build a TypeAgent database from any Python: the records go to a Python >= 3.12 with
TypeAgent (``pythons.typeagent_python``), which runs ``convo.typeagent.child`` with this
convo first on its path.

Why a second interpreter: TypeAgent 0.5.0 installs only on Python >= 3.12 and convo
supports 3.11, so the command line (any Python) selects and validates the records, writes
them to a temporary JSONL file beside the database, and the child (convo's own
``typeagent`` package, its embedder and its knowledge, under the other interpreter) builds
the database. When the running Python is that interpreter, it is still a child process:
one code path, and the command's own process never imports TypeAgent.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

import convo
from convo.core import scratch
from convo.core.errors import ConvoError, UsageError
from convo.typeagent.pythons import NEEDS, typeagent_python

Progress = Callable[[int, int], None]  # (records done, new records)


def _env(llm: Any = None) -> dict[str, str]:
    env = dict(os.environ)
    here = str(Path(convo.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    if llm is not None:  # the child's model (child.llm_from_env), as resolved here
        env.update(CONVO_LLM_URL=llm.base_url, CONVO_LLM_MODEL=llm.model,
                   CONVO_LLM_TIMEOUT=repr(llm.timeout), CONVO_LLM_KEY=llm.api_key or "")  # fmt: skip
    return env


def export_database(
    records: Iterable[dict[str, Any]],
    db: str,
    *,
    name: str = "convo",
    python: str | None = None,
    on_progress: Progress | None = None,
    llm: Any = None,
    on_warning: Callable[[str], None] | None = None,
) -> dict[str, int] | None:
    """Add ``records`` to the TypeAgent database ``db`` (created when missing); the
    counts of ``database.Built`` as a dict, or None when there are no records (then
    nothing is created or opened); ``llm`` (``analysis.knowledge.llm.Settings``) adds a
    model's knowledge, its fallbacks one ``on_warning`` line. Raises ``UsageError``
    (saying what to install)
    without a Python that has TypeAgent, ``ConvoError`` when the build fails."""
    python = python or typeagent_python()
    if python is None:
        raise UsageError("--to typeagent-db needs TypeAgent", hint=NEEDS)
    folder = Path(db).resolve().parent
    if not folder.is_dir():
        raise UsageError(f"{db}: no folder {folder}", hint="create it first")
    fd, spooled = scratch.file(folder, kind="typeagent", tail="-records.jsonl")
    try:
        with os.fdopen(fd, "wb") as spool:
            n = 0
            for n, r in enumerate(records, 1):  # noqa: B007 (n counts them)
                spool.write(orjson.dumps(r) + b"\n")
        if not n:
            return None
        return _run_child(python, [spooled, db, name], on_progress, llm, on_warning)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spooled)


def _run_child(
    python: str, args: list[str], on_progress: Progress | None, llm: Any, on_warning: Any
) -> dict[str, int]:
    db = args[1]
    cmd = [python, "-m", "convo.typeagent.child", *args, "llm" if llm is not None else "rules"]
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(llm)
        )  # fmt: skip
    except OSError as e:
        raise UsageError(f"cannot run {python}: {e.strerror}", hint=NEEDS) from None
    built: dict[str, int] = {}
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:
        msg = orjson.loads(line)
        if "built" in msg:
            built = msg["built"]
        elif "warning" in msg:
            if on_warning is not None:
                on_warning(msg["warning"])
        elif on_progress is not None:
            on_progress(msg["done"], msg["new"])
    errors = proc.stderr.read().decode("utf-8", "replace").strip()
    if proc.wait() != 0 or not built:
        last = errors.splitlines()[-1] if errors else f"exit status {proc.returncode}"
        hint = NEEDS if "ModuleNotFoundError" in last else None
        raise ConvoError(f"building the TypeAgent database failed: {last}", where=db, hint=hint)
    return built
