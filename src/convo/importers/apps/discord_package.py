"""Discord's own data package ("Request all of my Data"), its messages (``discord-package``).

The package holds only the messages its owner sent: ``messages/index.json`` (channel id
-> a label, ``"general in Garden club"``, ``"Direct Message with ann#0"``, null or
``"None"`` for some), and a folder a channel (``c<id>``, before mid-2021 the bare id;
newer packages capitalise ``Messages/`` and ``Account/``) with ``channel.json``
(``{"id", "type", "name"?, "guild": {"id", "name"}?, "recipients"?: [user ids]}``;
``type`` a number in older packages (0 text, 1 DM, 3 group DM, 11 thread), a name in
newer ones: ``GUILD_TEXT``, ``DM``, ``GROUP_DM``, ``PUBLIC_THREAD``...) and the messages:
``messages.csv`` in older packages (header ``ID,Timestamp,Contents,Attachments``, times
``2020-08-25 22:54:05.726000+00:00``), ``messages.json`` in newer ones (``[{"ID":
<number>, "Timestamp": "2021-10-13 15:35:46", "Contents", "Attachments"}]``, times in
UTC without an offset); ``Attachments`` the CDN URLs, separated by spaces. The owner is
``account/user.json``'s ``global_name`` else ``username`` (``discriminator`` other than
0 appended). As read by seanbreckenridge/discord_data (``discord_data/parse.py``) and
the newer layout documented with a real package's samples in users' tools found by the
code search. Not DiscordChatExporter's exports (``discord``, ``discord-csv``...): those
have every author and a header of their own.

Decisions:
- speaker = the package's owner (``user.json`` two folders up, read from its head only:
  the file can be hundreds of megabytes); no ``user.json``: no speaker, and one warning.
- listeners = the other person of a DM (``index.json``'s ``Direct Message with NAME``,
  its ``#0`` dropped); a group DM or a server channel names nobody (its recipients are
  bare user ids; mentions are ``<@id>``).
- thread = ``index.json``'s label of the channel, else ``channel.json``'s ``name`` (and
  `` in <guild>``), else the folder's name.
- text = ``Contents``; each attachment an ``[attachment] URL`` chunk; a message with
  neither (an embed or a sticker only: the package keeps no trace of them) is counted
  and skipped. ``extra``: ``channel_id``, ``channel_type``, ``guild``, ``attachments``.
- a row whose ``Timestamp`` does not read is rejected with its line.
- ``account/user.json``, ``servers/index.json``, ``servers/<id>/guild.json`` and
  ``audit-log.json`` and the ``activity/*/events-*.json`` analytics hold no messages:
  recognised by their folders and heads, and read as none.
- ``channel.json`` and ``index.json`` are the package's own files: detected so that a
  whole package folder ingests with nothing unrecognised, and read as no messages (a
  ``channel.json`` with no messages file beside it says so in a warning).

Ids and their scope (docs/ids.md): ``discord:<ID>``, the snowflake DiscordChatExporter's
JSON export gives the same message (so the two exports of one message are one record);
an ``ID`` that is not a snowflake: the content hash, scoped by the thread. An ``ID`` the
file repeats on other text gets the content hash (``build.OwnIds``), with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json, open_binary
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import EmptyCounter, csv_rows
from convo.importers.build import OwnIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_str, has_key, json_head_with
from convo.importers.registry import Format, head_lines

NAME = "discord-package"
HEADER = "ID,Timestamp,Contents,Attachments"
CHANNEL = "channel.json"
INDEX = "index.json"
# The package's other files, holding no messages: recognised, so that a whole package
# ingests without "format not recognised" (discord_data's layout: account, activity,
# messages, programs, servers).
ACCOUNT, SERVERS, ACTIVITY = "account", "servers", "activity"
_EVENTS = re.compile(r"events-[\w-]+\.json")
_MESSAGE_FILES = ("messages.csv", "messages.json")
_INDEX_HEAD = re.compile(r'\A\s*\{\s*(?:\}|"\d{5,}"\s*:\s*(?:"|null))')
_SNOWFLAKE = re.compile(r"\d{1,20}")
_DM = re.compile(r"^Direct Message with (.+?)(?:#0)?$")
_USER_HEAD = 256 * 1024  # user.json's top-level names come first; the file can be huge


def sniff(source: Source) -> int:
    lines = head_lines(source, 1)
    if lines and lines[0].lstrip("\ufeff").rstrip() == HEADER:
        return 95
    text = json_head_with(source, key="Contents", opens="[")
    if text and has_key(text, "ID") and has_key(text, "Timestamp"):
        return 90
    if source.match_name == "messages.json" and source.head_text().strip() == "[]":
        return 50  # a channel the owner wrote nothing left in: no messages, not unrecognised
    return 80 if _sidecar(source) else 0


def _folders(source: Source) -> list[str]:
    """The folders ``source`` is in, lowercased, nearest first (its path, else its name:
    a member of an archive)."""
    where = source.path if source.path is not None and not source.is_stdin else None
    return [p.lower() for p in reversed(PurePath(where or source.name).parts[:-1])]


def _sidecar(source: Source) -> str:
    """``channel.json`` or ``index.json`` when ``source`` is one, or another of the
    package's files that hold no messages (``_other_file``); "" otherwise."""
    name, folders = source.match_name, _folders(source)
    if name == CHANNEL:
        text = json_head_with(source, key="type", opens="{")
        return CHANNEL if text and has_key(text, "id") and not has_key(text, "messages") else ""
    if name == INDEX and _INDEX_HEAD.match(source.head_text()):
        parent = folders[0] if folders else ""
        return INDEX if parent == "messages" else SERVERS if parent == "servers" else ""
    return _other_file(source, name, folders)


