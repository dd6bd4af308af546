"""TypeAgent records as ``convo export --to typeagent`` writes them: one JSON array of
``ConversationMessage.serialize()`` objects (``textChunks``, ``metadata``, ``tags``,
``timestamp``, ``source_id``), so ``ingest --from typeagent`` reads what ``export --to
typeagent`` wrote. ``--jsonl`` exports (one object a line) are read as the ``jsonl``
format reads them; detection finds those as ``jsonl``. Records without convo's keys get
them as the JSONL importer's do (a content id, the ``typeagent`` format left to the
pipeline).

Ids and their scope (docs/ids.md): a record's own ``id`` when convo's keys are there (as
written: it was made unique where it was first imported); else the content hash, its
scope the file (TypeAgent's records carry no id of their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import orjson

from convo.core.errors import InputError, RecordError
from convo.core.io import Source
from convo.core.jsonstream import iter_items
from convo.core.record import ConversationMessage, parse_record
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import json_head
from convo.importers.records import jsonl
from convo.importers.registry import Format

_FIRST_RECORD = re.compile(r'^\[\s*\{[^\[\]]*?"(textChunks|text_chunks)"\s*:', re.S)


def sniff(source: Source) -> int:
    return 85 if _FIRST_RECORD.match(json_head(source)) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if not json_head(source).startswith("["):
        yield from jsonl.read(source, ctx)  # an export with --jsonl
        return
    with source.open() as stream:
        try:
            for item, number in iter_items(stream, (), where=source.name):
                where = ctx.loc(number)
                try:
                    if not isinstance(item, dict):
                        raise RecordError("not a record object", where=where)
                    yield parse_record(item, where)
                except RecordError as e:
                    ctx.reject_error(e, orjson.dumps(item).decode())
        except InputError as e:
            ctx.reject_error(RecordError(e.what, where=e.where, hint=e.hint))


DESCRIPTION = "TypeAgent ConversationMessage records in one JSON array (`export --to typeagent`)"
PATTERNS = ("*.json",)
EXAMPLE = (
    '[{"textChunks": ["Hi"], "metadata": {"speaker": "Alice", "listeners": []}, '
    '"tags": [], "timestamp": "2024-03-06T10:00:00Z", "source_id": "a.vtt#cue-1"}]'
)
FIELDS = Fields(
    speaker="`metadata.speaker`",
    listeners="`metadata.listeners` (or `recipients`)",
    time="`timestamp`",
    zone="as written (TypeAgent writes UTC)",
    thread="`thread` when convo's keys are there, else none",
    id="`id` when convo's keys are there (`<id>`), else " + CONTENT_HASH,
    scope="as written; a content hash: the file",
    reply_to="`replyTo` when there, else none",
    subject="`subject` when there, else none",
    tags="`tags`",
    extra="`extra` when there",
)

FORMATS = (
    Format("typeagent", "records", DESCRIPTION, PATTERNS, sniff, read, EXAMPLE, fields=FIELDS),
)
