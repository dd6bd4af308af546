"""The unclear messages of issue 42: each case is one line that names its cause."""

from __future__ import annotations

import warnings
import zipfile

import pytest

from convo.cli.app import app

from .helpers import write_store


@pytest.fixture
def store(tmp_path, runner):
    s = write_store(tmp_path / "s.jsonl")
    assert runner.invoke(app, ["--store", str(s), "index"]).exit_code == 0
    return s


@pytest.mark.parametrize("query", ["-budget", "message -budget", "foo:bar"])
def test_a_dash_or_colon_in_an_fts_search_is_explained(runner, store, query):
    r = runner.invoke(app, ["--store", str(store), "search", "--fts", "--", query])
    assert r.exit_code == 2
    assert "is read as a field name" in r.output and "NOT word" in r.output


@pytest.mark.parametrize("query", ["-budget", "message -budget", "foo:bar"])
def test_a_dash_or_colon_in_what_a_person_types_is_no_error(runner, store, query):
    r = runner.invoke(app, ["--store", str(store), "search", "-f", "jsonl", "--", query])
    assert r.exit_code == 0, r.output
    assert "budget" not in r.stdout


def test_a_quoted_dash_word_is_searched(runner, store):
    r = runner.invoke(app, ["--store", str(store), "search", '"-message"', "-f", "jsonl"])
    assert r.exit_code == 0, r.output


def test_a_zip_bomb_chat_is_named_as_such(runner, tmp_path):
    z = tmp_path / "bomb.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_chat.txt", "[8/15/23, 9:12:33 AM] Alice: Hello\n" + "a" * (200 << 20))
    r = runner.invoke(app, ["ingest", str(z), "-o", "-"])
    assert r.exit_code == 2
    assert "too highly compressed" in r.output
    assert "its chat _chat.txt was not read" in r.output


def test_two_chats_of_one_name_are_refused_with_the_name(runner, tmp_path):
    z = tmp_path / "two.zip"
    with warnings.catch_warnings(), zipfile.ZipFile(z, "w") as zf:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
        zf.writestr("_chat.txt", "[8/15/23, 9:12:33 AM] Alice: Hello\n")
        zf.writestr("_chat.txt", "[8/15/23, 9:12:34 AM] Bob: Other\n")
    r = runner.invoke(app, ["ingest", str(z), "-o", "-"])
    assert r.exit_code == 2
    assert "named more than once" in r.output and "its chat _chat.txt was not read" in r.output
    assert "Other" not in r.stdout
