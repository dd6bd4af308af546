"""One Slack day file read on its own: a top-level array of messages (streamed after a
first look), one message object, or a slackdump dump.

``slackdump dump`` writes a channel as ``{"channel_id", "name", "messages"}``, each thread's
replies nested in its parent (``slackdump_thread_replies``): the dump names its channel
(thread and ids ``slack:<channel_id>:<ts>``), and the replies follow their parent as
messages of their own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.importers.apps.slack_names import Conv
from convo.importers.jsoninput import StreamedDoc, as_str, json_head


def _with_replies(messages: list[Any]) -> Iterator[Any]:
    """Each message, then the thread replies a slackdump dump nests in it
    (``slackdump_thread_replies``)."""
    for m in messages:
        replies = m.pop("slackdump_thread_replies", None) if isinstance(m, dict) else None
        yield m
        yield from replies if isinstance(replies, list) else ()


def _dump(data: Any) -> tuple[Any, Conv | None]:
    """A slackdump dump's messages (thread replies after their parent) and its channel;
    anything else as it is, and None."""
    if not (isinstance(data, dict) and as_str(data.get("channel_id"))):
        return data, None
    messages = data.get("messages")
    if not isinstance(messages, list):
        return data, None
    cid = as_str(data.get("channel_id"))
    return list(_with_replies(messages)), Conv(cid, as_str(data.get("name")) or cid, "channel")


def single_day(source: Source) -> tuple[Any, dict[str, Any], bool, int, Conv | None]:
    """A day file's messages (lazy for a top-level array), its first object, whether it
    holds messages, whether it has any elements, and the channel a slackdump dump names
    (``{"channel_id", "name", "messages"}``)."""
    if json_head(source).startswith("["):  # streamed, after a first look
        doc = StreamedDoc(source, ())
        doc.head()
        first, has_messages, n = first_look(doc)
        return doc.values(), first, has_messages, n, None
    data, dumped = _dump(load_json(source))
    if isinstance(data, dict) and ("ts" in data or "messages" in data):
        data = data.get("messages", [data]) if "ts" not in data else [data]
    if not isinstance(data, list):
        raise InputError(
            "not a Slack message list", where=source.name, hint="expected a JSON array"
        )
    first = next((m for m in data if isinstance(m, dict)), {})
    has_messages = any(not isinstance(m, dict) or "ts" in m for m in data)
    return data, first, has_messages, len(data), dumped


def first_look(doc: Any) -> tuple[dict[str, Any], bool, int]:
    """A streamed day file's first object, whether it holds messages, and if it is empty."""
    first: dict[str, Any] | None = None
    has_messages = False
    n = 0
    with contextlib.closing(doc.items()) as items:
        for m, _ in items:
            n = 1
            if first is None and isinstance(m, dict):
                first = m
            has_messages = has_messages or not isinstance(m, dict) or "ts" in m
            if first is not None and has_messages:
                break
    return first or {}, has_messages, n
