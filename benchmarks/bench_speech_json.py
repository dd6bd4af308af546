"""Speech-to-text JSON import: ``convo ingest`` of a 100k-segment WhisperX file against a
bare ``json.load`` of it (CPU time: the machine is shared), its memory, and the same
segments as WebVTT through the cue path (for scale: the JSON, with its words, is ten
times the bytes)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from bench_transcript import SPEAKERS, WORDS, _stamp

TITLE = "Speech-to-text JSON import (WhisperX)"


def _segments(n: int):
    """The same meeting as bench_transcript: a speaker holding the floor for 1-4 segments."""
    rng = random.Random(7)
    t, speaker, left = 0, SPEAKERS[0], 0
    for _ in range(n):
        if left == 0:
            speaker, left = rng.choice(SPEAKERS), rng.randint(1, 4)
        left -= 1
        dur = rng.randint(800, 4000)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        yield t, t + dur, speaker, text
        t += dur + rng.randint(0, 400)


def generate_json(path: Path, n: int) -> None:
    """WhisperX's shape: the whole text first, segments with their words, word_segments."""
    with open(path, "w", encoding="utf-8") as f:
        texts = (" " + text for _, _, _, text in _segments(n))
        f.write('{"text": ' + json.dumps("".join(texts)) + ', "segments": [')
        for i, (start, end, speaker, text) in enumerate(_segments(n)):
            words = text.split()
            step = (end - start) / 1000 / len(words)
            ws = [
                {"word": w, "start": round(start / 1000 + k * step, 3),
                 "end": round(start / 1000 + (k + 1) * step, 3), "score": 0.9, "speaker": speaker}
                for k, w in enumerate(words)
            ]  # fmt: skip
            seg = {"start": start / 1000, "end": end / 1000, "text": " " + text, "words": ws,
                   "speaker": speaker}  # fmt: skip
            f.write(("," if i else "") + json.dumps(seg))
        f.write('], "word_segments": [], "language": "en"}')


def generate_vtt(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write("WEBVTT\n\n")
        for i, (start, end, speaker, text) in enumerate(_segments(n)):
            f.write(f"{i + 1}\n{_stamp(start)} --> {_stamp(end)}\n<v {speaker}>{text}</v>\n\n")


def run(h) -> None:
    n = h.scale(100_000)
    doc = h.data(f"whisperx-{n}.json", lambda p: generate_json(p, n))
    cues = h.data(f"whisperx-{n}.vtt", lambda p: generate_vtt(p, n))
    vtt = h.time_cmd(
        "convo ingest FILE.vtt -o - (the same segments as cues)",
        [h.convo(), "ingest", str(cues), "-o", "-", "--quiet"],
    )
    ingest = h.time_cmd(
        "convo ingest FILE.json -o - (stdout discarded)",
        [h.convo(), "ingest", str(doc), "-o", "-", "--quiet"],
    )
    load = h.time_cmd(
        "json.load of the whole file (no records)",
        [sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1]))", str(doc)],
    )
    h.compare(
        f"ingest {n:,} segments vs a bare json.load of the file", ingest, load, target=1.5,
        on_cpu=True,
    )  # fmt: skip
    h.memory("convo ingest peak memory (streams the segments)", ingest, limit_mb=150)
    h.compare(f"ingest {n:,} segments (JSON) vs the same segments as WebVTT", ingest, vtt)
    h.note(
        f"Input: {n:,} WhisperX segments with their words ({doc.stat().st_size / 1e6:.1f} MB; "
        f"the WebVTT twin {cues.stat().st_size / 1e6:.1f} MB), speakers changing every 1-4 "
        f"segments. A bare json.load of the file peaks at {load.peak_rss_mb:.0f} MB."
    )
