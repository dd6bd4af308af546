"""numpy's BLAS in convo's own search processes: one thread, set before numpy loads.

numpy's wheels bring OpenBLAS, which starts a thread per core when numpy is imported
and, for a matrix-vector product, spreads the work over them. A search needs neither:
``convo search`` and ``convo similar`` call ``one_thread()`` before anything imports
numpy, which sets ``OPENBLAS_NUM_THREADS=1`` (unless the user set it). Measured on the
benchmark machine (2 cores, shared): ``import numpy`` took 0.13 to 0.15 s of CPU with
the thread pool and 0.07 to 0.09 s without it, and ``block @ q`` over a million int8
rows converted to float32 took 0.49 to 0.66 s of CPU on the pool against 0.05 to
0.06 s on one thread (numpy's own ``einsum``, which never uses BLAS: 0.085 s).

``alone()`` says whether this process's BLAS is known to run on one thread: convo set
it before numpy loaded and numpy's BLAS is OpenBLAS. Only then does the int8 scan
(``convo.embed.quantized``) use ``@``; a program that imported numpy itself (a library
user, the test suite) keeps ``einsum``, whatever its BLAS does.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "OPENBLAS_NUM_THREADS"
_set_before_numpy = False
_alone: bool | None = None


def one_thread() -> None:
    """Have OpenBLAS start one thread when numpy loads (a user's setting is kept); no
    effect once numpy is loaded."""
    global _set_before_numpy
    if "numpy" in sys.modules:
        return
    os.environ.setdefault(VARIABLE, "1")
    _set_before_numpy = os.environ[VARIABLE] == "1"


def alone() -> bool:
    """Whether numpy's BLAS runs on one thread in this process (see the module's docstring)."""
    global _alone
    if _alone is None:
        _alone = _set_before_numpy and _openblas()
    return _alone


def _openblas() -> bool:
    try:
        import numpy

        blas = numpy.__config__.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):  # numpy's layout of another version
        return False
    return "openblas" in str(blas).lower()
