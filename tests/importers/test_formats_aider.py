"""aider chat history (``convo.importers.agents.aider``).

The fixture follows Aider-AI/aider ``aider/io.py`` (``append_chat_history``: the session
header, ``#### `` user lines and ``> `` tool lines each ending with two spaces,
``<blank>`` for an empty input, the model's answer as plain Markdown) with two sessions
in a project folder; the answer holds a ``#### `` heading and a ``> `` quote of its own.
"""

from __future__ import annotations

from datetime import timedelta, timezone

from formats_helpers import FIXTURES, detect_name, fresh_registry

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import aider
from convo.importers.context import ImportContext, ImportOptions, Rejection
from convo.importers.registry import registry

HISTORY = FIXTURES / "aider" / "kettle" / ".aider.chat.history.md"
FIRST = "aider:kettle/.aider.chat.history.md@2024-06-03 10:00:00"


def run(path, options=None, name="kettle/.aider.chat.history.md"):
    """(records, rejections, warnings), the source named as typed from the fixtures'
    folder: every project's history has the same name, its folder tells them apart."""
    rejects: list[Rejection] = []
    warnings: list[str] = []
    source = Source(path, name=name)
    ctx = ImportContext(source, options, on_reject=rejects.append, on_warning=warnings.append)
    return [m.serialize() for m in aider.read(source, ctx)], rejects, warnings


def test_golden():
    recs, _, _ = run(HISTORY)
    assert_golden("formats/aider/kettle.jsonl", recs)


def test_turns():
    recs, rejects, warnings = run(HISTORY)
    assert not rejects and not warnings
    kinds = [(r["metadata"]["speaker"], r["thread"] == FIRST) for r in recs]
    assert kinds == [
        ("aider", True), ("user", True), ("aider", True), ("user", True), ("assistant", True),
        ("aider", True), ("aider", False), ("user", False), ("assistant", False),
    ]  # fmt: skip
    banner, add, _added, asked, answer, applied = recs[:6]
    assert banner["tags"] == ["system"] and banner["role"] == "system"
    assert add["textChunks"] == ["/add src/kettle.py"]
    assert asked["textChunks"] == ["Why does boil() never return?\nIt hangs in the tests."]
    assert asked["metadata"]["listeners"] == ["assistant"]
    # the answer's own heading and quote stay in it (no two trailing spaces)
    assert "#### Fix\n\n> Note: call `heat()` inside the loop." in answer["textChunks"][0]
    assert answer["textChunks"][0].endswith("```")
    assert answer["extra"]["model"] == "claude-3-5-sonnet-20240620"
    assert applied["textChunks"][0].splitlines()[1] == "Applied edit to src/kettle.py"
    assert recs[-1]["extra"]["model"] == "gpt-4o"
    assert recs[-1]["timestamp"] == "2024-06-04T09:15:30Z"


def test_session_time_is_local():
    zoned = ImportOptions(tz=timezone(timedelta(hours=2)))
    recs, _, _ = run(HISTORY, zoned)
    assert recs[0]["timestamp"] == "2024-06-03T08:00:00Z"


def test_text_before_any_session(tmp_path):
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("#### hi  \n\nhello\n\n# aider chat started at 2024-06-05 08:00:00\n")
    recs, _, warnings = run(path, name=path.name)
    assert [r["textChunks"] for r in recs] == [["hi"], ["hello"]]
    assert warnings == [f"{path.name}: lines before any session header get the epoch sentinel"]
    assert aider.sniff(Source(path)) == 0  # detection needs the header first


def test_a_model_switch_and_a_command_with_a_message(tmp_path):
    """``/model`` prints the new ``Main model:``: later answers are that model's (all were
    the banner's); ``/code msg`` is written twice, the command and then the message aider
    runs (a real history: every ``/code`` turn said its words twice)."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2025-05-04 17:02:36\n\n"
        "> Aider v0.82.2  \n> Main model: gemini/gemini-2.5-pro with diff-fenced edit format  \n"
        "> Weak model: openai/qwen3:4b  \n\n"
        "#### /code add a lid  \n\n#### add a lid  \n\nDone: the lid is on.\n\n"
        "#### /model openai/qwen3:32b  \n\n"
        "> Aider v0.82.2  \n> Main model: openai/qwen3:32b with whole edit format  \n\n"
        "#### /ask why a lid?  \n#### and a spout?  \n\n#### why a lid?  \n#### and a spout?  \n\n"
        "Steam stays in.\n\n#### /code a lid  \n#### twice  \n\nOk.\n",
        encoding="utf-8",
    )
    recs, _, _ = run(path, name=path.name)
    assert [(r["role"], r["textChunks"][0], r.get("extra", {}).get("model")) for r in recs] == [
        ("system", "Aider v0.82.2\nMain model: gemini/gemini-2.5-pro with diff-fenced edit format"
         "\nWeak model: openai/qwen3:4b", None),
        ("user", "/code add a lid", None),
        ("assistant", "Done: the lid is on.", "gemini/gemini-2.5-pro"),
        ("user", "/model openai/qwen3:32b", None),
        ("system", "Aider v0.82.2\nMain model: openai/qwen3:32b with whole edit format", None),
        ("user", "/ask why a lid?\nand a spout?", None),
        ("assistant", "Steam stays in.", "openai/qwen3:32b"),
        ("user", "/code a lid\ntwice", None),  # no echo: both lines kept
        ("assistant", "Ok.", "openai/qwen3:32b"),
    ]  # fmt: skip


def test_detect_among_builtins():
    assert detect_name(fresh_registry(aider), HISTORY) == "aider"
    assert registry.detect(Source(HISTORY)).name == "aider"


def test_input_history_beside_the_chat_history():
    """``.aider.input.history`` (prompt_toolkit's FileHistory: ``# <time>`` then ``+``
    lines) sits beside every chat history: it was "format not recognised", so ingesting a
    project folder exited 1. Each input is a prompt-log record at its own time."""
    path = HISTORY.parent / ".aider.input.history"
    assert registry.detect(Source(path)).name == "aider"
    recs, rejects, _ = run(path, name="kettle/.aider.input.history")
    assert [(r["timestamp"], r["textChunks"], r["tags"]) for r in recs] == [
        ("2024-06-03T10:00:00Z", ["fix the boil loop"], ["prompt-log"]),
        ("2024-06-03T10:05:12Z", ["/add kettle.py"], ["prompt-log"]),
        ("2024-06-03T10:06:00Z", ["make the test\nwait for the boil"], ["prompt-log"]),
    ]
    assert {r["thread"] for r in recs} == {"aider:kettle/.aider.input.history"}
    assert [(r.where, r.reason) for r in rejects] == [
        ("kettle/.aider.input.history:11", "not a line of aider's input history (+text)")
    ]
