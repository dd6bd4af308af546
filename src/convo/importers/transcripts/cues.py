"""Streaming cue parsing for WebVTT, SRT and SBV: lines -> blocks -> timed cues.

A line at a time, so memory stays flat; every block keeps the number of its first
line so that a malformed cue is rejected as ``file:LINE``. The block rules follow
WebVTT (and webvtt-py): an empty line ends a block, and a line with ``-->`` that cannot
be the timing line of the current block starts a new one. SRT and SBV also end blocks
at whitespace-only lines and split cues that lack the blank line between them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from convo.core.encoding import LineDecoder
from convo.core.io import Source, strip_bom
from convo.core.timestamps import CUE_HOUR_DIGITS

CHUNK = 1 << 20
MAX_LINE_BYTES = 16 << 20  # a longer "line" is cut: this is not a caption file anyway
MAX_BLOCK_LINES = 5000  # a "cue" longer than this is not a cue (binary or runaway input)

_TS = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d+))?"
# Lenient on purpose: missing hours, unpadded Teams times (0:0:0.0), ',' or '.' before the
# milliseconds and missing milliseconds all read; anything after the end time is settings.
TIMING = re.compile(rf"[ \t]*{_TS}[ \t]*-->[ \t]*{_TS}(?:[ \t]+(.*?))?[ \t]*$")
SBV_TIMING = re.compile(
    r"[ \t]*(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d+))?[ \t]*,[ \t]*"
    r"(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d+))?[ \t]*$"
)
_DIGITS = re.compile(r"[ \t]*\d+[ \t]*$")
_SKIP_BLOCKS = ("NOTE", "STYLE", "REGION")


@dataclass
class Block:
    line: int  # number of the first line
    lines: list[str]
    overflow: bool = False


@dataclass
class RawCue:
    """A cue before its text is read: where it is, its timing and its payload lines."""

    n: int  # ordinal of the cue block in the file (1-based): the N of ``#cue-N``
    line: int
    ident: str | None
    start_ms: int
    end_ms: int
    payload: list[str] = field(default_factory=list)


@dataclass
class BadBlock:
    """A block that cannot be a cue: rejected with its line (``n`` is its cue ordinal or 0)."""

    n: int
    line: int
    reason: str
    raw: str
    hint: str | None = None


@dataclass
class Header:
    """The WebVTT header block (``WEBVTT`` line and metadata such as ``Kind: captions``)."""

    line: int
    lines: list[str]


@dataclass
class Comment:
    """A WebVTT comment (``NOTE``) block that holds cue text: a voice span, as a cue whose
    blank line before its timing was lost (or a ``NOTE`` line pasted above a cue's text)
    leaves it. A comment runs to the next blank line, so browsers and convo read none of
    it; the reader warns with its line, so the words are not lost unsaid."""

    line: int
    text: str  # the first line holding cue text


# Cue text's markup that no comment writer needs: a voice span (``<v Name>``, ``</v>``).
_CUE_TEXT = re.compile(r"<v[ .\t][^>]*>|</v>")


def text_lines(source: Source, decode: LineDecoder | None = None) -> Iterator[tuple[int, str]]:
    """Numbered lines of text, without line ends.

    A BOM decides UTF-8, UTF-16 or UTF-32; otherwise ``decode`` (``convo.core.encoding``)
    does: each line UTF-8, or the file's legacy encoding when it is not (SRT files from
    Windows tools), so one odd line never spoils the rest; ``--encoding`` for every line.
    """
    decode = decode or LineDecoder(source.head)
    stream = source.open()
    wide = _wide_encoding(source.head)
    if wide:
        text = io.TextIOWrapper(stream, encoding=wide, errors="replace", newline=None)
        with text:
            for n, line in enumerate(text, 1):
                yield n, line.rstrip("\n")
        return
    with stream:
        n = 0
        rest = b""
        while data := stream.read(CHUNK):
            data = rest + (strip_bom(data) if n == 0 and not rest else data)
            cut = _last_line_end(data)
            if cut < 0:
                rest = data  # no line end yet: wait for more
                continue
            for line in _decode_lines(data[: cut + 1], decode):
                n += 1
                yield n, line
            rest = data[cut + 1 :]
        if rest:
            for line in _decode_lines(rest + b"\n", decode):
                n += 1
                yield n, line


def _wide_encoding(head: bytes) -> str | None:
    """The codec a UTF-32 or UTF-16 BOM names; None: no such BOM, lines are decoded one by one."""
    # UTF-32's little-endian BOM starts with UTF-16's: test it first.
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return None


def _last_line_end(data: bytes) -> int:
    """Index of the last line end in ``data``, or -1 when its one line is still unfinished.

    A line that has grown to ``MAX_LINE_BYTES`` without an end is cut after its last byte.
    """
    cut = data.rfind(b"\n")
    if cut < 0:
        cut = data.rfind(b"\r", 0, len(data) - 1)  # old Mac line ends; a final CR may be a CRLF's
    if cut < 0 and len(data) >= MAX_LINE_BYTES:
        cut = len(data) - 1
    return cut


def _decode_lines(chunk: bytes, decode: LineDecoder) -> list[str]:
    """Lines of a chunk that ends with a line end (CRLF, LF or CR)."""
    try:
        text = None if decode.override else chunk.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None:  # a line at a time (--encoding, or lines that are not UTF-8)
        return [decode(raw) for raw in chunk.splitlines()]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    lines.pop()  # the chunk ends with a line end
    return lines


def vtt_blocks(lines: Iterator[tuple[int, str]]) -> Iterator[Block]:
    """WebVTT blocks: an empty line ends one; whitespace-only lines belong to it."""
    # Plain locals, no block object: this loop runs once a line of every transcript.
    block: list[str] = []
    start = 0
    first = True
    overflow = False  # the block reached MAX_BLOCK_LINES; its further lines are dropped
    for n, line in lines:
        if not line or ("-->" in line and block and _timing_starts_block(block, first)):
            if block:
                yield Block(start, block, overflow)
                block, overflow, first = [], False, False
            if not line:
                continue
        if not block:
            if not line.strip():
                continue  # whitespace-only lines between blocks (Netflix) separate too
            start = n
        if len(block) < MAX_BLOCK_LINES:
            block.append(line)
        else:
            overflow = True
    if block:
        yield Block(start, block, overflow)


def _timing_starts_block(block: list[str], first: bool) -> bool:
    """Whether a ``-->`` line after ``block`` cannot be its timing line, so starts a new block.

    Only a cue identifier (one line, not itself a timing line) may come before the timing
    line; the header (the file's first block) has none.
    """
    return len(block) > 1 or "-->" in block[0] or (first and block[0].startswith("WEBVTT"))


def plain_blocks(lines: Iterator[tuple[int, str]], sbv: bool = False) -> Iterator[Block]:
    """SRT/SBV blocks: a blank (or whitespace-only) line ends one, and so does a second
    timing line in the same block (a missing blank line); for SRT an index number just
    before that timing line goes with it."""
    # The same plain locals, cap and last block as vtt_blocks, written out again on
    # purpose: a helper would be a call a line.
    block: list[str] = []
    start = 0
    timed = False
    overflow = False
    for n, line in lines:
        if not line.strip():
            if block:
                yield Block(start, block, overflow)
                block, timed, overflow = [], False, False
            continue
        is_timing = bool(SBV_TIMING.match(line)) if sbv else "-->" in line
        if is_timing and timed:
            carry = _next_cue_index(block, sbv)
            yield Block(start, block, overflow)
            block, timed, overflow = carry, False, False
            start = n - len(carry)
        if not block:
            start = n
        timed = timed or is_timing
        if len(block) < MAX_BLOCK_LINES:
            block.append(line)
        else:
            overflow = True
    if block:
        yield Block(start, block, overflow)


def srt_paragraphs(blocks: Iterator[Block]) -> Iterator[Block]:
    """SRT blocks with a cue's text that a blank line split rejoined: a block without a
    timing line whose first line is no index number, after a cue with text, is that
    cue's next paragraph, as players read it (ffmpeg's SubRip demuxer ends a cue at a
    blank line followed by a number and a timing line). One block is held at a time."""
    held: Block | None = None
    for block in blocks:
        if held is not None and _continues(held, block):
            held = Block(held.line, [*held.lines, "", *block.lines])
            continue
        if held is not None:
            yield held
        held = block
    if held is not None:
        yield held


def _continues(cue: Block, block: Block) -> bool:
    """Whether ``block`` is more text of ``cue`` (see ``srt_paragraphs``)."""
    at = _timing_at(cue.lines, False)
    if at is None or len(cue.lines) <= at + 1 or cue.overflow or block.overflow:
        return False  # not a cue with text
    if _timing_at(block.lines, False) is not None or _DIGITS.match(block.lines[0]):
        return False  # a cue of its own, or a numbered cue that lost its timing line
    return len(cue.lines) + len(block.lines) < MAX_BLOCK_LINES


def _next_cue_index(block: list[str], sbv: bool) -> list[str]:
    """Pop the SRT index number ending ``block``: it numbers the next cue, so starts that block."""
    if not sbv and len(block) > 1 and _DIGITS.match(block[-1]):
        return [block.pop()]
    return []


def _ms(h: str | None, m: str, s: str, frac: str | None) -> int | None:
    mi, se = int(m), int(s)
    if mi > 59 or se > 59 or (h and len(h) > CUE_HOUR_DIGITS):
        return None
    if not frac:
        ms = 0
    elif len(frac) < 3 and (len(m) == 1 or len(s) == 1):
        ms = int(frac)  # Teams writes unpadded fields: 0:4:6.80 is 6 s and 80 ms
    else:
        ms = int((frac + "00")[:3])
    return ((int(h) if h else 0) * 3600 + mi * 60 + se) * 1000 + ms


def parse_timing(line: str, sbv: bool = False) -> tuple[int, int] | None:
    """``(start_ms, end_ms)`` of a timing line, or None when it is unreadable.

    One lenient pattern for every line: a shortcut for the common ``HH:MM:SS.mmm -->
    HH:MM:SS.mmm`` line was 1.6-1.9× faster per line but a whole 20,000-cue WebVTT import
    only 1.08× (quartiles 1.00-1.17× over 40 alternating rounds,
    benchmarks/bench_fastpaths.py), within the noise: removed."""
    match = (SBV_TIMING if sbv else TIMING).match(line)
    if not match:
        return None
    g = match.groups()
    start, end = _ms(*g[0:4]), _ms(*g[4:8])
    if start is None or end is None:
        return None
    return start, end


def cues(blocks: Iterator[Block], kind: str) -> Iterator[RawCue | BadBlock | Header | Comment]:
    """Turn blocks into cues (``kind`` is vtt, srt or sbv); skip NOTE/STYLE/REGION blocks
    (a ``Comment`` for a NOTE holding cue text, for a warning), and in WebVTT the header
    blocks browsers drop before the first cue (``_header_block``)."""
    sbv = kind == "sbv"
    n = 0
    first = True
    timed = False  # a cue block seen (WebVTT: the header blocks are over)
    styled = False  # the block before was a STYLE block or its continuation
    for block in blocks:
        lines = block.lines
        is_first, first = first, False
        if kind == "vtt" and is_first and lines and lines[0].startswith("WEBVTT"):
            yield Header(block.line, lines)
            continue
        if block.overflow:
            n += 1
            yield _runaway(n, block)
            continue
        if not any(x.strip() for x in lines):
            continue
        at = _timing_at(lines, sbv)
        if at is None and kind == "vtt":
            skip, styled = _vtt_skipped(lines, timed, styled)
            if skip:
                yield from _comment(block)
                continue
        styled = False
        timed = timed or at is not None
        n += 1
        yield _untimed(n, block, sbv) if at is None else _timed(n, block, at, sbv)


def _comment(block: Block) -> Iterator[Comment]:
    """The ``Comment`` of a skipped block that is a NOTE holding cue text (none else)."""
    if block.lines[0].startswith("NOTE"):
        for i, line in enumerate(block.lines):
            if _CUE_TEXT.search(line):
                yield Comment(block.line + i, line)
                return


# The header lines of the 2013-2016 WebVTT drafts (``Region: id=fred width=40% ...``,
# still written by some tools), YouTube's ``Kind:``/``Language:`` and HLS's
# ``X-TIMESTAMP-MAP=``, when a blank line parts them from ``WEBVTT``.
_HEADER_LINE = re.compile(r"(?i)[ \t]*(?:region|kind|language|x-timestamp-map)[ \t]*[:=]")
_CSS = re.compile(r"[{}]|/\*|\*/|;[ \t]*$")


def _vtt_skipped(lines: list[str], timed: bool, styled: bool) -> tuple[bool, bool]:
    """Whether an untimed WebVTT block is skipped (comments, styles and regions carry no
    conversation; ``_header_block``), and whether a block after it may be the rest of a
    style sheet."""
    if lines[0].startswith(_SKIP_BLOCKS):
        return True, lines[0].startswith("STYLE")
    if not timed and _header_block(lines, styled):
        return True, styled
    return False, False


def _header_block(lines: list[str], styled: bool) -> bool:
    """Whether an untimed WebVTT block before the first cue is one browsers drop and play
    the file: the rest of a style sheet that held a blank line (it ends the STYLE block,
    as every blank line ends a block), or header lines of the old drafts. Any other
    text there is still rejected (it may be a cue that lost its timing line)."""
    if styled and any(_CSS.search(x) for x in lines):
        return True
    return all(_HEADER_LINE.match(x) for x in lines if x.strip())


def _timing_at(lines: list[str], sbv: bool) -> int | None:
    """Index of the timing line in a block's lines (0, or 1 after a cue identifier), or None."""
    if sbv:
        return 0 if SBV_TIMING.match(lines[0]) else None
    if "-->" in lines[0]:
        return 0
    if len(lines) > 1 and "-->" in lines[1]:
        return 1
    return None


