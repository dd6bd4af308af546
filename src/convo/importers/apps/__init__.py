"""Chat-app exports (family ``chat``): Slack, Discord (DiscordChatExporter JSON and text
copied from the client), Telegram, Messenger, ChatGPT, WhatsApp, Mattermost, Teams and
Zoom chat. The readers live in ``chat_exports_*.py`` (decisions in their docstrings);
this module registers them. Every format is detected by content (stdin has no name).

Slack is two registrations: ``slack`` reads an export folder (``directory=True``) and
``slack-file`` its .zip or a single channel-day JSON file; both write ``format: slack``
and ``--from slack`` reads any of the three.

Shared decisions (DESIGN.md §1): speaker = display name; listeners = @-mentioned users,
else the other party of a two-party chat; ``thread`` = channel or chat name; times in UTC
(naive source times read in ``--tz``); ids from the source prefixed by app
(``slack:<channel>:<ts>``, ``discord:<id>``, ``telegram:<chat>:<id>``...), ``replyTo`` =
the parent's id; attachments, reactions and edits in ``extra``; system/service messages
are kept with the tag ``system``. Messages with neither text nor media are skipped and
counted in one warning per source.
"""

from __future__ import annotations


def register(registry) -> None:
    """Register the chat-app export formats."""
    from convo.importers.apps import chatgpt, mattermost, slack
    from convo.importers.apps import json_exports as apps
    from convo.importers.apps import text_exports as text
    from convo.importers.registry import Format

    registry.register(
        Format(
            name="slack",
            family="chat",
            description="Slack workspace export folder (users.json, channels.json, channel/YYYY-MM-DD.json)",
            patterns=(),
            sniff=slack.sniff_dir,
            read=slack.read,
            example="export/{users.json,channels.json,general/2024-01-02.json}",
            directory=True,
        )
    )
    registry.register(
        Format(
            name="slack-file",
            family="chat",
            description="Slack export .zip (read in place), or one channel-day JSON array of messages",
            patterns=("*.zip",),
            sniff=slack.sniff_file,
            read=slack.read,
            example='[{"type": "message", "user": "U1", "text": "hi <@U2>", "ts": "1700000000.000100"}]',
        )
    )

    for name, desc, patterns, sniff, read, example in (
        (
            "discord", "DiscordChatExporter JSON (guild, channel, messages)", ("*.json",),
            apps.sniff_discord, apps.read_discord,
            '{"guild": {...}, "channel": {"name": "general"}, "messages": [{"id": "1", "author": {...}}]}',
        ),
        (
            "telegram", "Telegram Desktop result.json (one chat, or a full export with chats.list)",
            ("result.json", "*.json"), apps.sniff_telegram, apps.read_telegram,
            '{"name": "Bob", "type": "personal_chat", "id": 1, "messages": [{"id": 1, "from": "Bob", ...}]}',
        ),
        (
            "messenger", "Facebook Messenger message_N.json (participants, newest-first messages)",
            ("message_*.json",), apps.sniff_messenger, apps.read_messenger,
            '{"participants": [{"name": "Bob"}], "messages": [{"sender_name": "Bob", "timestamp_ms": 1}]}',
        ),
        (
            "chatgpt", "ChatGPT conversations.json (mapping tree, current branch)",
            ("conversations.json",), chatgpt.sniff, chatgpt.read,
            '[{"title": "T", "mapping": {"n1": {"id": "n1", "parent": null, "children": [], ...}}}]',
        ),
        (
            "teams", "Microsoft Teams export JSON (PascalCase messages with HTML bodies)", ("*.json",),
            apps.sniff_teams, apps.read_teams,
            '[{"Id": "1", "Body": {"ContentType": "html", "Content": "<p>Hi</p>"}, "From": {...}}]',
        ),
        (
            "mattermost", "Mattermost bulk export JSONL (version/team/channel/user/post lines)",
            ("*.jsonl",), mattermost.sniff, mattermost.read,
            '{"type": "version", "version": 1}',
        ),
        (
            "whatsapp", "WhatsApp chat .txt export (iOS [date, time] or Android date, time - )",
            ("*.txt",), text.sniff_whatsapp, text.read_whatsapp,
            "[8/15/23, 9:12:33 AM] Alice: Hello",
        ),
        (
            "zoomchat", "Zoom in-meeting chat .txt (HH:MM:SS<TAB>Name:<TAB>text)", ("*.txt",),
            text.sniff_zoom, text.read_zoom, "00:11:09\tAlice Smith:\thello",
        ),
        (
            "discord-text", "Discord chat copied from the client as text (name — date time headers)",
            ("*.txt",), text.sniff_discord_text, text.read_discord_text,
            "alice — 03/06/2024 10:02 AM",
        ),
    ):  # fmt: skip
        registry.register(Format(name, "chat", desc, patterns, sniff, read, example))
