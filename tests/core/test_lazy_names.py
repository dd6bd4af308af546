"""``core.lazy.keep_names``: a package attribute named as its submodule stays the
attribute whatever was imported before (test_roundtrip.py imported
``convo.output.exporters.registry`` and test_export.py then found the module under
``exporters.registry``: the two files failed together, passed apart)."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_submodule_imported_first_does_not_hide_the_name():
    assert (
        _run(
            "import convo.output.exporters.registry, convo.index.check, convo.index.search\n"
            "import sys, types\n"
            "from convo.output.exporters import registry\n"
            "from convo import index\n"
            "print(type(registry).__name__, type(index.check).__name__, "
            "type(index.search).__name__, 'convo.index.check' in sys.modules)"
        )
        == "Registry function function True"
    )


def test_the_name_read_first_then_the_submodule():
    assert (
        _run(
            "import convo.output.exporters as ex\n"
            "first = ex.registry\n"
            "import convo.output.exporters.registry\n"
            "print(ex.registry is first, type(ex.registry).__name__)"
        )
        == "True Registry"
    )
