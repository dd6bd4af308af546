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
