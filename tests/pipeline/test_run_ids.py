"""``core.stamps.RunIds``: an id held to one message across the sources of one run."""

from __future__ import annotations

from convo.core.stamps import RunIds, id_key, stamp
from convo.pipeline.ingest import Ingest

JAN, FEB = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"


def test_claims():
    run = RunIds()
    k = id_key("m1")
    assert run.claim(1, k, stamp(JAN, ["one"]))
    assert run.claim(1, k, stamp(FEB, ["two"]))  # within a source: its own rule's
    assert run.claim(2, k, stamp(JAN, ["one, edited"]))  # an edit keeps its time
    assert run.claim(2, k, stamp(FEB, ["one"]))  # the same text at another time
    assert run.claim(2, k, stamp("1970-01-01T00:00:00Z", ["two"]))  # untimed
    assert not run.claim(2, k, stamp(FEB, ["two"]))  # another message
    assert run.crossed == 1
    run.close()


def test_keys_and_stamps_are_the_same_in_every_process():
    """Workers send them to their parent: no ``hash`` of a string (randomised a process)."""
    import subprocess
    import sys

    code = "from convo.core.stamps import id_key, stamp; print(id_key('<a@b>'), stamp('2024-01-01T00:00:00Z', ['x\\udc80']))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}  # fmt: skip
    here = stamp(JAN, ["x\udc80"])
    assert runs == {f"{id_key('<a@b>')} {here}\n"}


def test_one_file_holds_nothing_across_sources(tmp_path):
    """A run of one file has no other source: ``RunIds`` is not made (no cost)."""
    path = tmp_path / "a.jsonl"
    path.write_text(
        '{"id":"m1","timestamp":"2024-01-01T00:00:00Z","textChunks":["x"],'
        '"metadata":{"speaker":"a","listeners":[]},"tags":[],"source_id":"a#1","format":"jsonl"}\n'
    )
    ingest = Ingest()
    list(ingest.messages([path]))
    assert not ingest.crossing
    ingest = Ingest()
    seen = []
    for _ in ingest.messages([path, path]):
        seen.append(ingest.run_ids is not None)
    assert ingest.crossing and all(seen)
