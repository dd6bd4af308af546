"""Word .docx documents as paragraphs of plain text, streamed (the one home of .docx reading).

A .docx is a zip (read in place, with the size caps of ``importers.archives``) whose
``word/document.xml`` holds the body. It is parsed by ``forums.xmlstream`` (expat fed
64 KiB at a time, entity declarations refused), so memory holds one paragraph, never
the document. A paragraph (``<w:p>``) is the text of its runs' ``<w:t>`` elements; a
line break (``<w:br/>``, ``<w:cr/>``) in a run is a newline and a tab (``<w:tab/>``) in
a run is a tab (the ``<w:tab>`` stops of a paragraph's properties are not text). Deleted
text of tracked changes (``<w:delText>``), field codes and drawings give nothing.
Elements are matched by their local name, whatever prefix the document binds the
WordprocessingML namespace to. Paragraphs are numbered from 1 in document order, empty
ones too, so a number names the same paragraph in Word's order.
"""

from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Iterator
from typing import BinaryIO

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.archives import ZIP_MAGIC, open_zip, safe_members, stream_member
from convo.importers.context import ImportContext
from convo.importers.forums.xmlstream import stream_events

BODY = "word/document.xml"
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError)


def _local(tag: str) -> str:
    return tag.rpartition(":")[2]


def paragraphs_of(stream: BinaryIO, where: str) -> Iterator[tuple[int, str]]:
    """``(number, text)`` of each paragraph of a ``document.xml`` stream."""
    n = 0
    depth = 0  # paragraphs open (a text box's paragraphs sit inside another's run)
    in_run = 0
    in_text = False
    parts: list[str] = []
    for kind, tag, value, _line in stream_events(stream, where, text=True):
        if kind == "text":
            if in_text:
                parts.append(value)
            continue
        name = _local(tag)
        if kind == "start":
            if name == "p":
                if depth and parts:  # a paragraph inside another: the outer text so far first
                    n += 1
                    yield n, "".join(parts)
                    parts = []
                depth += 1
            elif name == "r":
                in_run += 1
            elif name == "t":
                in_text = True
            elif in_run and name in ("br", "cr"):
                parts.append("\n")
            elif in_run and name == "tab":
                parts.append("\t")
        elif name == "t":
            in_text = False
        elif name == "r":
            in_run = max(0, in_run - 1)
        elif name == "p" and depth:
            depth -= 1
            n += 1
            yield n, "".join(parts)
            parts = []


def is_docx(source: Source) -> bool:
    """A zip on disk that holds ``word/document.xml`` (a head alone cannot tell: Word writes
    ``[Content_Types].xml`` first)."""
    if not source.head.startswith(ZIP_MAGIC) or source.path is None or source.is_stdin:
        return False
    if source.gzipped:
        return False
    try:
        with zipfile.ZipFile(source.path) as zf:
            return BODY in zf.namelist()
    except _ZIP_ERRORS:
        return False


def head_paragraphs(source: Source, limit: int) -> list[str]:
    """The first ``limit`` paragraphs of a .docx on disk (for sniffing); [] when unreadable."""
    out: list[str] = []
    try:
        with zipfile.ZipFile(source.real_path()) as zf:
            info = zf.getinfo(BODY)
            with contextlib.closing(stream_member(zf, info, source.name)) as f:
                for _, text in paragraphs_of(f, f"{source.name}#{BODY}"):
                    out.append(text)
                    if len(out) >= limit:
                        break
    except (*_ZIP_ERRORS, KeyError, InputError):
        return out
    return out


def paragraphs(source: Source, ctx: ImportContext, hint: str) -> Iterator[tuple[int, str]]:
    """Every paragraph of the .docx ``source``, streamed. A file that is not a readable
    .docx is an InputError (``hint`` says what it should have been)."""
    with contextlib.closing(open_zip(source.real_path(), source.name)) as zf:
        members = safe_members(zf, source.name, ctx, hint)
        info = members.get(BODY)
        if info is None:
            raise InputError(f"not a Word document (no {BODY})", where=source.name, hint=hint)
        where = f"{source.name}#{BODY}"
        with contextlib.closing(stream_member(zf, info, where)) as f:
            yield from paragraphs_of(f, where)
