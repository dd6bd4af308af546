"""The Parquet export's fast read of a JSONL block: Arrow's JSON reader, no Python dicts.

``json_batch(data, schema)`` reads a block of whole lines with ``pyarrow.json`` against an
explicit schema of exactly the keys ``common.plainly_valid`` allows (but ``extra``) and
their types, and returns the export's ``RecordBatch`` (``parquet.struct_batch``, the
plain path's own column code), or None when the block needs the plain path
(``parallel.range_matches``, ``common.validated``, ``parquet.arrow_batch``). It says
yes only to a block every line of which the plain path reads as a record that
``plainly_valid`` accepts:

- every line starts with ``{`` (no blank lines, no BOM, no leading space) and holds one
  JSON object (as many rows as lines: two objects on a line make a bad line there);
- the reader refuses (and the block goes the plain way) a key outside the schema
  (``extra``, ``text_chunks``, ``recipients``, a metadata key of another kind), a key
  twice in one object, a value of another JSON type, invalid UTF-8, a lone surrogate,
  anything not JSON;
- where ``plainly_valid`` tells a missing key from a null one (``tags``, ``metadata``,
  ``listeners``: missing is fine, null is not) Arrow cannot, so any null there is a
  no; likewise a null or empty ``textChunks``, a null inside a list, and a timestamp
  that is not canonical (ASCII digits, a real date and time in years 1-9999: the
  pattern, then Arrow's ISO 8601 cast, ``_canonical``).

Gain: round 1 of the parallel export in 2.25× less CPU (``parquet_parallel.spill_range``
says how it was measured). A property test
(``tests/scale/test_arrow_json.py``) holds the export through this path byte for byte
to the plain one over generated blocks (hostile text, unicode, missing and null
fields, other layouts, bad lines).
"""

from __future__ import annotations

import functools
import io
import re
from typing import Any

from convo.output.exporters.parquet import record_type, require_pyarrow, struct_batch

STAMP = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
# a line break not followed by "{" (blank line, leading space, BOM, anything): not a block
_LINE_NOT_AN_OBJECT = re.compile(rb"\n[^{]")


@functools.cache
def _options() -> tuple[Any, Any, Any]:
    """The reader's parse and read options, and the struct type of what it reads."""
    pa = require_pyarrow()
    import pyarrow.json

    text, texts = pa.string(), pa.list_(pa.string())
    schema = pa.schema([
        ("textChunks", texts), ("tags", texts), ("timestamp", text),
        ("metadata", pa.struct([("speaker", text), ("listeners", texts)])),
        *((key, text) for key in ("source_id", "id", "format", "thread", "replyTo", "role",
                                  "subject")),
    ])  # fmt: skip
    parse = pyarrow.json.ParseOptions(
        explicit_schema=schema, unexpected_field_behavior="error", newlines_in_values=False
    )
    read = pyarrow.json.ReadOptions(use_threads=False, block_size=1 << 30)
    return parse, read, record_type(pa)


def json_batch(data: bytes, schema: Any) -> Any:
    """The export batch of ``data`` (whole lines), or None: see the module docstring.

    Its own checks are cheap next to the read: one regex search for a line break not
    followed by ``{`` (it was a count of ``\\n{``: 18 against 46 ms of CPU over the
    100k-record control file) and ``_canonical`` (13 against 162 ms). Together: 346
    against 457 ms for the whole call over that file's 1 MB blocks, 1.34× less CPU
    (7 alternating rounds, ratios 1.23-1.56 at load 7-9; the batches equal)."""
    if not data.startswith(b"{") or _LINE_NOT_AN_OBJECT.search(data):
        return None  # a line that does not start with "{"
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    pa = require_pyarrow()
    import pyarrow.json

    parse, read, struct = _options()
    try:
        table = pyarrow.json.read_json(io.BytesIO(data), read_options=read, parse_options=parse)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    if table.num_rows != lines:
        return None  # a line with two objects
    table = table.combine_chunks()
    if not _plain(pa, table):
        return None
    stamps = table.column("timestamp").chunk(0)
    meta = table.column("metadata").chunk(0)
    speaker, listeners = meta.field("speaker"), meta.field("listeners")
    nulls = pa.nulls(table.num_rows, pa.string())
    no_lists = pa.nulls(table.num_rows, pa.list_(pa.string()))
    columns = {name: table.column(name).chunk(0) for name in table.column_names}
    columns["metadata"] = pa.StructArray.from_arrays(
        [speaker, listeners, no_lists], fields=list(struct.field("metadata").type)
    )
    got = pa.StructArray.from_arrays(
        [columns.get(f.name, no_lists if pa.types.is_list(f.type) else nulls) for f in struct],
        fields=list(struct),
    )
    return struct_batch(got, stamps, nulls, schema)


def _plain(pa: Any, table: Any) -> bool:
    """No null where ``plainly_valid`` needs a value, every ``textChunks`` holds one,
    every timestamp is canonical."""
    chunks, tags, stamps = (table.column(n).chunk(0) for n in ("textChunks", "tags", "timestamp"))
    meta = table.column("metadata").chunk(0)
    listeners = meta.field("listeners")
    if chunks.null_count or tags.null_count or meta.null_count or listeners.null_count:
        return False
    if chunks.values.null_count or tags.values.null_count or listeners.values.null_count:
        return False
    if stamps.null_count or pa.compute.min(pa.compute.list_value_length(chunks)).as_py() < 1:
        return False
    return _canonical(pa, stamps)


def _canonical(pa: Any, stamps: Any) -> bool:
    """Every timestamp is canonical as ``common.plainly_valid`` has it (its range check
    is ``datetime.fromisoformat``: years 1-9999, real dates, hours below 24, minutes and
    seconds below 60). The shape is the pattern's; the ranges are Arrow's own ISO 8601
    cast, which refuses the whole array for any impossible date or time (``2023-02-29``,
    ``24:00:00``, ``23:59:60``) and takes year 0, which is refused here.

    Against the round trip it replaced (``strptime``, then ``strftime`` compared with the
    input: Arrow's ``strptime`` rolls 02-30 over into March), this check costs a twelfth
    of the CPU; the round trip was a third of ``json_batch``'s (figures in its
    docstring). ``tests/scale/test_arrow_json.py`` holds it to ``common.plainly_valid``'s
    check on generated timestamps, in range and out."""
    pc = pa.compute
    if not pc.all(pc.match_substring_regex(stamps, STAMP)).as_py():
        return False
    if pc.any(pc.starts_with(stamps, "0000")).as_py():
        return False
    try:
        stamps.cast(pa.timestamp("s", tz="UTC"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True
