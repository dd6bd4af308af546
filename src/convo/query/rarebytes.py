"""Three rare things in a span's bytes, looked for in one pass of a multi-pattern engine.

The raw scans prove a block's lines before deciding them on their bytes, and three of
those proofs look for something that is almost never there:

- ``ESCAPE``: the escape of an ASCII character (``prefilter.ASCII_ESCAPE``,
  ``\\u00[0-7]``), the only escape that can spell a key, a quote or a brace;
- ``ODD``: a newline followed by a byte other than ``{`` (``canonical.NOT_OBJECT``), a
  line that does not open an object;
- ``CONTROL``: a raw control byte other than tab, LF and CR (``rawkeys.has_control``),
  which no JSON line holds.

Python's regex engine steps byte by byte to each pattern's first byte, one pass per
pattern, and ``has_control`` is 29 ``memchr`` passes; on a ``json.dumps`` store
(non-ASCII written as ``\\u`` escapes, 6,600 ``\\u00`` per MiB, each a stop of the escape
search) the three cost 0.485 + 0.316 + 0.309 ms of CPU per 1 MiB block. Hyperscan
(``hyperscan`` on PyPI, MIT, wheels for Linux, macOS and Windows; Intel's SIMD regex library)
finds all three in one pass: 0.37 ms per MiB there, 0.17 ms on convo's own layout
(against 0.03 + 0.32 + 0.31 ms). Measured on 64 blocks of the 1M-record benchmark
store of ``benchmarks/bench_query.py`` and its copy, best of 7, load 2.5-3.3.

The engine only says which of the three a span holds: a span that holds one goes the
way it went before (the regex finds where). Its patterns are those of the regexes
above, in byte mode, so "found" means exactly what the regex's search finding one
means (a property test, ``tests/query/test_rare_bytes.py``).

Whole commands on that 1M-record store (CPU of every process, 5 alternating pairs
against main, medians, load 2.1-4.6, ``docs/query.md``): ``format:slack`` on the copy
1.80 → 1.52 s (per pair 0.79-0.90), on convo's layout 1.39 → 1.18 s (0.85-0.88);
``--since 2018-01-01`` 2.61 → 2.22 s (0.81-0.94) and 1.99 → 1.84 s (0.89-1.00). Against
jq's CPU on the copy: 4.1× → 5.2× and 4.5× → 5.4× (issue 41 asks 5×).

It is used only while a parallel scan scans a range (``parallel.scan_range``: in its
workers, or in the calling thread when the file is one range), where the file is at
least ``parallel.MIN_PARALLEL`` (64 MiB) and the import (about 5 ms once ``typing`` is
loaded, as the scan has it) is paid once, by the parent before it forks; a one-core
scan, a small file, or a machine without the package keeps the regexes. A scan writes
its scratch space and the engine releases the GIL while it scans, so each thread, and
each process (a fork inherits a space another thread may have been using), has its
own; the databases are shared.
Not installed: ``found`` answers None and every caller keeps its regex pass. The
package is a dependency on the machines PyPI has its wheels for (x86-64, ARM64:
``pyproject.toml``), so a plain install gets it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from convo.query.rawtext import CHUNKS_NAME

ESCAPE = 1
ODD = 2
CONTROL = 4
CHUNKS = 8  # ``rawtext.CHUNKS_NAME``, the key a ``text_chunks`` record must not hold
#: The patterns, as text (the engine takes NUL-terminated strings): each says in the
#: engine's syntax what its regex or search says (module docstring).
PATTERNS = {
    ESCAPE: rb"\\u00[0-7]",
    ODD: rb"\n[^{]",
    CONTROL: rb"[\x00-\x08\x0b\x0c\x0e-\x1f]",
    CHUNKS: CHUNKS_NAME,  # letters and quotes: literal in both syntaxes
}
#: What the scans look for: a ``format:`` span the first three; a time alone
#: (``canonical.block_times``) the escapes and control bytes, and on a ``text_chunks``
#: block the other spelling (0.44 ms per MiB of the ``json.dumps`` copy against
#: ``bytes.find``'s 0.36 after 0.32 for the two; an ``ODD`` pattern costs 0.05 ms
#: more, and the text key 0.32 ms on convo's layout, where no one looks for it).
LOOKS = (ESCAPE | ODD | CONTROL, ESCAPE | CONTROL, ESCAPE | CONTROL | CHUNKS)

_engine: Any = None  # {look: (database, unused scratch to clone)} once loaded; False: missing
# This thread's use of it: ``on`` (activated here), ``spaces`` ({look: (database, scratch)},
# its own scratch spaces) and ``pid`` (the process they were made in).
_here = threading.local()


def load() -> bool:
    """Import the engine and compile the patterns, once per process (a parallel scan's
    parent does it before its workers fork, so they inherit it). False when the
    package is not installed or cannot run here (Hyperscan refuses a CPU without SSSE3
    with its own error at compile time): the regexes do the work then."""
    global _engine
    if _engine is None:
        try:
            _engine = _compiled()
        except Exception:  # any failure of an optional engine: the regexes do the work
            _engine = False
    return _engine is not False


def _compiled() -> dict[int, tuple[Any, Any]]:
    import hyperscan

    engine = {}
    for look in LOOKS:
        ids = [k for k in PATTERNS if look & k]
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(
            expressions=[PATTERNS[i] for i in ids],
            ids=ids,
            elements=len(ids),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(ids),
        )
        engine[look] = (db, hyperscan.Scratch(db))  # never scanned with: only cloned
    return engine


def activate(on: bool = True) -> bool:
    """Use the engine in this thread from now on, when it is loaded in this process;
    ``on=False`` stops. Whether it is used. ``active()`` does it for a block of work."""
    _here.on = on and bool(_engine)
    return _here.on


@contextmanager
def active() -> Iterator[bool]:
    """The engine used by this thread inside the block (when loaded), as before it
    after: a range scanned in the parent itself (one range, so no worker) leaves the
    parent's scans as they were."""
    was = getattr(_here, "on", False)
    try:
        yield activate()
    finally:
        _here.on = was


def _space(look: int) -> tuple[Any, Any]:
    """The database of ``look`` and this thread's scratch space for it. A scan writes
    its scratch space (Hyperscan refuses one in use: ``ScratchInUseError``), and the
    engine releases the GIL while it scans, so every thread has its own (the web view
    and the MCP server answer from threads); a process forked while another thread
    scanned inherits that space marked in use, so a new process makes its own too."""
    pid = os.getpid()
    if getattr(_here, "pid", None) != pid:
        _here.pid, _here.spaces = pid, {}
    spaces = _here.spaces
    space = spaces.get(look)
    if space is None:
        db, unused = _engine[look]
        space = spaces[look] = (db, unused.clone())
    return space


def found(buf: bytes, start: int = 0, end: int | None = None, look: int = LOOKS[0]) -> int | None:
    """Which of the kinds in ``look`` (one of ``LOOKS``) ``buf[start:end]`` holds (their
    sum), or None when the engine is not in use in this thread (look with the regexes)."""
    if not getattr(_here, "on", False):
        return None
    db, scratch = _space(look)
    kinds = [0]

    def hit(ident: int, _at: int, _to: int, _flags: int, _context: object) -> None:
        kinds[0] |= ident

    view = memoryview(buf)[start:end]
    if len(view):
        db.scan(view, match_event_handler=hit, scratch=scratch)
    return kinds[0]


__all__ = [
    "CHUNKS", "CONTROL", "ESCAPE", "LOOKS", "ODD", "PATTERNS", "activate", "active", "found",
    "load",
]  # fmt: skip
