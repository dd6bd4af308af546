"""The Store API as a library user meets it: odd store files and concurrent writers.

A store that is a directory, a FIFO, a device, a dangling or looping link, or sits under
a file is one ``InputError`` (``convo.core.errors``) at ``Store(path)``; an empty file is
an empty store; a torn last line is skipped by readers and moved aside by the next
append; two appenders take turns under the lock (``tests/store/test_store.py``). Here:
what was found wrong and fixed, each with the path it took."""

from __future__ import annotations

import errno
import importlib
import os

import orjson
import pytest

from convo import Store
from convo.cli.app import app
from convo.core.errors import InputError
from convo.store import append as store_append

index_search = importlib.import_module(
    "convo.index.search"
)  # the package binds a function to that name


def _line(i: int, pad: int = 0) -> bytes:
    rec = {"textChunks": [f"message {i} " + "x" * pad], "metadata": {"speaker": "A", "listeners": []},
           "tags": [], "timestamp": "2024-01-01T00:00:00Z", "source_id": f"t#{i}", "id": f"id-{i}",
           "format": "t"}  # fmt: skip
    return orjson.dumps(rec) + b"\n"


@pytest.mark.parametrize("kind", ["directory", "FIFO"])
def test_a_store_that_is_not_a_file_is_one_error_at_open(tmp_path, kind):
    path = tmp_path / "s.jsonl"
    if kind == "directory":
        path.mkdir()
    elif hasattr(os, "mkfifo"):
        os.mkfifo(path)
    else:
        pytest.skip("needs FIFOs")
    with pytest.raises(InputError, match=f"the store is a {kind}"):
        Store(path)


def _unreadable(store: Store, monkeypatch) -> None:
    """The store file cannot be opened (its permissions; root reads anything, so the
    refusal is the system call's): for the in-memory search's open."""
    real = str(store.real)

    def refused(path, *args, **kwargs):
        if str(path) == real:
            raise PermissionError(errno.EACCES, "Permission denied", real)
        return open(path, *args, **kwargs)

    monkeypatch.setattr(index_search, "open", refused, raising=False)
    monkeypatch.setenv("CONVO_NO_INDEX", "1")  # the search reads the store itself


def test_searching_an_unreadable_store_is_one_located_error(tmp_path, monkeypatch, runner):
    """It was a PermissionError out of ``Store.search`` (an internal error in the CLI)."""
    store = Store(tmp_path / "s.jsonl")
    store.path.write_bytes(_line(1))
    _unreadable(store, monkeypatch)
    with pytest.raises(InputError) as e:
        store.search("message")
    assert str(store.real) in str(e.value) and "permission denied" in str(e.value)
    r = runner.invoke(app, ["--store", str(store.path), "search", "message"])
    assert r.exit_code == 2, r.output
    assert "permission denied" in r.output and "internal error" not in r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("change", ["tag", "compact", "remove"])
def test_a_rewrite_that_cannot_open_the_store_says_nothing_was_changed(
    tmp_path, monkeypatch, change
):
    """It said "nothing was appended" (the append's words) for a tag or a compact."""
    store = Store(tmp_path / "s.jsonl")
    store.path.write_bytes(_line(1))
    real_open = os.open

    def refused(path, flags, *args, **kwargs):
        if str(path) == str(store.real) and flags & os.O_RDWR:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(store_append.os, "open", refused)
    calls = {"tag": lambda: store.tag("from:A", add=["x"]), "compact": store.compact,
             "remove": lambda: store.remove("from:A")}  # fmt: skip
    with pytest.raises(InputError) as e:
        calls[change]()
    assert "nothing was changed" in str(e.value) and "appended" not in str(e.value)
    assert store.path.read_bytes() == _line(1)


def test_a_reader_never_takes_an_append_begun_after_it_opened_for_a_torn_line(tmp_path):
    """A scan reads the store as it was when it opened it. It read on to wherever the
    file ended when it got there, so a writer's append begun meanwhile (a line not
    whole yet) was reported as "truncated last line (an interrupted write?)" with the
    advice to remove it: seen 1 to 4 times in 20 s of a reader looping beside two
    appending processes, never since."""
    store = Store(tmp_path / "s.jsonl")
    n = 3_000
    store.path.write_bytes(b"".join(_line(i, pad=900) for i in range(n)))  # ~3 MiB: blocks
    errors: list = []
    batches = iter(store.select(None, on_error=lambda e, *a: errors.append(e)).batches)
    seen = len(next(batches))  # the scan has opened the file and read its first block
    assert 0 < seen < n
    with open(store.path, "ab") as writer:  # an append begun: one whole line, one half
        writer.write(_line(n) + _line(n + 1)[:40])
        writer.flush()
        seen += sum(len(b) for b in batches)
    assert errors == []
    assert seen == n  # the store as it was when the scan opened it
    with pytest.warns(RuntimeWarning, match="1 line"):  # the half line, said once
        assert store.count() == n + 1  # a read begun now has the new whole line


def test_a_library_read_says_once_which_lines_were_skipped(tmp_path):
    """Nothing lost silently, from Python too: ``Store.query`` and ``count`` skip a line
    that is not a record and say so in one RuntimeWarning when the read ends (count and
    the first line's place), not one warning a line."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line(1) + b"{not json\n" + _line(2) + b"[1]\n" + _line(3) + b'{"torn')
    store = Store(path)
    with pytest.warns(RuntimeWarning) as said:
        ids = [r["id"] for r in store.query()]
    assert ids == ["id-1", "id-2", "id-3"]
    assert len(said) == 1
    text = str(said[0].message)
    assert (
        "3 lines of" in text
        and "are not records" in text
        and ":2" in text
        and "convo validate" in text
    )
    with pytest.warns(RuntimeWarning, match="3 line"):
        assert store.count() == 3


def test_a_whole_store_reads_without_a_warning(tmp_path, recwarn):
    path = tmp_path / "s.jsonl"
    path.write_bytes(_line(1) + _line(2))
    assert [r["id"] for r in Store(path).query("from:A")] == ["id-1", "id-2"]
    assert Store(path).count() == 2
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_library_read_cut_short_still_says_what_it_skipped(tmp_path):
    """A caller that stops early (``next``, a ``break``) hears of the lines skipped so far."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{not json\n" + _line(1) + _line(2))
    reader = Store(path).query()
    assert next(reader)["id"] == "id-1"
    with pytest.warns(RuntimeWarning, match="1 line"):
        reader.close()
