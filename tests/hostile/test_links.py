"""§2: a store named through a symbolic link is rewritten where the link points."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app
from convo.memory.history import JsonlMessageStore

from .helpers import write_store


def _ids(path) -> list[str]:
    lines = path.read_bytes().splitlines()
    return [orjson.loads(line)["id"] for line in lines if line.startswith(b"{")]


@pytest.mark.parametrize(
    "args, left",
    [
        (["rm", "id:m1"], ["m0", "m2"]),
        (["tag", "add", "x", "id:m1"], ["m0", "m1", "m2"]),
        (["compact"], ["m0", "m1", "m2"]),
    ],
)
def test_rewrites_through_a_link_replace_its_target(runner, tmp_path, args, left):
    real = write_store(tmp_path / "real.jsonl")
    with real.open("ab") as f:
        f.write(b"not a record\n")  # something for compact to drop
    link = tmp_path / "link.jsonl"
    link.symlink_to("real.jsonl")
    r = runner.invoke(app, ["--store", str(link), "index", "--rebuild"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["--store", str(link), *args])
    assert r.exit_code == 0, r.output
    assert link.is_symlink()
    assert _ids(real) == left
    if args[0] == "tag":
        assert orjson.loads(real.read_bytes().splitlines()[1])["tags"] == ["x"]
    assert (tmp_path / ".real.jsonl.lock").exists()
    assert not (tmp_path / ".link.jsonl.lock").exists()
    assert not (tmp_path / "link.jsonl.index.sqlite").exists()
    r = runner.invoke(app, ["--store", str(link), "index", "--check"])
    assert r.exit_code == 0, r.output


def test_memory_replace_through_a_link_replaces_its_target(tmp_path):
    real = write_store(tmp_path / "real.jsonl", 0)
    link = tmp_path / "link.jsonl"
    link.symlink_to("real.jsonl")
    history = JsonlMessageStore(link)
    history.append_many([{"role": "user", "content": "one"}, {"role": "user", "content": "two"}])
    history.replace([{"role": "user", "content": "three"}])
    assert link.is_symlink()
    assert len(real.read_bytes().splitlines()) == 1
