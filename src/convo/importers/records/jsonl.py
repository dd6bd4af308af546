"""convo's own JSONL records, and TypeAgent's ``ConversationMessage.serialize()`` output.

Ids and their scope (docs/ids.md): each record's own ``id``, as written (convo wrote it
by these rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.errors import RecordError
from convo.core.io import Source, strip_bom
from convo.core.jsonl import BOM, iter_lines, parse_line
from convo.core.record import ConversationMessage, parse_record
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

_RECORD_KEY = re.compile(rb'^\s*\{.*"(textChunks|text_chunks)"\s*:', re.S)


def sniff(source: Source) -> int:
    first = strip_bom(source.head).lstrip()
    if not first:
        return 1  # empty (or blank): zero records, as an empty pipe upstream gives
    if not first.startswith(b"{"):
        return 0
    line = first.split(b"\n", 1)[0]
    return 90 if _RECORD_KEY.match(line) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    lines = 0
    with source.open() as stream:
        for line in iter_lines(stream):
            lines += 1
            where = ctx.loc(line.number)
            line.number = ctx.line(line.number)  # parse_line's errors name the file's line
            try:
                data = parse_line(line, source.name)
                msg = parse_record(data, where)
            except RecordError as e:
                ctx.reject_error(e, line.raw)
                continue
            del line, data  # a long line's bytes and dict are not kept while it is written
            yield msg
    if not lines and ctx.start.line == 1:  # the whole file, not a later range of it
        ctx.warn(source.name, "empty; nothing imported")


def record_start(line: bytes) -> bool:
    """Any line starts a record; only the first may carry a BOM (``iter_lines`` drops it)."""
    return not line.startswith(BOM)


DESCRIPTION = "convo / TypeAgent ConversationMessage records, one JSON object a line"
PATTERNS = ("*.jsonl", "*.ndjson")
EXAMPLE = (
    '{"textChunks": ["Hi"], "metadata": {"speaker": "Alice", "listeners": []}, '
    '"tags": [], "timestamp": "2024-03-06T10:00:00Z"}'
)
FIELDS = Fields(
    speaker="`metadata.speaker`, as written",
    listeners="`metadata.listeners` (TypeAgent's `recipients` too), as written",
    time="`timestamp`, as written",
    zone="as written (convo writes UTC, `Z`)",
    thread="`thread`, as written",
    id="`id`, as written (`<id>`); a record without one: " + CONTENT_HASH,
    scope="as written: convo made it by the rules of docs/ids.md",
    reply_to="`replyTo`, as written",
    subject="`subject`, as written",
    tags="`tags`, as written",
    extra="`extra`, as written; every line is validated as a record",
)

FORMATS = (
    Format(
        "jsonl",
        "records",
        DESCRIPTION,
        PATTERNS,
        sniff,
        read,
        EXAMPLE,
        record_start=record_start,
        fields=FIELDS,
    ),
)
