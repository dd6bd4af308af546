"""Word .docx documents as paragraphs of plain text, streamed (the one home of .docx reading).

A .docx is a zip (read in place, with the size caps of ``importers.archives``) whose
``word/document.xml`` holds the body. It is parsed by ``convo.importers.xmlstream`` (expat fed
64 KiB at a time, entity declarations refused), so memory holds one paragraph, never
the document. A paragraph (``<w:p>``) is the text of its runs' ``<w:t>`` elements; a
line break (``<w:br/>``, ``<w:cr/>``) in a run is a newline and a tab (``<w:tab/>``) in
a run is a tab (the ``<w:tab>`` stops of a paragraph's properties are not text). Deleted
text of tracked changes (``<w:delText>``), field codes and drawings give nothing, but a
text box's paragraphs (``<w:txbxContent>``) are read, once (not again from the
``mc:Fallback`` copy Word writes beside them).
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
from convo.importers.xmlstream import stream_events

BODY = "word/document.xml"
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError)


def _local(tag: str) -> str:
    return tag.rpartition(":")[2]


class _Paragraphs:
    """The paragraph being read: its text so far and where the parser is in it."""

    def __init__(self) -> None:
        self.n = 0
        self.depth = 0  # paragraphs open (a text box's paragraphs sit inside another's run)
        self.in_run = 0
        self.in_text = False
        self.parts: list[str] = []

    def take(self) -> tuple[int, str]:
        self.n += 1
        text = "".join(self.parts)
        self.parts = []
        return self.n, text

    def start(self, name: str) -> tuple[int, str] | None:
        """An element opens; a paragraph inside another gives the outer text so far."""
        done = None
        if name == "p":
            if self.depth and self.parts:
                done = self.take()
            self.depth += 1
        elif name == "r":
            self.in_run += 1
        elif name == "t":
            self.in_text = True
        elif self.in_run and name in _BREAKS:
            self.parts.append(_BREAKS[name])
        return done

    def end(self, name: str) -> tuple[int, str] | None:
        """An element closes; a paragraph's end gives the paragraph."""
        if name == "t":
            self.in_text = False
        elif name == "r":
            self.in_run = max(0, self.in_run - 1)
        elif name == "p" and self.depth:
            self.depth -= 1
            return self.take()
        return None


_BREAKS = {"br": "\n", "cr": "\n", "tab": "\t"}


def paragraphs_of(stream: BinaryIO, where: str) -> Iterator[tuple[int, str]]:
    """``(number, text)`` of each paragraph of a ``document.xml`` stream."""
    para = _Paragraphs()
    hidden = _Hidden()
    for kind, tag, value, _line in stream_events(stream, where, text=True):
        if kind == "text":
            if para.in_text and not hidden:
                para.parts.append(value)
            continue
        name = _local(tag)
        if hidden.step(name, kind == "start"):
            continue
        done = para.start(name) if kind == "start" else para.end(name)
        if done is not None:
            yield done


class _Hidden:
    """Whether the parser is in what is no text of the body: a drawing outside its text
    boxes (a shape's DrawingML text, ``a:p``/``a:t``, whose local names are the body's),
    or the ``mc:Fallback`` copy of what ``mc:Choice`` holds (Word writes a text box as
    both, DrawingML and VML)."""

    def __init__(self) -> None:
        self.fallback = 0
        self.drawing = 0
        self.boxes = 0

    def __bool__(self) -> bool:
        return self.fallback > 0 or self.drawing > self.boxes

    def step(self, name: str, opens: bool) -> bool:
        """An element opens or closes; True when it is hidden (or hides)."""
        was = bool(self)
        by = 1 if opens else -1
        if name == "Fallback":
            self.fallback += by
        elif name == "drawing":
            self.drawing += by
        elif name == "txbxContent":
            self.boxes += by
        else:
            return was
        return True


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
