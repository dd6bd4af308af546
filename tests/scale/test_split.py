"""One large file split into ranges (``pipeline.split``): the bytes, rejects, warnings and
summary of one process, whatever the ranges."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from bigfiles import jsonl_file, mbox_file
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA, corpus_dir
from convo.core.jsonl import dumps
from convo.core.record import content_id, parse_record
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest
from convo.pipeline.parallel import ParallelIngest
from convo.pipeline.plan import plan_units
from convo.pipeline.split import split_units
from convo.store.lines import ReadyBlock

SMALL = 2048  # ranges of a few KiB, so a test file is cut many times


def _run(make, paths, **kw):
    rejects, warnings = [], []
    ingest = make(on_reject=rejects.append, on_warning=warnings.append, **kw)
    out = b"".join(dumps(m.serialize()) for m in ingest.messages(paths))
    return out, [r.to_record() for r in rejects], warnings, ingest.stats


def _same(paths, *, options=None, format_name=None, part_size=SMALL):
    one = _run(Ingest, paths, options=options, format_name=format_name)
    two = _run(ParallelIngest, paths, options=options, format_name=format_name, jobs=2,
               part_size=part_size)  # fmt: skip
    assert two[0] == one[0]
    assert two[1:] == one[1:]
    blocks = _blocks(paths, options=options, format_name=format_name, part_size=part_size)
    assert blocks == one[0]
    return one


def _blocks(paths, **kw) -> bytes:
    """What a sink gets from ``ParallelIngest(blocks=True)``: the workers' blocks."""
    ingest = ParallelIngest(jobs=2, blocks=True, **kw)
    items = list(ingest.messages(paths))
    assert all(type(i) is ReadyBlock for i in items)
    out = b"".join(i.line for i in items)
    assert sum(i.count for i in items) == out.count(b"\n")
    return out


def _parts(path: Path, part_size: int = SMALL) -> int:
    units = split_units(plan_units([path]), None, 2, part_size)
    return sum(1 for u in units if u.part is not None)


def test_mbox_split_is_byte_identical(tmp_path: Path) -> None:
    path = mbox_file(tmp_path / "big.mbox", 600)
    assert _parts(path) > 10
    out, rejects, warnings, stats = _same([path])
    assert rejects and warnings and stats.sources == 1
    records = [orjson.loads(x) for x in out.splitlines()]
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids) and any(i.endswith("-3") for i in ids)
    assert records[-1]["source_id"].endswith("#msg-600")
    assert rejects[-1]["where"].startswith(f"{path}:")


def test_mboxrd_decided_on_the_whole_file(tmp_path: Path) -> None:
    path = mbox_file(tmp_path / "rd.mbox", 300, mboxrd=True)
    assert _parts(path) > 5
    out, *_ = _same([path])
    assert b"\\nFrom the archive" in out and b">From the archive" not in out


def test_jsonl_split_is_byte_identical(tmp_path: Path) -> None:
    path = jsonl_file(tmp_path / "big.jsonl")
    assert _parts(path) > 10
    out, rejects, _, stats = _same([path], options=ImportOptions(tags=["t"]))
    assert stats.rejected == len(rejects) > 70
    assert rejects[-1]["reason"].startswith("truncated last line")
    assert rejects[-1]["where"] == f"{path}:3001"
    records = [orjson.loads(x) for x in out.splitlines()]
    assert records[-1]["source_id"] == f"{path}#{len(records)}"
    from convo.core.record import parse_record

    again = parse_record(records[-1] | {"id": None}, "x")
    base = content_id(again, conversation=path.name)  # the conversation is the file's name
    repeats = [r["id"] for r in records if r["id"].startswith(base)]
    assert repeats[:2] == [base, content_id(again, 1, conversation=path.name)]


