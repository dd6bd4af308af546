"""What surprised a new user on the command line, each reproduced (branch user7)."""

from __future__ import annotations

from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_the_last_messages_in_store_order_come_from_the_index(tmp_path):
    """`convo list -n 5 --reverse` read the whole store (3.3 s on 100 MB) though the index
    finds the last lines by offset: it is planned there now, with the scan's answer."""
    store = saved_store(tmp_path / "s.jsonl", SAMPLE_DATA, index=True)
    lines = store.read_bytes().splitlines()
    for n in ("1", "5", "1000"):
        r = _run("--store", str(store), "list", "-n", n, "--reverse", "--explain", "-f", "jsonl")
        assert r.exit_code == 0, r.output
        assert "plan: index" in r.stderr
        assert r.stdout_bytes.splitlines() == lines[::-1][: int(n)]
    scanned = _run("--store", str(store), "list", "--reverse", "--explain", "-f", "jsonl")
    assert "plan: scan" in scanned.stderr  # no limit: the whole store, read as it lies
    assert scanned.stdout_bytes.splitlines() == lines[::-1]
    # a store appended to after the index was built: the index follows (or the scan reads)
    extra = b'{"textChunks":["the very last"],"metadata":{"speaker":"Zed","listeners":[]},'
    extra += b'"tags":[],"timestamp":"2025-01-01T00:00:00Z","source_id":"x#1","id":"zz","format":"jsonl"}\n'
    with open(store, "ab") as f:
        f.write(extra)
    r = _run("--store", str(store), "list", "-n", "2", "--reverse", "-f", "jsonl")
    assert r.stdout_bytes.splitlines() == [extra.rstrip(b"\n"), lines[-1]]


def test_date_yesterday_is_yesterday_only(tmp_path):
    """`convo query date:yesterday` counted today's messages too (an open range)."""
    import json
    from datetime import UTC, datetime, timedelta

    today = datetime.now(UTC).date()
    days = {"before": today - timedelta(days=2), "yesterday": today - timedelta(days=1),
            "today": today}  # fmt: skip
    path = tmp_path / "m.jsonl"
    rows = [
        {"id": name, "textChunks": [name], "timestamp": f"{day.isoformat()}T00:00:01Z"}
        for name, day in days.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for word in ("yesterday", "today"):
        r = _run("query", "--tz", "UTC", "-f", "jsonl", f"date:{word}", str(path))
        assert r.exit_code == 0, r.output
        assert [json.loads(line)["id"] for line in r.stdout.splitlines()] == [word]
    r = _run("query", "--tz", "UTC", "--count", f"date:{days['before'].isoformat()}T00", str(path))
    assert r.stdout.strip() == "1"  # that hour, not from then on


def test_reverse_turns_the_rows_of_threads_and_people(tmp_path):
    """`convo threads --reverse` and `convo people --reverse` were accepted and did
    nothing (the rows are sorted after the read): they turn the rows now, so `-n 3
    --reverse` is the three oldest threads, the three least active names."""
    import json

    store = saved_store(tmp_path / "s.jsonl", SAMPLE_DATA)
    for command in ("threads", "people"):
        base = ["--store", str(store), command, "-f", "jsonl"]
        rows = [json.loads(x) for x in _run(*base).stdout.splitlines()]
        turned = [json.loads(x) for x in _run(*base, "--reverse").stdout.splitlines()]
        assert len(rows) > 5 and turned == rows[::-1], command
        last = [json.loads(x) for x in _run(*base, "-n", "3", "--reverse").stdout.splitlines()]
        assert last == rows[::-1][:3], command


def test_stats_and_knowledge_of_a_few_messages_use_the_index(tmp_path):
    """`convo knowledge id:X` and `convo stats -s bob` read the whole store on every core
    (100 MB for one message: 3.9 s) though the index finds the messages at once: they
    take the index's selection now, with the scan's answer (a people file too)."""
    import shutil

    store = saved_store(tmp_path / "s.jsonl", SAMPLE_DATA, index=True)
    bare = tmp_path / "bare.jsonl"  # the same store without an index: the scan
    shutil.copy(store, bare)
    people = tmp_path / "people.toml"
    people.write_text('[people.alice]\nname = "Alice Smith"\nnames = ["Alice Smith", "Alice"]\n')
    queries = [["id:<auth-1@example.org>"], ["-s", "bob"], ["from:alice OR tag:security"],
               ["format:slack", "--since", "2024-03-06T10:00"], ["thread:general"]]  # fmt: skip
    views = [["stats", "-f", "json"], ["knowledge", "-f", "json"], ["knowledge", "-f", "jsonl"]]
    for view in views:
        for query in queries:
            for extra in ([], ["--people", str(people)]):
                args = [*view, *extra, "--tz", "UTC", *query]
                indexed = _run("--store", str(store), *args, "--explain")
                scanned = _run("--store", str(bare), *args)
                assert indexed.exit_code == scanned.exit_code == 0, indexed.output
                assert "plan: index" in indexed.stderr, (args, indexed.stderr)
                assert indexed.stdout == scanned.stdout, args
                assert indexed.stdout.strip() not in ("", "[]")


def test_search_table_names_the_conversation_to_open(tmp_path):
    """The table's thread line under a transcript cue was the cue's own id, and `convo
    show --thread` with it showed that cue alone; it is the conversation now (the file),
    which opens the whole meeting, as `convo threads` lists it."""
    store = saved_store(tmp_path / "s.jsonl", SAMPLE_DATA / "transcripts")
    base = ("--store", str(store))
    r = CliRunner().invoke(
        app, [*base, "search", "-f", "table", "action item"], env={"COLUMNS": "400"}
    )
    assert r.exit_code == 0, r.output
    retro = str(SAMPLE_DATA / "transcripts" / "retro.vtt")
    assert retro in r.stdout, r.stdout
    shown = _run(*base, "show", "--thread", retro, "-f", "jsonl")
    assert len(shown.stdout.splitlines()) > 3
