"""A new user's first hour: each finding reproduced on the command line."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import records
from convo.cli.app import app

REC = (
    '{"textChunks": ["Shall we use tokens?"], "metadata": {"speaker": "Alice", '
    '"listeners": ["Bob"]}, "tags": ["urgent"], "timestamp": "2024-03-06T10:00:00Z"}\n'
)


def _convo(*args: str, input: bytes = b"", env: dict | None = None):
    """convo in its own process, stdin a pipe holding ``input``."""
    return subprocess.run(
        [sys.executable, "-m", "convo", *args], input=input, capture_output=True, env=env
    )


def test_an_empty_pipe_is_no_records_not_an_unknown_format(tmp_path):
    # `convo query tag:none | convo list`: the upstream found nothing; the pipe is still
    # the input (not $CONVO_STORE's store), and it holds no records.
    store = tmp_path / "s.jsonl"
    store.write_text(REC)
    r = _convo("list", "-f", "jsonl", env={**os.environ, "CONVO_STORE": str(store)})
    assert (r.returncode, r.stdout) == (0, b""), r.stderr
    assert b"not recognised" not in r.stderr
    r = _convo("ingest")
    assert r.returncode == 0, r.stderr
    assert b"stdin: empty; nothing imported" in r.stderr


def test_an_empty_or_blank_file_is_read_as_no_records(runner, tmp_path):
    for name, content in (("empty.txt", b""), ("blank.json", b"\n \n"), ("e.jsonl", b"")):
        path = tmp_path / name
        path.write_bytes(content)
        r = runner.invoke(app, ["ingest", str(path)])
        assert r.exit_code == 0, r.stderr
        assert f"{path}: empty; nothing imported" in r.stderr
        assert r.stdout == ""
        r = runner.invoke(app, ["list", "-f", "jsonl", str(path)])
        assert (r.exit_code, r.stdout) == (0, ""), r.stderr


def test_an_empty_file_in_a_folder_is_not_listed_as_unrecognised(runner, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.jsonl").write_text(REC)
    (tmp_path / "d" / "empty.txt").write_bytes(b"")
    r = runner.invoke(app, ["ingest", str(tmp_path / "d")])
    assert r.exit_code == 0, r.stderr
    assert len(records(r.stdout)) == 1
    assert "not recognised" not in r.stderr


def test_tag_without_a_query_shows_a_tag_command_not_rm(runner, tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_text(REC)
    r = runner.invoke(app, ["--store", str(store), "tag", "+todo"])
    assert r.exit_code == 2
    assert "nothing selected; give a query (convo tag +todo -- 'tag:inbox')" in r.stderr
    assert "convo rm" not in r.stderr
    r = runner.invoke(app, ["--store", str(store), "rm"])
    assert "give a query (convo rm 'tag:spam')" in r.stderr


def test_sort_help_says_a_terminal_table_is_newest_first(runner):
    # The table on a terminal lists the newest first (cli/commands/read.py
    # _default_order); the help said "Default: input order".
    r = runner.invoke(app, ["list", "--help"])
    assert "Default: -time in a table on a terminal, else input order" in " ".join(r.stdout.split())


def test_a_caption_export_of_an_archive_reads_back(runner, tmp_path):
    # An unknown time (the 1970 sentinel) then a message of 2024: the cues counted some
    # 474,922 hours (six digits), which the importer rejected as unreadable timings; a
    # dated message after an undated one now starts after the cue before it
    # (docs/export.md), and the cues read back either way.
    store = tmp_path / "s.jsonl"
    undated = REC.replace("2024-03-06T10:00:00Z", "1970-01-01T00:00:00Z").replace("Alice", "Bob")
    store.write_text(undated + REC)
    for to in ("vtt", "srt"):
        out = tmp_path / f"a.{to}"
        r = runner.invoke(app, ["--store", str(store), "export", "--to", to, "-o", str(out)])
        assert r.exit_code == 0, r.stderr
        assert "474922:00:00" not in out.read_text()
        r = runner.invoke(app, ["ingest", str(out)])
        assert r.exit_code == 0, r.stderr
        assert [m["metadata"]["speaker"] for m in records(r.stdout)] == ["Bob", "Alice"]


def test_a_query_word_of_undecodable_bytes_is_a_usage_error(runner, tmp_path):
    # A latin-1 "café" in a UTF-8 shell reaches Python as "caf\udce9" (os.fsdecode):
    # it ended in "internal error (UnicodeEncodeError ...)".
    store = tmp_path / "s.jsonl"
    store.write_text(REC)
    for args in (["-q", "caf\udce9"], ["caf\udce9"], ["-s", "\udcff"], ["--since", "\udcff"]):
        r = runner.invoke(app, ["--store", str(store), "query", "--count", *args])
        assert r.exit_code == 2, r.stderr
        assert "holds bytes that are not utf-8 text; use a UTF-8 locale" in r.stderr
        assert "internal error" not in r.stderr


def test_a_locale_without_the_characters_gets_question_marks_not_an_error(tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_text(REC.replace("Shall we use tokens?", "Café at 3 — ok"))
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0",
           "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}  # fmt: skip
    for view in (["list", "-f", "text"], ["show"]):  # text for the terminal's encoding
        r = _convo("--store", str(store), *view, env=env)
        assert r.returncode == 0, r.stderr
        assert b"Caf? at 3 ? ok" in r.stdout
        said = [line for line in r.stderr.splitlines() if b"written as '?'" in line]
        assert said == [
            b"convo: warning: stdout's encoding (ascii) lacks some characters; they are "
            b"written as '?' (use a UTF-8 locale, or PYTHONIOENCODING=utf-8)"
        ]
    r = _convo("--store", str(store), "list", "-f", "csv", env=env)  # documents: UTF-8
    assert r.returncode == 0 and "Café at 3 — ok".encode() in r.stdout, r.stderr
    assert b"written as" not in r.stderr


VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Alice>Hello\n"


def test_a_file_name_the_locale_cannot_decode_is_read_and_named(runner, tmp_path):
    # A latin-1 name under UTF-8 ("caf\xe9.vtt"): the record's source_id could not be
    # written (internal error "surrogates not allowed"); it holds the bytes as \xe9.
    folder = tmp_path / os.fsdecode(b"d\xe9")
    folder.mkdir()
    name = folder / os.fsdecode(b"caf\xe9.vtt")
    name.write_text(VTT)
    (folder / "b.vtt").write_text(VTT.replace("Hello", "Bye"))
    r = runner.invoke(app, ["ingest", str(name)])
    assert r.exit_code == 0, r.stderr
    [rec] = records(r.stdout)
    assert rec["source_id"] == f"{tmp_path}/d\\xe9/caf\\xe9.vtt#cue-1"
    r = runner.invoke(app, ["list", "-f", "jsonl", str(name)])
    assert r.exit_code == 0 and records(r.stdout) == [rec], r.stderr
    serial = runner.invoke(app, ["ingest", "-j", "1", str(folder)])
    parallel = runner.invoke(app, ["ingest", "-j", "2", str(folder)])
    assert serial.exit_code == parallel.exit_code == 0, serial.stderr + parallel.stderr
    assert serial.stdout == parallel.stdout
    assert [r["textChunks"] for r in records(serial.stdout)] == [["Bye"], ["Hello"]]


def test_a_tag_of_undecodable_bytes_is_a_usage_error(runner, tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_text(REC)
    for args in (["tag", "+\udcff", "from:alice"], ["ingest", "-t", "\udcff", "-"]):
        r = runner.invoke(app, ["--store", str(store), *args], input=REC)
        assert r.exit_code == 2, r.stderr
        assert "'\\xff' holds bytes that are not utf-8 text" in r.stderr
    assert store.read_text() == REC


def test_the_query_language_in_help_fits_an_80_column_terminal(runner):
    # The field table is printed as written (\b): its lines were up to 90 columns, so
    # an 80-column terminal broke them mid-row.
    r = runner.invoke(app, ["query", "--help"], env={"COLUMNS": "80"})
    assert r.exit_code == 0
    assert "from:NAME, speaker:NAME" in r.stdout
    assert [line for line in r.stdout.splitlines() if len(line) > 80] == []


def test_search_without_a_store_says_so(runner, tmp_path):
    # It printed nothing and exited 0, where every other read command says why.
    missing = tmp_path / "none.jsonl"
    for words in (["search", "jwt"], ["search", "-f", "jsonl", "jwt"]):
        r = runner.invoke(app, ["--store", str(missing), *words])
        assert r.exit_code == 2
        assert f"{missing}: no store yet; create it with `convo ingest FILE --save`" in r.stderr
    r = _convo("--store", str(missing), "search", "jwt")  # the fast path (cli/fast_search.py)
    assert r.returncode == 2 and b"no store yet" in r.stderr


def test_a_missing_store_writes_nothing_before_the_error(runner, tmp_path):
    # `convo export --to openai` wrote "[" and `list -f csv` its header, then the error.
    missing = tmp_path / "none.jsonl"
    for args in (["list", "-f", "csv"], ["list", "-f", "json"], ["export", "--to", "openai"],
                 ["export", "--to", "markdown"], ["stats", "-f", "csv"]):  # fmt: skip
        r = runner.invoke(app, ["--store", str(missing), *args])
        assert (r.exit_code, r.stdout) == (2, ""), args
        assert f"{missing}: no store yet" in r.stderr
