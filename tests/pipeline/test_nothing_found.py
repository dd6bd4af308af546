"""A folder named on the command line that gives nothing to import says so: one warning
line naming the folder with a hint, in one process and in workers. Before, ``convo ingest
EMPTY/`` (or a folder of hidden files, or of pictures only) said only ``read 0, imported
0 ... (0 sources)``, which reads like success. Nothing was rejected, so the exit code is 0,
as for an empty file; a named folder with conversations in it gives no such warning."""

from __future__ import annotations

import orjson
import pytest

from conftest import records
from convo.cli.app import app

REC = {"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
       "timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "format": "jsonl", "id": "a"}  # fmt: skip


def _warnings(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if "nothing to import" in x]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_empty_folder_says_nothing_was_found(runner, tmp_path, jobs):
    empty = tmp_path / "drop"
    empty.mkdir()
    (empty / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")  # hidden: skipped, as always
    r = runner.invoke(app, ["ingest", str(empty), "-o", "-", "-j", jobs])
    assert r.exit_code == 0, r.output
    assert _warnings(r.stderr) == [
        f"convo: warning: {empty}: nothing to import: the folder holds no files (hidden "
        "ones are skipped); check the path"
    ]
    assert "(0 sources)" in r.stderr and "1 warning above" in r.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_folder_of_files_no_format_claims_says_so_with_the_hint(runner, tmp_path, jobs):
    pics = tmp_path / "pics"
    pics.mkdir()
    for name in ("a.png", "b.png"):
        (pics / name).write_bytes(b"\x89PNG\r\n\x1a\n not a chat")
    r = runner.invoke(app, ["ingest", str(pics), "-o", "-", "-j", jobs])
    assert r.exit_code == 0, r.output
    [said] = _warnings(r.stderr)
    assert said.startswith(f"convo: warning: {pics}: nothing to import: none of its 2 files")
    assert "--from FORMAT" in said


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_only_the_empty_folder_of_several_inputs_is_named(runner, tmp_path, jobs):
    full, empty = tmp_path / "full", tmp_path / "empty"
    full.mkdir()
    empty.mkdir()
    (full / "a.jsonl").write_bytes(orjson.dumps(REC) + b"\n")
    (full / "b.jsonl").write_bytes(orjson.dumps({**REC, "id": "b"}) + b"\n")
    r = runner.invoke(app, ["ingest", str(full), str(empty), "-o", "-", "-j", jobs])
    assert r.exit_code == 0, r.output
    assert len(records(r.stdout)) == 2
    [said] = _warnings(r.stderr)
    assert f": {empty}: nothing to import" in said and str(full) + ":" not in said


def test_a_file_named_alone_that_holds_no_messages_says_so(runner, tmp_path):
    """A Stack Exchange Users.xml named alone (its Posts.xml beside it, which the reader
    leaves to that file) gave "read 0, imported 0" and not a word."""
    (tmp_path / "Posts.xml").write_text('<?xml version="1.0"?>\n<posts>\n</posts>\n')
    users = tmp_path / "Users.xml"
    users.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<users>\n'
        '  <row Id="1" Reputation="1" DisplayName="Ann" CreationDate="2011-10-11T18:16:00.230" />\n'
        "</users>\n"
    )
    r = runner.invoke(app, ["ingest", str(users), "-o", "-"])
    assert r.exit_code == 0, r.output
    assert f"{users}: nothing to import: read as stackexchange, it holds no messages" in r.stderr


def test_an_empty_slack_list_says_so(runner, tmp_path):
    """slackdump writes `[]` for an export's empty dms.json, groups.json, mpims.json: each
    was read as a channel's day of no messages, silently."""
    for name, said in (("dms.json", "Slack export metadata"), ("2024-03-06.json", "empty Slack")):
        path = tmp_path / name
        path.write_text("[]\n")
        r = runner.invoke(app, ["ingest", str(path), "-o", "-", "--from", "slack-file"])
        assert r.exit_code == 0, r.output
        assert said in r.stderr, r.stderr
        assert "nothing to import: read as" not in r.stderr  # the reader's own word is enough