def test_a_file_with_a_bom_or_a_preamble_is_read_whole(tmp_path: Path) -> None:
    jsonl = tmp_path / "bom.jsonl"
    rec = b'{"textChunks": ["x"], "metadata": {}, "tags": [], "timestamp": "2024-01-01T00:00:00Z"}'
    jsonl.write_bytes(b"\xef\xbb\xbf" + b"\n".join([rec] * 500) + b"\n")
    mbox = mbox_file(tmp_path / "pre.mbox", 200)
    mbox.write_text("a preamble line\n" + mbox.read_text())
    gz = SAMPLE_DATA / "email"
    assert _parts(jsonl) == _parts(mbox) == 0
    _same([jsonl, mbox, gz])


def test_a_bom_inside_the_file_is_read_as_one_process_reads_it(tmp_path: Path) -> None:
    """A UTF-8 BOM at the start of a line inside the file (files joined with ``cat``): a
    range's reader drops a BOM on its own first line, so a cut never falls on such a line
    (``record_start``). The sequential reader is the reference: a JSONL line with a BOM is
    rejected (not JSON), an mbox ``From`` line with one is body text, whatever the cuts."""
    rec = (
        b'{"textChunks": ["x%d"], "metadata": {}, "tags": [], "timestamp": "2024-01-01T00:00:00Z"}'
    )
    jsonl = tmp_path / "joined.jsonl"
    lines = [(b"\xef\xbb\xbf" if i % 3 == 1 else b"") + rec % i for i in range(600)]
    jsonl.write_bytes(b"\n".join(lines) + b"\n")
    mbox = mbox_file(tmp_path / "joined.mbox", 300)
    mbox.write_bytes(mbox.read_bytes().replace(b"\nFrom ", b"\n\xef\xbb\xbfFrom ", 50))
    assert _parts(jsonl) > 10 and _parts(mbox) > 10
    _, rejects, _, _ = _same([jsonl])
    assert len(rejects) == 200 and all("byte order mark" in r["reason"] for r in rejects)
    assert rejects[0]["where"] == f"{jsonl}:2"
    out, _, _, stats = _same([mbox])
    assert stats.imported < 300 and b"\\n" + "\ufeffFrom ".encode() in out  # body text


