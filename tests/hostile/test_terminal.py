"""§14: one rule, by Unicode category, for what never reaches a terminal raw: every view
and every JSON or JSONL writer that targets a terminal escapes it."""

from __future__ import annotations

import unicodedata

import orjson
import pytest

from convo.cli.app import app
from convo.core.text.terminal import json_tty_safe, printable

from .helpers import record

TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}
HIDDEN = ["\u180e", "\ufff9", "\ufffb", "\U000e0001", "\U000e0041", "\U000e007f", "\u200b",
          "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u061c", "\u202e"]  # fmt: skip


def test_the_rule_is_by_category():
    for cp in range(0x110000):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in "\n\t":
            assert ch not in printable(f"a{ch}b"), hex(cp)
    assert printable("é 東京 👍 a\u00a0b") == "é 東京 👍 a\u00a0b"


def test_json_keeps_its_value():
    raw = orjson.dumps({"t": "".join(HIDDEN)})
    safe = json_tty_safe(raw)
    assert safe.isascii()
    assert orjson.loads(safe) == {"t": "".join(HIDDEN)}


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["show"],
        ["list", "-f", "jsonl"],
        ["list", "-f", "json"],
        ["list", "-f", "text"],
        ["list", "-f", "csv"],
        ["list", "-f", "markdown"],
        ["stats"],
        ["stats", "-f", "json"],
        ["knowledge", "-f", "jsonl"],
        ["people"],
    ],
)
def test_no_view_or_writer_passes_them_to_a_terminal(runner, tmp_path, args):
    text = "x".join(HIDDEN)
    rec = record(1, textChunks=[f"hi {text}"], subject=text, tags=[text])
    rec["metadata"] = {"speaker": f"Al{text}ice", "listeners": [f"B{text}"]}
    src = tmp_path / "h.jsonl"
    src.write_bytes(orjson.dumps(rec) + b"\n")
    r = runner.invoke(app, [*args, str(src)], env=TTY)
    assert r.exit_code == 0, r.output
    out = r.stdout_bytes.decode()
    assert not [hex(ord(ch)) for ch in HIDDEN if ch in out]
