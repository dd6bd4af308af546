"""One RFC 5322 message a file (``.eml``): sniffer and reader.

Ids and their scope (docs/ids.md): the ``Message-ID``, unique everywhere (no scope);
without one, the content hash (``convo.importers.email.record``).
"""

from __future__ import annotations

from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.email import FIELDS
from convo.importers.email.convert import (
    EML_LIMIT,
    convert,
    head_lines,
    header_block,
    strip_envelope,
)
from convo.importers.email.record import Origin
from convo.importers.registry import Format

NAME = "eml"


def sniff(source: Source) -> int:
    lines = head_lines(source)
    while lines and not lines[0].strip():
        lines = lines[1:]
    if not lines:
        return 0
    envelope = lines[0].startswith(b"From ")
    good, bad, known = header_block(lines[1:] if envelope else lines)
    if known == 0 or good < bad * 3:
        return 0
    if envelope:
        return 91  # an mbox of one: named *.eml it is eml, on stdin mbox (95) wins
    if known >= 2:
        return 85
    return 50


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """One message a file (an mbox ``From `` line at the top is tolerated)."""
    data, envelope = strip_envelope(source.read_bytes(EML_LIMIT))
    rec = convert(data, ctx, Origin(NAME, "msg-1", ctx.loc("msg-1"), envelope))
    if rec is not None:
        yield rec


DESCRIPTION = (
    "One RFC 5322 e-mail message a file (.eml, Apple Mail .emlx); a folder of them works too"
)
EXAMPLE = (
    "From: Alice Smith <alice@example.org>\nTo: bob@example.org\n"
    "Subject: Auth refactor\nDate: Wed, 6 Mar 2024 10:00:00 +0000\n\nHi Bob"
)
FORMATS = (
    Format(
        NAME,
        "email",
        DESCRIPTION,
        ("*.eml", "*.emlx", "*.msg.txt"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
