"""Transcript import: ``convo ingest`` of a 100k-cue WebVTT vs a bare webvtt-py parse."""

from __future__ import annotations

import random
import sys
from pathlib import Path

TITLE = "Transcript import (WebVTT)"

SPEAKERS = ["Alice Smith", "Bob Jones", "Carol Diaz", "Dan Wu"]
WORDS = [
    "we",
    "should",
    "ship",
    "the",
    "auth",
    "refactor",
    "before",
    "the",
    "release",
    "and",
    "keep",
    "the",
    "session",
    "tokens",
    "compatible",
    "while",
    "the",
    "migration",
    "runs",
    "on",
    "staging",
    "next",
    "week",
]


def _stamp(ms: int) -> str:
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def generate(path: Path, cues: int) -> None:
    """A Teams-style meeting: voice-tagged cues, a speaker holding the floor for 1-4 cues."""
    rng = random.Random(7)
    t = 0
    speaker = SPEAKERS[0]
    left = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write("WEBVTT\n\n")
        for n in range(cues):
            if left == 0:
                speaker = rng.choice(SPEAKERS)
                left = rng.randint(1, 4)
            left -= 1
            dur = rng.randint(800, 4000)
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
            f.write(f"{n + 1}\n{_stamp(t)} --> {_stamp(t + dur)}\n<v {speaker}>{text}</v>\n\n")
            t += dur + rng.randint(0, 400)


def run(h) -> None:
    cues = h.scale(100_000)
    path = h.data(f"meeting-{cues}.vtt", lambda p: generate(p, cues))
    baseline = "import sys, webvtt\nn = sum(len(c.text) for c in webvtt.read(sys.argv[1]))\n"
    bare = h.time_cmd(
        "webvtt-py: webvtt.read + iterate c.text",
        [sys.executable, "-c", baseline, str(path)],
    )
    ingest = h.time_cmd(
        "convo ingest FILE -o - (stdout discarded)",
        [h.convo(), "ingest", str(path), "-o", "-", "--quiet"],
    )
    h.compare(f"ingest {cues:,} cues vs bare webvtt-py parse", ingest, bare, target=1.5)
    h.memory("convo ingest peak memory (streams)", ingest, limit_mb=150)
    h.note(
        f"Input: {cues:,} voice-tagged cues ({path.stat().st_size / 1e6:.1f} MB), speakers "
        "change every 1-4 cues, so ingest also merges turns, hashes ids and writes JSONL."
    )
