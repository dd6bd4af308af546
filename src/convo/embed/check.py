"""The vectors against the store: ``check_vectors`` (for ``convo index --check``).

Checks that every message of the store has vectors of its current text, that no vectors
belong to a message the store no longer holds, that the raw file holds every row the
catalogue counts, that every row of a message is finite and of unit length, and that
the int8 copy a search scans (``convo.embed.quantized``) holds every row, each within
its recorded error of the float32 row.
A check that finds a message not embedded, or embedded from an older text, makes the next
``convo embed`` read the whole store (an edit in the middle of a store that also grew is
not seen by the test of what was appended, ``convo.index.state.freshness``), so that run
mends it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import IO

from convo.core.errors import UsageError
from convo.core.plural import counted
from convo.embed import chunks as chunking
from convo.embed.quantized import Copy, slack
from convo.embed.vectors import VectorFile

SHOWN = 5  # problems of one kind named in full


@dataclass
class VectorCheck:
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    model: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def check_vectors(store_path: str | os.PathLike[str]) -> VectorCheck | None:
    """None when the store has no vectors; else what is wrong with them (nothing: ok)."""
    try:
        vf = VectorFile.existing(store_path)
    except UsageError as e:
        return VectorCheck(problems=[str(e)])
    if vf is None:
        return None
    out = VectorCheck(model=vf.model)
    copy = Copy(vf)
    try:
        if copy.rows < vf.rows:
            out.problems.append(
                f"the int8 copy of the vectors holds {copy.rows} of {counted(vf.rows, 'row')};"
                " run `convo embed` (it adds the rest)"
            )
        with open(store_path, "rb") as f:
            problems = _compare(vf, copy, f, out)
        sql = "SELECT id FROM messages WHERE id NOT IN (SELECT id FROM temp.seen)"
        extra = [i for (i,) in vf.conn.execute(sql)]
        if extra:
            problems["embedded but no longer in the store"] = extra
        for what, ids in problems.items():
            named = ", ".join(ids[:SHOWN]) + (" ..." if len(ids) > SHOWN else "")
            out.problems.append(
                f"{counted(len(ids), 'message')} {what}: {named}; run `convo embed`"
            )
        if problems:  # the next run reads the whole store, and so mends what was found
            vf.conn.execute("DELETE FROM meta WHERE key = 'store_ino'")
        return out
    finally:
        copy.close()
        vf.close()


def _compare(vf: VectorFile, copy: Copy, f: IO[bytes], out: VectorCheck) -> dict[str, list[str]]:
    """The store's messages whose vectors are wrong, by what is wrong; every id seen goes
    to the temporary table ``seen`` (on disk, not in memory, at a million messages)."""
    problems: dict[str, list[str]] = {}
    for batch in chunking.texts_of(f, seen=vf.conn):  # an id's first record, as embed reads it
        known = vf.known([i for i, _ in batch])
        for ident, text in batch:
            out.checked += 1
            what = _problem(vf, copy, known.get(ident), text)
            if what:
                problems.setdefault(what, []).append(ident)
    return problems


def _problem(vf: VectorFile, copy: Copy, entry: tuple[bytes, int, int] | None, text: str) -> str:
    """What is wrong with one message's vectors (``""``: nothing)."""
    import numpy as np

    if entry is None:
        return "not embedded"
    if entry[0] != chunking.digest(text):
        return "embedded from an older text"
    row, n = entry[1], entry[2]
    if n:
        rows = vf.read_rows(row, n)
        norms = np.linalg.norm(rows, axis=1)
        if not np.all(np.isfinite(rows)) or not np.allclose(norms, 1.0, atol=1e-3):
            return "with broken vectors"
        if row + n <= copy.rows:
            codes = copy.table[row : row + n]
            lost = rows - codes["scale"][:, None] * codes["codes"].astype(np.float32)
            if np.any(np.linalg.norm(lost, axis=1) > codes["error"] + slack(vf.dims)):
                return "with an int8 copy that does not match them"
    return ""
