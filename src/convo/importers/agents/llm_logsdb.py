"""Simon Willison's LLM CLI database (``llm-logsdb``): the ``logs.db`` that ``llm``
writes every prompt and response to (``llm logs path`` names it).

Shape: SQLite, its tables made by simonw/llm ``llm/migrations.py`` (recorded in
``_llm_migrations``): the pre-0.5 ``log``/``logs`` table, the ``responses`` tables of
0.5-0.31 and the message store (``turns``, ``messages``, ``parts``) of 0.32 on; which
rows each gives and how is in ``convo.importers.agents.llm_dbrows`` and
``convo.importers.agents.llm_turns``. Every call is made into the object
``llm logs --json`` writes for it and read by ``llm-logs``' own reader
(``convo.importers.agents.llm_logs.call_records``), so the database and that JSON give
the same records: the same ids (``llm:<id>``, ``:response``, ``:tools``), speakers,
texts, times, threads and subjects, and records that say ``format: llm-logs``. What
differs: ``source_id`` (``logs.db#turns:<id>``), and fragments' content, which the
database holds whole (``llm logs --json`` cuts it without ``--expand``).

Decisions:
- The database is opened read-only and immutable (``mode=ro&immutable=1``: nothing is
  written, not even a journal; a database llm is writing to is read as it stands), rows
  streamed in id order (ULIDs: time order; the pre-0.5 table's integer ids first).
- A file that is not SQLite, or whose tables SQLite cannot read, is one located error;
  a database without LLM's tables is "not an LLM logs database".
- Detection: the SQLite magic, then LLM's ``_llm_migrations`` table and ``responses``,
  ``turns`` or the pre-0.5 ``logs`` in its schema (read from the database: see ``sniff``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.agents import llm_logs
from convo.importers.agents.llm_dbrows import calls
from convo.importers.build import OwnIds
from convo.importers.context import ImportContext
from convo.importers.registry import Format

NAME = "llm-logsdb"
DB_MAGIC = b"SQLite format 3\x00"  # sqlitedb.MAGIC, without importing sqlite3 to sniff
_HINT = "name LLM's logs.db (`llm logs path`), or read `llm logs --json -n 0` instead"
_TABLES = {"responses", "turns", "logs", "log"}


def sniff(source: Source) -> int:
    """SQLite whose schema has LLM's migrations table (``_llm_migrations``) and its
    calls' tables. The schema can sit anywhere in the file (sqlite-utils' ``transform``
    makes each table again), so the database is opened, as slackdump's is."""
    if not source.head.startswith(DB_MAGIC):
        return 0
    from convo.importers import sqlitedb

    try:
        con = _connect(source)
        try:
            tables = sqlitedb.tables(con)
        finally:
            con.close()
    except InputError:
        return 0
    except sqlitedb.ERRORS:
        return 0
    return 95 if "_llm_migrations" in tables and tables & _TABLES else 0


def _connect(source: Source) -> Any:
    from convo.importers import sqlitedb

    if not source.head.startswith(DB_MAGIC):
        raise InputError("not an SQLite database", where=source.name, hint=_HINT)
    try:
        return sqlitedb.connect(source)
    except sqlitedb.ERRORS as e:
        raise InputError(f"cannot open the database ({e})", where=source.name) from None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    from convo.importers import sqlitedb

    con = _connect(source)
    try:
        yield from _read(con, source, ctx)
    except sqlitedb.ERRORS as e:
        raise InputError(
            f"not a readable LLM logs database ({e})", where=source.name, hint=_HINT
        ) from None
    finally:
        con.close()


def _read(con: Any, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    from convo.importers import sqlitedb

    tables = sqlitedb.tables(con)
    if not tables & _TABLES:
        raise InputError("not an LLM logs database (no responses or turns)", where=source.name,
                         hint=_HINT)  # fmt: skip
    named: set[str] = set()
    own = OwnIds()
    for item, where in calls(con, tables):
        for rec in llm_logs.call_records(item, ctx.loc(where), named, source.name):
            rec.id = own.checked(rec.id, rec.text_chunks)
            yield rec
    own.close()
    if own.clashes:
        ctx.warn(source.name, own.warning("record"))


DESCRIPTION = "LLM CLI database (simonw/llm: logs.db, every schema version)"
EXAMPLE = "logs.db (SQLite: _llm_migrations, responses or turns/messages/parts)"
FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("logs.db", "*.db"), sniff, read, EXAMPLE,
           fields=llm_logs.FIELDS),
)  # fmt: skip
