"""The new formats take no file from an existing one.

Every file (and folder) of ../shared/corpus and sample_data/ is detected by a registry
holding only the built-in formats and by one holding the built-ins plus this wave's new
formats; both must give the same answer (a format name, or "not recognised"), unless the
file is a new format's own (none of the corpus files is yet).
"""

from __future__ import annotations

from pathlib import Path

from formats_helpers import FIXTURES, fresh_registry, new_modules

from conftest import ROOT, corpus_dir
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.registry import Registry


def _inputs() -> list[Path]:
    out: list[Path] = []
    for root in (corpus_dir(), ROOT / "sample_data"):
        if root.is_dir():
            out += sorted(p for p in root.rglob("*") if not p.name.startswith("."))
    return out


def _detect(reg: Registry, path: Path) -> str:
    try:
        return reg.detect(Source(path)).name
    except InputError as e:  # the message lists the formats tried, which differ
        return "not recognised" if "not recognised" in str(e) else f"error: {e}"


def test_no_existing_file_changes_format():
    before = Registry()
    after = fresh_registry(*new_modules())
    changed = {}
    for path in _inputs():
        old, new = _detect(before, path), _detect(after, path)
        if old != new:
            changed[str(path)] = (old, new)
    assert changed == {}


# Fixture folders whose every file is one format's (besides the files in SKIP).
BY_FOLDER = {
    "claude_ai": "claude-ai",
    "sharegpt": "sharegpt",
    "hf_chat": "hf-chat",
    "openai_responses": "openai-responses",
    "gemini": "gemini",
    "langchain": "langchain",
    "vercel_ai": "vercel-ai",
    "mastodon": "mastodon",
    "mastodon_api": "mastodon-api",
    "bluesky": "bluesky",
    "discourse_archive": "discourse-archive",
    "discourse_raw": "discourse-raw",
    "twitter_dm": "twitter-dm",
    "twitter": "twitter",
    "irc": "irc",
    "matrix": "matrix",
    "google_chat": "google-chat",
    "google_chat_locales": "google-chat",
    "slack_huddle": "slack-file",
    "slack_export_files": "slack-file",
    "gitlab": "gitlab",
    "gitter": "gitter",
    "openai_api": None,  # two formats: see BY_FILE
    "signal": "signal",
    "instagram": "instagram",
    "whatsapp": "whatsapp",  # the chat .txt files; their zips are built by the tests
    "telegram": "telegram",
    "slack_blocks": "slack-file",
    "discord_csv": "discord-csv",
    "zoom": "zoomchat",
    "zoom_cc": "zoom-cc",
    "txt_transcript": "txt-transcript",
    "fathom": "fathom",
    "transcriptonic": "transcriptonic",
    "vscode_chat": "vscode-chat",
    "agentscope_session": "agentscope-session",
    "autogen_runtime": "autogen-runtime",
    "autogen_state": "autogen-state",
    "reddit_export": "reddit-export",
    "langgraph_store": "langgraph-store",
    "gemini_activity": "gemini-activity",
    "skype": "skype",
    "zulip": "zulip",
    "rocketchat": "rocketchat",
    "slackdump": "slackdump",
    "typeagent": "typeagent",
    "teams": "teams",
    "messenger": "messenger",
    "github": "github",
    "stackexchange_api": "stackexchange-api",
    "asr": None,  # the speech-to-text JSON formats: see BY_FILE
    "otter": "otter",
    "teams_docx": "teams-docx",
    "google_meet": "google-meet",
    "rev": "rev",
    "md_transcript": "md-transcript",
    "codex": "codex",
    "gemini_cli": "gemini-cli",
    "open_webui": "open-webui",
    "sillytavern": "sillytavern",
    "cline": "cline",
    "aider": "aider",
    "pydantic_ai": "pydantic-ai",
    "swe_agent": "swe-agent",
    "llamaindex": "llamaindex",
    "letta": "letta",
    "goose": "goose",
    "ollama": "ollama",
    "crewai": "crewai",
    "cursor_md": "cursor-md",
    "agents_session": "openai-agents",
    "smolagents": "smolagents",
    "mem0": "mem0",
    "amazon_q": "amazon-q",
    "zed_md": "zed-md",
    "windsurf_md": "windsurf-md",
    "copilot_md": "copilot-md",
    "cline_md": "cline-md",
    "gemini_cli_md": "gemini-cli-md",
    "continue_md": "continue-md",
    "specstory": "specstory",
    "librechat": "librechat",
    "ass": "ass",
    "ttml": "ttml",
    "youtube": "youtube",
    "imessage": "imessage",
    "imazing": "imazing",
    "pidgin": "pidgin",
    "mattermost": "mattermost",
    "line": "line",
    "telegram_html": "telegram-html",
    "llm_logs": "llm-logs",
    "llm_logsdb": "llm-logsdb",  # its .json files: see BY_FILE
    "msg": "msg",  # and the .eml of the same message: see BY_FILE
    "aistudio": "aistudio",
    "grok": "grok",
    "deepseek": "deepseek",
    "api_log": "api-log",
    "open_webui_db": "open-webui",
    "chatgpt": "chatgpt",
    "lmstudio": "lmstudio",
    "jan": "jan",
    "continue_dev": "continue",
    "kakaotalk": "kakaotalk",
    "discord_txt": "discord-txt",
    "wechat": "wechat",
    "discord_html": "discord-html",
    "claude_history": "claude-history",
    "openhands": "openhands",
    "frameworks": "openai",
    "cursor": "cursor",
    "copilot_cli": "copilot-cli",
    "zed": "zed",
    "discord_package": "discord-package",
    "hangouts": "hangouts",
    "linkedin": "linkedin",
    "snapchat": "snapchat",
}
BY_FILE = {
    "openai_api/completion.json": "openai-completion",
    "openai_api/batch_output.jsonl": "openai-completion",
    "openai_api/thread_messages.json": "openai-assistants",
    **{f"llm_logsdb/{p.name}": "llm-logs" for p in (FIXTURES / "llm_logsdb").glob("*.json")},
    "msg/quarterly.eml": "eml",
    "imessage/Lena Whitford.html": "imessage-html",
    "imessage/chat.db": "imessage-db",
    "instagram/legacy/messages.json": "instagram-legacy",
    "messenger/html/inbox/hikingcrew_8f2k/message_1.html": "messenger-html",
    "messenger/html/old/annabrown_1234/message_1.html": "messenger-html",
    "matrix/export.txt": "matrix-txt",
    "matrix/matrix - Seed Swap - Chat Export - 2024-03-07T13-10-00.000Z.txt": "matrix-txt",
    "asr/whisper.tsv": "whisper-tsv",
    "asr/whisper-cli-stdout.txt": "whisper-txt",
    # the speech-to-text fixtures are named for their format (whisper-cli, openai-*: whisper)
    **{
        f"asr/{p.name}": next(
            (f for f in ("whisper-cpp", "assemblyai", "deepgram", "revai") if p.name.startswith(f)),
            "aws-transcribe" if p.name.startswith("aws-") else "whisper",
        )
        for p in (FIXTURES / "asr").glob("*.json")
    },
}
# Companion files read beside the main one, and counter-examples of existing formats.
SKIP = {"legacy.py.txt", "actor.json", "user.json", "realm.json", "rocketchat_room.json", "account.js", "note-tweet.js", "group_info.json", "plain-openai.jsonl",
        "00000003-PHOTO-2023-08-15-09-12-40.jpg", "00000009-PHOTO-2023-08-16-10-00-00.jpg",
        "IMG-20230815-WA0001.jpg", "PTT-20230815-WA0002.opus",
        "IMG-20230903-WA0004.jpg", "00000012-PHOTO-2023-09-03-18-07-40.jpg"}  # fmt: skip


