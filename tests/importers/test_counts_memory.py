"""A WebVTT transcript's traced peak through the whole ingest is flat with its length at
the default limits: the id counters (``convo.core.counts``) keep the messages of the
latest cue offsets, not every content hash of the file. Before, the peak rose with the
messages (measured 2026-12-04 on shorter cues: 6.2 MB at 20,000 messages, 12.8 MB at
80,000, 20.5 MB at 160,000; now 6.2, 6.5 and 6.6 MB). Both sizes are past the reader's
1 MiB block, whose lines are the rest of the peak."""

from __future__ import annotations

from pathlib import Path

from memory_helpers import peak_bytes, read_lines

from convo.core import counts

FILL = ", and a few more words to make the file longer"


def _vtt(path: Path, n: int) -> Path:
    """``n`` cues, the speaker changing at each (``n`` messages, none with an id)."""
    with path.open("w") as f:
        f.write("WEBVTT\n\n")
        for i in range(n):
            t = f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
            f.write(f"{t}.000 --> {t}.900\n<v Speaker {i % 2}>line {i} of the talk{FILL}\n\n")
    return path


def test_webvtt_memory_is_flat_with_the_number_of_messages(tmp_path):
    assert counts.ORDERED_LIMIT < 10_000  # both sizes are past the counters' bound
    small_file = _vtt(tmp_path / "small.vtt", 10_000)
    peak_bytes(small_file)  # imports, caches and one-time costs
    small = peak_bytes(small_file)
    big = peak_bytes(_vtt(tmp_path / "big.vtt", 40_000))
    assert big < small * 1.1 + 200_000, (small, big)


def test_repeated_cues_far_apart_keep_their_counters(tmp_path):
    """The same words from the same speaker at the same offset, a file apart (two cues
    at one time, then again after 10,000 others): the counters count them as before."""
    path = tmp_path / "repeats.vtt"
    with path.open("w") as f:
        f.write("WEBVTT\n\n")
        f.write("00:00:00.000 --> 00:00:00.500\n<v A>again\n\n")
        f.write("00:00:00.000 --> 00:00:00.500\n<v B>between\n\n")
        for i in range(1, 10_001):
            t = f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
            f.write(f"{t}.000 --> {t}.900\n<v Speaker {i % 2}>line {i}\n\n")
        f.write("00:00:00.000 --> 00:00:00.500\n<v A>again\n\n")  # back in time
    ids = [line.split('"id": "')[1].split('"')[0] for line in read_lines(path)]
    assert len(set(ids)) == len(ids) == 10_003
    assert ids[-1] == f"{ids[0]}-1"
