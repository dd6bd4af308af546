"""Chat-app exports (family ``chat``), one module per app: Slack, Discord (DiscordChatExporter
JSON, CSV, HTML and plain-text exports, text copied from the client, and Discord's own data
package), Telegram (result.json and the HTML export),
Messenger, ChatGPT, DeepSeek, Teams, Mattermost, Matrix (Element's JSON and plain-text exports),
WhatsApp (its .txt and "Export chat" .zip), Signal (signal-export and sigtop outputs),
Zoom chat, Open WebUI, LibreChat, Continue, Jan, LM Studio, SillyTavern, Skype (its messages.json, or the export's .tar
read in place), Zulip, Rocket.Chat, slackdump's archive,
iMessage (imessage-exporter's text and HTML, Messages' chat.db), LINE's and KakaoTalk's text histories, WeChat
(WeChatMsg's CSV and TXT), Google Hangouts (Takeout's Hangouts.json), LinkedIn's
messages.csv and Snapchat's chat_history.json.
Each module holds its sniffers beside its readers (decisions in
its docstring) and its ``FORMATS``; this package registers them. Every format is
detected by content (stdin has no name).

Slack is two registrations: ``slack`` reads an export folder (``directory=True``) and
``slack-file`` its .zip or a single channel-day JSON file; both write ``format: slack``
and ``--from slack`` reads any of the three.

Shared decisions: speaker = display name; listeners = @-mentioned users, else the other
party of a two-party chat; ``thread`` = channel or chat name; times in UTC (naive source
times read in ``--tz``; formats whose exporters always write an offset, such as
DiscordChatExporter, claude.ai, X/Twitter archives, Gitter and Google's Takeout, read a
time without one as UTC, and their ``fields`` declarations say so); ids from the source prefixed by app (``slack:<channel>:<ts>``,
``discord:<id>``, ``telegram:<chat>:<id>``...), ``replyTo`` = the parent's id;
attachments, reactions and edits in ``extra``; system/service messages are kept with the
tag ``system``. Messages with neither text nor media are skipped and counted in one
warning per source. Records are built by ``convo.importers.build.message``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from convo.importers.gates import Gate
    from convo.importers.registry import Registry


# What a WhatsApp export's first line opens with: a bracket or a digit, its direction marks
# (whatsapp_header.MARKS) or an Arabic-Indic or Persian digit (whatsapp_header.ARABIC_DIGITS).
_WHATSAPP_OPENS = (
    "[0123456789\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"
    "\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9"
)

# irc's own refusal: a head that opens {, <, WEBVTT or a [ not followed by a time or a date.
_IRC_OPENS = (
    r"\A[\ufeff \r\n]*"
    r"(?![{<]|WEBVTT|\[(?!\d\d(?::| [A-Z][a-z]{2} )|\d{4}-\d\d-\d\d[ T]\d))[^\ufeff \r\n]"
)
# imessage-exporter's first line (a date, `Mar 05, 2024 `); telegram's HTML export's words.
_IMESSAGE_OPENS = r"\A[\ufeff\s]*(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d, \d{4} "
# Element's plain-text export: a weekday, then a date in English.
_ELEMENT_TXT_OPENS = r"\A[\ufeff\s]*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (?:[A-Z][a-z]{2}|\d)"
# imessage-exporter's -f html pages: its style's selector, its message markup.
_IMESSAGE_HTML_WORDS = (".message .sent.iMessage", 'class="sent iMessage"')
_TELEGRAM_HTML_WORDS = ("Exported Data", "chat_page", 'class="message default')
# The side files of a ChatGPT export folder (read as no messages by chatgpt_sidecars).
_CHATGPT_SIDE_FILES = (
    "user.json", "user_settings.json", "message_feedback.json", "model_comparisons.json",
    "shared_conversations.json", "export_manifest.json",
    "conversation_asset_file_names.json", "library_files.json",
)  # fmt: skip


def _text_gates(gate: type[Gate]) -> tuple[Gate, tuple[Gate, ...], Gate]:
    """The gates of irc, kakaotalk and wechat, whose text files open with no one character."""
    irc = gate(pattern=_IRC_OPENS)
    # kakaotalk: the Mac CSV's header; the header's words or a PC date line's dashes; or
    # a mobile line's date (2024년 12월, 2024. 12., December 9, 2024).
    kakaotalk = (
        gate(pattern=r"\A\ufeff?Date,User,Message"),
        gate(words=("카카오톡", "KakaoTalk", "-----")),
        gate(pattern=r"(?m)^(?:\d{4}(?:년|\.)\s*\d{1,2}(?:월|\.)|[A-Za-z]{3,9}\.? \d{1,2}, \d{4})"),
    )
    # wechat: WeChatMsg's CSV header, or its TXT's first title line.
    wechat = gate(pattern=r"\A[\ufeff\s]*(?:localId,TalkerId,|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
    return irc, kakaotalk, wechat


# Discord's own data package: its messages files and the side files read beside them.
_DISCORD_PACKAGE_FILES = ("messages.csv", "messages.json", "channel.json", "index.json")


def _discord_package_gates() -> tuple[Gate, ...]:
    """messages.csv's header, messages.json's array of Contents, channel.json/index.json,
    the package's other files (user.json, guild.json, audit-log.json, events-*.json)."""
    from convo.importers.gates import Gate, json_with

    return (
        Gate(pattern=r"\A\ufeff?ID,Timestamp,Contents,Attachments"),
        json_with('"Contents"', opens="["),
        Gate(opens="[", names=("messages.json",)),  # an empty channel's []
        Gate(opens="{", names=("channel.json", "index.json")),
        # the package's files without messages: account/user.json, servers/*, analytics
        Gate(opens="{[", names=("user.json", "guild.json", "audit-log.json", "events-*.json")),
    )


