"""The examples of README.md and docs/, read from the Markdown (docs/contributing-docs.md
describes the convention).

- A ```` ```console ```` block is run: each ``$ COMMAND`` line (a line ending in ``\\``
  goes on in the next) is run by bash, and the lines after it, up to the next ``$``, are
  what it prints: standard output, then standard error. A line ``...`` stands for any
  number of lines.
- A ```` ```python ```` block is run: a page's blocks in order, in one namespace.
- A block whose fence says ``title="not run: REASON"`` is shown and counted, never run.
- Any other shell block (``sh``, ``bash``, ``shell``) must say so: unmarked, it fails.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)$")
NOT_RUN = re.compile(r'title="not run: [^"]+"')
SHELLS = {"console", "sh", "bash", "shell"}
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ANY_LINES = "..."
WIDTH = 100  # the terminal the console examples are shown on


@dataclass
class Command:
    """One ``$`` line of a console block and the output shown under it."""

    text: str
    expected: list[str]
    line: int  # 1-based line of the ``$`` in the page


@dataclass
class Block:
    lang: str
    info: str
    indent: int
    start: int  # 0-based index of the first content line
    end: int  # 0-based index of the closing fence
    lines: list[str]
    commands: list[Command] = field(default_factory=list)

    @property
    def runs(self) -> bool:
        return self.lang in ("console", "python") and not NOT_RUN.search(self.info)

    @property
    def not_run(self) -> bool:
        return bool(NOT_RUN.search(self.info))


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, with their place in it."""
    lines = text.split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = len(m["indent"]), m["info"].strip()
        close = " " * indent + "```"
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != close:
            j += 1
        body = [line[indent:] for line in lines[i + 1 : j]]
        block = Block(info.split()[0] if info else "", info, indent, i + 1, j, body)
        if block.lang == "console":
            block.commands = commands(body, i + 2)
        found.append(block)
        i = j + 1
    return found


def commands(body: list[str], first_line: int) -> list[Command]:
    """The ``$`` lines of a console block with the output under each."""
    out: list[Command] = []
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            raise ValueError(f"line {first_line + k}: a console block starts with '$ '")
        start = k
        text = body[k][2:]
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text += "\n" + body[k]
        k += 1
        expected: list[str] = []
        while k < len(body) and not body[k].startswith("$ "):
            expected.append(body[k])
            k += 1
        out.append(Command(text, expected, first_line + start))
    return out


def shell_blocks(page: Block | list[Block]) -> list[Block]:
    items = page if isinstance(page, list) else [page]
    return [b for b in items if b.lang in SHELLS]


# Running console examples ---------------------------------------------------------------

SHIM = """#!{python}
# convo as a person runs it: on the terminal when its output is the example's output.
import os, sys
sys.path.insert(0, {src!r})
st = os.fstat(1)
if "%d:%d" % (st.st_dev, st.st_ino) == os.environ.get("CONVO_DOCS_TERMINAL"):
    os.environ["CONVO_FORCE_TTY"] = "1"
from convo.cli.app import main
main()
"""


class Shell:
    """A folder where examples run: ``sample_data`` links to the project's, the store is
    the default store of ``home`` (``home/.local/share/convo/messages.jsonl``: programs
    that pass on only HOME, as MCP clients do, find it too), and ``convo`` on PATH is
    this checkout's."""

    def __init__(self, root: Path, work: Path, home: Path):
        self.root, self.work = root, work
        self.data_home = home / ".local" / "share"
        bin_dir = work.parent / "bin"
        bin_dir.mkdir(exist_ok=True)
        shim = bin_dir / "convo"
        shim.write_text(SHIM.format(python=sys.executable, src=str(root / "src")))
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
        self.env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(root / "src"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(work.parent / "config"),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "COLUMNS": str(WIDTH),
            "LINES": "50",
            "TERM": "xterm-256color",
        }
        self.capture = work.parent / "terminal.out"

    def run(self, command: str) -> list[str]:
        """What ``command`` shows on a terminal: its output, then its messages."""
        with open(self.capture, "wb") as out:
            st = os.fstat(out.fileno())
            env = dict(self.env, CONVO_DOCS_TERMINAL=f"{st.st_dev}:{st.st_ino}")
            done = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command],
                cwd=self.work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.PIPE,
                timeout=300,
            )
        text = self.capture.read_bytes().decode() + done.stderr.decode()
        return self.normalise(text)

    def normalise(self, text: str) -> list[str]:
        """Only what differs from run to run: the folder, the store's place, escapes."""
        text = ANSI.sub("", text)
        text = text.replace(str(self.data_home), "~/.local/share")
        text = text.replace(str(self.work) + "/", "").replace(str(self.work), ".")
        text = text.replace(str(self.root) + "/", "")
        lines = [line.rstrip() for line in text.split("\n")]
        while lines and not lines[-1]:
            lines.pop()
        return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` with each ``...`` line standing for any number of lines."""
    expected = [line.rstrip() for line in expected]
    while expected and not expected[-1]:
        expected.pop()
    if ANY_LINES not in expected:
        return expected == actual
    pattern = "".join(
        r"(?:.*\n)*?" if line == ANY_LINES else re.escape(line) + r"\n" for line in expected
    )
    return re.fullmatch(pattern, "\n".join(actual) + "\n") is not None


def rewrite(path: Path, outputs: dict[int, list[str]]) -> None:
    """Write each command's output (keyed by its ``$`` line) under it in the page: the
    way CONVO_UPDATE_DOCS=1 refreshes the shown output (kept ``...`` lines are lost)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for block in reversed(blocks("\n".join(lines))):
        if block.lang != "console" or not block.runs:
            continue
        pad = " " * block.indent
        body: list[str] = []
        for cmd in block.commands:
            body.extend(pad + line for line in ("$ " + cmd.text).split("\n"))
            shown = outputs.get(cmd.line, cmd.expected)
            body.extend((pad + line).rstrip() for line in shown)
        lines[block.start : block.end] = body
    path.write_text("\n".join(lines), encoding="utf-8")