def _with_content_length(text: str, *, inner: str) -> str:
    """``text`` (an mbox) with one message in its middle made mboxcl2: its body ``inner``
    and a ``Content-Length`` over it, as Dovecot and Solaris mail write one."""
    body = f"{inner}\n"
    mail = (
        "From cl@example.org Wed Mar  6 10:00:00 2024\nFrom: cl@example.org\n"
        "Message-ID: <cl@example.org>\nDate: Wed, 6 Mar 2024 10:00:00 +0000\n"
        f"Content-Length: {len(body)}\n\n{body}\n"
    )
    middle = text.index("\nFrom ", len(text) // 2) + 1
    return text[:middle] + mail + text[middle:]


def test_a_content_length_over_a_separator_keeps_the_file_whole(tmp_path: Path) -> None:
    """A message whose trusted Content-Length holds an envelope-like line: cutting at that
    line would read two messages where one process reads one, so the file is read whole."""
    path = mbox_file(tmp_path / "cl.mbox", 300)
    inner = "From old@example.org Tue Mar  5 09:00:00 2024\nFrom: old@example.org\n\nquoted"
    path.write_text(_with_content_length(path.read_text(), inner=inner))
    # a length over no separator line: the file is still cut
    plain = mbox_file(tmp_path / "plain.mbox", 300)
    plain.write_text(_with_content_length(plain.read_text(), inner="no envelope line here"))
    assert _parts(path) == 0 and _parts(plain) > 10
    out, *_ = _same([path, plain])
    (line,) = [x for x in out.splitlines() if b"From old@example.org" in x]
    assert b'"<cl@example.org>"' in line


def test_small_files_are_not_split() -> None:
    assert _parts(SAMPLE_DATA, part_size=16 << 20) == 0


def test_corpus_mbox_files_split(tmp_path: Path) -> None:
    folder = corpus_dir() / "mbox"
    if not folder.is_dir():
        pytest.skip(f"corpus not found at {folder}")
    files = sorted(p for p in folder.iterdir() if p.stat().st_size > 8 * SMALL)
    assert any(_parts(p) > 2 for p in files)
    for path in files:
        _same([path])


def test_cli_jobs_2_on_one_large_file(runner, tmp_path: Path, monkeypatch) -> None:
    """``convo ingest FILE --jobs 2``: the output file and the summary of ``--jobs 1``."""
    from convo.cli.app import app
    from convo.pipeline import split

    monkeypatch.setattr(split, "PART_BYTES", 8 * SMALL)
    path = mbox_file(tmp_path / "big.mbox", 300)
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / "out.jsonl"  # the summary names it
        r = runner.invoke(app, ["ingest", str(path), "-o", str(out), "--jobs", jobs])
        assert r.exit_code == 1  # some messages are rejected
        results.append((out.read_bytes(), r.stderr))
    assert results[0] == results[1]
    assert _parts(path, 8 * SMALL) > 2


def _read_at_lines(source, ctx):
    """A plug-in's reader: ``@speaker text`` lines, no ids, no source_ids; a text starting
    with "bad" gets a time ``check_message`` refuses."""
    from convo.importers.build import message

    with source.open() as f:
        for line in f:
            if line.startswith(b"@"):
                speaker, _, text = line[1:].decode().rstrip("\n").partition(" ")
                when = "not a time" if text.startswith("bad") else "2024-01-01T00:00:00Z"
                yield message(text, speaker=speaker, timestamp=when)


@pytest.fixture
def at_lines():
    """A third-party line format with a ``record_start``, so its files are split."""
    from convo.importers.registry import Format, registry

    fmt = Format(
        name="at-lines", family="chat", description="test lines", patterns=("*.at",),
        sniff=lambda source: 0, read=_read_at_lines,
        record_start=lambda line: line.startswith(b"@"),
    )  # fmt: skip
    registry.register(fmt)
    yield fmt.name
    registry.unregister(fmt.name)


def test_refused_messages_of_ranges_are_numbered_as_one_process(tmp_path: Path, at_lines) -> None:
    """A message ``check_message`` refuses in a later range, without a source_id of its own
    and with a repeated content id: its reject names ``name#N`` (N counted over the whole
    file, refused messages included) and keeps the file's ids, as with one process."""
    path = tmp_path / "talk.at"
    lines = [f"@p{i % 3} {'bad' if i % 40 == 39 else 'same'} {i % 7}\n" for i in range(3000)]
    path.write_text("".join(lines))
    assert _parts(path) < 2  # the plug-in is not detected: it is only read when named
    units = split_units(plan_units([path]), registry_format(at_lines), 2, SMALL)
    assert len(units) > 10
    out, rejects, _, stats = _same([path], format_name=at_lines)
    assert len(rejects) == stats.rejected == 75
    assert rejects[-1]["where"] == f"{path}#3000"
    ids = [r["raw"]["id"] for r in rejects]
    assert len(set(ids)) == len(ids) and any(i.endswith("-2") for i in ids)
    sids = [orjson.loads(x)["source_id"] for x in out.splitlines()]
    assert sids[-1] == f"{path}#2999"


def registry_format(name: str):
    from convo.importers.registry import registry

    return registry.get(name)


def test_count_range_counts_lines_as_a_file_reads_them(tmp_path: Path) -> None:
    """Lone carriage returns, CRLF, a last line without a newline: the lines a file
    iterates, whatever the block edges."""
    from convo.core.ranges import Range
    from convo.pipeline import split

    path = tmp_path / "odd.mbox"
    body = b"".join(
        b"From a@b Mon Jan  1 10:00:00 2024\r\nSubject: x\rFrom y\n\nFrom not a line start\n"
        for _ in range(300)
    )
    path.write_bytes(body + b"From a@b Mon Jan  1 10:00:00 2024")
    size = path.stat().st_size
    with open(path, "rb") as f:
        want = sum(1 for _ in f)
    for block in (7, 64, 1 << 20):
        split.COUNT_BLOCK = block
        try:
            assert split.count_range(Range(str(path), 0, size), "mbox") == (want, 301)
        finally:
            split.COUNT_BLOCK = 1 << 20


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [b"From a@b Mon Jan  1 10:00:00 2024", b"From here", b"From ", b"x From a@b",
             b"Subject: x", b"", b"\r", b">From a@b Mon Jan  1 10:00:00 2024", b"From\tx"]
        ),
        max_size=40,
    ),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
    st.sampled_from([1, 5, 64, 1 << 20]),
)  # fmt: skip
def test_count_range_tests_only_prefixed_lines(tmp_path_factory, lines, end, last, block) -> None:
    """Counting only the lines that begin with the format's ``record_prefix`` gives what
    testing every line of the file gives."""
    from convo.core.ranges import Range
    from convo.importers.email.mbox import is_separator
    from convo.pipeline import split

    body = end.join(lines) + (end if last else b"")
    path = tmp_path_factory.mktemp("count") / "a.mbox"
    path.write_bytes(body)
    with open(path, "rb") as f:
        every = f.readlines()
    old, split.COUNT_BLOCK = split.COUNT_BLOCK, block
    try:
        got = split.count_range(Range(str(path), 0, len(body)), "mbox")
    finally:
        split.COUNT_BLOCK = old
    assert got == (len(every), sum(map(is_separator, every)))


