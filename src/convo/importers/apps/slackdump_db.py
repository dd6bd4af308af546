"""slackdump's SQLite archive (``slackdump.sqlite``), read for ``convo.importers.apps.slackdump``.

Schema (rusq/slackdump ``internal/chunk/backend/dbase/repository/migrations``): ``CHUNK
(ID, TYPE_ID, CHANNEL_ID...)`` one row per API answer; ``MESSAGE (ID = ts as a number,
CHUNK_ID, CHANNEL_ID, TS, IDX, DATA)``; ``CHANNEL (ID, CHUNK_ID, DATA)``; ``S_USER (ID,
CHUNK_ID, DATA)``; ``CHANNEL_USER (CHANNEL_ID, USER_ID, CHUNK_ID)``; ``WORKSPACE (USER_ID,
DATA...)``. A message fetched again (a resumed archive, a thread's parent, a broadcast
reply) has one row per chunk that holds it: the latest chunk's copy is read, as
slackdump's own ``V_LATEST_*`` views do. The file is opened read-only and immutable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers import sqlitedb

_TABLES = {"CHUNK", "MESSAGE", "CHANNEL", "S_USER"}
_BATCH = 1000  # messages handed to the reader at once (memory bounded by it)


def is_archive(source: Source) -> bool:
    try:
        con = sqlitedb.connect(source)
        try:
            names = {r[0].upper() for r in con.execute("SELECT name FROM sqlite_master")}
        finally:
            con.close()
    except sqlitedb.ERRORS:
        return False
    return names >= _TABLES


def _json(data: Any) -> Any:
    try:
        return orjson.loads(data) if isinstance(data, bytes | str) else None
    except orjson.JSONDecodeError:
        return None


class Archive:
    """The archive's rows (``with Archive(source) as db``); an unreadable database is one
    InputError."""

    def __init__(self, source: Source):
        self.source = source
        try:
            self.con = sqlitedb.connect(source)
        except sqlitedb.ERRORS as e:
            raise InputError(f"cannot open the SQLite archive ({e})", where=source.name) from None

    def __enter__(self) -> Archive:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, *_: object
    ) -> None:
        self.con.close()
        if isinstance(e, sqlitedb.ERRORS):
            raise InputError(
                f"not a slackdump archive ({e})",
                where=self.source.name,
                hint="slackdump.sqlite has CHUNK, MESSAGE, CHANNEL and S_USER tables",
            ) from None

    def users(self) -> list[Any]:
        return [_json(r[0]) for r in self.con.execute("SELECT DATA FROM S_USER ORDER BY CHUNK_ID")]

    def channels(self) -> list[dict[str, Any]]:
        rows = self.con.execute("SELECT DATA FROM CHANNEL ORDER BY CHUNK_ID")
        return [c for c in (_json(r[0]) for r in rows) if isinstance(c, dict)]

    def members(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        try:
            rows = self.con.execute("SELECT DISTINCT CHANNEL_ID, USER_ID FROM CHANNEL_USER")
        except sqlite3.OperationalError:
            return out
        for cid, uid in rows:
            out.setdefault(str(cid), []).append(str(uid))
        return out

    def owner(self) -> str:
        try:
            row = self.con.execute(
                "SELECT USER_ID FROM WORKSPACE ORDER BY ID DESC LIMIT 1"
            ).fetchone()
        except sqlite3.OperationalError:
            return ""
        return str(row[0]) if row and row[0] else ""

    def messages(self) -> Iterator[tuple[str, list[tuple[str, Any]]]]:
        """Each channel's messages in time order, in batches: (channel id, [(label,
        message)]), the label ``chunk-C.N`` (the Nth message of chunk C)."""
        rows = self.con.execute(
            "SELECT CHANNEL_ID, CHUNK_ID, IDX, DATA FROM ("
            " SELECT M.CHANNEL_ID, M.ID, M.CHUNK_ID, M.IDX, M.DATA, ROW_NUMBER() OVER ("
            "  PARTITION BY M.CHANNEL_ID, M.ID ORDER BY M.CHUNK_ID DESC) AS NTH"
            " FROM MESSAGE M JOIN CHUNK C ON C.ID = M.CHUNK_ID WHERE C.TYPE_ID IN (0, 1))"
            " WHERE NTH = 1 ORDER BY CHANNEL_ID, ID"
        )
        batch: list[tuple[str, Any]] = []
        current = None
        for cid, chunk, idx, data in rows:
            if batch and (cid != current or len(batch) >= _BATCH):
                yield str(current), batch
                batch = []
            current = cid
            batch.append((f"chunk-{chunk}.{int(idx) + 1}", _json(data)))
        if batch:
            yield str(current), batch
