"""A file named with ``--from`` a format that reads nothing of it: ``specstory``,
``discord-txt`` and ``discord-html`` on text, or ``letta``, ``librechat``,
``mattermost``... on a JSON object without their keys, imported nothing and said
nothing (read 0, rejected 0, no warning): the content gone without a word."""

from __future__ import annotations

import pytest

from convo.cli.app import app
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

FILE_FORMATS = sorted(f.name for f in registry.formats() if not f.directory)


@pytest.mark.parametrize("fmt", FILE_FORMATS)
@pytest.mark.parametrize(
    "content", [b"some words here\nmore words\n", b'{"unrelated": true}', b"\x00\x00"]
)
def test_no_forced_format_reads_a_file_to_nothing_unsaid(tmp_path, fmt, content):
    path = tmp_path / "input.txt"
    path.write_bytes(content)
    rejects, warnings = [], []
    ingest = Ingest(format_name=fmt, on_reject=rejects.append, on_warning=warnings.append)
    try:
        messages = list(ingest.messages([path]))
    except Exception as e:  # convo's one-line errors only
        assert type(e).__module__.startswith("convo."), repr(e)
        return
    assert messages or rejects or warnings


def test_it_is_said_in_one_line(runner, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("some words here\n")
    r = runner.invoke(app, ["ingest", "--from", "specstory", str(path), "-o", "-"])
    assert r.exit_code == 0
    assert f"{path}: nothing in it reads as specstory, so nothing was imported" in r.stderr


def test_an_empty_file_is_no_news(runner, tmp_path):
    path = tmp_path / "empty.md"
    path.write_text("\n \n")
    r = runner.invoke(app, ["ingest", "--from", "specstory", str(path), "-o", "-"])
    assert "nothing in it reads" not in r.stderr
