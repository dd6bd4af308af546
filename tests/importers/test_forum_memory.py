"""Hacker News and Reddit-Thing readers: memory flat with the input, output the same.

Their maps of what a later reply may name (item -> author, item -> story) are
``convo.core.spillmap.SpillMap``s. Here the bound is made small (256 keys) so two sizes
both spill: the traced peak must not grow with the number of items (untimed: memory
only), and the records must be the ones of a run that never spills.
"""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest

from convo.core import spillmap
from convo.pipeline.ingest import Ingest

SMALL = 256


def _hn(path: Path, n: int) -> Path:
    """Firebase items a line: a story every 50 items, each comment under an earlier item
    of its story (its parent far back once the map has spilled)."""
    rnd = random.Random(n)
    lines, members = [], []
    for i in range(1, n + 1):
        if i % 50 == 1:
            members = [i]
            item = {"id": i, "type": "story", "by": f"u{i % 97}", "time": 1.6e9 + i, "title": "T"}
        else:
            item = {"id": i, "type": "comment", "by": f"u{i % 89}", "time": 1.6e9 + i}
            item |= {"parent": rnd.choice(members), "text": f"comment {i}"}
            members.append(i)
        lines.append(json.dumps(item))
    lines.append(
        json.dumps({"id": n + 1, "type": "comment", "by": "late", "parent": 2, "text": "x"})
    )
    path.write_text("\n".join(lines) + "\n")
    return path


def _reddit(path: Path, n: int) -> Path:
    """Reddit Things a line: a post every 50, comments naming an earlier parent."""
    rnd = random.Random(n)
    lines, members, post = [], [], ""
    for i in range(1, n + 1):
        if i % 50 == 1:
            post = f"t3_{i:x}"
            members = [post]
            data = {"name": post, "author": f"u{i % 97}", "title": "T", "subreddit": "x"}
            lines.append(json.dumps({"kind": "t3", "data": data | {"created_utc": 1.6e9 + i}}))
        else:
            name = f"t1_{i:x}"
            data = {"name": name, "author": f"u{i % 89}", "body": f"c {i}", "link_id": post}
            data |= {"parent_id": rnd.choice(members), "created_utc": 1.6e9 + i}
            lines.append(json.dumps({"kind": "t1", "data": data}))
            members.append(name)
    path.write_text("\n".join(lines) + "\n")
    return path


def _read(path: Path) -> list[str]:
    run = Ingest(on_reject=pytest.fail, on_warning=lambda w: None)
    return [json.dumps(m.serialize()) for m in run.messages([path])]


def _peak(path: Path) -> int:
    run = Ingest(on_reject=pytest.fail, on_warning=lambda w: None)
    tracemalloc.start()
    try:
        count = sum(1 for _ in run.messages([path]))
        assert count > 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("make", [_hn, _reddit], ids=["hackernews", "reddit-things"])
def test_records_are_the_same_when_the_maps_spill(tmp_path, monkeypatch, make):
    path = make(tmp_path / "items.jsonl", 3_000)
    whole = _read(path)
    monkeypatch.setattr(spillmap, "LIMIT", 64)
    spilled = _read(path)
    assert spilled == whole
    # the replies far from their parent still name its author
    heard = [json.loads(line)["metadata"]["listeners"] for line in spilled]
    assert sum(bool(h) for h in heard) > 2_500


@pytest.mark.parametrize("make", [_hn, _reddit], ids=["hackernews", "reddit-things"])
def test_memory_is_flat_with_the_number_of_items(tmp_path, monkeypatch, make):
    """Ten times the items, about the same traced peak. With dicts the maps grew by
    about 140 bytes an item: 2 MB more here (0.4 MB to 2.5 MB), the bound holds
    it to 0.2 MB (the peak with the maps bounded is mostly their 4 MiB Bloom filters)."""
    monkeypatch.setattr(spillmap, "LIMIT", SMALL)
    _peak(make(tmp_path / "warm.jsonl", SMALL * 2))  # imports and caches, not the maps
    small = _peak(make(tmp_path / "small.jsonl", 1_500))
    big = _peak(make(tmp_path / "big.jsonl", 15_000))
    assert big < small * 1.1 + 200_000, (small, big)
