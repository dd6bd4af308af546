"""Daily use, round 8: what a new user tripped on, each reproduced on the command line."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from convo.cli.app import app


def _invoke(*args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(app, list(args), input=input, env=env)


def _rec(i: int, ts: str = "2024-03-06T10:00:00Z", **kw) -> dict:
    return {"textChunks": [f"message {i}"], "metadata": {"speaker": "Alice", "listeners": []},
            "tags": [], "timestamp": ts, "source_id": f"s#{i}", "id": f"m{i}", "format": "jsonl",
            **kw}  # fmt: skip


def _store(tmp_path, n: int = 3):
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(_rec(i)) + b"\n" for i in range(n)))
    return store


def test_an_empty_export_of_an_indexed_store_does_not_say_0_of_0_read(tmp_path):
    """`convo export --to markdown tag:nope -o out.md` on a store of 3,356 messages said
    "no messages match; 0 of 0 read", as if the store were empty: the index answered and
    read no line. Only the scan's count of lines looked at is said."""
    store = _store(tmp_path)
    assert _invoke("--store", str(store), "index").exit_code == 0
    r = _invoke("--store", str(store), "export", "--to", "markdown", "tag:nope",
                "-o", str(tmp_path / "out.md"))  # fmt: skip
    assert r.exit_code == 0, r.output
    assert r.stderr == "convo: no messages match\n"


def test_export_options_of_another_kind_of_export_are_usage_errors(tmp_path):
    """`--to markdown --jsonl` wrote Markdown, `--to csv --partition-by month` one CSV,
    `--to openai --name x` and `--to openai -j 2` JSON: each option was silently ignored.
    As `--extractor llm` beside another --to already was, each is now one usage line."""
    store = str(_store(tmp_path))
    for args, option in (
        (["--to", "markdown", "--jsonl"], "--jsonl"),
        (["--to", "csv", "--partition-by", "month"], "--partition-by"),
        (["--to", "openai", "--name", "x"], "--name"),
        (["--to", "openai", "-j", "2"], "--jobs"),
    ):
        r = _invoke("--store", store, "export", *args)
        assert r.exit_code == 2, (args, r.output)
        assert r.stderr.startswith(f"convo: error: {option} does not apply to --to "), r.stderr
        assert r.stdout == ""
    r = _invoke("--store", store, "export", "--to", "openai", "--jsonl")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 3
    out = tmp_path / "pq"
    r = _invoke("--store", store, "export", "--to", "parquet", "-o", str(out), "-j", "1",
                "--partition-by", "")  # fmt: skip
    assert r.exit_code == 0, r.output


def test_an_id_typed_alone_is_told_to_use_id(tmp_path):
    """`convo show chatgpt:m4` (an id copied from a listing) said "unknown field chatgpt:"
    and to quote the word, which searches its text: the message of that id is `id:`."""
    store = str(_store(tmp_path))
    r = _invoke("--store", store, "show", "chatgpt:m4")
    assert r.exit_code == 2
    assert 'quote a word with a colon: "chatgpt:m4", or id:chatgpt:m4 for the message' in r.stderr


def test_ingest_options_for_the_store_without_saving_are_usage_errors(tmp_path):
    """`convo ingest a.json -o out.jsonl --store s.jsonl` wrote out.jsonl and left the
    store the user named untouched, without a word; `--wait 5` without --save (piped: to
    stdout) was ignored the same way."""
    src = tmp_path / "a.jsonl"
    src.write_bytes(orjson.dumps(_rec(1)) + b"\n")
    out, store = tmp_path / "out.jsonl", tmp_path / "s.jsonl"
    r = _invoke("ingest", str(src), "-o", str(out), "--store", str(store))
    assert r.exit_code == 2 and "--store names the store --save appends to" in r.stderr
    assert not out.exists() and not store.exists()
    r = _invoke("ingest", str(src), "--wait", "5")  # CliRunner's stdout is no terminal
    assert r.exit_code == 2 and "--wait applies to --save" in r.stderr
    r = _invoke("ingest", str(src), "--save", "--store", str(store), "--wait", "5")
    assert r.exit_code == 0, r.output
    assert store.exists()


def test_the_store_options_help_names_every_default_in_order():
    """`convo query --help` said the store defaults to $XDG_DATA_HOME/convo/messages.jsonl,
    while $CONVO_STORE and the config file's store come first (`convo config` says so)."""
    for command in ("query", "list", "search", "export"):
        text = " ".join(_invoke(command, "--help").stdout.split())
        said = text[text.index("--store PATH") :][:200]
        assert "$CONVO_STORE, else the config file's store, else $XDG_DATA_HOME" in said, said


def test_reverse_reverses_the_order_asked_for_as_its_help_says(tmp_path):
    """--reverse's help said "input order reversed"; beside --sort it reverses the sorted
    order (the newest first for --sort time), which is what it now says."""
    store = tmp_path / "s.jsonl"
    times = ["2024-03-06T10:00:00Z", "2024-03-04T10:00:00Z", "2024-03-05T10:00:00Z"]
    store.write_bytes(b"".join(orjson.dumps(_rec(i, t)) + b"\n" for i, t in enumerate(times)))
    r = _invoke("--store", str(store), "list", "--sort", "time", "--reverse", "-f", "jsonl")
    assert [orjson.loads(x)["id"] for x in r.stdout.splitlines()] == ["m0", "m2", "m1"]
    text = " ".join(_invoke("list", "--help").stdout.split())
    assert "--reverse Last first: the order reversed (the input's, or --sort's)." in text
