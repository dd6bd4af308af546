"""What a Teams message's ``attachments`` say (Graph's ``chatMessageAttachment``), for
``convo.importers.apps.teams``; keys already read as PascalCase (``pascal``).

- ``messageReference``: a reply that quotes a message of the chat (Graph's
  ``replyWithQuote``; the body holds only ``<attachment id=...>`` where the quote is
  shown). Its ``Content`` is a JSON string: ``messageId``, ``messagePreview``,
  ``messageSender.user.displayName``. It is the message's reply, not a file.
- ``forwardedMessageReference``: a forwarded message, whose body is only the
  ``<attachment>`` tag; its ``Content`` holds ``originalMessageContent`` (HTML),
  ``originalMessageSender``, ``originalSentDateTime`` (a reader's tests of real Graph
  answers; older answers write ``messagePreview`` as a quote does).
- A card (``application/vnd.microsoft.card.*``: adaptive, hero, thumbnail...): its text
  (``text``, ``title``, ``subtitle`` anywhere in the card).
- Anything else (``reference`` files, images): ``[attachment] NAME`` (else its URL, else
  its content type; never the word None).
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.core.text.html import html_to_text
from convo.importers.agents.blocks import MAX_DEPTH, inner_json, too_deep
from convo.importers.jsoninput import as_dict, as_list, as_str

QUOTE = "messageReference"
FORWARD = "forwardedMessageReference"
_CARD_KEYS = ("Text", "Title", "Subtitle")


def content(a: dict[str, Any]) -> dict[str, Any]:
    """An attachment's ``Content`` as an object (Graph writes a JSON string), its keys
    PascalCase; {} when it is neither."""
    value = a.get("Content")
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = inner_json(value)  # the depth rule of JSON inside a string
        except orjson.JSONDecodeError:
            return {}
    if not isinstance(value, dict) or too_deep(value):
        return {}  # too deep: its keys and texts are walked recursively (a RecursionError)
    return pascal(value)


def pascal(value: Any, depth: int = 0) -> Any:
    """``value`` with every object key's first letter in upper case (``createdDateTime``
    → ``CreatedDateTime``; ``@odata.type`` as it is): the Graph API's camelCase read as
    the PascalCase exports are. Values nested deeper than ``MAX_DEPTH`` are left as they
    are (no message's fields are there; walking them all was a RecursionError)."""
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {
            (k[:1].upper() + k[1:] if k[:1].islower() else k): pascal(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [pascal(v, depth + 1) for v in value]
    return value


def _sender(c: dict[str, Any], key: str) -> str:
    return as_str(as_dict(as_dict(c.get(key)).get("User")).get("DisplayName"))


def quote(m: dict[str, Any]) -> dict[str, str]:
    """The message a reply quotes (``messageReference``): its id, sender and preview;
    {} when it quotes none."""
    for a in map(as_dict, as_list(m.get("Attachments"))):
        if as_str(a.get("ContentType")) == QUOTE:
            c = content(a)
            found = {
                "message_id": as_str(c.get("MessageId")) or as_str(a.get("Id")),
                "sender": _sender(c, "MessageSender"),
                "preview": as_str(c.get("MessagePreview")),
            }
            return {k: v for k, v in found.items() if v}
    return {}


def _card_text(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k in _CARD_KEYS and isinstance(v, str) and v.strip():
                out.append(v.strip())
            else:
                _card_text(v, out)
    elif isinstance(value, list):
        for v in value:
            _card_text(v, out)


def chunks(m: dict[str, Any]) -> list[str]:
    """The chunks a message's attachments add (a quote adds none: it is the reply)."""
    out = []
    for a in map(as_dict, as_list(m.get("Attachments"))):
        kind = as_str(a.get("ContentType"))
        if kind == QUOTE:
            continue
        if kind == FORWARD:
            c = content(a)
            body = as_str(c.get("OriginalMessageContent")) or as_str(c.get("MessagePreview"))
            who = _sender(c, "OriginalMessageSender") or _sender(c, "MessageSender")
            text = html_to_text(body).strip()
            out.append(f"[forwarded{' from ' + who if who else ''}] {text}".rstrip())
        elif ".card." in kind:
            found: list[str] = []
            _card_text(content(a), found)
            out.append(f"[card] {' / '.join(found)}".rstrip())
        else:
            name = as_str(a.get("Name")) or as_str(a.get("ContentUrl")) or kind
            out.append(f"[attachment] {name}".rstrip())
    return out
