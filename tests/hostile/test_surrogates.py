"""Lone surrogates reach convo two ways: a command-line word in bytes the locale does
not decode (Python keeps them as ``\\udcXX``) and a JSON ``\\ud800`` a program passes to
the Store API. ``convo search`` with such a word, and ``Store.search``, ``get``,
``thread`` and ``tag`` given one, were internal errors (UnicodeEncodeError, from
SQLite or orjson); ``check_decoded`` itself raised one for a surrogate that is no
undecoded byte. And ``rm``/``tag`` by id met a record whose id is a list (a record by
the one record rule) with a TypeError."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app
from convo.core.errors import UsageError, check_decoded
from convo.store import Store

from .helpers import record, write_store


@pytest.fixture
def store(tmp_path, runner):
    path = write_store(tmp_path / "s.jsonl", 5)
    assert runner.invoke(app, ["--store", str(path), "index"]).exit_code == 0
    return path


@pytest.mark.parametrize("word", ["\ud800", "caf\udce9"])
def test_check_decoded_says_it_in_words(word):
    with pytest.raises(UsageError) as e:
        check_decoded(word)
    assert "holds bytes that are not" in e.value.what


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.search("x\ud800"),
        lambda s: s.search("\udcff", fts=True),
        lambda s: s.get("m\ud800"),
        lambda s: s.thread("\ud800"),
        lambda s: s.count("\ud800"),
        lambda s: s.tag("id:m1", add=["\ud800"]),
    ],
)
def test_the_store_api_refuses_a_lone_surrogate(store, call):
    with pytest.raises(UsageError):
        call(Store(store))


def test_search_with_a_word_the_locale_did_not_decode(runner, store):
    r = runner.invoke(app, ["--store", str(store), "search", "caf\udce9"])
    assert r.exit_code == 2
    assert "'caf\\xe9' holds bytes that are not" in r.output
    assert "internal error" not in r.output


def test_rm_and_tag_by_id_pass_a_record_whose_id_is_a_list(runner, tmp_path):
    path = write_store(tmp_path / "s.jsonl", 3)
    with path.open("ab") as f:
        f.write(orjson.dumps(record(9, id=["m1"])) + b"\n")
    r = runner.invoke(app, ["--store", str(path), "tag", "add", "x", "id:m1"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["--store", str(path), "rm", "id:m2"])
    assert r.exit_code == 0, r.output
    assert Store(path).remove(ids=["m1"]).changed == 1  # the line of ["m1"] is read too
