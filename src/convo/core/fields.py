"""Reading fields of raw record dicts: the one accessor set every layer uses.

Records come from JSONL that anyone may have written, so a field can be missing or of
the wrong type. Each accessor returns a value of its declared type whatever the record
holds: both spellings of the text (``textChunks`` and TypeAgent's ``text_chunks``),
``listeners`` or the older ``recipients``, and lists filtered to their strings.
Views, filters, stats, knowledge and exporters read records only through these, so the
same record reads the same everywhere.
"""

from __future__ import annotations

from convo.core.timestamps import EPOCH_STR, is_canonical, is_undated, normalize_timestamp

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

Record = dict[str, "Any"]

#: The roles a record may carry (``role``), in the order the JSON schema lists them.
ROLES = ("system", "user", "assistant", "tool")


def str_list(value: Any) -> list[str]:
    """The strings of a list; [] for anything that is not a list. Filtered by C calls
    (``str.__instancecheck__`` is ``isinstance(x, str)``), not a comprehension's frame:
    ``convo knowledge`` reads each record's listeners twice."""
    return list(filter(_IS_STR, value)) if isinstance(value, list) else []


_IS_STR = str.__instancecheck__


def string(record: Record, key: str) -> str | None:
    """A top-level string field, or None when absent, empty or not a string."""
    value = record.get(key)
    return value if isinstance(value, str) and value else None


def meta(record: Record) -> dict[str, Any]:
    value = record.get("metadata")
    return value if isinstance(value, dict) else {}


def extra(record: Record) -> dict[str, Any]:
    value = record.get("extra")
    return value if isinstance(value, dict) else {}


def is_record(value: Any) -> bool:
    """The one rule for what a line must be to be a record, for every reader (the scan,
    the index, ``stats``, ``validate``, ``compact``): a JSON object whose text chunks
    (``textChunks``, or TypeAgent's Python spelling ``text_chunks``) are a list. What
    else a record holds is read leniently by the accessors here; ``convo validate``
    checks the rest."""
    if type(value) is not dict:
        return False
    chunks = value.get("textChunks")
    if chunks is None:
        chunks = value.get("text_chunks")
    return type(chunks) is list


def chunks(record: Record) -> list[str]:
    value = record.get("textChunks")
    if value is None:
        value = record.get("text_chunks")
    return str_list(value)


def text(record: Record) -> str:
    return "\n".join(chunks(record))


def searchable_text(record: Record) -> str:
    """The subject (when there is one) and the text: what text filters search."""
    subject = string(record, "subject")
    body = text(record)
    return f"{subject}\n{body}" if subject else body


def speaker(record: Record) -> str | None:
    value = meta(record).get("speaker")
    return value if isinstance(value, str) else None


def agent_name(record: Record) -> str | None:
    """The name an agent format gives a message (``name``): the one it came with
    (``extra.name``), else its speaker unless that is a role (``assistant``)."""
    n = extra(record).get("name")
    if isinstance(n, str) and n:
        return n
    s = speaker(record)
    return s if s and s.lower() not in ROLES else None


NO_SPEAKER = "(none)"  # how every view, table and summary shows a missing speaker


def speaker_label(record: Record) -> str:
    """The speaker as people read it: the name, else ``NO_SPEAKER``."""
    return speaker(record) or NO_SPEAKER


def listeners(record: Record) -> list[str]:
    m = meta(record)
    value = m.get("listeners")
    if value is None:
        value = m.get("recipients")
    return str_list(value)


def people(record: Record) -> tuple[str | None, list[str]]:
    """``(speaker(record), listeners(record))``, the metadata looked up once."""
    m = record.get("metadata")
    if not isinstance(m, dict):
        return None, []
    value = m.get("speaker")
    found = m.get("listeners")
    if found is None:
        found = m.get("recipients")
    return value if isinstance(value, str) else None, str_list(found)


def tags(record: Record) -> list[str]:
    return str_list(record.get("tags"))


def timestamp(record: Record) -> str:
    """The record's time in canonical UTC "Z" form; the epoch when absent or unreadable."""
    value = record.get("timestamp")
    if is_canonical(value):
        return value  # type: ignore[return-value]
    try:
        return normalize_timestamp(value if isinstance(value, str) else None)
    except (ValueError, OverflowError):
        return EPOCH_STR