def test_even_units_are_not_split(tmp_path: Path) -> None:
    """Files that already spread evenly over the workers are read whole (no counting
    pass); one large file, or an odd number of them, is cut."""
    from convo.pipeline.split import uneven

    files = [mbox_file(tmp_path / f"{i}.mbox", 100) for i in range(4)]
    assert not uneven(plan_units(files), 2)
    assert uneven(plan_units(files[:3]), 2) and uneven(plan_units(files[:1]), 2)
    assert not uneven(plan_units(files[:1]), 1)


def test_save_with_jobs_2_is_the_store_of_jobs_1(tmp_path: Path) -> None:
    """``--save``: the workers' lines go to the store as they are, deduplicated as with
    one process (a second ingest adds nothing)."""
    from convo.pipeline.run import run_ingest

    path = mbox_file(tmp_path / "big.mbox", 300)
    stores, summaries = [], []
    for jobs in (1, 2):
        store = tmp_path / f"store-{jobs}.jsonl"
        for _ in range(2):
            summary = run_ingest([str(path)], ImportOptions(), save=True, store=str(store),
                                 jobs=jobs)  # fmt: skip
            summaries.append((summary.appended, summary.stats.imported))
        stores.append(store.read_bytes())
    assert stores[0] == stores[1]
    assert summaries[:2] == summaries[2:]
    assert summaries[1][0].added == 0 and summaries[1][0].duplicates == summaries[0][0].added


def _record(i: int, rid: str, text: str | None = None) -> bytes:
    return dumps({"textChunks": [text or f"message {i} " + "x" * 40],
                  "metadata": {"speaker": "Ann", "listeners": []}, "tags": [],
                  "timestamp": "2024-01-01T00:00:00Z", "source_id": f"s#{i}", "id": rid,
                  "format": "jsonl"})  # fmt: skip


@given(st.lists(st.tuples(st.integers(0, 399), st.sampled_from(["a", "b", "c"]),
                          st.sampled_from(["one", "two"])), max_size=12))  # fmt: skip
