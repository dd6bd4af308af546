"""Reading a JSONL stream in big blocks of whole lines, and locating lines on demand.

The store is read in 1 MiB blocks without copies, never as line objects; the scanner
(``convo.query.scan``) works on the blocks.
"""

from __future__ import annotations

from collections.abc import Iterator

from convo.core.jsonl import BOM  # not core.io: a scan worker need not import its codecs

BLOCK = 1 << 20


class LineLocator:
    """Line numbers of stream offsets, counted on demand from a second reader.

    Offsets are asked for in increasing order (errors come in file order), so the whole
    file is read at most once more however many errors there are.
    """

    def __init__(self, opener):
        self.opener = opener
        self.stream = None
        self.at = 0
        self.line = 1

    def line_at(self, offset: int) -> int:
        if self.stream is None or offset < self.at:
            self.close()
            self.stream, self.at, self.line = self.opener(), 0, 1
        while self.at < offset:
            chunk = self.stream.read(min(BLOCK, offset - self.at))
            if not chunk:
                break
            self.line += chunk.count(b"\n")
            self.at += len(chunk)
        return self.line

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


def iter_spans(
    stream, size: int = BLOCK, *, bom: bool = True
) -> Iterator[tuple[bytes, int, int, bool, int]]:
    """``(buf, start, end, torn, offset)``: ``buf[start:end]`` is whole lines, BOM removed.

    Big reads are not copied: the line cut by the end of the previous read is yielded on
    its own (joined with its tail), then the rest of the read as a span. ``torn`` marks
    a final line without a newline; ``offset`` is where ``buf`` starts in the stream.
    ``bom=False`` keeps a leading BOM (a range that does not start the file).
    """
    carry: list[bytes] = []  # pieces of one long line, joined once (linear, not quadratic)
    carry_at = 0
    at = 0  # stream offset of the next read
    head = bom
    while True:
        data = stream.read(size)
        if not data:
            break
        if head:
            head = False
            while len(data) < len(BOM) and (more := stream.read(size)):
                data += more  # tiny reads: see the whole BOM before removing it
            if data.startswith(BOM):
                data = data[3:]
                at = 3
        data_at = at
        at += len(data)
        cut = data.rfind(b"\n")
        if cut < 0:
            if not carry:
                carry_at = data_at
            carry.append(data)
            continue
        start = 0
        if carry:
            nl = data.find(b"\n")
            carry.append(data[: nl + 1])
            piece = b"".join(carry)
            yield piece, 0, len(piece), False, carry_at
            start = nl + 1
        if start <= cut:
            yield data, start, cut + 1, False, data_at
        carry = [data[cut + 1 :]] if cut + 1 < len(data) else []
        carry_at = data_at + cut + 1
    if carry:
        piece = b"".join(carry)
        yield piece, 0, len(piece), True, carry_at


def iter_blocks(
    stream, size: int = BLOCK, *, count: bool = True
) -> Iterator[tuple[bytes, int, bool]]:
    """``(block, number of its first line, torn)``: whole lines, BOM removed.

    Every block but a torn last one ends with a newline; ``torn`` marks a final line that
    has none (an interrupted write, or just a missing newline). ``count=False`` leaves
    line numbers to the caller (the number is then always 0), saving a pass.
    """
    carry: list[bytes] = []  # pieces of one long line, joined once (linear, not quadratic)
    number = 1
    start = True
    while True:
        data = stream.read(size)
        if not data:
            break
        if start:
            start = False
            if data.startswith(BOM):
                data = data[3:]
        cut = data.rfind(b"\n")
        if cut < 0:
            carry.append(data)
            continue
        block = b"".join((*carry, data[: cut + 1])) if carry else data[: cut + 1]
        carry = [data[cut + 1 :]] if cut + 1 < len(data) else []
        yield block, number, False
        if count:
            number += block.count(b"\n")
    if carry:
        yield b"".join(carry), number, True
