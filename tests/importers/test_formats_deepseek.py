"""DeepSeek's data export ``conversations.json`` (``convo.importers.apps.deepseek``).

The fixture reproduces the shape readers of real exports in public repositories agree
on (DavidShiang/DeepSeek2md ``main.py``: ``mapping`` from ``root``, ``inserted_at``,
``fragments`` of ``REQUEST``/``RESPONSE``; the import tests of other tools: ``THINK``,
``SEARCH`` with ``results``, ``TOOL_OPEN``/``TOOL_SEARCH``, ``files`` with
``file_name``, a "server busy" answer regenerated, an answer cut off after its
thinking). Such an export was taken for ChatGPT's and read as no message at all.
"""

from __future__ import annotations

import copy

import orjson
from formats_helpers import FIXTURES, THINKING, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.apps import deepseek
from convo.importers.registry import registry

DIR = FIXTURES / "deepseek"
EXPORT = DIR / "conversations.json"
CONV = "801e9692-c784-4402-bac6-d97a4722e943"


def test_detected_as_deepseek_not_chatgpt():
    assert registry.detect(Source(EXPORT)).name == "deepseek"
    assert registry.detect(Source(DIR / "user.json")).name == "deepseek"


def test_the_branch_shown_with_speakers_times_and_replies():
    recs, rejects, warnings = run(deepseek.read, EXPORT)
    assert not rejects
    got = [(r["id"].rsplit(":", 1)[1], r["metadata"]["speaker"], r["textChunks"]) for r in recs]
    assert got == [
        ("1", "user", ["Why did stocks fall today?", "[file notes.pdf]"]),
        ("4", "assistant", ["Mostly rate fears: yields rose after the jobs report."]),
        ("5", "user", ["Open the first link"]),
        ("6", "assistant", ["It says the 10-year yield hit 4.5%."]),
        ("7", "user", ["Thanks"]),
        ("8", "assistant", [""]),  # cut off after its thinking
        ("2", "assistant", ["服务器繁忙，请稍后再试。"]),  # "server busy": regenerated
        ("3", "user", ["try again"]),
    ]
    first, answer = recs[0], recs[1]
    assert first["metadata"]["listeners"] == ["assistant"] and first["role"] == "user"
    assert first["timestamp"] == "2025-03-29T20:49:37Z"  # +08:00 in the export
    assert first["thread"] == CONV and first["subject"] == "Why markets fell"
    assert answer["replyTo"] == f"deepseek:{CONV}:1"
    assert answer["extra"]["model"] == "deepseek-reasoner"
    assert answer["extra"]["citations"][0] == {
        "title": "Markets slide",
        "url": "https://news.example/markets",
    }
    assert recs[3]["extra"]["tools"] == [
        {"type": "TOOL_OPEN", "content": "https://news.example/markets"}
    ]
    # the "server busy" answer and the prompt after it are another branch: kept after the
    # branch shown, tagged, each replying to its parent on the tree
    busy, retry = recs[6], recs[7]
    assert busy["tags"] == retry["tags"] == ["off-branch"]
    assert not any("off-branch" in r["tags"] for r in recs[:6])
    assert busy["replyTo"] == f"deepseek:{CONV}:1" and retry["replyTo"] == busy["id"]
    assert not any("other branches" in w for w in warnings)
    assert any("skipped messages without fragments: 1" in w for w in warnings)


def test_thinking_is_private_unless_asked():
    recs, _, _ = run(deepseek.read, EXPORT)
    answer = recs[1]
    assert answer["extra"]["thinking"] == [
        "The user wants today's cause; the search says rate fears."
    ]
    assert not any("rate fears." in c and "search says" in c for c in answer["textChunks"])
    shown, _, _ = run(deepseek.read, EXPORT, THINKING)
    assert shown[1]["textChunks"][0].startswith("[thinking] The user wants")
    assert "thinking" not in shown[1]["extra"]
    assert shown[5]["textChunks"] == ["[thinking] A short reply is enough."]


def test_user_json_reads_no_message():
    recs, rejects, warnings = run(deepseek.read, DIR / "user.json")
    assert recs == [] and not rejects
    assert warnings == [
        "user.json: taken as a DeepSeek export's user.json: no conversation; not read"
    ]


def _paths(node, path=()):
    yield path
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for k, v in items:
        yield from _paths(v, (*path, k))


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
_DOC = orjson.loads(EXPORT.read_bytes())
_PATHS = list(_paths(_DOC))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(_PATHS), _VALUES)
def test_mutated_exports_give_records_or_clean_errors(tmp_path, path, value):
    doc = copy.deepcopy(_DOC)
    if path:
        node = doc
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
    else:
        doc = value
    src = tmp_path / "conversations.json"
    src.write_bytes(orjson.dumps(doc))
    try:
        recs, _, _ = run(deepseek.read, src)
    except ConvoError:
        return
    for r in recs:
        assert r["textChunks"] and all(isinstance(c, str) for c in r["textChunks"])
        assert r["timestamp"].endswith("Z") and len(r["timestamp"]) == 20
    assert len({r["id"] for r in recs}) == len(recs)
