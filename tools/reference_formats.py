"""The format reference, from the format registry: one Markdown page per input format.

Each page is made from the format's registration (``importers.registry.Format``: name,
family, description, file patterns, the short input example) and its ``fields``
declaration (``importers.fields.Fields``: what becomes speaker, listeners, time, thread,
id and its scope...), and shows a record convo makes by reading a real file with the
format's reader: a file of ``sample_data/`` (``tests/fixtures/`` where sample_data has
none, or a small export built from one of them, as ``BUILT`` says), named on the page.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reference_markdown import code_block, inline, table_cell

ROOT = Path(__file__).resolve().parent.parent

# The file each format's example record is read from (relative to the repository).
SAMPLES = {
    "jsonl": "tests/fixtures/views.jsonl",
    "typeagent": "tests/fixtures/formats/typeagent/export.json",
    "vtt": "sample_data/transcripts/standup.vtt",
    "srt": "sample_data/transcripts/interview.srt",
    "sbv": "sample_data/transcripts/lecture.sbv",
    "whisper": "tests/fixtures/formats/asr/whisperx.json",
    "whisper-cpp": "tests/fixtures/formats/asr/whisper-cpp.json",
    "assemblyai": "tests/fixtures/formats/asr/assemblyai.json",
    "deepgram": "tests/fixtures/formats/asr/deepgram-utterances.json",
    "aws-transcribe": "tests/fixtures/formats/asr/aws-audio-segments.json",
    "revai": "tests/fixtures/formats/asr/revai.json",
    "whisper-tsv": "tests/fixtures/formats/asr/whisper.tsv",
    "whisper-txt": "tests/fixtures/formats/asr/whisper-cli-stdout.txt",
    "otter": "tests/fixtures/formats/otter/garden-club.txt",
    "teams-docx": "tests/fixtures/formats/teams_docx/garden-club.docx",
    "google-meet": "tests/fixtures/formats/google_meet/garden-club-2023.txt",
    "rev": "tests/fixtures/formats/rev/seed-saving.txt",
    "md-transcript": "tests/fixtures/formats/md_transcript/garden-sync.md",
    "ass": "tests/fixtures/formats/ass/aegisub-episode.ass",
    "ttml": "tests/fixtures/formats/ttml/agents.ttml",
    "youtube": "tests/fixtures/formats/youtube/seed-talk.en.json3",
    "mbox": "sample_data/email/team.mbox",
    "eml": "tests/fixtures/email/named-parts.eml",
    "msg": "tests/fixtures/formats/msg/quarterly.msg",
    "agentscope-session": "tests/fixtures/formats/agentscope_session/session_2024-05-02.json",
    "autogen-state": "tests/fixtures/formats/autogen_state/team_state.json",
    "autogen-runtime": "tests/fixtures/formats/autogen_runtime/runtime.log",
    "langgraph-store": "tests/fixtures/formats/langgraph_store/search_memory.json",
    "reddit-export": "tests/fixtures/formats/reddit_export/export_maple_owl_20240601/comments.csv",
    "openai": "sample_data/chat/openai.json",
    "anthropic": "sample_data/chat/claude-code-session.jsonl",
    "agentscope": "sample_data/chat/agentscope.json",
    "langmem": "sample_data/chat/langmem.json",
    "autogen": "sample_data/chat/autogen.json",
    "jianmu": "sample_data/chat/jianmu.json",
    "sharegpt": "tests/fixtures/formats/sharegpt/sharegpt.json",
    "hf-chat": "tests/fixtures/formats/hf_chat/chat.jsonl",
    "openai-responses": "tests/fixtures/formats/openai_responses/response.json",
    "openai-completion": "tests/fixtures/formats/openai_api/completion.json",
    "openai-assistants": "tests/fixtures/formats/openai_api/thread_messages.json",
    "gemini": "tests/fixtures/formats/gemini/response.json",
    "langchain": "tests/fixtures/formats/langchain/messages.json",
    "vercel-ai": "tests/fixtures/formats/vercel_ai/chat.json",
    "aider": "tests/fixtures/formats/aider/kettle/.aider.chat.history.md",
    "cline": "tests/fixtures/formats/cline/tasks/1717405200000/api_conversation_history.json",
    "gemini-cli": "tests/fixtures/formats/gemini_cli/session-2025-09-10T08-00-3f9a1c2e.json",
    "pydantic-ai": "tests/fixtures/formats/pydantic_ai/history.json",
    "swe-agent": "tests/fixtures/formats/swe_agent/django__django-11099.traj",
    "llamaindex": "tests/fixtures/formats/llamaindex/chat_store.json",
    "letta": "tests/fixtures/formats/letta/memgpt_agent_with_convo.af",
    "goose": "tests/fixtures/formats/goose/20250301_101500.jsonl",
    "ollama": "tests/fixtures/formats/ollama/chat-stream.jsonl",
    "crewai": "tests/fixtures/formats/crewai/crew_log.json",
    "cursor-md": "tests/fixtures/formats/cursor_md/cursor_fixing_the_kettle_cutoff.md",
    "openai-agents": "tests/fixtures/formats/agents_session/conversation_history.db",
    "smolagents": "tests/fixtures/formats/smolagents/memory_steps.json",
    "mem0": "tests/fixtures/formats/mem0/memories.json",
    "amazon-q": "tests/fixtures/formats/amazon_q/kettle-chat.json",
    "zed-md": "tests/fixtures/formats/zed_md/kettle-cutoff-investigation.md",
    "windsurf-md": "tests/fixtures/formats/windsurf_md/kettle-cutoff.md",
    "copilot-md": "tests/fixtures/formats/copilot_md/copilot-session-2230af76.md",
    "cline-md": "tests/fixtures/formats/cline_md/cline_task_mar-26-2025_12-52-10-pm.md",
    "gemini-cli-md": "tests/fixtures/formats/gemini_cli_md/gemini-chat.md",
    "continue-md": "tests/fixtures/formats/continue_md/session.md",
    "specstory": "tests/fixtures/formats/specstory/2025-12-02_12-49Z-kettle-cleanup.md",
    "openhands": "tests/fixtures/formats/openhands/trajectory-1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.json",
    "cursor": "tests/fixtures/formats/cursor/globalStorage/state.vscdb",
    "zed": "tests/fixtures/formats/zed/conversations/Kettle clicks off early - 1.zed.json",
    "copilot-cli": "tests/fixtures/formats/copilot_cli/session-state/"
    "51854430-83f7-4543-a9bf-ec76ead71f59/events.jsonl",
    "librechat": "tests/fixtures/formats/librechat/flights.json",
    "claude-history": "tests/fixtures/formats/claude_history/history.jsonl",
    "llm-logs": "tests/fixtures/formats/llm_logs/logs.json",
    "llm-logsdb": "tests/fixtures/formats/llm_logsdb/logs-0.36.db",
    "aistudio": "tests/fixtures/formats/aistudio/Kettle troubleshooting.json",
    "grok": "tests/fixtures/formats/grok/prod-grok-backend.json",
    "deepseek": "tests/fixtures/formats/deepseek/conversations.json",
    "api-log": "tests/fixtures/formats/api_log/openai_calls.jsonl",
    "lmstudio": "tests/fixtures/formats/lmstudio/1742461200000.conversation.json",
    "continue": "tests/fixtures/formats/continue_dev/sessions/6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b.json",
    "jan": "tests/fixtures/formats/jan/threads/0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09/messages.jsonl",
    "codex": "tests/fixtures/formats/codex/"
    "rollout-2025-10-02T09-14-05-0199a3c2-5e1f-7c3a-9b8e-2f4d6a8c0e11.jsonl",
    "slack": "sample_data/chat/slack-export",
    "slack-file": "sample_data/chat/slack-export/general/2024-03-06.json",
    "discord": "sample_data/chat/discord.json",
    "discord-text": "sample_data/chat/discord-text.txt",
    "discord-csv": "tests/fixtures/formats/discord_csv/Example guild - Text Channels - chill talk [1012224565567875236].csv",
    "discord-txt": "tests/fixtures/formats/discord_txt/Garden club - Text Channels - general [1012224565567721552].txt",
    "discord-html": "tests/fixtures/formats/discord_html/Garden club - Text Channels - general [1012224565567721552].html",
    "discord-package": "tests/fixtures/formats/discord_package/package/messages/c1102291754930929684/messages.json",
    "telegram": "sample_data/chat/telegram-result.json",
    "messenger": "sample_data/chat/messenger.json",
    "chatgpt": "sample_data/chat/chatgpt-conversations.json",
    "teams": "sample_data/chat/teams.json",
    "mattermost": "sample_data/chat/mattermost.jsonl",
    "whatsapp": "sample_data/chat/whatsapp.txt",
    "signal": "tests/fixtures/formats/signal/Aya/chat.md",
    "instagram": "tests/fixtures/formats/instagram/your_instagram_activity/messages/inbox/"
    "annlee_17843210987654321/message_1.json",
    "zoomchat": "sample_data/chat/zoom-chat.txt",
    "txt-transcript": "tests/fixtures/formats/txt_transcript/seed-swap.txt",
    "fathom": "tests/fixtures/formats/fathom/weekly-sync.txt",
    "transcriptonic": "tests/fixtures/formats/transcriptonic/garden-club.txt",
    "zoom-cc": "tests/fixtures/formats/zoom_cc/meeting_saved_closed_caption.txt",
    "claude-ai": "tests/fixtures/formats/claude_ai/conversations.json",
    "twitter-dm": "tests/fixtures/formats/twitter_dm/direct-messages.js",
    "twitter": "tests/fixtures/formats/twitter/tweets.js",
    "irc": "tests/fixtures/formats/irc/#tea.log",
    "matrix": "tests/fixtures/formats/matrix/element-export.json",
    "matrix-txt": "tests/fixtures/formats/matrix/export.txt",
    "google-chat": "tests/fixtures/formats/google_chat/Groups/Space AAAAtea/messages.json",
    "hangouts": "tests/fixtures/formats/hangouts/Hangouts-2014.json",
    "linkedin": "tests/fixtures/formats/linkedin/LinkedIn-2020/messages.csv",
    "snapchat": "tests/fixtures/formats/snapchat/mydata_2021/json/chat_history.json",
    "gitter": "tests/fixtures/formats/gitter/tea-party.json",
    "skype": "tests/fixtures/formats/skype/messages.json",
    "zulip": "tests/fixtures/formats/zulip/api-messages.json",
    "imessage": "tests/fixtures/formats/imessage/Lena Whitford.txt",
    "imessage-html": "tests/fixtures/formats/imessage/Lena Whitford.html",
    "imessage-db": "tests/fixtures/formats/imessage/chat.db",
    "imazing": "tests/fixtures/formats/imazing/Messages - Bob McRoy.csv",
    "pidgin": "tests/fixtures/formats/pidgin/irc/2024-03-04.100000+0000UTC.txt",
    "instagram-legacy": "tests/fixtures/formats/instagram/legacy/messages.json",
    "messenger-html": "tests/fixtures/formats/messenger/html/inbox/hikingcrew_8f2k/message_1.html",
    "line": "tests/fixtures/formats/line/[LINE] Chat history with Marta.txt",
    "kakaotalk": "tests/fixtures/formats/kakaotalk/pc_ko.txt",
    "wechat": "tests/fixtures/formats/wechat/种子交换群.txt",
    "telegram-html": "tests/fixtures/formats/telegram_html/messages.html",
    "rocketchat": "tests/fixtures/formats/rocketchat/rest-history.json",
    "slackdump": "tests/fixtures/formats/slackdump/chunks.jsonl",
    "vscode-chat": "tests/fixtures/formats/vscode_chat/chatSessions/"
    "0b7c6f7e-2c1d-4b4e-9a55-3f1f0c1e2d3a.json",
    "gemini-activity": "tests/fixtures/formats/gemini_activity/Takeout/My Activity/"
    "Gemini Apps/MyActivity.json",
    "open-webui": "tests/fixtures/formats/open_webui/chat-export-1717405400000.json",
    "sillytavern": "tests/fixtures/formats/sillytavern/Seraphina - 2024-6-5 @14h 56m 50s 682ms.jsonl",
    "reddit": "sample_data/forum/reddit-thread.json",
    "discourse": "sample_data/forum/discourse-topic.json",
    "hackernews": "sample_data/forum/hn-item.json",
    "stackexchange": "sample_data/forum/stackexchange/Posts.xml",
    "stackexchange-api": "tests/fixtures/formats/stackexchange_api/questions.json",
    "github": "sample_data/forum/github-issue-comments.json",
    "phpbb": "tests/fixtures/forum/phpbb-posts.xml",
    "mastodon": "tests/fixtures/formats/mastodon/outbox.json",
    "mastodon-api": "tests/fixtures/formats/mastodon_api/statuses.json",
    "bluesky": "tests/fixtures/formats/bluesky/author-feed.json",
    "discourse-archive": "tests/fixtures/formats/discourse_archive/"
    "user_archive-tidewatcher-240601-101500-77/user_archive.csv",
    "discourse-raw": "tests/fixtures/formats/discourse_raw/839.md",
    "gitlab": "tests/fixtures/formats/gitlab/issue_notes.json",
}


def _maildir(folder: Path) -> str:
    box = folder / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    shutil.copyfile(
        ROOT / "tests/fixtures/email/named-parts.eml", box / "cur/1709719200.M1P2.host:2,S"
    )
    return "Maildir"


def _whatsapp_zip(folder: Path) -> str:
    name = "WhatsApp Chat - Ann.zip"
    with zipfile.ZipFile(folder / name, "w") as z:
        for file in sorted((ROOT / "tests/fixtures/formats/whatsapp/ios").iterdir()):
            z.writestr(zipfile.ZipInfo(file.name, (2023, 8, 16, 0, 0, 0)), file.read_bytes())
    return name


def _skype_tar(folder: Path) -> str:
    import tarfile

    name = "8_live_ann_export.tar"
    data = (ROOT / "tests/fixtures/formats/skype/messages.json").read_bytes()
    with tarfile.open(folder / name, "w") as tf:
        info = tarfile.TarInfo("messages.json")
        info.size, info.mtime = len(data), 1_700_000_000
        tf.addfile(info, io.BytesIO(data))
    return name


def _parquet_dataset(folder: Path) -> str:
    import convo
    from convo.output.exporters.parquet import write_parquet

    records = (m.serialize() for m in convo.read_messages("sample_data/chat/slack-export"))
    write_parquet(records, folder / "messages")
    return "messages"


def _parquet_file(folder: Path) -> str:
    _parquet_dataset(folder)
    return "messages/format=slack/month=2024-03/part-0.parquet"


_EXPORTED = "written by `convo export --to parquet -o messages sample_data/chat/slack-export`"

# Formats no sample file holds: a small export built from one, and how it was built.
BUILT: dict[str, tuple[Callable[[Path], str], str]] = {
    "maildir": (_maildir, "`tests/fixtures/email/named-parts.eml` in `cur/`"),
    "whatsapp-zip": (_whatsapp_zip, "the files of `tests/fixtures/formats/whatsapp/ios/`"),
    "skype-tar": (_skype_tar, "`tests/fixtures/formats/skype/messages.json` in a tar"),
    "parquet": (_parquet_file, _EXPORTED),
    "parquet-dataset": (_parquet_dataset, _EXPORTED),
}


@contextmanager
def sample_path(name: str) -> Iterator[str]:
    """The path (relative to the folder it is read in, which is made current) of the
    sample ``name``'s example is read from."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if name in BUILT:
                os.chdir(ROOT)
                path = BUILT[name][0](Path(tmp))
                os.chdir(tmp)
            else:
                os.chdir(ROOT)
                path = SAMPLES[name]
            yield path
        finally:
            os.chdir(here)