def _other_file(source: Source, name: str, folders: list[str]) -> str:
    """``account/user.json``, ``servers/<id>/guild.json`` and ``audit-log.json``,
    ``activity/*/events-*.json``: by the file's name, its folders and its head."""
    head = source.head_text().lstrip("\ufeff").lstrip()
    if name == "user.json" and folders[:1] == ["account"]:
        return ACCOUNT if head.startswith("{") and has_key(head, "username") else ""
    if name in ("guild.json", "audit-log.json") and folders[1:2] == ["servers"]:
        return SERVERS if head.startswith(("{", "[")) else ""
    if _EVENTS.fullmatch(name) and "activity" in folders[:2]:
        return ACTIVITY if head.startswith("{") and has_key(head, "event_type") else ""
    return ""


class _Channel:
    """What the package says of one channel folder: its label, kind, guild, the owner."""

    def __init__(self, source: Source, ctx: ImportContext) -> None:
        folder = source.path.parent if source.path is not None and not source.is_stdin else None
        info = _json_beside(folder, CHANNEL)
        self.id = as_str(info.get("id")) or (folder.name.lstrip("c") if folder else "")
        self.guild = as_str(as_dict(info.get("guild")).get("name"))
        self.type = as_str(info.get("type"))
        label = _label(folder, self.id)
        name = as_str(info.get("name"))
        named = f"{name} in {self.guild}" if name and self.guild else name
        self.thread = label or named or (folder.name if folder else source.name)
        dm = _DM.match(label)
        self.listeners = [dm[1]] if dm else []
        self.owner = _owner(folder.parent.parent if folder else None)
        if self.owner is None:
            ctx.warn(source.name, "no account/user.json two folders up: the author is unknown")


def _label(folder: Path | None, channel: str) -> str:
    """``index.json``'s label of the channel ("" for none, null or ``"None"``)."""
    label = as_str(_json_beside(folder.parent if folder else None, INDEX).get(channel))
    return "" if label == "None" else label


def _json_beside(folder: Path | None, name: str) -> dict[str, Any]:
    path = folder / name if folder is not None else None
    if path is None or not path.is_file():
        return {}
    try:
        return as_dict(load_json(Source(path)))
    except InputError:
        return {}


_TOP_STRING = r'"{}"\s*:\s*"((?:[^"\\]|\\.)*)"'


def _owner(root: Path | None) -> str | None:
    """The package owner's name from the head of ``account/user.json`` (or ``Account/``)."""
    head = _user_head(root)
    nested = re.search(r"[\[{]", head.lstrip()[1:])  # top-level names only: friends' follow
    head = head.lstrip()[: nested.start() + 1] if nested else head
    found = {key: _top_string(head, key) for key in ("global_name", "username")}
    disc = re.search(r'"discriminator"\s*:\s*"?([0-9]+)', head)
    name = found["global_name"] or found["username"]
    # "0" (the new usernames) is none; not ``int``: a 5,000-digit one raised ValueError
    if name and not found["global_name"] and disc and disc[1].strip("0"):
        name = f"{name}#{disc[1]}"
    return name or None


def _user_head(root: Path | None) -> str:
    """The first ``_USER_HEAD`` bytes of the package's ``user.json``; "" when there is none."""
    for folder in ("account", "Account"):
        path = root / folder / "user.json" if root is not None else None
        if path is not None and path.is_file():
            try:
                with open_binary(path) as f:
                    return f.read(_USER_HEAD).decode("utf-8", "replace")
            except (InputError, OSError):
                return ""
    return ""


