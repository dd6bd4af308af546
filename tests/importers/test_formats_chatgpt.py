"""ChatGPT ``conversations.json`` (``convo.importers.apps.chatgpt``): the message kinds
real exports hold beside plain turns.

``chatgpt/conversations.json`` reproduces the shapes of real 2024-2026 exports published
in yoonchoonkoon/chatgpt-archive (``md/bulk/*.md``, each holding a conversation's JSON, 491
of them read through convo): custom instructions (``user_editable_context``, hidden),
o3-mini's reasoning written as a tool's message (``a8km123`` with ``initial_text`` /
``finished_text``), a voice message (``audio_transcription`` with a
``real_time_user_audio_video_asset_pointer``), a ``tether_quote`` from an uploaded file, a
``system_error`` and an empty ``model_editable_context``; an uploaded spreadsheet beside
an image (``metadata.attachments``, 100 such files in that archive); the agent's browser
(``computer_output``) and a page the search read (``sonic_webpage``), as readers of
2025-2026 exports describe them.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, THINKING, run

from convo.importers.apps import chatgpt

EXPORT = FIXTURES / "chatgpt" / "conversations.json"


def _by_node() -> dict[str, dict]:
    recs, rejects, _ = run(chatgpt.read, EXPORT)
    assert not rejects
    return {r["extra"]["node"][-1]: r for r in recs}


def test_uploaded_files_are_named_images_once():
    first = _by_node()["2"]
    assert first["textChunks"] == [
        "[image] file-service://file-7qkL9gt4xpKVpRTg6darsj",
        "How do I sync a folder on my PC with OneDrive?",
        "[file water-bill.xlsx]",
    ]
    assert [a["name"] for a in first["extra"]["attachments"]] == ["screen.png", "water-bill.xlsx"]


def test_agent_browser_and_search_page():
    recs = _by_node()
    browser, page = recs["a"], recs["b"]
    assert browser["textChunks"] == [
        "[page] OneDrive help https://support.example.com/onedrive",
        "[screenshot] sediment://file_00000000e82072308cd29db53edad777",
    ]
    assert browser["metadata"] == {"speaker": "computer.do", "listeners": ["assistant"]}
    assert page["textChunks"] == ["Select the OneDrive cloud icon, then Settings."]
    assert page["extra"]["quote"]["url"] == "https://support.example.com/onedrive"


def test_custom_instructions_are_kept_on_the_next_message_not_a_turn():
    recs = _by_node()
    assert "1" not in recs  # no record of its own
    first = recs["2"]
    assert first["metadata"]["speaker"] == "user"
    [held] = first["extra"]["context"]
    assert held["content_type"] == "user_editable_context"
    assert "user experience designer" in held["user_profile"]
    assert "short numbered steps" in held["user_instructions"]


def test_tool_message_reasoning_is_the_assistants_thinking():
    """o1/o3-mini wrote its reasoning as a message of the tool ``a8km123``: it was a
    ``tool`` record whose text was the private reasoning."""
    r = _by_node()["3"]
    assert r["metadata"] == {"speaker": "assistant", "listeners": ["user"]}
    assert r["role"] == "assistant" and r["extra"]["author_name"] == "a8km123"
    assert not "".join(r["textChunks"]).strip()
    [thought] = r["extra"]["thinking"]
    assert thought["summary"] == "Reasoned about syncing folders for 16 seconds"
    assert thought["content"].startswith("**Setting up OneDrive**")
    assert r["timestamp"] == "2025-02-04T00:59:19Z"
    shown, _, _ = run(chatgpt.read, EXPORT, THINKING)
    [r2] = [x for x in shown if x["extra"]["node"].endswith("3")]
    assert r2["textChunks"] == ["[thinking] " + thought["content"]]


def test_voice_message_names_its_recording():
    r = _by_node()["5"]
    assert r["textChunks"] == [
        "Can I put the chat log on GitHub?",
        "[audio] sediment://file_000000003e347208837e8fbd061002ea",
    ]


def test_quote_source_and_system_error():
    recs = _by_node()
    quote, error = recs["6"], recs["7"]
    assert quote["textChunks"] == ["Chapter 2: Uploading files"]
    assert quote["extra"]["quote"] == {
        "title": "guide.pdf",
        "url": "file-CzNTarRcoJh5tPZojooJcx",
        "domain": "guide.pdf",
    }
    assert error["tags"] == ["error"] and error["extra"]["error"] == "ConnectionClosedError"
    assert error["metadata"] == {"speaker": "python", "listeners": ["assistant"]}


def test_empty_context_and_hidden_system_are_counted():
    recs, _, warnings = run(chatgpt.read, EXPORT)
    assert len(recs) == 8
    assert len(warnings) == 1 and "skipped empty or hidden messages: 2" in warnings[0]
