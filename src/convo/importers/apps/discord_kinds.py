"""What a DiscordChatExporter message shows beyond its content: its embeds as text, and
whether its kind is a system notification.

- An embed-only message (bots) reads as its embeds: ``[embed] title``, its description
  and fields (``name: value``) on the lines after.
- System notifications (tagged ``system``) are what the exporter's
  ``Message.IsSystemNotification`` says: the kinds it names from RecipientAdd to
  ThreadCreated, and numbered kinds (it writes a kind it has no name for as its number)
  other than replies (19), app commands (20, 23) and thread starters (21). An app
  command's answer is a message, addressed to the user who ran it (``interaction``).
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str


def embed_text(e: dict[str, Any]) -> str:
    """An embed as text: ``[embed] title``, then its description and ``name: value``
    fields, one a line."""
    head = (
        as_str(e.get("title"))
        or as_str(e.get("url"))
        or as_str(as_dict(e.get("author")).get("name"))
    )
    fields = [as_dict(f) for f in as_list(e.get("fields"))]
    lines = [as_str(e.get("description"))]
    lines += [f"{as_str(f.get('name'))}: {as_str(f.get('value'))}".strip(": ") for f in fields]
    body = "\n".join(x for x in lines if x.strip())
    return f"[embed] {head}\n{body}".strip() if head else f"[embed]\n{body}".strip()


# DiscordChatExporter's system notifications (``MessageKind`` RecipientAdd..ThreadCreated,
# by name or, for kinds it has no name for, by number); the kinds a person or an app
# writes: Default, Reply (19), ChatInputCommand (20), ThreadStarterMessage (21),
# ContextMenuCommand (23).
CONTENT_KINDS = frozenset({"", "Default", "Reply", "0", "19", "20", "21", "23",
                            "ChatInputCommand", "ContextMenuCommand", "ThreadStarterMessage"})  # fmt: skip
