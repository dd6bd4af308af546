"""SQLite files a format reads (slackdump's ``slackdump.sqlite``, AutoGen's and LLM's
``logs.db``, Cursor's ``state.vscdb``): the one way they are opened and their failures
caught.

- Opened read-only and immutable (``mode=ro&immutable=1``): nothing is written beside
  the file (no journal, no WAL), and a database on a read-only disk opens.
- ``ERRORS`` is what a damaged file raises: ``sqlite3.Error``, and ``UnicodeDecodeError``,
  which Python raises instead when SQLite's own message about a damaged schema holds
  bytes that are not UTF-8 (found by overwriting bytes of each reader's fixtures at
  random: tests/importers/test_sqlite_damage.py). Every reader turns one into a single
  ``InputError`` naming the file (``read_whole``); a sniff, into a no (``holds``).
- Text a damaged page holds that is not UTF-8 is replaced, not raised
  (``text_factory``).

``sqlite3`` (4 ms to import) is imported when a database is opened or ``ERRORS`` is
first read (an ``except`` clause reads it only when something was raised), not when
the formats are registered: sniffing a JSON chat must not import it
(tests/cli/test_startup.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import orjson

from convo.core.errors import InputError
from convo.core.io import Source

if TYPE_CHECKING:
    import sqlite3

    ERRORS: tuple[type[BaseException], ...]

MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
T = TypeVar("T")


def __getattr__(name: str) -> Any:
    if name == "ERRORS":
        return _errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _errors() -> tuple[type[BaseException], ...]:
    import sqlite3

    return (sqlite3.Error, UnicodeDecodeError)


def is_sqlite(source: Source) -> bool:
    return source.head.startswith(MAGIC)


def connect(source: Source, *, immutable: bool = True) -> sqlite3.Connection:
    """``source``'s database, read-only; ``immutable=False`` reads a WAL file beside it
    too (a live application's latest writes) and needs a writable folder for its lock."""
    import sqlite3

    uri = f"file:{quote(str(source.real_path()))}?mode=ro"
    con = sqlite3.connect(uri + "&immutable=1" if immutable else uri, uri=True)
    con.text_factory = _text
    return con


def holds(source: Source, check: Callable[[sqlite3.Connection], bool]) -> bool:
    """Whether ``source`` is a SQLite database ``check`` accepts (its tables, their
    columns): one that is not SQLite, or cannot be opened or read, is not (a sniff)."""
    if not is_sqlite(source):
        return False
    errors = _errors()
    try:
        con = connect(source)
    except errors:
        return False
    try:
        return check(con)
    except errors:
        return False
    finally:
        con.close()


def read_whole(
    source: Source, read: Callable[[sqlite3.Connection], Iterator[T]], what: str
) -> Iterator[T]:
    """``read`` of ``source``'s database, closed after: one that cannot be opened is one
    ``InputError`` ``cannot open WHAT (why)``, one that fails as it is read ``not WHAT
    (why)``, each naming the file (``what``: ``Goose's sessions.db``)."""
    errors = _errors()
    try:
        con = connect(source)
    except errors as e:
        raise InputError(f"cannot open {what} ({e})", where=source.name) from None
    try:
        yield from read(con)
    except errors as e:
        raise InputError(f"not {what} ({e})", where=source.name) from None
    finally:
        con.close()


def tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table`` (none when there is no such table)."""
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def lenient_json(value: Any) -> Any:
    """A JSON column's value decoded; text that is not JSON, and other values, as they are."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def row_value(row: Any) -> list[Any]:
    """A row as a rejection keeps it (JSON): its bytes named by their length."""
    return [f"<{len(v)} bytes>" if isinstance(v, bytes) else v for v in row]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")
