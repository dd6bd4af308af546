"""Write the generated reference pages under docs/reference/, or check them.

    python tools/docs_reference.py          # write every page (and remove stale ones)
    python tools/docs_reference.py --check  # exit 1 naming the pages that differ

Two references, each made from what the code is, so neither can drift from it:

- ``docs/reference/commands/``: the command reference, from the CLI itself
  (``tools/reference_commands.py``): one page per ``convo`` command and an index;
- ``docs/reference/formats/``: the format reference, from the format registry and each
  format's ``fields`` declaration, with an example record read from a sample file
  (``tools/reference_formats.py``); one page per format and an index.

Output does not depend on the machine: the environment (``$CONVO_*``, the config file,
``$XDG_*``, ``$TZ``, ``$COLUMNS``) and installed plug-ins are set aside while pages are
made, samples are read by paths relative to the repository, and nothing is wrapped to a
terminal's width.
``tests/docs/test_reference_pages.py`` runs ``pages()`` and fails when a committed page
is stale, missing or left over.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
REFERENCE = ROOT / "docs" / "reference"
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

_SET_ASIDE = ("COLUMNS", "LINES", "TZ", "NO_COLOR", "FORCE_COLOR")


@contextmanager
def isolated() -> Iterator[None]:
    """No environment variable, config file or home folder of this machine shows in a page,
    nor an installed plug-in: registries loaded from here on hold convo's own formats,
    writers and exporters (``core.plugins``; ones already loaded are as they are)."""
    from convo.core import plugins

    saved = dict(os.environ)
    declare = plugins.may_declare
    plugins.may_declare = lambda group: False
    with tempfile.TemporaryDirectory() as home:
        for key in list(os.environ):
            if key.startswith(("CONVO_", "XDG_")) or key in _SET_ASIDE:
                del os.environ[key]
        os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
        os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)
            plugins.may_declare = declare


def pages() -> dict[str, str]:
    """Every generated page: its path under docs/reference/ and its text."""
    import reference_commands
    import reference_formats

    with isolated():
        out = {**reference_commands.pages(), **reference_formats.pages()}
    return dict(sorted(out.items()))


def committed() -> dict[str, str]:
    """The generated pages in the checkout (every .md under the generated folders)."""
    found = {}
    for folder in ("commands", "formats"):
        for path in sorted((REFERENCE / folder).glob("*.md")):
            found[path.relative_to(REFERENCE).as_posix()] = path.read_text(encoding="utf-8")
    return found


def differences(wanted: dict[str, str], have: dict[str, str]) -> list[str]:
    """One line per page that is stale, missing or no longer made."""
    out = [f"stale: {name}" for name in wanted if name in have and have[name] != wanted[name]]
    out += [f"missing: {name}" for name in wanted if name not in have]
    out += [f"left over: {name}" for name in have if name not in wanted]
    return out


def write(wanted: dict[str, str]) -> list[str]:
    have = committed()
    changed = differences(wanted, have)
    for name, text in wanted.items():
        if have.get(name) != text:
            path = REFERENCE / name
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
    for name in have:
        if name not in wanted:
            (REFERENCE / name).unlink()
    return changed


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print("usage: python tools/docs_reference.py [--check]", file=sys.stderr)
        return 2
    wanted = pages()
    if check:
        problems = differences(wanted, committed())
        for line in problems:
            print(f"docs/reference/{line.split(': ', 1)[1]}: {line.split(':', 1)[0]}")
        if problems:
            print("run: python tools/docs_reference.py", file=sys.stderr)
        return 1 if problems else 0
    for line in write(wanted):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
