"""Helpers shared by the chat-app export readers: lines, mojibake repair, the
empty-message tally, the listeners of a chat line. The JSON helpers (sniffing heads, lenient values, ``StreamedDoc``)
live in ``convo.importers.jsoninput`` and ``head_lines`` in ``convo.importers.registry``,
shared by every family."""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from typing import Any, Protocol

from convo.core.encoding import LineDecoder
from convo.core.errors import InputError
from convo.core.io import Source, strip_bom

SYSTEM_TAG = "system"
#: A chat export's message on a branch the app does not show (an earlier edit, a
#: regenerated answer): kept, so nothing the user wrote is dropped; ``-tag:off-branch``
#: gives the conversation as the app shows it (chatgpt, deepseek, claude-ai, open-webui).
OFF_BRANCH = "off-branch"
# UTF-32's little-endian BOM starts with UTF-16's: test it first.
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _cp1252_reverse() -> dict[str, int]:
    table: dict[str, int] = {}
    for b in range(256):
        try:
            table[bytes([b]).decode("cp1252")] = b
        except UnicodeDecodeError:
            table[chr(b)] = b  # the five bytes cp1252 leaves undefined pass through as C1 chars
    return table


_CP1252 = _cp1252_reverse()


def fix_cp1252_mojibake(text: str) -> str:
    """Undo UTF-8 bytes that were decoded as cp1252 ('Grace ðŸ§¤' -> 'Grace 🧤').

    Only when every character maps back to one byte and those bytes are valid UTF-8
    with at least one multi-byte sequence: otherwise the text is left unchanged.
    """
    if text.isascii():
        return text
    try:
        raw = bytes(_CP1252[c] for c in text)
        fixed = raw.decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return text
    return fixed


def fix_latin1_mojibake(text: str) -> str:
    """Undo Facebook's escaping of UTF-8 bytes as \\u00XX characters."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def numbered_lines(source: Source, decode: LineDecoder) -> Iterator[tuple[int, str]]:
    """Numbered lines without their ends; UTF-32/16 when a BOM says so, else ``decode``'s
    (``ImportContext.text_decoder``: UTF-8 line by line, else the file's legacy encoding or
    ``--encoding``; a reader's passes share one). Stdin and .gz are spooled so a reader can
    take two passes."""
    with open(source.real_path(), "rb") as f:
        bom = f.read(4)
        wide = "utf-32" if bom in UTF32_BOMS else "utf-16" if bom[:2] in UTF16_BOMS else None
        if wide:
            f.seek(0)
            with io.TextIOWrapper(f, encoding=wide, errors="replace", newline=None) as text:
                for n, line in enumerate(text, 1):
                    yield n, line.rstrip("\r\n")
            return
        f.seek(0)
        for n, raw in enumerate(f, 1):
            yield n, decode(strip_bom(raw) if n == 1 else raw).rstrip("\r\n")


def csv_rows(
    source: Source,
    decode: LineDecoder,
    what: str,
    hint: str,
    header: list[str] | None = None,
    delimiter: str = ",",
) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each data row of a CSV export after its header row, a
    cell's line breaks kept; a row the csv module cannot read (a cell past its 128 KiB
    limit, a stray carriage return) stops the file with ``not CSV as <what> writes it``.
    ``header``, when given, receives the header row's cells (stripped, a BOM removed);
    ``delimiter``: a file written for a spreadsheet in another language (``;``, a tab)."""
    where = {"n": 0}

    def feed() -> Iterator[str]:
        for n, line in numbered_lines(source, decode):
            where["n"] = n
            yield line + "\n"

    reader = csv.reader(feed(), delimiter=delimiter)
    start = 1
    try:
        cols = next(reader, None)  # the header
        if header is not None and cols is not None:
            header[:] = [c.strip().lstrip("\ufeff") for c in cols]
        start = where["n"] + 1
        for row in reader:
            if any(cell.strip() for cell in row):
                yield start, row
            start = where["n"] + 1
    except csv.Error as e:
        raise InputError(
            f"not CSV as {what} writes it ({e})", where=f"{source.name}:{start}", hint=hint
        ) from None


def utc_named(text: str) -> str:
    """``2024-04-20 01:29:22 UTC`` (Snapchat's and LinkedIn's times) as ``...Z``, which
    ``core.timestamps.iso_ts`` reads on its ISO fast path instead of through dateutil
    (measured 2026-12-04, load ~7: ingesting 100,000 Snapchat rows took 11.3 s of CPU,
    1.9 s with this; the same records: tests/importers/test_formats_snapchat.py)."""
    return text[:-4] + "Z" if text.endswith(" UTC") else text


def written_count(text: str, default: int | None = None) -> int | None:
    """A count as an export writes it (``1,234``, ``1 234``, ``3``): its digits as a
    number; ``default`` when it has none, or more than 18 (no count is that large, and
    ``int`` of 4,300 digits raises)."""
    digits = "".join(c for c in text if c.isdecimal())
    return int(digits) if 0 < len(digits) <= 18 else default


def other_party(speakers: list[str], speaker: str | None) -> list[str]:
    """The listener of a two-person chat: the one not speaking; in a group, nobody."""
    return [s for s in speakers if s != speaker] if len(speakers) == 2 else []


def mentioned_or_other(speakers: list[str], speaker: str | None, text: str) -> list[str]:
    """The listeners of a text chat line: the speakers it @mentions, else ``other_party``."""
    mentioned = [s for s in speakers if s != speaker and f"@{s}" in text]
    return mentioned or other_party(speakers, speaker)


class EmptyCounter:
    """Counts messages skipped for having no text at all; warns once per source, naming
    where the first ones are (``FILE#msg-3``, ``FILE:12``), so each can be found."""

    SHOWN = 3  # locations named in the warning

    def __init__(self) -> None:
        self.n = 0
        self.first: list[str] = []

    def skip(self, where: str) -> None:
        """One more skipped message, at ``where``."""
        self.n += 1
        if len(self.first) < self.SHOWN:
            self.first.append(where)

    def report(self, ctx: Any, what: str = "empty messages (no text, no media)") -> None:
        if self.n:
            more = ", ..." if self.n > len(self.first) else ""
            at = f" (at {', '.join(self.first)}{more})" if self.first else ""
            ctx.warn(ctx.source.name, f"skipped {what}: {self.n}{at}")  # right for 1 and many


class PageParser(Protocol):
    """An ``HTMLParser`` that puts what it finishes (a message, a block) in ``done``."""

    done: list[Any]

    def feed(self, data: str) -> None: ...

    def close(self) -> None: ...


def parsed_page(source: Source, parser: PageParser) -> Iterator[Any]:
    """What ``parser`` finishes (its ``done``) as an HTML page that declares UTF-8 streams
    through it, 64 KiB at a time (stdin and .gz spooled: a reader may take two passes)."""
    done = parser.done
    with open(source.real_path(), "rb") as f:
        decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        while chunk := f.read(1 << 16):
            parser.feed(decoder.decode(chunk))
            yield from done
            done.clear()
    parser.feed(decoder.decode(b"", final=True))
    parser.close()
    yield from done