def sample_records(name: str) -> tuple[str, list[dict[str, Any]]]:
    """The sample's path and every record the format's reader makes of it (as JSONL)."""
    import convo

    with sample_path(name) as path:
        return path, [m.serialize() for m in convo.read_messages(path, format=name)]


def example(records: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """The record shown: the first with a speaker and listeners (else the first)."""
    for i, rec in enumerate(records):
        meta = rec.get("metadata") or {}
        if meta.get("speaker") and meta.get("listeners"):
            return i, rec
    return 0, records[0]


MAX_SHOWN = 300  # characters of a long string in the example record


def shorten(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return value[:MAX_SHOWN] + f"… ({len(value)} characters)"
    if isinstance(value, dict):
        return {k: shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shorten(v) for v in value]
    return value


def reader_module(fmt: Any) -> str:
    read = fmt.read
    while hasattr(read, "func"):  # functools.partial
        read = read.func
    module = inspect.getmodule(read)
    assert module is not None and module.__file__ is not None
    return Path(module.__file__).resolve().relative_to(ROOT).as_posix()


def _files(fmt: Any) -> str:
    what = "a folder" if fmt.directory else "a file"
    if not fmt.patterns:
        return f"{what}, by its content"
    names = ", ".join(f"`{p}`" for p in fmt.patterns)
    return f"{what}; its name breaks ties when it matches {names}"


def _rows(fields: Any) -> list[tuple[str, str]]:
    return [
        ("speaker", fields.speaker),
        ("listeners", fields.listeners),
        ("timestamp", fields.time),
        ("time zone", fields.zone),
        ("thread", fields.thread),
        ("id", fields.id),
        ("id scope", fields.scope),
        ("replyTo", fields.reply_to),
        ("subject", fields.subject),
        ("tags", fields.tags + "; and every `--tag`"),
        ("extra", fields.extra),
    ]


def _labelled(fmt: Any, records: list[dict[str, Any]]) -> list[str]:
    """A row when the records say another format than this one (``slack-file``: ``slack``)."""
    seen = sorted({r.get("format") or "" for r in records})
    if fmt.family == "records" or seen == [fmt.name]:
        return []
    return [f"| records say | {', '.join(f'`format: {x}`' for x in seen)} |"]


def _sample_line(name: str, path: str, count: int, shown: int) -> str:
    which = f"record {shown + 1} of {count}"
    made = f"`convo ingest --from {name} '{path}'` gives ({which})"
    if name in BUILT:
        made += f"; `{path}` is {BUILT[name][1]}, made for this page"
    return made + ":"


def format_page(fmt: Any) -> str:
    path, records = sample_records(fmt.name)
    shown, record = example(records)
    lines = [
        f"# {fmt.name}",
        "",
        "<!-- Generated by tools/docs_reference.py from the format registry; do not edit. -->",
        "",
        inline(fmt.description) + ".",
        "",
        "| | |",
        "|---|---|",
        f"| family | {fmt.family} |",
        f"| reads | {_files(fmt)} |",
        f"| detection | by content (stdin has no name); `--from {fmt.name}` names it |",
        f"| reader | `{reader_module(fmt)}` |",
        *_labelled(fmt, records),
        "",
        "## What becomes what",
        "",
        "| record | from the source |",
        "|---|---|",
        *(f"| {key} | {table_cell(inline(value))} |" for key, value in _rows(fmt.fields)),
        "",
        "## The input, in short",
        "",
        code_block(fmt.example),
        "",
        "## An example record",
        "",
        _sample_line(fmt.name, path, len(records), shown),
        "",
        code_block(json.dumps(shorten(record), indent=2, ensure_ascii=False), "json"),
    ]
    return "\n".join(lines) + "\n"


def index_page(formats: list[Any]) -> str:
    lines = [
        "# Format reference",
        "",
        "<!-- Generated by tools/docs_reference.py from the format registry; do not edit. -->",
        "",
        "Every input format `convo formats` lists, one page each: what it reads, what becomes "
        "the record's speaker, listeners, time, thread and id, and a record convo makes "
        "from a sample file. Detection is by content; `--from FORMAT` names the format.",
        "",
        "| format | family | reads | files |",
        "|---|---|---|---|",
    ]
    for fmt in sorted(formats, key=lambda f: (f.family, f.name)):
        files = ", ".join(f"`{p}`" for p in fmt.patterns) or "(by content)"
        if fmt.directory:
            files = "a folder " + files
        lines.append(
            f"| [`{fmt.name}`]({fmt.name}.md) | {fmt.family} | {table_cell(inline(fmt.description))} "
            f"| {files} |"
        )
    lines += [
        "",
        "## Ids and their scope",
        "",
        "What a message's `id` is made of, and what makes it unique (docs/ids.md has the rule).",
        "",
        "| format | id | scope |",
        "|---|---|---|",
    ]
    for fmt in sorted(formats, key=lambda f: (f.family, f.name)):
        ids, scope = table_cell(inline(fmt.fields.id)), table_cell(inline(fmt.fields.scope))
        lines.append(f"| [`{fmt.name}`]({fmt.name}.md) | {ids} | {scope} |")
    return "\n".join(lines) + "\n"


def id_patterns(fields: Any) -> list[re.Pattern[str]]:
    """The id shapes a declaration names, as patterns: backticked text with ``<...>``
    (any text) or ``:``; "content hash" allows ``h:<hash>``."""
    out = []
    for shape in re.findall(r"`([^`]+)`", fields.id):
        if "<" not in shape and ":" not in shape:
            continue
        parts = re.split(r"<[^<>]+>|\.\.\.", shape)
        out.append(re.compile(".+".join(re.escape(p) for p in parts) + r"\Z", re.S))
    if "content hash" in fields.id:
        out.append(re.compile(r"h:[0-9a-f]+\Z"))
    return out


def pages() -> dict[str, str]:
    from convo.importers.registry import registry

    formats = registry.formats()
    out = {"formats/index.md": index_page(formats)}
    for fmt in formats:
        out[f"formats/{fmt.name}.md"] = format_page(fmt)
    return out
