"""SillyTavern chats (``sillytavern``): ``data/<user>/chats/<character>/*.jsonl``, group
chats, and the chat's "Export chat" as .jsonl.

Shape (SillyTavern/SillyTavern ``public/script.js`` ``saveChat``: the chat written one
JSON object a line by ``src/endpoints/chats.js``): a first line ``{user_name,
character_name, create_date, chat_metadata}`` (group chats write ``"unused"`` for both
names), then one line a message ``{name, is_user, is_system, send_date, mes, extra:
{api, model, reasoning, token_count, image, file, title, bias...}, swipes, swipe_id,
swipe_info, gen_started, gen_finished, force_avatar}``. ``send_date`` is written by
``getMessageTimeStamp`` in local time as ``June 19, 2023 2:20pm``; older chats have the
"humanized" ``2024-7-12@01h31m37s`` or ``2024-6-5 @14h 56m 50s 682ms``, newer ones epoch
milliseconds or ISO (``public/scripts/utils.js`` ``parseTimestamp`` reads them all).

Decisions:
- speaker = ``name`` (the persona or the character); role ``user`` (``is_user``),
  ``system`` (``is_system``: narrator and hidden messages, tagged ``system``), else
  ``assistant``. Listeners: a user's message → the chat's character (a group chat: the
  last character who spoke), a character's → the user's name (a group chat: the last
  user who spoke).
- Text: ``mes``; an attached image ``[image] URL``, a file ``[file NAME]``. The other
  swipes (alternative replies not chosen) are kept in ``extra.swipes``; the reasoning
  (``extra.reasoning``) goes to ``extra.thinking`` (``--include-thinking``: a
  ``[thinking]`` chunk first).
- time = ``send_date`` (naive times read in ``--tz``, as SillyTavern writes local time);
  thread = ``sillytavern:<character> - <create_date>`` (as SillyTavern names the file),
  without a first line the file's name; the first line's other fields on the first
  record (``extra.conversation``). Messages carry no ids: the content hash.
- A line that is not JSON, or an object without ``mes``, is rejected with its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts, naive_ts, parse_any
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head, json_lines
from convo.importers.registry import Format

NAME = "sillytavern"
UNUSED = "unused"  # the names a group chat's first line holds
# The "humanized" times of older chats: 2024-7-12@01h31m37s, 2024-6-5 @14h 56m 50s 682ms.
_HUMANIZED = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2}) ?@(\d{1,2})h ?(\d{1,2})m ?(\d{1,2})s(?: ?(\d{1,3})ms)?"
)


def _is_header(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "mes" not in value
        and ("character_name" in value or "chat_metadata" in value)
    )


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "mes" in value and ("is_user" in value or "name" in value)


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    lines = text.split("\n", 3)[:3]
    values = []
    for line in lines:
        try:
            values.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            break
    if not values:
        return 0
    if _is_header(values[0]) and "user_name" in values[0]:
        return 95
    return 90 if all(_is_message(v) and "send_date" in v for v in values) else 0


def _send_time(value: Any, ctx: ImportContext) -> str | None:
    """``send_date`` in any of the shapes SillyTavern has written (naive: ``--tz``)."""
    zone = ctx.options.tz
    if isinstance(value, int | float) or (isinstance(value, str) and value.isdigit()):
        try:
            return parse_any(int(value), zone)
        except ValueError:
            return None
    text = as_str(value)
    found = _HUMANIZED.fullmatch(text.strip())
    if found:
        year, month, day, hour, minute, second = (int(g) for g in found.groups()[:6])
        ms = int(found.group(7) or 0)
        try:
            return naive_ts(datetime(year, month, day, hour, minute, second, ms * 1000), zone)
        except ValueError:
            return None
    return iso_ts(text, zone)


class _Chat:
    """One chat file's names, thread and the speakers seen last."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.thread = ctx.thread_of(source.name)
        self.user = ""
        self.character = ""
        self.last = {"user": "", "assistant": ""}
        self.conversation: dict[str, Any] | None = None

    def header(self, value: dict[str, Any]) -> None:
        user, character = as_str(value.get("user_name")), as_str(value.get("character_name"))
        self.user = "" if user == UNUSED else user
        self.character = "" if character == UNUSED else character
        created = as_str(value.get("create_date"))
        if self.character and created:
            self.thread = f"{NAME}:{self.character} - {created}"
        self.conversation = value

    def listeners(self, role: str, speaker: str) -> list[str]:
        if role == "user":
            heard = self.character or self.last["assistant"]
        elif role == "assistant":
            heard = self.user or self.last["user"]
        else:
            return []
        self.last[role] = speaker
        return [heard] if heard else []


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    chat = _Chat(source, ctx)
    for number, where, value in json_lines(source, ctx):
        if number == 1 and _is_header(value):
            chat.header(value)
        elif _is_message(value):
            yield _record(value, where, chat)
        else:
            ctx.reject(where, "not a SillyTavern chat message (name, mes)", value)