@settings(max_examples=15, deadline=None)
def test_an_id_two_ranges_give_two_messages_is_not_shared(tmp_path_factory, dups) -> None:
    """The pipeline holds a reader's id to one message of the file (``Finisher``): a range
    cannot see the others', so ``FileNumbers`` decides; the ids, and the file's one
    warning, are one process's, and no two different messages share an id."""
    path = tmp_path_factory.mktemp("own") / "own.jsonl"
    given_ids = {i: (rid, text) for i, rid, text in dups}
    with path.open("wb") as f:
        for i in range(400):
            rid, text = given_ids.get(i, (f"m{i}", None))
            f.write(_record(i, rid, text))
    assert _parts(path) > 10
    out, _, warnings, stats = _same([path])
    records = [orjson.loads(x) for x in out.splitlines()]
    by_id: dict[str, set] = {}
    for r in records:
        by_id.setdefault(r["id"], set()).add(tuple(r["textChunks"]))
    assert all(len(texts) == 1 for texts in by_id.values())
    clashes = [w for w in warnings if "the id of another message" in w]
    assert len(clashes) == any(r["id"].startswith("h:") for r in records)
    assert stats.warnings == len(warnings)


def test_an_id_repeated_in_a_later_range_gets_the_content_hash(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_bytes(b"".join(_record(i, "dup" if i in (3, 390) else f"m{i}") for i in range(400)))
    assert _parts(path) > 10
    out, _, warnings, stats = _same([path])
    ids = [orjson.loads(x)["id"] for x in out.splitlines()]
    assert ids[3] == "dup" and ids[390].startswith("h:") and len(set(ids)) == 400
    assert warnings[-1] == f"{path}: 1 message repeats the id of another message (other text, speaker or time): given its content hash"  # fmt: skip
    assert stats.warnings == 1


def test_a_message_id_two_ranges_of_a_mailbox_give_is_held_as_one_process_holds_it(tmp_path):
    import re

    path = mbox_file(tmp_path / "dup.mbox", 300)
    text = path.read_text()
    ids = re.findall(r"(?im)^Message-ID: (.*)$", text)
    path.write_text(text.replace(ids[250], ids[5]))
    assert _parts(path) > 10
    out, _, warnings, _ = _same([path])
    assert sum("the id of another message" in w for w in warnings) == 1
    records = [orjson.loads(x) for x in out.splitlines()]
    assert sum(r["id"] == ids[5] for r in records) == 1


def test_own_digest_takes_any_text():
    """A message the check will refuse (a lone surrogate in its text) is digested too: it
    was orjson's TypeError before the refusal (an internal error)."""
    from convo.importers.build import message
    from convo.pipeline.split import own_digest

    a = message(["a\udc80b"], speaker="x", timestamp="2024-01-01T00:00:00Z", id="z")
    b = message(["a\udc81b"], speaker="x", timestamp="2024-01-01T00:00:00Z", id="z")
    assert own_digest(a) != own_digest(b) and own_digest(a) == own_digest(a)


def test_an_id_repeated_with_a_time_in_another_zone_gets_one_process_s_hash(tmp_path):
    """The content hash a clashing message gets is one process's: ``Finisher`` hashes the
    time the reader gave, the split file's parent the finished record's (``FileNumbers``);
    the same while the readers of split formats write times in UTC (``parse_record``
    turns ``+02:00`` into ``Z``), which this holds them to."""
    path = tmp_path / "dup.jsonl"

    def line(i: int) -> bytes:
        record = orjson.loads(_record(i, "dup" if i in (3, 390) else f"m{i}"))
        if i == 390:
            record["timestamp"] = "2024-01-01T02:00:00+02:00"
        return dumps(record)

    path.write_bytes(b"".join(map(line, range(400))))
    assert _parts(path) > 10
    out, _, _, _ = _same([path])
    assert orjson.loads(out.splitlines()[390])["id"].startswith("h:")


def _timed(i: int, rid: str, text: str, when: str) -> bytes:
    return dumps({"textChunks": [text], "metadata": {"speaker": "Ann", "listeners": []},
                  "tags": [], "timestamp": when, "source_id": f"s#{i}", "id": rid,
                  "format": "jsonl"})  # fmt: skip


TIMES = ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "1970-01-01T00:00:00Z"]


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 199),
                          st.sampled_from(["x", "y"]), st.sampled_from(["one", "two"]),
                          st.sampled_from(TIMES)), max_size=10))  # fmt: skip
