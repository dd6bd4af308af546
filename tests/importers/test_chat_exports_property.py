"""Property tests: random and mutated chat exports give messages or clean ConvoErrors, nothing else."""

from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path

import orjson
import pytest
from chat_exports_helpers import ingest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA
from convo.core.errors import ConvoError

CHAT = SAMPLE_DATA / "chat"
JSON_SAMPLES = {
    "discord": "discord.json",
    "telegram": "telegram-result.json",
    "messenger": "messenger.json",
    "chatgpt": "chatgpt-conversations.json",
    "teams": "teams.json",
    "slack-file": "slack-export/general/2024-03-06.json",
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def _run(data: bytes, fmt: str, suffix: str = ".json") -> list[dict]:
    fd, name = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            recs, _, _ = ingest(Path(name), fmt=fmt)
        except ConvoError:
            return []
        for r in recs:  # every record is well-formed
            assert isinstance(r["textChunks"], list) and r["textChunks"]
            assert all(isinstance(c, str) for c in r["textChunks"])
            assert len(r["timestamp"]) == 20 and r["timestamp"].endswith("Z")
        return recs
    finally:
        os.unlink(name)


def _paths(node, out, path=()):
    out.append(path)
    if isinstance(node, dict):
        for k, v in node.items():
            _paths(v, out, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _paths(v, out, (*path, i))
    return out


def _replace(doc, path, value):
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("fmt", sorted(JSON_SAMPLES))
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_json_exports(fmt, data):
    doc = orjson.loads((CHAT / JSON_SAMPLES[fmt]).read_bytes())
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc, [])
        path = paths[data.draw(st.integers(0, len(paths) - 1))]
        doc = _replace(copy.deepcopy(doc), path, data.draw(json_values))
    _run(orjson.dumps(doc), fmt)


@pytest.mark.parametrize("fmt", sorted(JSON_SAMPLES))
@given(value=json_values)
def test_random_json(fmt, value):
    _run(orjson.dumps(value), fmt)


@pytest.mark.parametrize("fmt", sorted(JSON_SAMPLES))
@given(cut=st.integers(0, 4000), junk=st.binary(max_size=20))
def test_broken_bytes(fmt, cut, junk):
    raw = (CHAT / JSON_SAMPLES[fmt]).read_bytes()
    _run(raw[:cut] + junk + raw[cut + len(junk) :], fmt)


@given(
    lines=st.lists(json_values.map(lambda v: orjson.dumps(v)) | st.binary(max_size=30), max_size=8)
)
def test_mattermost_lines(lines):
    head = b'{"type":"version","version":1}\n'
    _run(head + b"\n".join(lines), "mattermost", ".jsonl")


_HEADER = st.builds(
    lambda a, b, c, h, m, ampm, ios, name, text: (
        f"[{a}/{b}/{c}, {h}:{m:02d}:00{ampm}] {name}: {text}"
        if ios
        else f"{a}/{b}/{c}, {h}:{m:02d}{ampm} - {name}: {text}"
    ),
    st.integers(0, 40), st.integers(0, 40), st.integers(0, 3000), st.integers(0, 30),
    st.integers(0, 70), st.sampled_from(["", " AM", " PM", "\u202fpm"]), st.booleans(),
    st.text(max_size=12), st.text(max_size=30),
)  # fmt: skip


@given(lines=st.lists(_HEADER | st.text(max_size=40), min_size=1, max_size=12))
def test_whatsapp_text(lines):
    _run("\n".join(lines).encode("utf-8", "surrogatepass"), "whatsapp", ".txt")


@given(
    lines=st.lists(st.text(max_size=40), max_size=8),
    enc=st.sampled_from(["utf-8", "utf-16", "cp1252"]),
)
def test_zoom_and_whatsapp_any_text(lines, enc):
    data = "\n".join(lines).encode(enc, "replace")
    _run(data, "zoomchat", ".txt")
    _run(data, "whatsapp", ".txt")
    _run(data, "discord-text", ".txt")


@given(body=st.binary(max_size=400))
def test_random_zip_bytes(body):
    _run(b"PK\x03\x04" + body, "slack-file", ".zip")


_DISCORD_LINE = st.builds(
    lambda name, mo, d, y, h, mi, ampm, rel: (
        f"{name} — {'Today at' if rel else f'{mo:02d}/{d:02d}/{y}'} {h}:{mi:02d}{ampm}"
    ),
    st.text(min_size=1, max_size=10).filter(lambda x: x.strip() and "\n" not in x),
    st.integers(0, 19), st.integers(0, 40), st.integers(0, 9999), st.integers(0, 30),
    st.integers(0, 70), st.sampled_from(["", " AM", " PM"]), st.booleans(),
)  # fmt: skip


@given(lines=st.lists(_DISCORD_LINE | st.text(max_size=30), min_size=1, max_size=10))
def test_discord_text(lines):
    _run("\n".join(lines).encode("utf-8", "surrogatepass"), "discord-text", ".txt")
