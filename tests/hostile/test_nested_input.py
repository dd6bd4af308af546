"""§11 and §13: odd people files and JSON nested inside values are one clear line or
kept, never an internal error."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app

from .helpers import write_store


@pytest.mark.parametrize(
    "content, what",
    [
        (b'[people.a]\nnames = ["\xff\xfe"]\n', "not UTF-8"),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"x = " + b"{a=" * 5000 + b"}" * 5000 + b"\n", "nested too deeply"),
        (None, "is a directory; name a file"),
    ],
)
def test_a_bad_people_file_is_one_line(runner, tmp_path, content, what):
    people = tmp_path / "people.toml"
    if content is None:
        people.mkdir()
    else:
        people.write_bytes(content)
    store = write_store(tmp_path / "s.jsonl")
    r = runner.invoke(app, ["--people", str(people), "list", "-f", "jsonl", str(store)])
    assert r.exit_code == 2, r.output
    assert what in r.output and "internal error" not in r.output
    assert "JSONL" not in r.output


def _openai(arguments: str) -> bytes:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return orjson.dumps(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ]
    )


@pytest.mark.parametrize("depth", [100, 189, 191, 260, 1000])
def test_deep_tool_call_arguments_are_kept(runner, tmp_path, depth):
    arguments = "[" * depth + "]" * depth
    src = tmp_path / "chat.json"
    src.write_bytes(_openai(arguments))
    out = tmp_path / "out.jsonl"
    r = runner.invoke(app, ["ingest", "--from", "openai", str(src), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert arguments.encode() in out.read_bytes() or b"[" * depth in out.read_bytes()
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 0, r.output


def test_deep_sharegpt_function_call_is_kept(runner, tmp_path):
    arguments = "[" * 260 + "]" * 260
    value = orjson.dumps({"name": "f", "arguments": arguments}).decode()
    doc = {
        "conversations": [
            {"from": "human", "value": "hi"},
            {"from": "function_call", "value": value},
        ]
    }
    src = tmp_path / "sg.json"
    src.write_bytes(orjson.dumps(doc))
    r = runner.invoke(
        app, ["ingest", "--from", "sharegpt", str(src), "-o", str(tmp_path / "o.jsonl")]
    )
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "fmt, doc",
    [
        # a thread's score, a codex exec command's exit code: a value of the input that
        # the reader keeps in ``extra``, nested 700 deep (orjson reads 1024, writes 254)
        ("reddit", [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {
            "id": "p1", "name": "t3_p1", "title": "Hi", "author": "ann", "created_utc": 1,
            "subreddit": "x", "score": "DEEP"}}]}}]),
        ("codex", {"type": "item.completed", "item": {
            "id": "item_0", "type": "command_execution", "command": "ls",
            "aggregated_output": "a", "exit_code": "DEEP", "status": "completed"}}),
    ],
)  # fmt: skip
def test_a_record_too_deep_to_write_is_one_line(runner, tmp_path, fmt, doc):
    """A reader that keeps an input's value nested 700 deep in a record's ``extra``: the
    record could not be written (orjson stops at 254 levels) and the fallback for odd
    strings recursed past Python's limit, an internal error. Now one line naming it."""
    deep = b"[" * 700 + b"]" * 700
    src = tmp_path / ("in.jsonl" if fmt == "codex" else "in.json")
    src.write_bytes(orjson.dumps(doc).replace(b'"DEEP"', deep))
    r = runner.invoke(app, ["ingest", "--from", fmt, str(src), "-o", str(tmp_path / "o.jsonl")])
    assert "internal error" not in r.output
    assert "nested more than 254 levels deep" in r.output and str(src) in r.output


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name, data", [("deep.json", DEEP), ("deep.jsonl", (DEEP + "\n") * 2)])
def test_a_head_nested_past_pythons_stack_is_not_recognised(runner, tmp_path, name, data):
    """The agents' sniff parsed a cut head's leading elements with the json module, which
    recurses: a RecursionError, an internal error of detection itself."""
    path = tmp_path / name
    path.write_text(data)
    r = runner.invoke(app, ["ingest", str(path), "-o", "-"])
    assert r.exit_code == 2
    assert "format not recognised" in r.output and "internal error" not in r.output


def test_json_inside_a_value_nested_past_pythons_stack_is_not_read_as_json():
    """Zulip's widget submessages and Skype's emotions are JSON in a string, read with
    the json module: nested deep, a RecursionError."""
    from convo.importers.apps import skype, zulip

    assert zulip._widget_events([{"sender_id": 1, "content": DEEP}]) == []
    assert skype._reactions({"emotions": DEEP}, {}) == []


def test_wrong_types_that_were_internal_errors(tmp_path):
    """An Alpaca sample's history a number (TypeError: not iterable) and a Zulip widget
    submessage's sender_id an object (TypeError: unhashable), found by replacing values
    of the fixtures with wrong types."""
    import json

    from conftest import ROOT
    from convo.pipeline.ingest import Ingest

    cases = [
        ("hf_chat/alpaca.json", (1, "history"), 5, 1),
        ("zulip/api-widgets.json", ("messages", 1, "submessages", 2, "sender_id"), {}, 0),
    ]
    for name, place, value, rejected in cases:
        doc = json.loads((ROOT / "tests" / "fixtures" / "formats" / name).read_text())
        parent = doc
        for key in place[:-1]:
            parent = parent[key]
        parent[place[-1]] = value
        path = tmp_path / name.split("/")[1]
        path.write_text(json.dumps(doc))
        rejects: list = []
        assert list(Ingest(on_reject=rejects.append).messages([path]))
        assert len(rejects) == rejected