def _record(msg: dict[str, Any], where: str, chat: _Chat) -> ConversationMessage:
    role = "user" if msg.get("is_user") else "system" if msg.get("is_system") else "assistant"
    speaker = as_str(msg.get("name")) or (chat.user if role == "user" else chat.character) or role
    chunks, extra = _text_and_extra(msg, chat.ctx.options.include_thinking)
    extra["conversation"], chat.conversation = chat.conversation, None
    return message(
        chunks,
        speaker=speaker,
        listeners=chat.listeners(role, speaker),
        timestamp=_send_time(msg.get("send_date"), chat.ctx),
        source_id=where,
        format=NAME,
        thread=chat.thread,
        role=role,
        tags=["system"] if role == "system" else None,
        extra=extra,
    )


_OWN = ("name", "is_user", "is_system", "send_date", "mes", "swipes", "extra")


def _text_and_extra(msg: dict[str, Any], include: bool) -> tuple[list[str], dict[str, Any]]:
    """A message's chunks (its reasoning with ``include``, ``mes``, its attachments) and
    its ``extra``."""
    extra_in = as_dict(msg.get("extra"))
    reasoning = as_str(extra_in.get("reasoning"))
    chunks = [f"[thinking] {reasoning}"] if reasoning and include else []
    chunks.append(as_str(msg.get("mes")))
    chunks += _attachments(extra_in)
    chosen = msg.get("swipe_id")
    swipes = [s for k, s in enumerate(as_list(msg.get("swipes"))) if k != chosen]
    extra = {
        "thinking": [reasoning] if reasoning and not include else None,
        "swipes": [s for s in swipes if s != msg.get("mes")] or None,
        "st_extra": {k: v for k, v in extra_in.items() if k != "reasoning"},
        "message": {k: v for k, v in msg.items() if k not in _OWN},
    }
    return chunks, extra


def _attachments(extra_in: dict[str, Any]) -> list[str]:
    out = []
    image, file = as_str(extra_in.get("image")), as_dict(extra_in.get("file"))
    if image:
        out.append("[image] data URL" if image.startswith("data:") else f"[image] {image}")
    if file:
        label = as_str(file.get("name")) or as_str(file.get("url"))
        out.append(f"[file {label}]" if label else "[file]")
    return out


DESCRIPTION = "SillyTavern chats (chats/<character>/*.jsonl, group chats, Export chat .jsonl)"
EXAMPLE = (
    '{"user_name": "Ann", "character_name": "Seraphina", "create_date": "2024-6-5 @14h 56m 50s 682ms", '
    '"chat_metadata": {}}\n{"name": "Ann", "is_user": true, "send_date": "June 5, 2024 2:57pm", "mes": "Hello!"}'
)
FIELDS = Fields(
    speaker="`name` (the persona or the character)",
    listeners="a user's message → the character (a group chat: the last character who spoke); "
    "a character's → the user's name (a group chat: the last user)",
    time="`send_date` (`June 19, 2023 2:20pm`, `2024-7-12@01h31m37s`, "
    "`2024-6-5 @14h 56m 50s 682ms`, epoch milliseconds or ISO)",
    zone="SillyTavern writes local times: " + NAIVE_IN_TZ,
    thread="`sillytavern:<character> - <create_date>` (the chat as SillyTavern names its file); "
    "without a first line, the file's name",
    id=CONTENT_HASH,
    scope="the thread: the character and the chat's creation time",
    tags="`system` on narrator and hidden messages (`is_system`)",
    extra="`swipes` (the alternative replies not chosen), `st_extra` (the message's "
    "`extra`: api, model, token count...), `message` (its other fields: `swipe_id`, "
    "`swipe_info`, `gen_started`...), `conversation` (the first line, on the first record); "
    "the reasoning in `thinking` unless `--include-thinking`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.jsonl",), sniff, read, EXAMPLE, fields=FIELDS),)
