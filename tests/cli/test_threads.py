"""``convo threads``: one row per conversation, newest first, with the id show takes."""

from __future__ import annotations

import orjson
import pytest
from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("threads") / "store.jsonl"
    saved_store(path, SAMPLE_DATA)
    return path


def _run(store, *argv, env=None):
    r = CliRunner().invoke(app, ["--store", str(store), *argv], env=env)
    assert r.exit_code == 0, r.output
    return r


def test_one_row_per_thread_newest_first_with_the_id_show_takes(store):
    rows = [orjson.loads(x) for x in _run(store, "threads", "format:mbox").stdout.splitlines()]
    assert [r["thread"] for r in rows][-1] == "<auth-1@example.org>"
    auth = rows[-1]
    assert auth["title"] == "Auth refactor: JWT vs sessions" and auth["messages"] == 3
    assert auth["participants"][0].startswith("Alice Smith")
    latest = [r["latest"] for r in rows]
    assert latest == sorted(latest, reverse=True)
    shown = _run(store, "show", "-f", "jsonl", "--thread", auth["thread"]).stdout
    assert len(shown.splitlines()) == auth["messages"]


def test_the_query_and_the_row_limit(store):
    every = _run(store, "threads").stdout.splitlines()
    two = _run(store, "threads", "-n", "2").stdout.splitlines()
    assert two == every[:2]
    alice = [orjson.loads(x) for x in _run(store, "threads", "from:alice").stdout.splitlines()]
    assert alice and all(any("Alice" in p for p in r["participants"]) for r in alice)


def test_a_table_on_a_terminal_keeps_times_and_ids_whole(store):
    r = _run(store, "threads", "-n", "3", env={"CONVO_FORCE_TTY": "1", "COLUMNS": "80"})
    assert "…" not in "".join(line[:22] for line in r.stdout.splitlines())  # the times
    rows = [orjson.loads(x) for x in _run(store, "threads", "-n", "3").stdout.splitlines()]
    flat = r.stdout.replace("\n", "").replace(" ", "")
    assert all(row["thread"].replace(" ", "") in flat for row in rows)


@pytest.mark.parametrize("index", ["1", ""])
def test_a_file_without_threads_is_one_conversation(store, index):
    """A transcript's cues and a WhatsApp chat carry no thread: the file they came from
    is their conversation, in `threads`, `thread:ID`, `show --thread` and Store.thread,
    from the index and from the scan alike."""
    from convo.store import Store

    env = {"CONVO_NO_INDEX": index}
    rows = [
        orjson.loads(x) for x in _run(store, "threads", "format:vtt", env=env).stdout.splitlines()
    ]
    assert sorted(r["thread"].rsplit("/", 1)[1] for r in rows) == ["retro.vtt", "standup.vtt"]
    standup = next(r for r in rows if r["thread"].endswith("standup.vtt"))
    assert standup["messages"] == 7 and standup["participants"][0] == "Alice Smith"
    n = _run(store, "query", "--count", f"thread:{standup['thread']}", env=env).stdout
    assert int(n) == 7
    shown = _run(store, "show", "-f", "jsonl", "--thread", standup["thread"], env=env).stdout
    cues = [orjson.loads(x) for x in shown.splitlines()]
    assert len(cues) == 7 and all(c["format"] == "vtt" for c in cues)
    assert [c["id"] for c in Store(store).thread(cues[3]["id"])] == [c["id"] for c in cues]
    chat = _run(store, "threads", "format:whatsapp", env=env).stdout.splitlines()
    assert len(chat) == 1 and orjson.loads(chat[0])["thread"].endswith("whatsapp.txt")


def test_a_root_without_a_thread_field_heads_its_replies_thread(tmp_path):
    """A root that carries no thread, whose replies name its id as their thread (what
    docs/library.md writes), is listed with them, not under its file."""
    path = tmp_path / "s.jsonl"
    recs = [
        {"textChunks": ["root"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
         "timestamp": "2024-01-01T00:00:00Z", "source_id": "x.jsonl:1", "id": "a1"},
        {"textChunks": ["reply"], "metadata": {"speaker": "B", "listeners": []}, "tags": [],
         "timestamp": "2024-01-01T00:01:00Z", "source_id": "x.jsonl:2", "id": "b1",
         "thread": "a1", "replyTo": "a1"},
    ]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    rows = [orjson.loads(x) for x in _run(path, "threads").stdout.splitlines()]
    assert [(r["thread"], r["messages"]) for r in rows] == [("a1", 2)]


@pytest.mark.parametrize("command", ["threads", "people", "formats"])
def test_summary_rows_are_one_list_in_every_format(store, command):
    """``-f json``, ``jsonl`` and ``csv`` of a summary are one list of rows
    (``output.views.rows.dicts_bytes``): the same rows, a spreadsheet cell escaped."""
    import csv
    import io

    from convo.core.text.markup import csv_cell

    def rows(fmt: str) -> str:
        return _run(store, command, "-f", fmt).stdout

    lines = [orjson.loads(x) for x in rows("jsonl").splitlines()]
    whole = orjson.loads(rows("json"))
    if command == "people":  # its JSON holds persons and merges beside the names
        whole = whole["identities"]
    assert lines == whole and lines
    table = list(csv.reader(io.StringIO(rows("csv"))))
    assert table[0] == list(lines[0]) and len(table) == len(lines) + 1
    first = lines[0][table[0][0]]
    assert table[1][0] == csv_cell(str(first))


def test_a_formula_in_a_thread_title_is_text_in_csv(tmp_path):
    path = tmp_path / "s.jsonl"
    record = {"textChunks": ["=HYPERLINK(\"http://x\")"], "metadata": {"speaker": "=1+1",
              "listeners": []}, "tags": [], "timestamp": "2024-01-01T00:00:00Z", "id": "f1",
              "thread": "t1"}  # fmt: skip
    path.write_bytes(orjson.dumps(record) + b"\n")
    out = _run(path, "threads", "-f", "csv").stdout.splitlines()
    assert out[0] == "thread,title,messages,participants,first,latest,formats"
    assert "'=HYPERLINK" in out[1] and "'=1+1" in out[1]
