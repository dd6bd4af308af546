"""VS Code chat sessions (``convo.importers.apps.vscode_chat``, issue 36 §7).

The fixture follows VS Code's serialized chat model as real sessions hold it
(``workspaceStorage/<hash>/chatSessions/<sessionId>.json``, and "Chat: Export Session..."):
``requesterUsername``/``responderUsername``, ``requests`` with ``requestId``,
``message.text``, ``variableData``, ``response`` parts (markdown values,
``inlineReference``, ``codeblockUri``, ``toolInvocationSerialized``, ``textEditGroup``,
``thinking``, ``markdownContent``), ``result.timings``, ``agent``, ``modelId`` and an
epoch-ms ``timestamp``.
"""

from __future__ import annotations

import orjson
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import vscode_chat
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

PATH = FIXTURES / "vscode_chat" / "chatSessions" / "0b7c6f7e-2c1d-4b4e-9a55-3f1f0c1e2d3a.json"


def test_golden_and_mapping():
    recs, rejects, warnings = run(vscode_chat.read, PATH)
    assert not rejects
    assert warnings == [
        f"{PATH.name}: skipped requests with neither text nor answer: 1 (at {PATH.name}#request-3)"
    ]
    assert_golden("formats/vscode_chat/session.jsonl", recs)
    ask, answer, _ask2, answer2 = recs
    assert ask["metadata"] == {"speaker": "annlee", "listeners": ["GitHub Copilot"]}
    assert answer["metadata"] == {"speaker": "GitHub Copilot", "listeners": ["annlee"]}
    assert (
        answer["replyTo"] == ask["id"] == "vscode-chat:request_5a1f8c2e-7d4b-4f0a-9c3e-1b2d3e4f5a6b"
    )
    assert answer["textChunks"][0].startswith("In `dates.py`, `fromisoformat`")
    assert (ask["timestamp"], answer["timestamp"]) == (
        "2024-04-02T10:00:00Z",
        "2024-04-02T10:00:04Z",
    )
    assert ask["thread"] == "vscode-chat:0b7c6f7e-2c1d-4b4e-9a55-3f1f0c1e2d3a"
    assert ask["subject"] == "Parsing Z times" and ask["extra"] == {"context": ["file:dates.py"]}
    assert answer2["textChunks"] == [
        "[tool copilot_readFile] Read dates.py",
        "[edit dates.py]",
        "Done: the `Z` is replaced before parsing.",
    ]
    assert answer2["extra"]["thinking"] == ["The user wants the edit applied to dates.py."]


def test_include_thinking():
    recs, _, _ = run(vscode_chat.read, PATH, ImportOptions(include_thinking=True))
    assert recs[3]["textChunks"][-1] == "[thinking] The user wants the edit applied to dates.py."
    assert "thinking" not in recs[3]["extra"]


def test_detected(tmp_path):
    assert registry.detect(Source(PATH)).name == "vscode-chat"
    exported = tmp_path / "chat.json"  # Export Session writes no sessionId
    doc = orjson.loads(PATH.read_bytes())
    del doc["sessionId"]
    exported.write_bytes(orjson.dumps(doc))
    assert registry.detect(Source(exported)).name == "vscode-chat"
    recs, _, _ = run(vscode_chat.read, exported)
    assert recs[0]["thread"] == "chat.json"


_PART = st.one_of(
    st.fixed_dictionaries({"value": st.text(max_size=20)}),
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(
                [
                    "markdownContent",
                    "inlineReference",
                    "thinking",
                    "toolInvocationSerialized",
                    "textEditGroup",
                    "warning",
                    "codeblockUri",
                    "mystery",
                ]
            ),
            "content": st.one_of(
                st.none(),
                st.text(max_size=5),
                st.fixed_dictionaries({"value": st.text(max_size=5)}),
            ),
            "value": st.one_of(st.none(), st.integers(-9, 9), st.text(max_size=5)),
            "uri": st.one_of(st.none(), st.fixed_dictionaries({"path": st.text(max_size=8)})),
        }
    ),
    st.integers(-9, 9),
    st.none(),
)


@given(
    st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "requestId": st.text(max_size=6),
                    "message": st.one_of(
                        st.none(), st.fixed_dictionaries({"text": st.text(max_size=10)})
                    ),
                    "response": st.lists(_PART, max_size=6),
                    "timestamp": st.one_of(st.none(), st.integers(0, 2**41), st.text(max_size=3)),
                }
            ),
            st.integers(-9, 9),
        ),
        max_size=5,
    )
)
def test_any_requests_never_crash(tmp_path_factory, requests):
    path = tmp_path_factory.mktemp("s") / "s.json"
    path.write_bytes(orjson.dumps({"requesterUsername": "u", "requests": requests}))
    recs, rejects, _ = run(vscode_chat.read, path)
    assert len(rejects) == sum(not isinstance(r, dict) for r in requests)
    assert all(r["textChunks"] and all(c.strip() for c in r["textChunks"]) for r in recs)


def test_the_operation_log_vs_code_keeps_a_session_in():
    """``chatSessions/<id>.jsonl`` (VS Code since late 2025: ``ObjectMutationLog``, an
    initial entry then sets, pushes, cuts and deletes) was "format not recognised": the
    session its entries leave is read; a line that is no entry is rejected with its line."""
    path = FIXTURES / "vscode_chat" / "5c1d2e3f-4a5b-4c6d-8e7f-901234567891.jsonl"
    assert registry.detect(Source(path)).name == "vscode-chat"
    recs, rejects, _ = run(vscode_chat.read, path)
    assert [r.where for r in rejects] == ["5c1d2e3f-4a5b-4c6d-8e7f-901234567891.jsonl:11"]
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("ann", ["Why does my kettle click off early?"]),
        ("GitHub Copilot", ["Let me look at the thermostat.", "[tool copilot_readFile] Read thermo.py",
                            "The cutoff is 90 C; raise it to 100."]),
        ("ann", ["Draft a reply"]),
        ("GitHub Copilot", ["The second draft, after an edit."]),  # the push that cut the first
    ]  # fmt: skip
    assert recs[1]["timestamp"] == "2025-10-31T08:41:04Z"  # the result's timings, set later
    assert {r["subject"] for r in recs if r.get("subject")} == {"Kettle cutoff fix"}
    assert {r["thread"] for r in recs} == {"vscode-chat:5c1d2e3f-4a5b-4c6d-8e7f-901234567891"}
    assert "modelId" not in (recs[3].get("extra") or {})  # deleted
