"""SpecStory's saved chats (``convo.importers.agents.specstory``): the three layouts
readers of real ``.specstory/history`` exports reproduce (Markdown v2.1.0 of a Claude
Code session: timed ``Agent`` turns, a ``<tool-use>`` block, a turn line inside a code
fence; v2.1.0 of Cursor: ``<think>``, ``<tool-use>`` with an escaped summary, an empty
turn; the first files: bare ``_**User**_``). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, THINKING, run

from convo.core.io import Source
from convo.importers.agents import specstory
from convo.importers.registry import registry

DIR = FIXTURES / "specstory"
CLAUDE = DIR / "2026-07-13_13-40-49Z-fix-the-boil-test.md"
CURSOR = DIR / "2025-12-02_12-49Z-kettle-cleanup.md"
FIRST = DIR / "2025-04-24_13-10-01-untitled.md"


def test_detected():
    assert {registry.detect(Source(p)).name for p in (CLAUDE, CURSOR, FIRST)} == {"specstory"}


def test_claude_code_session():
    recs, rejects, _ = run(specstory.read, CLAUDE)
    assert not rejects
    got = [(r["metadata"]["speaker"], r["timestamp"], r["textChunks"]) for r in recs]
    assert got == [
        ("user", "2026-07-13T13:40:49Z", ["fix the boil test in kettle.py"]),
        ("assistant", "2026-07-13T13:40:56Z", ["I'll run the test first."]),
        ("assistant", "2026-07-13T13:41:01Z", ["[tool_use Bash]", "[tool_result Bash] Run the suite\n\n`pytest tests/ -q`\n\n```text\n1 failed, 3 passed\n```"]),
        ("assistant", "2026-07-13T13:42:30Z", ["Fixed: the loop stopped at 99. To check it again:\n\n```bash\n_**User**_\npytest tests/ -q\n```"]),
        ("user", "2026-07-13T13:46:28Z", ["thanks"]),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"specstory:6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}
    assert recs[1]["extra"] == {"model": "claude-sonnet-4-5", "original_role": "Agent"}


def test_cursor_session_thinking_and_tools():
    recs, _, warnings = run(specstory.read, CURSOR)
    assert [r["textChunks"] for r in recs] == [
        ["remove the old heater flag"],
        [
            '[tool_use grep] Grep for "oldHeater" • 1 match',
            "[tool_result grep] | File |\n|------|\n| `./src/config.ts` |",
            "[tool_use run_terminal_cmd] Run command: cd /home/dev/kettle && npm test",
            "[tool_result run_terminal_cmd] ```\n4 passed\n```",
            "Removed it; the tests pass.",
        ],
    ]
    assert recs[0]["subject"] == "Kettle cleanup"
    assert recs[1]["extra"]["thinking"] == [
        "Thought Process\nThe flag lives in config.ts. Let me grep for it."
    ]
    assert recs[1]["extra"]["model"] == "claude-4.5-opus-high-thinking"
    assert warnings == [f"{CURSOR.name}: skipped 1 empty turn"]
    think, _, _ = run(specstory.read, CURSOR, THINKING)
    assert think[1]["textChunks"][0].startswith("[thinking] Thought Process")


def test_the_first_layout():
    recs, _, _ = run(specstory.read, FIRST)
    assert [(r["metadata"]["speaker"], r["timestamp"], r["textChunks"]) for r in recs] == [
        ("user", "2025-04-24T13:10:01Z", ["Can you push this to my kettle repository?"]),
        ("assistant", "2025-04-24T13:10:01Z", ["Pushed to main."]),
    ]
    assert recs[0]["subject"] == "Untitled"
    assert {r["thread"] for r in recs} == {"specstory:2025-04-24_13-10-01-untitled.md"}
