"""A JSONL line that is not UTF-8 (Latin-1 text in an export): its reason was orjson's
"str is not valid UTF-8: surrogates not allowed", and ``--rejects`` kept it with U+FFFD
in place of its bytes, so the rejects file could not give the line back."""

from __future__ import annotations

import base64

import orjson

from convo.cli.app import app

LATIN1 = '{"textChunks": ["caf\xe9"], "id": "b"}'.encode("latin-1")


def test_a_line_that_is_not_utf8_is_said_and_kept_byte_for_byte(runner, tmp_path):
    src = tmp_path / "in.jsonl"
    good = b'{"textChunks": ["ok"], "id": "a"}'
    src.write_bytes(good + b"\n" + LATIN1 + b"\n")
    rejects = tmp_path / "rejects.jsonl"
    r = runner.invoke(
        app, ["ingest", str(src), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rejects)]
    )
    assert r.exit_code == 1, r.output
    assert f"{src}:2: rejected: not UTF-8 (byte 0xe9 at byte 21 of the line)" in r.stderr
    assert "iconv" in r.stderr
    (line,) = rejects.read_bytes().splitlines()
    kept = orjson.loads(line)
    assert base64.b64decode(kept["raw_base64"]) == LATIN1
    assert kept["raw"] == '{"textChunks": ["caf\ufffd"], "id": "b"}'
    r = runner.invoke(app, ["ingest", str(rejects), "-o", "-"])
    assert r.exit_code == 2 and "it is a --rejects file" in r.output


def test_a_utf8_raw_has_no_copy(runner, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"textChunks": ["caf\xc3\xa9"], "id": 5}\n')
    rejects = tmp_path / "rejects.jsonl"
    runner.invoke(
        app, ["ingest", str(src), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(rejects)]
    )
    (line,) = rejects.read_bytes().splitlines()
    assert list(orjson.loads(line)) == ["where", "reason", "hint", "raw"]
