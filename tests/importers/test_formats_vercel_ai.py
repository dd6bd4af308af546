"""Vercel AI SDK UI messages (``convo.importers.agents.vercel_ai``).

Fixtures follow vercel/ai ``packages/ai/src/ui/ui-messages.ts`` (AI SDK 5 ``UIMessage``:
``parts`` text / reasoning / ``tool-NAME`` with ``state`` output-available / ``dynamic-tool``
with output-error / ``file`` / ``source-url`` / ``step-start`` / ``data-NAME``, message
``metadata``) persisted as a chat ``{"id", "messages"}``, and AI SDK 4 ``Message``
(``content``, ``createdAt``, ``tool-invocation`` parts with ``toolInvocation``,
``reasoning`` + ``details``, ``experimental_attachments``).
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import vercel_ai
from convo.importers.registry import registry

DIR = FIXTURES / "vercel_ai"


@pytest.mark.parametrize("name", ["chat.json", "v4-messages.json"])
def test_golden(name):
    recs, _, _ = run(vercel_ai.read, DIR / name)
    assert_golden(f"formats/vercel_ai/{name.split('.')[0]}.jsonl", recs)


def test_v5_chat_mapping():
    recs, rejects, warnings = run(vercel_ai.read, DIR / "chat.json")
    assert [r.where for r in rejects] == ["chat.json#msg-5"]
    assert warnings == ["chat.json: UI messages without createdAt get the epoch sentinel"]
    user, answer, again, failed = recs
    assert {r["thread"] for r in recs} == {"chat_Xy12AbCdEf34"}
    assert user["textChunks"][1] == "[image] https://blob.example/sky.png"
    assert (
        user["timestamp"] == "2025-08-01T10:00:00Z" and user["id"] == "vercel-ai:msg_u1a2b3c4d5e6f7"
    )
    assert answer["textChunks"] == [
        '[tool_use getWeather] {"city":"Berlin"}',
        '[tool_result getWeather] {"tempC":17,"sky":"overcast"}',
        "It's 17 °C and overcast in Berlin.",
    ]
    assert answer["extra"]["sources"][0]["url"] == "https://weather.example/berlin"
    assert answer["extra"]["data"][0]["type"] == "data-weather"
    assert failed["textChunks"][1] == "[tool_result mcp_weather error] MCP server unavailable"
    assert again["metadata"] == {"speaker": "user", "listeners": ["assistant"]}


def test_reasoning_private_unless_asked():
    for name in ("chat.json", "v4-messages.json"):
        recs, _, _ = run(vercel_ai.read, DIR / name)
        text = " ".join(c for r in recs for c in r["textChunks"])
        assert "check the forecast" not in text and "plot the CSV" not in text
    recs, _, _ = run(vercel_ai.read, DIR / "v4-messages.json", THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] Need to plot the CSV."


def test_v4_messages():
    recs, rejects, warnings = run(vercel_ai.read, DIR / "v4-messages.json")
    assert not rejects and not warnings
    assert recs[0]["textChunks"] == ["Show me the sales chart.", "[file sales.csv]"]
    assert recs[1]["textChunks"][:2] == [
        '[tool_use plot] {"file":"sales.csv"}',
        "[tool_result plot] chart.png",
    ]
    assert recs[1]["extra"]["thinking"] == ["Need to plot the CSV."]


def test_detect_among_builtins():
    reg = fresh_registry(vercel_ai)
    assert detect_name(reg, DIR / "chat.json") == "vercel-ai"
    assert detect_name(reg, DIR / "v4-messages.json") == "vercel-ai"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "chat.json")).name == "vercel-ai"


def test_a_created_at_without_offset_is_read_in_tz(tmp_path):
    """Chats kept in a database column without a zone (the Next.js chatbot template's
    ``timestamp('createdAt')``) come back without an offset: read in ``--tz``."""
    from datetime import timedelta, timezone

    from convo.importers.context import ImportOptions

    path = tmp_path / "rows.json"
    path.write_text(
        '{"id": "chat-2f7c1d9e-0a4b", "messages": ['
        '{"id": "m-0001", "role": "user", "createdAt": "2025-08-01 10:00:00",'
        ' "parts": [{"type": "text", "text": "hi"}]},'
        '{"id": "m-0002", "role": "assistant", "createdAt": "2025-08-01T10:00:05.000Z",'
        ' "parts": [{"type": "text", "text": "hello"}]}]}'
    )
    recs, _, _ = run(vercel_ai.read, path, ImportOptions(tz=timezone(timedelta(hours=-5))))
    assert [r["timestamp"] for r in recs] == ["2025-08-01T15:00:00Z", "2025-08-01T10:00:05Z"]
