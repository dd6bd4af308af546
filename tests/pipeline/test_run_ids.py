"""``core.stamps.RunIds``: an id held to one message across the sources of one run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


class _DictRunIds:
    """``RunIds``'s rule over a plain dict: what the compact table must answer."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[int, int]] = {}

    def claim(self, source: int, key: int, mark: int) -> bool:
        from convo.core.stamps import other_message

        held = self.seen.setdefault(key or 1, (source, mark))
        return held == (source, mark) or held[0] == source or not other_message(held[1], mark)


@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 40), st.sampled_from([0, 1, 7]),
                          st.sampled_from([JAN, FEB, "1970-01-01T00:00:00Z"]),
                          st.sampled_from(["one", "two"])), max_size=300),
       st.sampled_from([(4, 4), (4, 16), (8, 1 << 21)]))  # fmt: skip
@settings(max_examples=60, deadline=None)
def test_the_table_answers_as_a_dict(claims, sizes) -> None:
    """Grown, and full (the ids past it in the spillmap), the table answers as a dict;
    keys spread over the whole 64 bits (0 is one id with 1, as the empty slot)."""
    capacity, table = sizes
    run, ref, refused = RunIds(capacity, table), _DictRunIds(), 0
    for source, k, high, when, text in claims:
        key = 0 if k == 0 else high << 61 | id_key(f"m{k}") >> 3
        mark = stamp(when, [text])
        kept = ref.claim(source, key, mark)
        assert run.claim(source, key, mark) == kept
        refused += not kept
    assert run.crossed == refused
    run.close()
    assert run.claim(1, 5, 5)  # a closed table starts again


def _reference_stamp(timestamp: object, chunks: object) -> int:
    """``stamp`` as first written (``when`` beside the CRC-32 of the joined text)."""
    import zlib

    from convo.core.stamps import when

    if isinstance(chunks, list) and all(type(c) is str for c in chunks):
        text = chunks[0] if len(chunks) == 1 else "\x1e".join(chunks)
    else:
        text = repr(chunks)
    return when(timestamp) << 32 | zlib.crc32(text.encode("utf-8", "surrogatepass"))


@given(st.one_of(st.none(), st.integers(), st.text(max_size=25),
                 st.sampled_from([JAN, "1970-01-01T00:00:00Z", "1970-01-01T00:00:01Z"])),
       st.one_of(st.lists(st.text(max_size=5), max_size=3), st.text(max_size=3),
                 st.lists(st.one_of(st.integers(), st.text(max_size=2)), max_size=2), st.none()))  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_stamp_is_the_same_as_first_written(timestamp, chunks) -> None:
    assert stamp(timestamp, chunks) == _reference_stamp(timestamp, chunks)


def test_one_folder_a_format_reads_whole_holds_nothing(tmp_path):
    """A Slack export (a folder one format reads) is one source, as one file is."""
    import shutil

    from conftest import SAMPLE_DATA

    export = tmp_path / "slack"
    shutil.copytree(SAMPLE_DATA / "chat" / "slack-export", export)
    ingest = Ingest()
    seen = [ingest.run_ids is None for _ in ingest.messages([export])]
    assert seen and all(seen) and not ingest.crossing
    ingest = Ingest()
    list(ingest.messages([export, export]))  # two: held across them
    assert ingest.crossing


def test_a_read_command_reads_a_folder_as_its_files_named(tmp_path):
    """``convo query FOLDER`` gives the ids ``convo query FILE FILE`` gives: a read
    command holds no id across its inputs (an ingest does, and says so)."""
    import json

    from conftest import SAMPLE_DATA
    from convo.pipeline.inputs import record_lines

    export = json.loads((SAMPLE_DATA / "chat" / "discord.json").read_text())
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(export))
    for m in export["messages"]:
        m["content"] += " edited"
        m["timestamp"] = "2030-01-01T00:00:00+00:00"
    (folder / "b.json").write_text(json.dumps(export))

    def ids(inputs):
        lines = record_lines([str(p) for p in inputs], store=None, stdin_has_data=False)
        return [json.loads(line.raw)["id"] for line, _ in lines]

    named = ids([folder / "a.json", folder / "b.json"])
    assert ids([folder]) == named and not any(i.startswith("h:") for i in named)
