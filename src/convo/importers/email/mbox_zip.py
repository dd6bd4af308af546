"""Mailboxes inside a zip: a groups.io group's message archive (its ``downloadarchives``
API and the admin's export give ``messages.mbox`` in a zip), and mailboxes zipped to be
mailed or downloaded. Each member named ``*.mbox`` (or ``mbox``) is streamed from the
zip in place (``importers.archives``: safe names, size and ratio caps) and read as the
``mbox`` reader reads a file; the records' ``source_id`` is ``ZIP#MEMBER#msg-N``, a
place in them ``ZIP#MEMBER:LINE``. Other members are not mail (listed in one warning).
A mailbox is read a message at a time, so one may be as large as the whole zip may
(``archives.STREAMED_CAP``: a Takeout mailbox of some GiB), not ``MEMBER_CAP``.
"""

from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Callable, Iterator
from typing import BinaryIO

from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.archives import (
    STREAMED_CAP,
    ZIP_MAGIC,
    open_zip,
    safe_members,
    stream_member,
)
from convo.importers.context import ImportContext

HINT = "a zip of mailboxes (*.mbox)"


def is_mailbox(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.lower().endswith((".mbox", ".mbx")) or base == "mbox"


def mailboxes_in(source: Source) -> list[str]:
    """The mailbox members of a zip on disk (for sniffing); [] when it is none."""
    if not source.head.startswith(ZIP_MAGIC) or source.path is None or source.is_stdin:
        return []
    if source.gzipped:
        return []
    try:
        with zipfile.ZipFile(source.path) as zf:
            return [n for n in zf.namelist() if is_mailbox(n) and not n.endswith("/")]
    except (zipfile.BadZipFile, OSError, ValueError):
        return []


def zipped_mailboxes(
    source: Source, ctx: ImportContext
) -> Iterator[tuple[str, zipfile.ZipInfo, zipfile.ZipFile]]:
    """(member name, member, open zip) of each mailbox in the zip ``source``."""
    with contextlib.closing(open_zip(source.real_path(), source.name)) as zf:
        members = safe_members(zf, source.name, ctx, HINT, STREAMED_CAP)  # streamed
        others = sorted(n for n in members if not is_mailbox(n))
        if others:
            ctx.warn(source.name, f"{counted(len(others), 'zip member')} not {plural(len(others), 'a mailbox', 'mailboxes')}, not read "
                     f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''})")  # fmt: skip
        for name, info in members.items():
            if is_mailbox(name):
                yield name, info, zf


def read_zipped(
    source: Source,
    ctx: ImportContext,
    read_stream: Callable[[BinaryIO, str, str], Iterator[ConversationMessage]],
) -> Iterator[ConversationMessage]:
    """The messages of every mailbox of the zip, each read by ``read_stream(stream,
    locator prefix, place prefix)``."""
    for name, info, zf in zipped_mailboxes(source, ctx):
        where = f"{source.name}#{name}"
        with contextlib.closing(stream_member(zf, info, where, STREAMED_CAP)) as stream:
            yield from read_stream(stream, f"{name}#", where)
