"""A small Outlook ``.msg`` writer for the tests (no package writes them: olefile only reads).

Two layers, each from its specification:

- MS-CFB (the compound file, version 3): a 512-byte header, 512-byte sectors chained by
  the FAT, 128-byte directory entries (a storage's children in a binary search tree by
  name length, then upper-cased name; here a chain of right siblings), streams under the
  4096-byte cutoff in the mini stream (64-byte mini sectors chained by the mini FAT).
- MS-OXMSG (a message in it): ``__properties_version1.0`` (a 32-byte header at the top,
  24 in an attached item's ``__substg1.0_3701000D`` storage, 8 bytes in a recipient or
  attachment; then 16-byte entries: tag, flags, value or
  size), ``__substg1.0_<tag>`` streams for strings (``001F``: UTF-16LE) and binaries
  (``0102``), ``__recip_version1.0_#N`` and ``__attach_version1.0_#N`` storages, and the
  ``__nameid_version1.0`` storage every message has.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime

FREE, END, FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
SECTOR, MINI, CUTOFF = 512, 64, 4096
PT_LONG, PT_SYSTIME, PT_UNICODE, PT_BINARY = 0x0003, 0x0040, 0x001F, 0x0102


@dataclass
class Node:
    name: str
    data: bytes | None = None  # a stream; None: a storage
    kids: list[Node] = field(default_factory=list)


def _key(node: Node) -> tuple[int, str]:
    return len(node.name), node.name.upper()


def _chain(fat: list[int], start: int, count: int) -> None:
    for i in range(count):
        fat[start + i] = start + i + 1 if i < count - 1 else END


def compound_file(root: Node) -> bytes:
    """The bytes of a CFB v3 file holding ``root``'s tree."""
    nodes: list[Node] = []

    def walk(n: Node) -> None:
        nodes.append(n)
        for k in sorted(n.kids, key=_key):
            walk(k)

    walk(root)
    index = {id(n): i for i, n in enumerate(nodes)}
    mini = bytearray()
    minifat: list[int] = []
    big: list[tuple[Node, bytes]] = []
    start: dict[int, int] = {}
    for n in nodes[1:]:
        if n.data is None:
            continue
        if len(n.data) < CUTOFF:
            first = len(minifat)
            count = max(1, -(-len(n.data) // MINI)) if n.data else 0
            start[id(n)] = first if n.data else END
            minifat.extend(range(first + 1, first + count))
            if count:
                minifat.append(END)
            mini += n.data + b"\0" * (count * MINI - len(n.data))
        else:
            big.append((n, n.data))
    dir_count = -(-len(nodes) * 128 // SECTOR)
    mini_count = -(-len(mini) // SECTOR)
    minifat_count = -(-len(minifat) * 4 // SECTOR)
    big_counts = [-(-len(d) // SECTOR) for _, d in big]
    body = dir_count + mini_count + minifat_count + sum(big_counts)
    fat_count = 1
    while fat_count * 128 < body + fat_count:
        fat_count += 1
    assert fat_count <= 109, "too large for a header-only DIFAT"
    fat = [FREE] * (fat_count * 128)
    at = 0
    _chain(fat, at, dir_count)
    dir_start = at
    at += dir_count
    mini_start = at if mini_count else END
    _chain(fat, at, mini_count)
    at += mini_count
    minifat_start = at if minifat_count else END
    _chain(fat, at, minifat_count)
    at += minifat_count
    for (n, _), count in zip(big, big_counts, strict=True):
        start[id(n)] = at
        _chain(fat, at, count)
        at += count
    for i in range(fat_count):
        fat[at + i] = FATSECT
    entries = bytearray()
    for i, n in enumerate(nodes):
        kids = sorted(n.kids, key=_key)
        child = index[id(kids[0])] if kids else FREE
        right = FREE
        parent = next((p for p in nodes if any(k is n for k in p.kids)), None)
        if parent is not None:
            siblings = sorted(parent.kids, key=_key)
            pos = next(j for j, k in enumerate(siblings) if k is n)
            right = index[id(siblings[pos + 1])] if pos + 1 < len(siblings) else FREE
        kind = 5 if i == 0 else (2 if n.data is not None else 1)
        size = len(mini) if i == 0 else len(n.data or b"")
        first = mini_start if i == 0 else start.get(id(n), END if n.data is not None else 0)
        name = n.name.encode("utf-16-le") + b"\0\0"
        entries += struct.pack(
            "<64sHBBIII16sIQQIQ",
            name, len(name), kind, 1, FREE, right, child, b"\0" * 16, 0, 0, 0,
            first if size or i == 0 else END, size,
        )  # fmt: skip
    entries += b"\0" * (dir_count * SECTOR - len(entries))
    for j in range(len(nodes), dir_count * 4):  # unused entries: no siblings, no child
        struct.pack_into("<III", entries, j * 128 + 68, FREE, FREE, FREE)
    difat = [at + i for i in range(fat_count)] + [FREE] * (109 - fat_count)
    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII",
        bytes.fromhex("D0CF11E0A1B11AE1"), b"\0" * 16, 0x3E, 3, 0xFFFE, 9, 6, b"\0" * 6,
        0, fat_count, dir_start, 0, CUTOFF, minifat_start, minifat_count, END, 0,
    ) + struct.pack("<109I", *difat)  # fmt: skip
    out = bytearray(header)
    out += entries
    out += mini + b"\0" * (mini_count * SECTOR - len(mini))
    packed = struct.pack(f"<{len(minifat)}I", *minifat)
    out += packed + b"\xff" * (minifat_count * SECTOR - len(packed))
    for (_, d), count in zip(big, big_counts, strict=True):
        out += d + b"\0" * (count * SECTOR - len(d))
    out += struct.pack(f"<{len(fat)}I", *fat)
    return bytes(out)


def _filetime(when: datetime) -> int:
    return int((when - datetime(1601, 1, 1, tzinfo=UTC)).total_seconds() * 10_000_000)


@dataclass
class Props:
    """One object's properties: strings, binaries, longs and times, by property id."""

    strings: dict[int, str] = field(default_factory=dict)
    binaries: dict[int, bytes] = field(default_factory=dict)
    longs: dict[int, int] = field(default_factory=dict)
    times: dict[int, datetime] = field(default_factory=dict)
    # an attachment's: the Outlook item it holds (its properties, recipients, attachments),
    # written as the ``__substg1.0_3701000D`` storage (a 24-byte properties header)
    embedded: tuple[Props, list[Props], list[Props]] | None = None

    def nodes(self, header: bytes) -> list[Node]:
        out: list[Node] = []
        table = bytearray(header)
        for pid, text in self.strings.items():
            raw = text.encode("utf-16-le")
            out.append(Node(f"__substg1.0_{pid:04X}{PT_UNICODE:04X}", raw))
            table += struct.pack("<IIII", pid << 16 | PT_UNICODE, 6, len(raw) + 2, 0)
        for pid, raw in self.binaries.items():
            out.append(Node(f"__substg1.0_{pid:04X}{PT_BINARY:04X}", raw))
            table += struct.pack("<IIII", pid << 16 | PT_BINARY, 6, len(raw), 0)
        for pid, value in self.longs.items():
            table += struct.pack("<IIiI", pid << 16 | PT_LONG, 6, value, 0)
        for pid, when in self.times.items():
            table += struct.pack("<IIQ", pid << 16 | PT_SYSTIME, 6, _filetime(when))
        out.append(Node("__properties_version1.0", bytes(table)))
        if self.embedded is not None:
            inner, recips, attached = self.embedded
            head = struct.pack(
                "<8sIIII", b"", len(recips), len(attached), len(recips), len(attached)
            )
            item = Node("__substg1.0_3701000D", kids=inner.nodes(head))
            item.kids += _children(recips, attached)
            out.append(item)
        return out


def _children(recipients: list[Props], attachments: list[Props]) -> list[Node]:
    kids = [
        Node(f"__recip_version1.0_#{i:08X}", kids=r.nodes(b"\0" * 8))
        for i, r in enumerate(recipients)
    ]
    kids += [
        Node(f"__attach_version1.0_#{i:08X}", kids=a.nodes(b"\0" * 8))
        for i, a in enumerate(attachments)
    ]
    return kids


def message(
    props: Props,
    recipients: list[Props] = (),
    attachments: list[Props] = (),  # type: ignore[assignment]
) -> bytes:
    """An Outlook .msg file: the message's properties, its recipients and attachments."""
    top = struct.pack("<8sIIII8s", b"", len(recipients), len(attachments), len(recipients),
                      len(attachments), b"")  # fmt: skip
    root = Node("Root Entry", kids=props.nodes(top))
    nameid = Node("__nameid_version1.0")
    nameid.kids = [Node(f"__substg1.0_000{n}0102", b"") for n in (2, 3, 4)]
    root.kids.append(nameid)
    root.kids += _children(list(recipients), list(attachments))
    return compound_file(root)
