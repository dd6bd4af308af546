"""Chat-app exports (family ``chat``): Slack, Discord, Telegram, Messenger, ChatGPT,
WhatsApp, Mattermost, Teams and Zoom chat. The readers live in ``chat_exports_*.py``;
this module registers them. Every format is detected by content (stdin has no name).

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
    from . import Format
    from . import chat_exports_slack as slack

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
