"""Instagram DMs from Meta's data download (``instagram``).

Instagram writes its direct messages in Messenger's schema
(``your_instagram_activity/messages/inbox/<thread>/message_N.json``, older downloads
``messages/inbox/<thread>/message_N.json``): ``participants``, newest-first ``messages``
with ``sender_name``, ``timestamp_ms``, ``content``, ``photos``/``videos``/``audio_files``,
``share`` (``link``, ``share_text``, ``original_content_owner``), ``reactions``, and
every string double-encoded (UTF-8 bytes written as ``\\u00XX``). It is read by the one
Meta reader, ``convo.importers.apps.messenger`` (same mapping, same mojibake repair),
labelled ``instagram``.

Detection: the content is Messenger's, so the download's layout decides: a path with
``your_instagram_activity`` or a folder named ``instagram-...`` (Meta's name for the
download), or a shared post's ``original_content_owner`` or an ``instagram.com/`` link
(Instagram's, not Messenger's); ``participants`` is not needed (``sniff_messenger``).
A file without either (stdin, a copied file) reads as ``messenger``; ``--from instagram``
labels it.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread's ``title`` (as Messenger, ``convo.importers.apps.messenger``);
``message_N.json`` is a name every download has, so without a title the folder (the
thread's) is hashed with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.apps.messenger import FIELDS as MESSENGER_FIELDS
from convo.importers.apps.messenger import read_meta_thread, sniff_messenger
from convo.importers.context import ImportContext
from convo.importers.jsoninput import has_key, json_head
from convo.importers.registry import Format

NAME = "instagram"
_PATH = re.compile(r"(?:^|[/\\])(?:your_instagram_activity|instagram-[^/\\]*)[/\\]", re.I)


def sniff(source: Source) -> int:
    score = sniff_messenger(source)
    if not score:
        return 0
    head = json_head(source)
    if (
        _PATH.search(source.name)
        or has_key(head, "original_content_owner")
        or "instagram.com/" in head
    ):
        return 90  # above Messenger's 85
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    yield from read_meta_thread(source, ctx, NAME)


DESCRIPTION = "Instagram DMs from Meta's download (messages/inbox/*/message_N.json)"
EXAMPLE = (
    '{"participants": [{"name": "ann.lee"}], "messages": [{"sender_name": '
    '"ann.lee", "timestamp_ms": 1692090753000, "content": "Caf\\u00c3\\u00a9?"}]}'
)
FIELDS = replace(
    MESSENGER_FIELDS,
    extra=MESSENGER_FIELDS.extra + "; a shared post's caption and owner",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("message_*.json",), sniff, read, EXAMPLE, fields=FIELDS),
)
