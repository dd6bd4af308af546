"""Every format's fixture as an export (``Case``): its file, the siblings its reader
looks for, and how another export of it differs (another folder, scope, name or ids).
The id property (test_ids_property.py) and the mutated-export property
(test_export_mutations_property.py) run over them; test_ids_property.py holds every
registered format to have one."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ID = (r'("id"\s*:\s*")', r"\g<1>{t}")  # every string id of the export prefixed: other ids


@dataclass(frozen=True)
class Case:
    fmt: str
    path: str  # the fixture, relative to the repository
    siblings: tuple[str, ...] = ()  # files beside it its reader looks for
    rename: bool = False  # the file is the scope: the other export has another name
    subs: tuple[tuple[str, str], ...] = ()  # the other export's text ({t}: the drawn scope)
    # a binary or built export: make(fixture, folder, t) writes it, returns its path
    make: Callable[[Path, Path, str | None], Path] | None = None


SE, FORUM, FORMATS = "sample_data/forum/", "tests/fixtures/forum/", "tests/fixtures/formats/"
CHAT = "sample_data/chat/"
CASES = [
    # forums: ids numbered per site / instance / board / repository
    Case("stackexchange", SE + "stackexchange/Posts.xml", ("Users.xml",)),
    Case("stackexchange", SE + "stackexchange/Comments.xml", ("Posts.xml", "Users.xml")),
    Case(
        "stackexchange-api",
        FORMATS + "stackexchange_api/questions.json",
        subs=((r"cooking\.stackexchange", "c{t}.stackexchange"),),
    ),
    Case("discourse", SE + "discourse-topic.json"),  # no avatar host: the folder
    Case("discourse", FORUM + "discourse-posts-latest.json", subs=((r"meta\.example", "{t}.ex"),)),
    Case("discourse", FORUM + "discourse-latest.json", subs=(("/localhost/", "/{t}.example/"),)),
    Case("discourse-raw", FORMATS + "discourse_raw/839.md", rename=True),
    Case("phpbb", FORUM + "phpbb-posts.xml"),
    Case("gitlab", FORMATS + "gitlab/issue_notes.json", subs=((r"gitlab\.example", "{t}.ex"),)),
    Case("gitlab", FORMATS + "gitlab/mr_discussions.json"),
    Case("github", SE + "github-issue.json", subs=(("example/convo", "example/convo{t}"),)),
    Case("github", SE + "github-issue-comments.json", subs=(("example/convo", "example/c{t}"),)),
    Case(
        "hackernews", SE + "hn-item.json", subs=((r'("(?:id|parent)"\s*:\s*)(\d)', r"\g<1>{t}\2"),)
    ),
    Case("hackernews", FORUM + "hn-firebase.jsonl", subs=((r'("id"\s*:\s*)(\d)', r"\g<1>{t}\2"),)),
    Case("reddit", SE + "reddit-thread.json", subs=((r"\bt([1-6])_", r"t\g<1>_{t}"), ID)),
    # the data request export: fullnames (another account's rows have other ids); chat
    # ids scoped by their channel
    *(
        Case(
            "reddit-export",
            FORMATS + "reddit_export/export_maple_owl_20240601/" + name,
            subs=((r"(?m)^([0-9a-z]{5,}),", r"{t}\1,"),),
        )
        for name in ("posts.csv", "comments.csv", "messages.csv")
    ),
    Case(
        "reddit-export",
        FORMATS + "reddit_export/export_maple_owl_20240601/chat_history.csv",
        subs=(("sendbird_group_channel_", "sendbird_group_channel_{t}"),),
    ),
    Case("reddit", FORUM + "pushshift-comments.jsonl", subs=((r"\bt([1-6])_", r"t\g<1>_{t}"), ID)),
    Case(
        "mastodon",
        FORMATS + "mastodon/outbox.json",
        ("actor.json",),
        subs=(("mastodon.example", "{t}.ex"),),
    ),
    # chat apps
    Case("slack", CHAT + "slack-export", subs=(("C0GENERAL", "C{t}"), ("D0AB12CD3", "D{t}"))),
    # a day file alone names no channel: ts (unique to the microsecond) tells messages
    # apart, and another channel's messages have other ts
    Case(
        "slack-file",
        CHAT + "slack-export/general/2024-03-06.json",
        subs=((r'("ts"\s*:\s*"\d+\.)\d{3}', r"\g<1>999"),),
    ),
    Case("teams", CHAT + "teams.json", subs=(('"ChatId": "19:', '"ChatId": "19:{t}'),)),
    Case("telegram", CHAT + "telegram-result.json", subs=(("4400000001", "44{t}"),)),
    # no post ids: team, channel (or DM members), the millisecond and the user; another
    # server's team is another, and its direct posts were written at other times
    Case(
        "mattermost",
        CHAT + "mattermost.jsonl",
        subs=(('"auth"', '"auth{t}"'), (r'("create_at"\s*:\s*)(\d)', r"\g<1>1\2")),
    ),
    Case("discord", CHAT + "discord.json", subs=((r'("id"\s*:\s*")(\d)', r"\g<1>{t}\2"),)),
    Case("discord-text", CHAT + "discord-text.txt", rename=True),
    Case(
        "discord-csv",
        FORMATS
        + "discord_csv/Example guild - Text Channels - chill talk [1012224565567875236].csv",
        rename=True,
    ),
    Case("messenger", CHAT + "messenger.json", subs=(('"title": "', '"title": "{t} '),)),
    Case(
        "instagram",
        FORMATS
        + "instagram/your_instagram_activity/messages/inbox/annlee_17843210987654321/message_1.json",
        subs=(('"title": "', '"title": "{t} '),),
    ),
    Case(
        "gemini-activity",
        FORMATS + "gemini_activity/Takeout/My Activity/Gemini Apps/MyActivity.json",
        subs=(('"title": "', '"title": "{t} '),),
    ),
    Case(
        "vscode-chat",
        FORMATS + "vscode_chat/chatSessions/0b7c6f7e-2c1d-4b4e-9a55-3f1f0c1e2d3a.json",
        subs=((r'("requestId"\s*:\s*")', r"\g<1>{t}"), ID),
    ),
    # a session's uuid names its conversation; another run is another session
    Case(
        "autogen-runtime",
        FORMATS + "autogen_runtime/runtime.log",
        subs=((r"Session ID: ", "Session ID: {t}"), (r'("invocation_id": ")', r"\g<1>{t}")),
    ),
    # a key is unique in its namespace; LangMem's namespaces carry the user
    Case(
        "langgraph-store",
        FORMATS + "langgraph_store/search_memory.json",
        subs=(("user-7f3a", "user-{t}"),),
    ),
    Case("agentscope-session", FORMATS + "agentscope_session/session_2024-05-02.json", subs=(ID,)),
    # a team's thread: the messages' uuids; an agent's model context: the content hash,
    # its conversation the file
    Case("autogen-state", FORMATS + "autogen_state/team_state.json", rename=True, subs=(ID,)),
    Case("autogen-state", FORMATS + "autogen_state/agent_state.json", rename=True),
    # TypeAgent's records carry no id: the content hash, its conversation the file
    Case("typeagent", FORMATS + "typeagent/export.json", rename=True),
    Case("whatsapp", FORMATS + "whatsapp/ios/_chat.txt"),  # a name every export has: the folder
    Case("whatsapp", FORMATS + "whatsapp/android/WhatsApp Chat with Ben Ode.txt", rename=True),
    Case("zoomchat", CHAT + "zoom-chat.txt", rename=True),
    Case("txt-transcript", FORMATS + "txt_transcript/seed-swap.txt", rename=True),
    Case("fathom", FORMATS + "fathom/weekly-sync.txt", rename=True),
    Case("transcriptonic", FORMATS + "transcriptonic/garden-club.txt", rename=True),
    Case("zoom-cc", "tests/fixtures/formats/zoom_cc/meeting_saved_closed_caption.txt"),
    Case("irc", FORMATS + "irc/libera-#tea.log", rename=True),
    Case("gitter", FORMATS + "gitter/tea-party.json", rename=True, subs=(ID,)),
    # Skype: ids per conversation (a 1:1 chat's: its two accounts)
    Case(
        "skype",
        FORMATS + "skype/messages.json",
        subs=(("19:4f1c", "19:{t}x"), ('"id": "8:live:bob.k"', '"id": "8:live:bob{t}"')),
    ),
    # Zulip: ids per organization
    Case(
        "zulip",
        FORMATS + "zulip/api-messages.json",
        subs=(('"sender_realm_str": "tide"', '"sender_realm_str": "t{t}"'),),
    ),
    # Rocket.Chat: Meteor random ids, unique everywhere
    Case(
        "rocketchat", FORMATS + "rocketchat/rest-history.json", subs=(('"_id": "', '"_id": "{t}'),)
    ),
    # slackdump: the export's ids, per channel
    Case(
        "slackdump",
        FORMATS + "slackdump/chunks.jsonl",
        subs=(("C0OUTING1", "C{t}"), ("D0BOBANN1", "D{t}"), ("C0NOTICES", "N{t}")),
    ),
    Case(
        "google-chat",
        FORMATS + "google_chat/Groups/Space AAAAtea/messages.json",
        ("group_info.json",),
        subs=(("AAAAtea", "AAAA{t}"),),
    ),
    Case(
        "matrix",
        FORMATS + "matrix/element-export.json",
        subs=((r'"event_id": "\$', '"event_id": "$x{t}'),),
    ),
    Case(
        "discourse-archive",
        FORMATS + "discourse_archive/user_archive-tidewatcher-240601-101500-77/user_archive.csv",
        ("preferences.json",),
        subs=((r"sea\.example", "{t}.example"),),
    ),
    Case(
        "bluesky",
        FORMATS + "bluesky/author-feed.json",
        subs=((r"did:plc:", "did:plc:{t}"),),
    ),
    Case(
        "mastodon-api",
        FORMATS + "mastodon_api/statuses.json",
        subs=((r"tide\.example", "{t}.example"),),
    ),
    Case("twitter-dm", FORMATS + "twitter_dm/direct-messages.js", ("account.js",), subs=(ID,)),
    Case(
        "twitter",
        FORMATS + "twitter/tweets.js",
        ("account.js",),
        subs=(
            (r'("(?:id|id_str|in_reply_to_status_id_str|initialTweetId)"\s*:\s*")', r"\g<1>{t}"),
        ),
    ),
    Case("signal", FORMATS + "signal/Aya/chat.md"),  # the chat is the folder
    Case("signal", FORMATS + "signal/sigtop-bob.json", subs=(ID,)),
    Case(
        "signal",
        FORMATS + "signal/sigtop-bob.txt",
        subs=(("Conversation: Bob", "Conversation: {t}"),),
    ),
    Case(
        "chatgpt",
        CHAT + "chatgpt-conversations.json",
        subs=(ID, ('"conversation_id": "', '"conversation_id": "{t}')),
    ),
    Case(
        "claude-ai", FORMATS + "claude_ai/conversations.json", subs=(('"uuid": "', '"uuid": "{t}'),)
    ),
    # agent formats: short ids are unique in their file; long ones everywhere
    Case("jianmu", CHAT + "jianmu.json", rename=True),
    Case("agentscope", CHAT + "agentscope.json", rename=True, subs=(ID,)),
    Case("autogen", CHAT + "autogen.json", rename=True, subs=(ID,)),
    Case("anthropic", CHAT + "anthropic.json", rename=True),
    Case(
        "anthropic",
        CHAT + "claude-code-session.jsonl",
        rename=True,
        subs=(('"uuid": "', '"uuid": "{t}'),),
    ),
    Case("openai", CHAT + "openai.json", rename=True),
    Case("langmem", CHAT + "langmem.json", rename=True, subs=(ID,)),
    Case("langchain", FORMATS + "langchain/messages.json", rename=True, subs=(ID,)),
    Case("sharegpt", FORMATS + "sharegpt/sharegpt.json", rename=True),
    Case("sharegpt", FORMATS + "sharegpt/sharegpt.jsonl", rename=True),
    Case("hf-chat", FORMATS + "hf_chat/chat.jsonl", rename=True),
    Case("gemini", FORMATS + "gemini/request.json", rename=True),
    Case(
        "gemini",
        FORMATS + "gemini/response.json",
        rename=True,
        subs=(('"responseId": "', '"responseId": "{t}'),),
    ),
    Case("vercel-ai", FORMATS + "vercel_ai/chat.json", rename=True, subs=(ID,)),
    Case(
        "codex",
        FORMATS + "codex/rollout-2025-10-02T09-14-05-0199a3c2-5e1f-7c3a-9b8e-2f4d6a8c0e11.jsonl",
        subs=(ID,),
    ),
    Case(
        "gemini-cli",
        FORMATS + "gemini_cli/session-2025-09-10T08-00-3f9a1c2e.json",
        subs=(ID, ('"sessionId": "', '"sessionId": "{t}')),
    ),
    Case(
        "gemini-cli",
        FORMATS + "gemini_cli/logs.json",
        subs=(('"sessionId": "', '"sessionId": "{t}'),),
    ),
    Case(
        "open-webui",
        FORMATS + "open_webui/chat-export-1717405400000.json",
        subs=((r'"([0-9a-f]{8}-[0-9a-f]{4}-)', r'"{t}\g<1>'),),  # every UUID: links kept
    ),
    Case(
        "sillytavern",
        FORMATS + "sillytavern/Seraphina - 2024-6-5 @14h 56m 50s 682ms.jsonl",
        subs=(('"create_date": "', '"create_date": "{t} '),),
    ),
    Case("sillytavern", FORMATS + "sillytavern/2024-6-6 @20h 00m 00s 000ms.jsonl", rename=True),
    Case("cline", FORMATS + "cline/tasks/1717405200000/api_conversation_history.json", subs=(ID,)),
    Case("aider", FORMATS + "aider/kettle/.aider.chat.history.md"),
    Case(
        "pydantic-ai",
        FORMATS + "pydantic_ai/history.json",
        subs=((r'"(conversation_id|provider_response_id|tool_call_id)": "', r'"\g<1>": "{t}'),),
    ),
    Case(
        "pydantic-ai",
        FORMATS + "pydantic_ai/v0-chat-app.jsonl",
        rename=True,
        subs=((r'"tool_call_id": "', r'"tool_call_id": "{t}'),),
    ),
    *(
        Case("swe-agent", FORMATS + f"swe_agent/{name}", rename=True)
        for name in (
            "django__django-11099.traj",
            "swe-agent__test-repo-i1.traj",
            "retry-loop.traj",
            "app-crash.traj.json",
        )
    ),
    Case("llamaindex", FORMATS + "llamaindex/chat_store.json", subs=((r'"user-', '"user-{t}'),)),
    Case("llamaindex", FORMATS + "llamaindex/v0-10-chat_store.json", rename=True),
    Case("letta", FORMATS + "letta/memgpt_agent_with_convo.af", rename=True),
    Case("letta", FORMATS + "letta/agent-file-v2.af", rename=True),
    Case("goose", FORMATS + "goose/20250301_101500.jsonl", rename=True, subs=(ID,)),
    Case("goose", FORMATS + "goose/20250115_093000.jsonl", rename=True),
    Case("ollama", FORMATS + "ollama/chat-stream.jsonl", rename=True),
    Case("crewai", FORMATS + "crewai/crew_log.json", rename=True),
    Case("cursor-md", FORMATS + "cursor_md/cursor_fixing_the_kettle_cutoff.md", rename=True),
    Case("smolagents", FORMATS + "smolagents/memory_steps.json", rename=True),
    Case("mem0", FORMATS + "mem0/memories.json", rename=True, subs=(ID,)),
    Case(
        "amazon-q",
        FORMATS + "amazon_q/kettle-chat.json",
        rename=True,
        subs=((r'("conversation_id": ")', r"\g<1>{t}"),),
    ),
    Case("zed-md", FORMATS + "zed_md/kettle-cutoff-investigation.md", rename=True),
    Case("windsurf-md", FORMATS + "windsurf_md/kettle-cutoff.md", rename=True),
    Case(
        "copilot-md",
        FORMATS + "copilot_md/copilot-session-2230af76.md",
        rename=True,
        subs=((r"(Session ID:\*\* `)", r"\g<1>{t}"),),
    ),
    Case("cline-md", FORMATS + "cline_md/cline_task_mar-26-2025_12-52-10-pm.md", rename=True),
    Case("gemini-cli-md", FORMATS + "gemini_cli_md/gemini-chat.md", rename=True),
    Case("continue-md", FORMATS + "continue_md/session.md", rename=True),
    Case("crewai", FORMATS + "crewai/logs.txt", rename=True),
    Case("specstory", FORMATS + "specstory/2025-04-24_13-10-01-untitled.md", rename=True),
    Case(
        "specstory",
        FORMATS + "specstory/2025-12-02_12-49Z-kettle-cleanup.md",
        subs=(("7b2c3d4e", "{t}"),),
    ),
    Case("openhands", FORMATS + "openhands/opendevin-2024.json", rename=True),
    *(
        Case("zed", FORMATS + f"zed/conversations/{name}", subs=(('"id": "', '"id": "{t}'),))
        for name in ("Kettle clicks off early - 1.zed.json", "Pelican pouches - 1.zed.json")
    ),
    *(
        Case("copilot-cli", FORMATS + f"copilot_cli/session-state/{rel}", subs=(ID,))
        for rel in (
            "51854430-83f7-4543-a9bf-ec76ead71f59/events.jsonl",
            "7a22dab8-b57b-472a-b1ce-21f691cb0cf5.jsonl",
        )
    ),
    Case(
        "openhands",
        FORMATS + "openhands/trajectory-1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.json",
        rename=True,
    ),
    Case(
        "librechat",
        FORMATS + "librechat/flights.json",
        subs=((r'"([0-9a-f]{8}-[0-9a-f]{4}-)', r'"{t}\g<1>'),),  # every UUID: links kept
    ),
    Case(
        "librechat",
        FORMATS + "librechat/scifi-tree.json",
        subs=((r'"([0-9a-f]{8}-[0-9a-f]{4}-)', r'"{t}\g<1>'),),
    ),
    Case(
        "llm-logs",
        FORMATS + "llm_logs/logs.json",
        subs=(ID, ('"conversation_id": "', '"conversation_id": "{t}')),
    ),
    Case(
        "llm-logs",
        FORMATS + "llm_logs/legacy.json",
        subs=(ID, ('"conversation_id": "', '"conversation_id": "{t}')),
    ),
    Case(
        "claude-history",
        FORMATS + "claude_history/history.jsonl",
        # another machine's sessions and projects (a line without a session: its project)
        subs=(('"sessionId":"', '"sessionId":"{t}'), ('"project":"/Users/', '"project":"/{t}/')),
    ),
    Case("lmstudio", FORMATS + "lmstudio/1742461200000.conversation.json", rename=True),
    Case("lmstudio", FORMATS + "lmstudio/1727000000000.conversation.json", rename=True),
    *(
        Case(
            "jan",
            FORMATS + f"jan/threads/{folder}/messages.jsonl",
            ("thread.json",),
            subs=(ID, ('"thread_id":\\s*"', '"thread_id": "{t}')),
        )
        for folder in ("0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09", "jan_1700000000")
    ),
    *(
        Case(
            "continue",
            FORMATS + f"continue_dev/sessions/{name}.json",
            ("sessions.json",),
            subs=(('"sessionId": "', '"sessionId": "{t}'),),
        )
        for name in ("6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
    ),
    Case("openai-assistants", FORMATS + "openai_api/thread_messages.json", subs=(ID,)),
    Case("openai-completion", FORMATS + "openai_api/completion.json", subs=(ID,)),
    Case(
        "openai-completion",
        FORMATS + "openai_api/batch_output.jsonl",
        subs=(ID, ('"custom_id": "', '"custom_id": "{t}')),
    ),
    Case("openai-responses", FORMATS + "openai_responses/response.json", subs=(ID,)),
    Case("openai-responses", FORMATS + "openai_responses/items.jsonl", rename=True, subs=(ID,)),
    # mail: Message-IDs are unique everywhere
    Case("mbox", "sample_data/email/team.mbox", subs=((r"(?im)^(message-id:\s*<)", r"\g<1>{t}."),)),
    Case(
        "eml",
        "tests/fixtures/email/named-parts.eml",
        subs=((r"(?im)^(message-id:\s*<)", r"\g<1>{t}."),),
    ),
    # transcripts: the file is the meeting
    Case("vtt", "sample_data/transcripts/standup.vtt", rename=True),
    Case("srt", "sample_data/transcripts/interview.srt", rename=True),
    Case("sbv", "sample_data/transcripts/lecture.sbv", rename=True),
    Case("whisper", FORMATS + "asr/whisperx.json", rename=True),
    Case("whisper-cpp", FORMATS + "asr/whisper-cpp.json", rename=True),
    Case("assemblyai", FORMATS + "asr/assemblyai.json", rename=True),
    Case("deepgram", FORMATS + "asr/deepgram-utterances.json", rename=True),
    Case("aws-transcribe", FORMATS + "asr/aws-audio-segments.json", rename=True),
    Case("revai", FORMATS + "asr/revai.json", rename=True),
    Case("whisper-tsv", FORMATS + "asr/whisper.tsv", rename=True),
    Case("whisper-txt", FORMATS + "asr/whisper-cli-stdout.txt", rename=True),
    Case("otter", FORMATS + "otter/garden-club.txt", rename=True),
    Case("rev", FORMATS + "rev/seed-saving.txt", rename=True),
    Case("md-transcript", FORMATS + "md_transcript/garden-sync.md", rename=True),
    Case("google-meet", FORMATS + "google_meet/seed-swap-2024.txt", rename=True),
    Case("ass", FORMATS + "ass/aegisub-episode.ass", rename=True),
    Case("ttml", FORMATS + "ttml/agents.ttml", rename=True),
    Case("youtube", FORMATS + "youtube/seed-talk.en.json3", rename=True),
    Case("imessage", FORMATS + "imessage/Lena Whitford.txt", rename=True),  # the file: the chat
    Case("imessage-html", FORMATS + "imessage/Lena Whitford.html", rename=True),
    Case("matrix-txt", FORMATS + "matrix/export.txt", rename=True),  # the file: the room
    Case(
        "pidgin",
        FORMATS + "pidgin/irc/2024-03-04.100000+0000UTC.txt",
        subs=(("Conversation with #tea", "Conversation with #tea{t}"),),
    ),  # the conversation: the thread
    Case(
        "imazing",
        FORMATS + "imazing/Messages - Bob McRoy.csv",
        subs=((r"(?m)^Bob McRoy,", "Bob McRoy {t},"),),
    ),  # the Chat Session: the thread
    Case(
        "messenger-html",
        FORMATS + "messenger/html/old/annabrown_1234/message_1.html",
        subs=(("<title>Anna Brown", "<title>Anna Brown {t}"),),
    ),  # the title: the thread
    Case(
        "instagram-legacy",
        FORMATS + "instagram/legacy/messages.json",
        subs=((r'"participants": \["anna_b"', '"participants": ["anna_b{t}"'),),
    ),  # the participants: the thread
    Case(
        "telegram-html",
        FORMATS + "telegram_html/messages.html",
        subs=(("Seed Swap Club\n", "Seed Swap Club {t}\n"),),
    ),  # the page header's chat name is the scope
    Case(
        "line",
        FORMATS + "line/[LINE] Chat history with Marta.txt",
        subs=(("Chat history with Marta", "Chat history with Marta{t}"),),
    ),  # the header's chat name is the scope
    Case(
        "kakaotalk",
        FORMATS + "kakaotalk/KakaoTalk Chats with Ann.txt",
        subs=(("KakaoTalk Chats with Ann", "KakaoTalk Chats with Ann{t}"),),
    ),  # the header's chat name is the scope
    Case(
        "discord-txt",
        FORMATS + "discord_txt/dm-de.txt",
        subs=(("Channel: Private / mia", "Channel: Private / mia{t}"),),
    ),  # the preamble's channel is the scope
    Case("wechat", FORMATS + "wechat/种子交换群.txt", rename=True),  # the file: the chat
    Case(
        "discord-html",
        FORMATS + "discord_html/Garden club - Text Channels - general [1012224565567721552].html",
        subs=((r'(data-message-id=")\d{7}', r"\g<1>{t}"),),
    ),  # snowflakes: the other export's are other snowflakes (still times)
    Case(
        "discord-package",
        FORMATS + "discord_package/package/messages/c1012224565567721552/messages.json",
        ("channel.json",),
        subs=((r'("ID": )\d{7}', r"\g<1>{t}"),),
    ),  # snowflakes: another package's messages are other snowflakes
    Case("hangouts", FORMATS + "hangouts/Hangouts.json", subs=((r"\bUg([wx])", r"Ug\g<1>{t}"),)),
    Case(
        "linkedin",
        FORMATS + "linkedin/Basic_LinkedInDataExport_06-01-2024/messages.csv",
        subs=(("Maple Owl", "Maple Owl {t}"), ("Seed swap group", "Seed swap group {t}")),
    ),  # no ids: the thread (a group's title, else the people) scopes: other conversations
    Case(
        "snapchat",
        FORMATS + "snapchat/mydata_2024/messages/json/chat_history.json",
        subs=(("ann.lee", "ann.lee{t}"), ("Garden crew", "Garden crew {t}")),
    ),  # no ids: the thread (a group's title, else the friend) scopes: other conversations
    # convo's own records carry their ids
    Case("jsonl", "tests/fixtures/views.jsonl", subs=(ID,)),
]


def _maildir(src: Path, folder: Path, t: str | None) -> Path:
    """The mbox's messages as a Maildir; another export's Message-IDs are other."""
    import mailbox

    box = mailbox.Maildir(folder / "Maildir", create=True)
    for msg in mailbox.mbox(src):
        if t is not None:
            msg.replace_header("Message-ID", msg["Message-ID"].replace("<", f"<{t}.", 1))
        box.add(msg)
    return folder / "Maildir"


def _whatsapp_zip(src: Path, folder: Path, t: str | None) -> Path:
    """A WhatsApp "Export chat" zip of the ``_chat.txt``, named for its chat: another chat
    is another name (the zip's name is the scope, as the Android .txt's is)."""
    import zipfile

    out = folder / f"WhatsApp Chat - Tea{t or ''}.zip"
    with zipfile.ZipFile(out, "w") as z:
        z.write(src, "_chat.txt")
    return out


def _skype_tar(src: Path, folder: Path, t: str | None) -> Path:
    """Skype's export .tar holding ``messages.json``; another account's export has other
    conversations (the ``skype`` case's rewrite)."""
    import tarfile

    text = src.read_text(encoding="utf-8")
    if t is not None:
        text = text.replace("19:4f1c", f"19:{t}x").replace(
            '"id": "8:live:bob.k"', f'"id": "8:live:bob{t}"'
        )
    (folder / "messages.json").write_text(text, encoding="utf-8")
    out = folder / "8_live_ann_export.tar"
    with tarfile.open(out, "w") as tf:
        tf.add(folder / "messages.json", "messages.json")
    return out


def _renamed_docx(src: Path, folder: Path, t: str | None) -> Path:
    """A Teams .docx (binary: copied, not rewritten); another meeting is another name."""
    out = folder / f"{src.stem}{t or ''}{src.suffix}"
    shutil.copy(src, out)
    return out


def _parquet(dataset: bool) -> Callable[[Path, Path, str | None], Path]:
    """convo's records as Parquet (a dataset folder, or its one file); another export's
    records carry other ids, as another JSONL store's do."""

    def make(src: Path, folder: Path, t: str | None) -> Path:
        import orjson

        from convo.output.exporters.parquet import write_parquet

        records = [orjson.loads(line) for line in src.read_bytes().splitlines() if line.strip()]
        if t is not None:
            for r in records:
                r["id"] = f"{t}{r['id']}"
        write_parquet(records, folder / "ds", partition_by=())
        if dataset:
            return folder / "ds"
        (only,) = (folder / "ds").rglob("*.parquet")
        return only

    return make


def _cursor(src: Path, folder: Path, t: str | None) -> Path:
    """Cursor's global database (built: binary); another person's has other composer ids
    (UUIDs Cursor makes)."""
    import sqlite3

    from cursor_db import C1, C2, C3, build_global

    out = build_global(folder / src.name)
    if t is not None:
        con = sqlite3.connect(out)
        for composer in (C1, C2, C3):
            con.execute(
                "UPDATE cursorDiskKV SET key = replace(key, ?, ?)", (composer, t + composer)
            )
        con.commit()
        con.close()
    return out


def _chat_db(src: Path, folder: Path, t: str | None) -> Path:
    """Messages' chat.db; another one (another person's) has other message guids."""
    import sqlite3

    dst = folder / src.name
    shutil.copy(src, dst)
    if t is not None:
        con = sqlite3.connect(dst)
        con.execute("UPDATE message SET guid = guid || ?", (t,))
        con.commit()
        con.close()
    return dst


def _llm_db(src: Path, folder: Path, t: str | None) -> Path:
    """LLM's logs.db; another one has other ULIDs (turns, responses, conversations) and,
    for the pre-0.5 table's integer ids, another file name."""
    import sqlite3

    dst = folder / (src.name if t is None else f"{src.stem}-{t}.db")
    shutil.copy(src, dst)
    if t is not None:
        con = sqlite3.connect(dst)
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for table, cols in (("turns", ("id", "thread_id")), ("threads", ("id",)),
                            ("turn_fragments", ("turn_id",)), ("turn_tools", ("turn_id",)),
                            ("responses", ("id", "conversation_id")), ("conversations", ("id",))):  # fmt: skip
            if table in tables:
                sets = ", ".join(f"{c} = {c} || '{t}'" for c in cols)
                con.execute(f"UPDATE {table} SET {sets}")
        con.commit()
        con.close()
    return dst


def _agents_db(src: Path, folder: Path, t: str | None) -> Path:
    """An Agents SDK session database; another one has another session and item ids."""
    import sqlite3

    dst = folder / (src.name if t is None else f"{src.stem}-{t}.db")
    shutil.copy(src, dst)
    if t is not None:
        con = sqlite3.connect(dst)
        con.execute(f"UPDATE agent_messages SET session_id = session_id || '{t}', "
                    f"message_data = replace(message_data, '\"id\": \"', '\"id\": \"{t}')")  # fmt: skip
        con.commit()
        con.close()
    return dst


def _msg(src: Path, folder: Path, t: str | None) -> Path:
    """An Outlook .msg (tests/importers/msg_writer.py); another one has another
    Message-ID, in its headers as in its properties."""
    from msg_writer import Props, message

    dst = folder / src.name
    if t is None:
        shutil.copy(src, dst)
        return dst
    mid = f"<{t}@example.org>"
    head = f"Message-ID: {mid}\r\nFrom: Ann <ann@example.org>\r\nSubject: Hi\r\n\r\n"
    strings = {0x001A: "IPM.Note", 0x007D: head, 0x1035: mid, 0x1000: "Hello"}
    dst.write_bytes(message(Props(strings=strings)))
    return dst


CASES += [
    Case("aistudio", FORMATS + "aistudio/untimed.json", rename=True),
    Case(
        "grok",
        FORMATS + "grok/prod-grok-backend.json",
        subs=(
            ID,
            (r'("_?id"\s*:\s*")', r"\g<1>{t}"),
            (r'("parent_response_id"\s*:\s*")', r"\g<1>{t}"),
        ),
    ),
    Case("deepseek", FORMATS + "deepseek/conversations.json", subs=(ID,)),
    Case("api-log", FORMATS + "api_log/chat_calls.jsonl", rename=True, subs=(ID,)),
    Case("msg", FORMATS + "msg/quarterly.msg", make=_msg),
    Case("imessage-db", FORMATS + "imessage/chat.db", make=_chat_db),
    Case("openai-agents", FORMATS + "agents_session/conversation_history.db", make=_agents_db),
    Case("llm-logsdb", FORMATS + "llm_logsdb/logs-0.36.db", make=_llm_db),
    Case("llm-logsdb", FORMATS + "llm_logsdb/logs-0.13.db", make=_llm_db),
    Case("cursor", FORMATS + "cursor/globalStorage/state.vscdb", make=_cursor),
    Case("maildir", "sample_data/email/team.mbox", make=_maildir),
    Case("whatsapp-zip", FORMATS + "whatsapp/ios/_chat.txt", make=_whatsapp_zip),
    Case("skype-tar", FORMATS + "skype/messages.json", make=_skype_tar),
    Case("teams-docx", FORMATS + "teams_docx/garden-club.docx", make=_renamed_docx),
    Case("parquet", "tests/fixtures/views.jsonl", make=_parquet(dataset=False)),
    Case("parquet-dataset", "tests/fixtures/views.jsonl", make=_parquet(dataset=True)),
]

# The readings this wave added to existing formats: each variant its own case, so the
# id and mutated-export properties run over it too.
MID = (r"(?im)^(message-id:\s*<)", r"\g<1>{t}.")
SESSION = (r'("session_id"\s*:\s*")', r"\g<1>{t}")
UUID = (r'("uuid"\s*:\s*")', r"\g<1>{t}")
CUSTOM = (r'("custom_id"\s*:\s*")', r"\g<1>{t}")  # unique in its batch only
AGENTS = "tests/fixtures/agents/"
CASES += [
    Case("codex", FORMATS + "codex/exec-json.jsonl", subs=(('"thread_id":"', '"thread_id":"{t}'),)),
    Case("gemini-cli", FORMATS + "gemini_cli/stream-json.jsonl", subs=(SESSION,)),
    Case("gemini-cli", FORMATS + "gemini_cli/json-output.json", subs=(SESSION,)),
    Case("anthropic", AGENTS + "claude-sdk/stream-json.jsonl", subs=(SESSION, UUID)),
    Case("anthropic", AGENTS + "batch/anthropic-batch-requests.jsonl", subs=(CUSTOM,)),
    Case("anthropic", AGENTS + "batch/anthropic-batch-results.jsonl", subs=(CUSTOM, ID)),
    Case("openai", AGENTS + "batch/openai-batch-input.jsonl", subs=(CUSTOM,)),
    Case("whisper", FORMATS + "asr/hf-insanely-fast-whisper.json", rename=True),
    Case("whisper", FORMATS + "asr/hf-word-chunks.json", rename=True),
    Case("github", FORMATS + "github/events.jsonl", subs=(("acme/widgets", "acme/w{t}"), ID)),
    Case(
        "github",
        FORMATS + "github/issue-timeline.json",
        subs=(("acme/widgets", "acme/w{t}"), (r'("id"\s*:\s*)(\d)', r"\g<1>{t}\2")),
    ),
    Case("github", FORMATS + "github/pulls.json", subs=(("acme/widgets", "acme/w{t}"),)),
    Case("reddit", FORUM + "reddit-inbox.json", subs=((r"\bt([1-6])_", r"t\g<1>_{t}"), ID)),
    Case("reddit", FORUM + "reddit-morechildren.json", subs=((r"\bt([1-6])_", r"t\g<1>_{t}"), ID)),
    Case(
        "twitter",
        FORMATS + "twitter/deleted-tweets.js",
        subs=((r'("id(?:_str)?"\s*:\s*")', r"\g<1>{t}"),),
    ),
    Case(
        "twitter",
        FORMATS + "twitter/tweet-2019/tweet.js",
        subs=((r'("id(?:_str)?"\s*:\s*")', r"\g<1>{t}"),),
    ),
    Case("eml", "tests/fixtures/email/smime-opaque-signed.eml", subs=(MID,)),
    Case("eml", "tests/fixtures/email/smime-opaque-signed-ber.eml", subs=(MID,)),
    Case("eml", "tests/fixtures/email/tnef-whole-message.eml", subs=(MID,)),
    Case("vtt", "tests/fixtures/transcripts/webex.vtt", rename=True),
]