def test_every_new_fixture_is_detected_as_its_format():
    reg = fresh_registry(*new_modules())
    wrong: dict[str, str] = {}
    for folder, name in BY_FOLDER.items():
        for path in sorted(p for p in (FIXTURES / folder).rglob("*") if p.is_file()):
            rel = str(path.relative_to(FIXTURES))
            expected = BY_FILE.get(rel, name)
            if path.name in SKIP or (expected is None and folder != "asr"):
                continue
            got = _detect(reg, path)
            if got != expected:
                wrong[rel] = got
    assert wrong == {}
    assert set(BY_FOLDER) == {p.name for p in FIXTURES.iterdir() if p.is_dir()}


SPEECH = {"whisper", "whisper-cpp", "assemblyai", "deepgram", "aws-transcribe", "revai"}


def test_the_speech_formats_take_no_other_file():
    """No file of the corpus, sample_data/ or the other fixtures is taken for speech-to-text
    JSON (the ASR fixtures and the sample transcript are theirs)."""
    from conftest import ROOT as root

    reg = Registry()
    inputs = _inputs() + sorted(p for p in (root / "tests" / "fixtures").rglob("*") if p.is_file())
    taken = {
        str(p): got for p in inputs if "asr" not in p.parts and (got := _detect(reg, p)) in SPEECH
    }
    assert taken == {}


TEXT_TRANSCRIPTS = {
    "otter",
    "rev",
    "md-transcript",
    "google-meet",
    "teams-docx",
    "zoom-cc",
    "txt-transcript",
}


def test_no_other_file_is_read_as_a_text_transcript():
    """The text transcripts share ``*.txt`` with whatsapp, irc, signal, zoomchat and
    discord-text: no file of the corpus, sample_data or another format's fixtures (and
    no other zip) is taken by one of them."""
    mine = {
        "otter",
        "rev",
        "md_transcript",
        "google_meet",
        "teams_docx",
        "zoom_cc",
        "txt_transcript",
    }
    paths = _inputs() + sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.is_file() and p.relative_to(FIXTURES).parts[0] not in mine
    )
    reg = Registry()
    taken = {str(p): name for p in paths if (name := _detect(reg, p)) in TEXT_TRANSCRIPTS}
    assert taken == {}
