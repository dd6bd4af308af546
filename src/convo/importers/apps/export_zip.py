"""A chat app's data export kept as the zip it was downloaded as (ChatGPT's, claude.ai's,
DeepSeek's: ``conversations.json``, or ChatGPT's ``conversations-000.json``..., beside
side files, images and ``chat.html``), read in place (``importers.archives``: safe names,
size and ratio caps).

Each ``conversations*.json`` member, at any depth, is copied to a temporary file (at most
``archives.STREAMED_CAP``: the format's reader streams it a conversation at a time) and
read by the format's own reader as a file named ``ZIP#MEMBER``, so its records are those
of the unpacked file (the same ids); the places it reports read ``ZIP#MEMBER#conv-N``.
The other members are named in one warning, not read (the side files hold no
conversation; the viewer ``chat.html`` holds the same ones again).
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from collections.abc import Callable, Iterator

from convo.core.io import HEAD_BYTES, Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.archives import (
    STREAMED_CAP,
    ZIP_MAGIC,
    open_zip,
    safe_members,
    spool_member,
)
from convo.importers.context import ImportContext

HINT = "an app's data export zip (conversations.json)"
_CONVERSATIONS = re.compile(r"(?:.*/)?conversations(?:-\d+)?\.json")
_ERRORS = (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError)


def is_zip(source: Source) -> bool:
    """A zip on disk (not standard input, not a compressed stream)."""
    return (
        source.head.startswith(ZIP_MAGIC)
        and source.path is not None
        and not source.is_stdin
        and not source.gzipped
    )


def conversations_head(source: Source) -> str:
    """The decoded head of the zip's first ``conversations*.json`` member (for a sniff);
    "" when ``source`` is no such zip."""
    if not is_zip(source):
        return ""
    assert source.path is not None
    try:
        with zipfile.ZipFile(source.path) as zf:
            names = sorted(n for n in zf.namelist() if _CONVERSATIONS.fullmatch(n))
            if not names:
                return ""
            with zf.open(names[0]) as f:
                head = f.read(HEAD_BYTES)
    except _ERRORS:
        return ""
    return head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")


def read_conversations(
    source: Source,
    ctx: ImportContext,
    read: Callable[[Source, ImportContext], Iterator[ConversationMessage]],
) -> Iterator[ConversationMessage]:
    """The messages of every ``conversations*.json`` member of the zip, each read by
    ``read`` as the file ``ZIP#MEMBER``."""
    with contextlib.closing(open_zip(source.real_path(), source.name)) as zf:
        members = safe_members(zf, source.name, ctx, HINT, STREAMED_CAP)
        wanted = sorted(n for n in members if _CONVERSATIONS.fullmatch(n))
        others = sorted(n for n in members if n not in wanted)
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            ctx.warn(source.name, f"{counted(len(others), 'zip member')} {plural(len(others), 'holds', 'hold')} "
                     f"no conversation of {plural(len(others), 'its', 'their')} own, not read ({shown})")  # fmt: skip
        for name in wanted:
            where = f"{source.name}#{name}"
            path = spool_member(zf, members[name], where, ".json", STREAMED_CAP)
            outer = ctx.source
            try:
                ctx.source = Source(path, name=where)
                yield from read(ctx.source, ctx)
            finally:
                ctx.source = outer
                path.unlink(missing_ok=True)