def undated_offset(record: Record) -> float | None:
    """The seconds a message of a transcript without a start date lies after that
    unknown start, else None (a known time, or no time at all).

    Such a transcript's times are the epoch + each cue's offset (TypeAgent's rule), so
    its first cue, at 0 s, has the very time that means "unknown" (the epoch sentinel).
    What tells them apart is the cue's exact start, ``extra.start``, which every
    transcript record carries: a sentinel time with a start of 0 (under a second) is the
    start of the transcript, shown as ``+00:00:00``, not as an undated message.
    """
    ts = timestamp(record)
    if not is_undated(ts):
        return None
    try:
        seconds = int(ts[11:13]) * 3600 + int(ts[14:16]) * 60 + int(ts[17:19])
    except ValueError:
        return None
    start = extra(record).get("start")
    if (
        isinstance(start, int | float)
        and not isinstance(start, bool)
        and 0 <= start < 86_400
        and int(start) == seconds
    ):
        return float(start)
    return float(seconds) if seconds else None


def record_id(record: Record) -> str | None:
    return string(record, "id")


def conversation(record: Record) -> str | None:
    """The conversation a record belongs to: its ``thread``; for a record without one (a
    transcript's cues, a WhatsApp or Zoom chat, an agent's message list: formats whose
    file is the conversation) the file it came from (``source_file`` of its
    ``source_id``); else its id. ``convo threads`` lists these, ``thread:ID`` selects
    them (the index keeps them in ``messages.thread``), ``convo show`` groups by them and
    the MCP server's and the web view's threads are them."""
    thread = string(record, "thread")
    if thread:
        return thread
    source = string(record, "source_id")
    if source:
        return source_file(source)
    return record_id(record)


def conversation_named(records: list[Record], ident: str) -> str:
    """The conversation ``Store.thread(ident)`` answered with ``records``: ``ident`` when
    it names it (a thread, a root message that its replies' ``thread`` names, a file of
    thread-less messages), else the conversation of the message whose id it is. The MCP
    server's ``get_thread`` and the web view's ``/api/thread`` say this id."""
    if any(string(r, "thread") == ident for r in records):
        return ident
    named = next((r for r in records if record_id(r) == ident), None)
    return (conversation(named) if named is not None else None) or ident


def source_file(source_id: str) -> str:
    """The file of a ``source_id`` (``FILE#locator``, ``FILE:LINE``, ``FILE:LINE#locator``
    or ``FILE``): the locator and the line number taken off. A ``#`` followed by a ``/``
    is part of a folder's name, not a locator."""
    head, sep, tail = source_id.rpartition("#")
    if sep and head and "/" not in tail:
        source_id = head
    head, sep, tail = source_id.rpartition(":")
    if sep and head and tail.isascii() and tail.isdigit():
        source_id = head
    return source_id


def role(record: Record) -> str:
    """The chat role: the record's own, else a role-named speaker, else ``user``."""
    value = record.get("role")
    if value in ROLES:
        return value
    s = (speaker(record) or "").lower()
    return s if s in ROLES else "user"


def plain_original(role: Any, text_chunks: list[str]) -> dict[str, str] | None:
    """The source message a record of role ``role`` and these chunks stands for when it
    holds all of it: ``{"role": ROLE, "content": TEXT}`` (one chunk, a known role); None
    otherwise. The agent importers leave such a message out of ``extra["original"]``
    instead of storing its text twice (``convo.importers.agents.finish.convert``)."""
    if role in ROLES and len(text_chunks) == 1:
        return {"role": role, "content": text_chunks[0]}
    return None


def original(record: Record, fmt: str) -> Any:
    """The source's own message of a record imported from format ``fmt``, for lossless
    export: ``extra["original"]``, else the plain message the record stands for
    (``plain_original``); None for a record of another format."""
    if record.get("format") != fmt:
        return None
    ex = extra(record)
    if "original" in ex:
        return ex["original"]
    return plain_original(record.get("role"), chunks(record))
