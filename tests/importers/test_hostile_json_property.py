"""Arbitrary JSON values into every file importer (apps, forums, records, agents, transcripts):
messages, a rejection or one of convo's own errors, never another exception (issue 20).

Two shapes of input: a JSON value drawn at random, and a real sample document (from
sample_data and tests/fixtures/forum) with values at random places replaced by random
JSON values, so wrong types reach the fields the readers look at (``"labels": true``,
``"actions_summary": true``, ``"id": "²"``). Bounded examples here; ``make fuzz``
(CONVO_FUZZ=1) runs the long version.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, SAMPLE_DATA
from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry

OWNED_MODULES = (
    "convo.importers.apps.",
    "convo.importers.forums.",
    "convo.importers.records.",
    "convo.importers.agents.",
    "convo.importers.transcripts.",
)
FORMATS = sorted(
    f.name
    for f in registry.formats()
    if not f.directory and f.read.__module__.startswith(OWNED_MODULES)
)
FORUM_FIXTURES = ROOT / "tests" / "fixtures" / "forum"
# Shapes the sample data does not hold, read by readers of existing formats: their
# fixtures seed the mutations too (a JSON lines file: each line a document).
SHAPES = (
    "agents/batch/anthropic-batch-requests.jsonl",
    "agents/batch/anthropic-batch-results.jsonl",
    "agents/batch/openai-batch-input.jsonl",
    "agents/batch/openai-batch-output.jsonl",
    "agents/claude-sdk/stream-json.jsonl",
    "formats/codex/exec-json.jsonl",
    "formats/gemini_cli/stream-json.jsonl",
    "formats/gemini_cli/json-output.json",
    "formats/asr/hf-insanely-fast-whisper.json",
    "formats/asr/hf-word-chunks.json",
    "formats/asr/revai.json",
    "formats/github/events.jsonl",
    "formats/github/issue-timeline.json",
    "formats/github/pulls.json",
    "formats/slack_huddle/standup/2024-05-06.json",
    "formats/teams/graph-attachments.json",
    "formats/telegram/service-result.json",
    "formats/mastodon/polls/outbox.json",
    "formats/matrix/element-export-polls.json",
)


def _seed_documents() -> list[Any]:
    docs: list[Any] = []
    paths = [*SAMPLE_DATA.glob("chat/*.json"), *SAMPLE_DATA.glob("forum/*.json")]
    paths += sorted(FORUM_FIXTURES.glob("*.json")) if FORUM_FIXTURES.is_dir() else []
    for path in sorted(paths):
        if path.stat().st_size < 200_000:
            try:
                docs.append(orjson.loads(path.read_bytes()))
            except orjson.JSONDecodeError:
                continue
    for name in SHAPES:
        lines = (ROOT / "tests" / "fixtures" / name).read_bytes().splitlines()
        for line in lines if name.endswith(".jsonl") else [b"".join(lines)]:
            try:
                docs.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue  # a damaged line the fixture holds on purpose
    return docs


SEEDS = _seed_documents()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "²", "-1", "1e400", "9" * 30, "\u202e", "<p>x</p>", "@bob"])
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _places(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``value`` (capped, so huge seeds stay cheap)."""
    out = [path]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        if len(out) > 400:
            break
        out += _places(child, (*path, key))
    return out


def _replace(doc: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return doc


def _keys(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        out.update(value)
        for child in value.values():
            _keys(child, out)
    elif isinstance(value, list):
        for child in value:
            _keys(child, out)
    return out


def _replace_key(value: Any, key: str, new: Any) -> None:
    """Every value under ``key``, anywhere in the document, becomes ``new``."""
    if isinstance(value, dict):
        for k in value:
            if k == key:
                value[k] = new
            else:
                _replace_key(value[k], key, new)
    elif isinstance(value, list):
        for child in value:
            _replace_key(child, key, new)


@st.composite
def mutated_documents(draw) -> Any:
    doc = json.loads(json.dumps(draw(st.sampled_from(SEEDS))))
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):  # one field's value, wrong everywhere ("labels": true)
            keys = sorted(_keys(doc, set()))
            if keys:
                _replace_key(doc, draw(st.sampled_from(keys)), draw(json_values))
        else:  # one place anywhere
            doc = _replace(doc, draw(st.sampled_from(_places(doc))), draw(json_values))
    return doc


def exercise(fmt_name: str, value: Any) -> None:
    """Sniff and read ``value`` (as a JSON file) with ``fmt_name``: only ConvoError may escape."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input.json"
        path.write_text(json.dumps(value), encoding="ascii")  # big ints too
        source = Source(path)
        fmt = registry.get(fmt_name)
        fmt.sniff(source)
        ctx = ImportContext(source, ImportOptions())
        try:
            for msg in fmt.read(source, ctx):
                assert isinstance(msg.text_chunks, list)
        except ConvoError:
            pass


@pytest.mark.parametrize("fmt_name", FORMATS)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(value=st.one_of(json_values, mutated_documents()))
def test_arbitrary_json_never_crashes(fmt_name: str, value: Any) -> None:
    exercise(fmt_name, value)
