"""Chat-app exports (family ``chat``), one module per app: Slack, Discord (DiscordChatExporter
JSON and text copied from the client), Telegram, Messenger, ChatGPT, Teams, Mattermost,
WhatsApp (its .txt and "Export chat" .zip), Signal (signal-export and sigtop outputs)
and Zoom chat. Each module holds its sniffers beside its readers (decisions in
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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry

# Registration order is detection's tie-break order (and `convo formats`' order).
MODULES = ("slack", "discord", "telegram", "messenger", "chatgpt", "teams", "mattermost",
           "whatsapp", "signal", "instagram", "zoom",
           "claude_ai", "twitter_dms", "irc", "matrix", "google_chat", "gitter",
           "vscode_chat", "gemini_activity")  # fmt: skip


def register(registry: Registry) -> None:
    """Register the chat-app export formats (modules are imported when the registry loads,
    not when convo starts, so `convo --help` stays fast)."""
    from convo.importers.registry import register_modules

    register_modules(__package__, MODULES, registry)