@settings(max_examples=15, deadline=None)
def test_an_id_two_sources_give_two_messages_is_not_shared(tmp_path_factory, dups) -> None:
    """Across the sources of one run (``core.stamps.RunIds``): split files (a, c) and a
    file read whole (b), in workers and in one process, give the same ids, and no id
    names two messages of other times and texts."""
    from convo.core.stamps import other_message, record_stamp

    folder = tmp_path_factory.mktemp("cross")
    given_ids = {(f, i): rest for f, i, *rest in dups}
    paths = []
    for name, n in (("a", 200), ("b", 4), ("c", 200)):
        path = folder / f"{name}.jsonl"
        with path.open("wb") as f:
            for i in range(n):
                rid, text, when = given_ids.get(
                    (name, i), (f"{name}{i}", f"m{i} " + "x" * 40, TIMES[0])
                )
                f.write(_timed(i, rid, text, when))
        paths.append(path)
    assert _parts(paths[0]) > 5 and _parts(paths[1]) == 0
    out, _, warnings, stats = _same(paths)
    held: dict[str, int] = {}
    for record in map(orjson.loads, out.splitlines()):
        mark = record_stamp(record)
        first = held.setdefault(record["id"], mark)
        assert not other_message(first, mark)
    assert stats.warnings == len(warnings)


def test_an_id_an_earlier_file_gave_another_message_gets_the_content_hash(tmp_path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"".join(_timed(i, f"a{i}", f"m{i} " + "x" * 40, TIMES[0]) for i in range(200)))
    b.write_bytes(
        _timed(0, "a150", "other", TIMES[1]) + _timed(1, "a151", "m151 " + "x" * 40, TIMES[1])
    )
    assert _parts(a) > 5
    out, _, warnings, _ = _same([a, b])
    records = [orjson.loads(x) for x in out.splitlines()]
    assert records[200]["id"] == content_id(parse_record(records[200], "")) != "a150"
    assert records[201]["id"] == "a151"  # the same text at another time: the same message
    assert warnings == [f"{b}: 1 message gives an id an earlier input gave another message (of another time and text): given its content hash"]  # fmt: skip


def test_a_file_that_breaks_off_gives_no_warning_of_its_ids_as_in_one_process(tmp_path) -> None:
    """A file whose read fails part-way (a JSON export cut short) is one rejection: the
    messages before the break are kept, and, as one process stops there, its warnings
    (its own clashes, the ids an earlier input gave other messages) are not given."""
    import json

    export = json.loads((SAMPLE_DATA / "chat" / "discord.json").read_text())
    (tmp_path / "a.json").write_text(json.dumps(export))
    for m in export["messages"]:
        m["content"] += " edited"
        m["timestamp"] = "2030-01-01T00:00:00+00:00"
    cut = json.dumps(export, indent=1)
    (tmp_path / "b.json").write_text(cut[:-60])
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    out, rejects, warnings, stats = _same(paths)
    assert len(out.splitlines()) == 9 and [r["where"] for r in rejects] == [f"{paths[1]}:175"]
    assert warnings == [] and stats.warnings == 0


def test_a_hash_id_repeated_in_a_later_range_gets_the_content_hash(tmp_path: Path) -> None:
    """An ``h:`` id read back from JSONL is a reader's id like any other: held to one
    message across the ranges as one process holds it (it was exempt: two messages)."""
    path = tmp_path / "dup.jsonl"
    dup = "h:0123456789abcdef01234567"
    path.write_bytes(b"".join(_record(i, dup if i in (3, 390) else f"m{i}") for i in range(400)))
    assert _parts(path) > 10
    out, _, warnings, _ = _same([path])
    ids = [orjson.loads(x)["id"] for x in out.splitlines()]
    assert ids[3] == dup and ids[390] != dup and len(set(ids)) == 400
    assert "1 message repeats the id of another message" in warnings[-1]
