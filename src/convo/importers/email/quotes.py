"""``--strip-quotes``: drop quoted replies and signatures from a mail body."""

from __future__ import annotations

import re

_WROTE = re.compile(r"^\s*(On\b.{0,300}\bwrote|.{0,120}\b(schrieb|a écrit|escribió))\s*:\s*$", re.S)
_ORIGINAL = re.compile(r"^\s*-{2,}\s*(Original Message|Forwarded by|Ursprüngliche Nachricht)", re.I)


def strip_quotes(text: str) -> str:
    """Drop quoted lines, the "On ... wrote:" line before them, Outlook's quoted original
    and the signature (from a ``-- `` line to the end)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == "-- " or (line == "--" and len(lines) - i <= 15):
            break
        if _ORIGINAL.match(line):
            break
        if line.lstrip().startswith(">"):
            i += 1
            continue
        if line.lstrip().startswith("On ") or "schrieb" in line or "wrote" in line:
            if _WROTE.match(line):
                i += 1
                continue
            if i + 1 < len(lines) and _WROTE.match(line + " " + lines[i + 1]):
                i += 2
                continue
        out.append(line)
        i += 1
    return "\n".join(out).strip()
