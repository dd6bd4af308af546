"""Skype's export as Microsoft delivers it, ``<account>_export.tar`` ("Export files and
chat history" at go.skype.com/export: ``messages.json``, ``endpoints.json`` and a
``media/`` folder), read in place: the tar is never unpacked; its ``messages.json`` is
copied to a temporary file (``convo.importers.archives``) and read by the ``skype``
format's reader, whose decisions, ids and ``extra`` are those of every record (they say
``format: skype``). Rejections and warnings are located ``EXPORT.tar#messages.json``.

A tar without ``messages.json`` (a files-only export) is refused with one line that
says so. Detection: a tar header (``ustar`` at byte 257) whose first members' names, in
the head, include ``messages.json`` 90; a tar on disk holding one (its headers listed)
80. A ``.tar.gz`` is read through the gzip layer (``convo.core.io``).

Ids and their scope (docs/ids.md): as ``skype``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.apps import skype
from convo.importers.archives import is_tar, spool_tar_member, tar_has
from convo.importers.context import ImportContext
from convo.importers.registry import Format

MEMBER = "messages.json"


def sniff_tar(source: Source) -> int:
    head = source.head
    if not is_tar(head):
        return 0
    if MEMBER.encode() in head:
        return 90
    if source.path is None or source.is_stdin or source.gzipped:
        return 0
    return 80 if tar_has(source.path, MEMBER) else 0


def read_tar(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    got = spool_tar_member(source.real_path(), source.name, MEMBER, ".json")
    if got is None:
        raise InputError(
            "no messages.json in this tar", where=source.name,
            hint="export Skype's conversations too (not only files), or ingest messages.json",
        )  # fmt: skip
    member, tmp = got
    inner = Source(tmp, name=f"{source.name}#{member}")
    outer, ctx.source = ctx.source, inner  # locations name the member inside the tar
    try:
        yield from skype.read(inner, ctx)
    finally:
        ctx.source = outer
        inner.close()
        tmp.unlink(missing_ok=True)


DESCRIPTION = "Skype export .tar (messages.json inside, read in place)"
EXAMPLE = "8_live_ann_export.tar: messages.json, endpoints.json, media/"
FIELDS = replace(skype.FIELDS, extra=skype.FIELDS.extra + "; records say `skype`")
FORMATS = (
    Format("skype-tar", "chat", DESCRIPTION, ("*.tar",), sniff_tar, read_tar, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