def _data_downloads() -> tuple[tuple[str, str, tuple[str, ...], Gate], ...]:
    """LinkedIn's messages.csv, Snapchat's chat history, Google Hangouts' Takeout file,
    Instagram's messages.json before 2020, Meta's download in HTML, iMazing's CSV,
    Pidgin's text logs."""
    from convo.importers.gates import Gate, json_with

    return (
        ("linkedin", "linkedin", ("messages.csv", "*.csv"), Gate(pattern=r"(?i)\A\ufeff?[^\n]*\bCONTENT\b")),
        ("snapchat", "snapchat", ("chat_history.json", "snap_history.json", "*.json"), json_with('"Media Type"', opens="{")),
        ("hangouts", "hangouts", ("Hangouts.json", "*.json"), json_with('"conversation_state"', '"conversations"', opens="{")),
        ("instagram_legacy", "instagram-legacy", ("messages.json", "*.json"), json_with('"conversation"', opens="[")),
        ("pidgin", "pidgin", ("*.txt",), Gate(pattern=r"\A\ufeff?Conversation with .+ at .+ on ")),
        ("imazing", "imazing", ("Messages - *.csv", "*.csv"), Gate(pattern=r"\A\ufeff?Chat Session[,;\t]Message Date")),
        ("messenger_html", "messenger-html", ("message_*.html", "*.html"), Gate(opens="<", words=("uiBoxWhite",))),
    )  # fmt: skip


def _imessage(gate: type[Gate], sqlite: Gate) -> tuple[tuple[str, str, tuple[str, ...], Gate], ...]:
    """imessage-exporter's text and HTML, Messages' own database."""
    return (
        ("imessage", "imessage", ("*.txt",), gate(opens="ADFJMNOS", pattern=_IMESSAGE_OPENS)),
        ("imessage_html", "imessage-html", ("*.html",), gate(opens="<", words=_IMESSAGE_HTML_WORDS)),
        ("imessage_db", "imessage-db", ("chat.db", "sms.db", "*.db"), sqlite),
    )  # fmt: skip


def _export_zip() -> Any:
    """The gate of an app's data export read as the zip it was downloaded as
    (``apps.export_zip``)."""
    from convo.importers.gates import Gate

    return Gate(magic=(b"PK\x03\x04",))


def _mapping_exports(chatgpt_sides: Gate) -> tuple[tuple[Any, ...], ...]:
    """ChatGPT's and DeepSeek's exports (a ``mapping`` tree each), and their side files."""
    from convo.importers.gates import Gate, json_with

    deepseek_user = Gate(opens="{", names=("user.json",))
    chat_html = Gate(opens="<", raw=rb"\bvar\s+jsonData\s*=")  # the export's chat.html
    export_zip = _export_zip()
    return (
        ("chatgpt", "chatgpt", ("conversations.json", "chat.html"), json_with('"mapping"'), chatgpt_sides, chat_html, export_zip),
        ("deepseek", "deepseek", ("conversations.json", "user.json"), json_with('"fragments"'), deepseek_user, export_zip),
    )  # fmt: skip


