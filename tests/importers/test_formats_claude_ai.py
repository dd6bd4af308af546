"""claude.ai data export ``conversations.json`` (``convo.importers.apps.claude_ai``).

Fixtures reproduce the shape users' parsers of real exports describe: Sinity/polylogue
``docs/providers/claude-ai.md`` (chat_messages with sender, content segments text /
tool_use / tool_result, attachments / files arrays) and the exporter types found with the
code search (``uuid``, ``sender: "human"|"assistant"``, ``text``, ``content`` blocks with
``start_timestamp``/``stop_timestamp``/``citations``, ``thinking`` blocks with
``summaries``, ``parent_message_uuid``, ``current_leaf_message_uuid``, ``files_v2``).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import ROOT, assert_golden
from convo.cli.app import app
from convo.core.io import Source
from convo.importers.apps import claude_ai
from convo.importers.registry import registry

DIR = FIXTURES / "claude_ai"
CURRENT = DIR / "conversations.json"
OLD = DIR / "conversations-old.json"


def test_current_shape_golden():
    recs, rejects, warnings = run(claude_ai.read, CURRENT)
    assert not rejects and not warnings
    assert_golden("formats/claude_ai/current.jsonl", recs)


def test_old_shape_golden_rejects_and_empty_warning():
    recs, rejects, warnings = run(claude_ai.read, OLD)
    assert_golden("formats/claude_ai/old.jsonl", recs)
    assert [r.where for r in rejects] == [
        "conversations-old.json#conv-3",
        "conversations-old.json#conv-4.msg-1",
    ]
    assert warnings == [
        "conversations-old.json: skipped empty messages (no text, no media): 1 "
        "(at conversations-old.json#conv-1.msg-3)"
    ]


def test_thinking_never_in_text_by_default():
    recs, _, _ = run(claude_ai.read, CURRENT)
    answer = recs[1]
    assert not any("forecast; I should search" in c for c in answer["textChunks"])
    assert answer["extra"]["thinking"] == [
        {
            "thinking": "The user wants tomorrow's forecast; I should search rather than guess.",
            "summaries": ["Deciding to look up the forecast."],
        }
    ]
    assert answer["textChunks"][0].startswith("[tool_use web_search] ")
    assert answer["textChunks"][-1].startswith("Yes, showers")


def test_include_thinking_makes_a_chunk():
    recs, _, _ = run(claude_ai.read, CURRENT, THINKING)
    answer = recs[1]
    assert answer["textChunks"][0] == (
        "[thinking] The user wants tomorrow's forecast; I should search rather than guess."
    )
    assert "thinking" not in answer["extra"]


def test_mapping_of_fields():
    recs, _, _ = run(claude_ai.read, CURRENT)
    first, answer, edited, final = recs
    assert first["metadata"] == {"speaker": "user", "listeners": ["assistant"]}
    assert answer["metadata"] == {"speaker": "assistant", "listeners": ["user"]}
    assert first["role"] == "user" and first["extra"]["sender"] == "human"
    assert first["thread"] == "28d595a3-5db0-492d-a49a-af74f13de505"
    assert first["subject"] == "Weather in Lisbon"
    assert first["timestamp"] == "2025-06-10T14:02:11Z"
    assert "replyTo" not in first  # the root sentinel parent is not a message
    assert answer["replyTo"] == "claude-ai:c0000000-0000-4000-8000-000000000001"
    # the edited attempt is kept, marked off the current branch; both reply to the answer
    assert edited["extra"]["off_branch"] is True and "off_branch" not in final["extra"]
    assert edited["tags"] == ["off-branch"] and final["tags"] == []
    assert final["replyTo"] == answer["id"]
    assert final["textChunks"][1:] == ["[attachment packing.md]", "[file suitcase.png]"]
    assert final["extra"]["attachments"][0]["extracted_content"].startswith("- umbrella")


def test_sniff_claims_both_shapes_and_not_chatgpt():
    assert claude_ai.sniff(Source(CURRENT)) >= 90
    assert claude_ai.sniff(Source(OLD)) >= 90
    chatgpt = ROOT / "sample_data" / "chat" / "chatgpt-conversations.json"
    assert claude_ai.sniff(Source(chatgpt)) == 0


def test_detect_among_builtins():
    reg = fresh_registry(claude_ai)
    assert detect_name(reg, CURRENT) == "claude-ai"
    assert detect_name(reg, OLD) == "claude-ai"


def test_one_conversation_object(tmp_path):
    import orjson

    conv = orjson.loads(OLD.read_bytes())[0]
    path = tmp_path / "one.json"
    path.write_bytes(orjson.dumps(conv))
    recs, rejects, _ = run(claude_ai.read, path)
    assert [r["textChunks"][0] for r in recs] == [
        "My starter smells like nail polish. Is it dead?",
        "No - an acetone smell means it is hungry. Feed it twice a day.",
    ]
    assert not rejects


def test_global_registry_detects():
    assert registry.detect(Source(CURRENT)).name == "claude-ai"


def test_export_folder_companions_are_recognised_and_read_nothing(tmp_path, runner):
    """A claude.ai export holds users.json, projects.json and memories.json beside
    conversations.json: ingesting the folder exited 1 (projects.json "format not
    recognised") and took users.json for a Slack export's."""
    for name in ("users.json", "projects.json", "memories.json"):
        assert registry.detect(Source(DIR / name)).name == "claude-ai", name
    recs, rejects, warnings = run(claude_ai.read, DIR / "projects.json")
    assert not recs and not rejects
    assert warnings == [
        "projects.json: claude.ai projects.json holds 2 projects, 1 with instructions, "
        "1 document, no conversation; not read"
    ]
    assert run(claude_ai.read, DIR / "users.json") == ([], [], [])
    export = tmp_path / "data-2025-01-05"
    export.mkdir()
    for name in ("conversations.json", "users.json", "projects.json", "memories.json"):
        (export / name).write_bytes((DIR / name).read_bytes())
    result = runner.invoke(app, ["ingest", str(export), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    assert "Slack" not in result.output and "not recognised" not in result.output


def test_2025_shapes_paste_search_budget_artifacts():
    """Shapes of exports since 2025 as readers of real ones capture them: a long paste
    stored as an attachment without a name (its text the user's words), ``web_search``
    results as ``knowledge`` items, ``token_budget`` checkpoints (times only) between
    tool calls, and ``artifacts`` calls (create, then update)."""
    recs, rejects, warnings = run(claude_ai.read, DIR / "conversations-2025.json")
    assert not rejects and not warnings
    ask, found, again, page = recs
    assert ask["textChunks"] == ["research x", "a long pasted text"]
    assert found["textChunks"] == [
        '[tool_use web_search] {"query":"x"}',
        "[tool_result web_search] [knowledge] X - Wikipedia https://en.wikipedia.org/wiki/X"
        "\nX is a letter.",
        "X is a letter.",
    ]
    assert any(b.get("type") == "token_budget" for b in found["extra"]["blocks"])
    assert found["extra"]["thinking"] == [
        {"thinking": "I should search.", "summaries": ["Planning search"]}
    ]
    assert again["textChunks"] == ["Write it up as a page", "[file letters.png]"]
    assert page["textChunks"][:2] == [
        "Here is the page.",
        "[artifact The letter X]\n# X\n\nX is the 24th letter.",
    ]
    assert page["textChunks"][3] == "[artifact update letter-x]\ntwenty-fourth"
    assert page["replyTo"] == again["id"]