def _runaway(n: int, block: Block) -> BadBlock:
    """The rejection of a block cut at ``MAX_BLOCK_LINES`` (its first 20 lines as the raw)."""
    return BadBlock(
        n, block.line, f"block longer than {MAX_BLOCK_LINES} lines", "\n".join(block.lines[:20]),
        "a cue ends at an empty line; is this a caption file?",
    )  # fmt: skip


def _untimed(n: int, block: Block, sbv: bool) -> BadBlock:
    """The rejection of a block without a timing line: a lone SRT index, or stray text."""
    lines = block.lines
    if not sbv and len(lines) == 1 and _DIGITS.match(lines[0]):
        return BadBlock(n, block.line, "cue index without timing or text", lines[0])
    return BadBlock(
        n, block.line, "text without a cue timing line", "\n".join(lines),
        "each cue needs a line like 00:00:01.000 --> 00:00:04.000",
    )  # fmt: skip


def _timed(n: int, block: Block, at: int, sbv: bool) -> RawCue | BadBlock:
    """The cue of a block whose timing line is ``lines[at]``, or its rejection when unreadable."""
    lines = block.lines
    timing = parse_timing(lines[at], sbv)
    if timing is None:
        return BadBlock(
            n, block.line + at, f"unreadable cue timing {lines[at].strip()!r}",
            "\n".join(lines),
            "expected 0:00:01.000,0:00:04.000" if sbv
            else "expected HH:MM:SS.mmm --> HH:MM:SS.mmm",
        )  # fmt: skip
    return RawCue(
        n, block.line, lines[0].strip() if at else None, timing[0], timing[1], lines[at + 1 :]
    )
