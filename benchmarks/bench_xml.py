"""Forum XML: reading stays linear in the input, and a giant attribute is refused quickly.

expat's time on one attribute value grows with the square of its length, and it rescans
an unfinished token on every feed (issue 20: a 40 MB attribute took 19.5 s, 300 MB never
ended). ``convo.importers.xmlstream`` reads as much as is pending and refuses a
token over 4 MiB with its line; these figures check both claims.
"""

from __future__ import annotations

import shlex
from pathlib import Path

TITLE = "Forum XML (Stack Exchange dump)"

ROW = (
    '  <row Id="{n}" PostTypeId="1" CreationDate="2024-01-02T03:04:05.678" '
    'OwnerDisplayName="user{u}" Title="Question {n}" Body="&lt;p&gt;{body}&lt;/p&gt;" />\n'
)


def posts(path: Path, megabytes: int) -> None:
    """Ordinary posts up to ``megabytes`` MB."""
    body = "a reasonably long question body about the release " * 8
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<posts>\n')
        n = 0
        while f.tell() < megabytes << 20:
            n += 1
            f.write(ROW.format(n=n, u=n % 97, body=body))
        f.write("</posts>\n")


def giant_attribute(path: Path, megabytes: int) -> None:
    """One post whose Body attribute is ``megabytes`` MB."""
    with open(path, "wb") as f:
        f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<posts>\n<row Id="1" Body="')
        block = b"x" * (1 << 20)
        for _ in range(megabytes):
            f.write(block)
        f.write(b'" />\n</posts>\n')


def _ingest(h, path: Path) -> str:
    # exit 2 (the refusal) is the expected outcome for the giant attribute
    return f"{shlex.quote(h.convo())} ingest {shlex.quote(str(path))} -o - --quiet || true"


def run(h) -> None:
    small, large = h.scale(10), h.scale(100)
    giant = h.scale(300)
    p_small = h.data(f"Posts-{small}MB.xml", lambda p: posts(p, small))
    p_large = h.data(f"Posts-{large}MB.xml", lambda p: posts(p, large))
    p_giant = h.data(f"Posts-attr-{giant}MB.xml", lambda p: giant_attribute(p, giant))
    t_small = h.time_cmd(f"convo ingest {small} MB Posts.xml", _ingest(h, p_small), shell=True)
    t_large = h.time_cmd(f"convo ingest {large} MB Posts.xml", _ingest(h, p_large), shell=True)
    t_giant = h.time_cmd(
        f"convo ingest Posts.xml with one {giant} MB attribute (refused)",
        _ingest(h, p_giant),
        shell=True,
    )
    scale = large / small
    h.compare(f"{large} MB vs {small} MB of posts (linear: about {scale:.0f}×)", t_large, t_small,
              target=scale * 1.25)  # fmt: skip
    h.compare(f"a {giant} MB attribute vs {small} MB of posts", t_giant, t_small, target=1.0)
    h.memory(f"peak memory, {giant} MB attribute", t_giant, limit_mb=150)
    h.note("The giant attribute is refused after at most 8 MiB is read (`file:LINE` error).")
