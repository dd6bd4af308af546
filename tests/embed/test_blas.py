"""numpy's BLAS in a search process: one thread when convo loads numpy itself, the
user's setting kept, and no claim about a BLAS that numpy loaded before convo could set it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os, sys
from convo.embed import blas
if sys.argv[1] == "numpy first":
    import numpy
blas.one_thread()
import numpy
print(os.environ.get("OPENBLAS_NUM_THREADS"), blas.alone())
"""


def probe(order: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, order], env={**clean, **env},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def openblas() -> bool:
    import numpy

    return "openblas" in str(numpy.__config__.CONFIG["Build Dependencies"]["blas"]["name"])


@pytest.mark.skipif(not openblas(), reason="numpy's BLAS is not OpenBLAS")
def test_one_thread_before_numpy_loads():
    assert probe("convo first") == "1 True"


def test_a_users_setting_is_kept():
    assert probe("convo first", OPENBLAS_NUM_THREADS="4") == "4 False"


def test_numpy_loaded_first_is_left_alone():
    assert probe("numpy first") == "None False"
