"""Gemini CLI's shared chats (``convo.importers.agents.gemini_cli_md``): ``/chat share
file.md`` as google-gemini/gemini-cli's ``serializeHistoryToMarkdown`` writes it (the
context message first; a call glued to the text before it; a response in a user
message; a copy without the ``---`` lines). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import gemini_cli_md
from convo.importers.registry import registry

PATH = FIXTURES / "gemini_cli_md" / "gemini-chat.md"


def test_shared_chat():
    assert registry.detect(Source(PATH)).name == "gemini-cli-md"
    recs, rejects, warnings = run(gemini_cli_md.read, PATH)
    assert not rejects
    assert warnings == [
        "gemini-chat.md: skipped 1 empty message",
        "gemini-chat.md: a shared chat carries no times: messages get the epoch sentinel",
    ]
    got = [(r["metadata"]["speaker"], r["role"], r["textChunks"]) for r in recs[2:]]
    assert got == [
        ("user", "user", ["Why does my kettle click off early? Look at thermo.py."]),
        ("gemini", "assistant", ["I'll read the thermostat module.",
                                 '[tool_use read_file] {"file_path":"kettle/thermo.py"}']),
        ("tool", "tool", ["[tool_result read_file] CUTOFF = 90\n"]),
        ("gemini", "assistant", ["The cutoff is 90 C. Example:\n\n```md\n## USER \U0001f9d1\u200d\U0001f4bb\n```",
                                 '[tool_use run_shell_command] {"command":"pytest -q","description":"Run the tests"}']),
        ("tool", "tool", ["[tool_result run_shell_command error] 1 failed"]),
    ]  # fmt: skip
    assert recs[4]["metadata"]["listeners"] == ["gemini"]
    assert recs[4]["extra"] == {"original_role": "user"}
    assert {r["timestamp"] for r in recs} == {"1970-01-01T00:00:00Z"}
    assert {r["thread"] for r in recs} == {"gemini-cli-md:gemini-chat.md"}