def _top_string(head: str, key: str) -> str:
    """The string value of ``key`` in ``head`` (its escapes read; one JSON does not know
    kept as written), "" when absent."""
    import json

    m = re.search(_TOP_STRING.format(key), head)
    if not m:
        return ""
    try:
        return str(json.loads(f'"{m[1]}"'))
    except ValueError:
        return m[1]


def _rows(source: Source, ctx: ImportContext) -> Iterator[tuple[str, Any]]:
    """(where, row) of every message: a CSV row as a dict of its four columns, or a JSON
    element as it is."""
    if source.head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"[":
        doc = StreamedDoc(source, ())
        doc.expect("not a Discord package messages.json (no array of messages)")
        for value, line in doc.items():
            yield ctx.loc(line), value
        return
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    hint = "the package's messages.csv, as Discord wrote it"
    for n, cells in csv_rows(source, decode, "Discord's data package", hint):
        yield (
            ctx.loc(n),
            dict(zip(("ID", "Timestamp", "Contents", "Attachments"), cells, strict=False)),
        )


def _message(row: Any, where: str, chan: _Channel) -> ConversationMessage | str | None:
    """A row's message, else why it is rejected, else None (nothing in it)."""
    if not isinstance(row, dict) or "Timestamp" not in row:
        return "not a Discord package message (no Timestamp)"
    stamp = iso_ts(as_str(row.get("Timestamp")))
    if stamp is None:
        return f"Timestamp {as_str(row.get('Timestamp'))[:40]!r} is not a time"
    files = as_str(row.get("Attachments")).split()
    text = as_str(row.get("Contents"))
    chunks = ([text] if text.strip() else []) + [f"[attachment] {u}" for u in files]
    if not chunks:
        return None
    raw_id = row.get("ID")
    raw = str(raw_id) if isinstance(raw_id, (int, str)) and not isinstance(raw_id, bool) else ""
    return message(
        chunks,
        speaker=chan.owner,
        listeners=chan.listeners,
        timestamp=stamp,
        id=f"discord:{raw}" if _SNOWFLAKE.fullmatch(raw) else None,
        source_id=where,
        format="discord",
        thread=chan.thread,
        extra={
            "channel_id": chan.id,
            "channel_type": chan.type,
            "guild": chan.guild,
            "attachments": files,
        },
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    kind = _sidecar(source)
    if kind:
        folder = source.path.parent if source.path is not None else None
        if kind == CHANNEL and not any(folder and (folder / n).is_file() for n in _MESSAGE_FILES):
            ctx.warn(ctx.loc(1), "a Discord package channel.json holds no messages (the "
                     "channel's kind and name); ingest the messages file beside it")  # fmt: skip
        return
    if not sniff(source):
        raise InputError(
            "not a Discord data package messages file",
            where=source.name,
            hint=f"messages.csv opens with {HEADER}; messages.json is an array of "
            "{ID, Timestamp, Contents, Attachments}",
        )
    chan = _Channel(source, ctx)
    own = OwnIds()
    empty = EmptyCounter()
    for where, row in _rows(source, ctx):
        got = _message(row, where, chan)
        if isinstance(got, str):
            ctx.reject(where, got, row)
        elif got is None:
            empty.skip(where)
        else:
            got.id = own.checked(got.id, got.text_chunks)
            yield got
    own.close()
    if own.clashes:
        ctx.warn(source.name, own.warning(key="ID"))
    empty.report(ctx, "messages with neither text nor attachment (embeds, stickers)")


DESCRIPTION = (
    "Discord's own data package (messages/c<id>/messages.json or the older messages.csv, "
    "channel.json, messages/index.json; the owner's messages only)"
)
EXAMPLE = '[{"ID": 897870239797215243, "Timestamp": "2021-10-13 15:35:46", "Contents": "hi", "Attachments": ""}]'
FIELDS = Fields(
    speaker="the package's owner: `account/user.json`'s `global_name`, else `username`",
    listeners="the other person of a DM (`index.json`'s `Direct Message with NAME`); else none",
    time="`Timestamp` (`2021-10-13 15:35:46`; older CSVs with their `+00:00`)",
    zone="UTC (the package writes UTC; an offset given is kept)",
    thread="`index.json`'s label of the channel (`general in Garden club`), else "
    "`channel.json`'s `name` in its guild, else the folder's name",
    id="`discord:<ID>` (the snowflake, as DiscordChatExporter's JSON export), else " + CONTENT_HASH,
    scope="none for snowflakes; the thread for content hashes",
    extra="`channel_id`, `channel_type`, `guild`, `attachments` (URLs)",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        (*_MESSAGE_FILES, CHANNEL, INDEX),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