def register(registry: Registry) -> None:
    """Declare the chat-app export formats, each module imported when a gate admits a source
    or its format is named (`convo --help` and detection stay fast: ``importers.gates``)."""
    from convo.importers.gates import JSON, JSON_OBJECT, Gate, json_with
    from convo.importers.registry import Declared

    zipped, sqlite = Gate(magic=(b"PK\x03\x04",)), Gate(magic=(b"SQLite format 3\x00",))
    irc, kakaotalk, wechat = _text_gates(Gate)
    # Export folders' side files, read as no messages (chatgpt_sidecars, claude_ai_sidecars).
    chatgpt_sides = Gate(opens="[{", names=_CHATGPT_SIDE_FILES)
    claude_sides = Gate(opens="[{", names=("users.json", "projects.json", "memories.json"))
    # Declaration order is detection's tie-break order (and `convo formats`' order).
    registry.declare(__package__, (
        Declared("slack", f"{__package__}.slack", (), directory=True),
        ("slack", "slack-file", ("*.zip",), zipped, JSON),
        ("discord", "discord", ("*.json",), json_with('"guild"', opens="{")),
        ("discord", "discord-text", ("*.txt",), Gate(words=("\u2014", "\u2013"))),
        ("discord_csv", "discord-csv", ("*.csv",), Gate(pattern=r"\A\ufeff?AuthorID,Author,Date,")),
        ("discord_txt", "discord-txt", ("*.txt",), Gate(pattern=r"\A[\ufeff\s]*={62}")),
        ("discord_html", "discord-html", ("*.html",), Gate(opens="<", words=("chatlog__",))),
        ("discord_package", "discord-package", _DISCORD_PACKAGE_FILES, *_discord_package_gates()),
        ("telegram", "telegram", ("result.json", "*.json"), json_with('"chats"', '"messages"', opens="{")),
        ("messenger", "messenger", ("message_*.json",), json_with('"messages"', opens="{")),
        *_mapping_exports(chatgpt_sides),
        ("teams", "teams", ("*.json",), JSON),
        ("mattermost", "mattermost", ("*.jsonl",), JSON_OBJECT),
        ("whatsapp", "whatsapp", ("*.txt",), Gate(opens=_WHATSAPP_OPENS)),
        ("whatsapp", "whatsapp-zip", ("*.zip",), zipped),
        ("signal", "signal", ("chat.md", "data.json", "*.md", "*.txt", "*.json")),
        ("instagram", "instagram", ("message_*.json",), json_with('"messages"', opens="{")),
        ("zoom", "zoomchat", ("*.txt",), Gate(opens="0123456789")),
        ("claude_ai", "claude-ai", ("conversations.json",), json_with('"chat_messages"'), claude_sides, _export_zip()),
        ("grok", "grok", ("prod-grok-backend.json", "*.json"), json_with('"responses"', opens="{")),
        ("twitter_dms", "twitter-dm", ("direct-messages*.js",), Gate(words=("window.YTD.direct_messages",))),
        ("irc", "irc", ("*.log", "*.txt", "*.weechatlog"), irc),
        ("matrix", "matrix", ("*.json",), json_with('"messages"', opens="{")),
        ("matrix_txt", "matrix-txt", ("*.txt",), Gate(pattern=_ELEMENT_TXT_OPENS)),
        ("google_chat", "google-chat", ("messages.json", "group_info.json", "user_info.json"), JSON_OBJECT),
        *_data_downloads(),
        ("gitter", "gitter", ("*.json", "*.jsonl"), json_with('"fromUser"')),
        ("vscode_chat", "vscode-chat", ("*.json", "*.jsonl"), json_with('"requests"', opens="{")),
        ("gemini_activity", "gemini-activity", ("*.json",), json_with('"header"', opens="[")),
        ("open_webui", "open-webui", ("*.json", "webui.db"), json_with('"childrenIds"'), sqlite),
        ("librechat", "librechat", ("*.json",), json_with('"conversationId"', opens="{")),
        ("continue_dev", "continue", ("sessions.json", "*.json"), json_with('"workspaceDirectory"')),
        ("jan", "jan", ("messages.jsonl", "thread.json", "*.jsonl"), json_with('"thread.message"', '"thread"', opens="{")),
        ("lmstudio", "lmstudio", ("*.conversation.json", "*.json"), json_with('"versions"', opens="{")),
        ("sillytavern", "sillytavern", ("*.jsonl",), json_with('"mes"', '"character_name"', opens="{")),
        ("skype", "skype", ("messages.json", "*.json"), json_with('"conversations"', opens="{")),
        ("slackdump", "slackdump", ("*.json", "*.jsonl", "*.sqlite"), json_with('"t":', opens="{"), sqlite),
        ("rocketchat", "rocketchat", ("*.json", "*.jsonl"), json_with('"msg"')),
        ("zulip", "zulip", ("messages-*.json", "*.json", "*.jsonl"), json_with('"zerver_message"', '"sender_full_name"', '"zerver_', '"analytics_', '"migrations_by_app"', '"s3_path"')),
        *_imessage(Gate, sqlite),
        ("line", "line", ("*.txt",), Gate(words=("[LINE]", "\t"))),
        ("kakaotalk", "kakaotalk", ("KakaoTalk*.txt", "*.txt", "*.csv"), *kakaotalk),
        ("wechat", "wechat", ("*_utf8.csv", "*.csv", "*.txt"), wechat),
        ("skype_tar", "skype-tar", ("*.tar",), Gate(raw=rb"\A[\s\S]{257}ustar")),
        ("telegram_html", "telegram-html", ("messages*.html", "*.html"), Gate(opens="<", words=_TELEGRAM_HTML_WORDS)),
    ), family="chat")  # fmt: skip
