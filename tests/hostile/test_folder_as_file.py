"""A folder named with ``--from`` a format that reads files: one located InputError, never
the reader's own IsADirectoryError (the text readers open ``Source.real_path()``, which
gave the folder's path: ``--from whatsapp FOLDER`` was an internal error)."""

from __future__ import annotations

import pytest

from convo.cli.app import app
from convo.core.errors import InputError
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

FILE_FORMATS = sorted(f.name for f in registry.formats() if not f.directory)


@pytest.mark.parametrize("fmt", FILE_FORMATS)
def test_a_folder_given_to_a_file_format_is_one_input_error(tmp_path, fmt):
    (tmp_path / "a.txt").write_text("hello\n")
    ingest = Ingest(format_name=fmt, on_warning=lambda _: None, on_reject=lambda _: None)
    with pytest.raises(InputError) as e:
        list(ingest.messages([tmp_path]))
    assert e.value.where == str(tmp_path)


def test_the_command_line_says_it_in_one_line(runner, tmp_path):
    r = runner.invoke(app, ["ingest", "--from", "whatsapp", str(tmp_path), "-o", "-"])
    assert r.exit_code == 2
    assert f"{tmp_path}: is a directory; this format reads files" in r.output
    assert "internal error" not in r.output
