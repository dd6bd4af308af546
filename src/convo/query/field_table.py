"""The query's fields, each declared once: what it matches, how the scan, the prefilter and
the index decide it, and how help and docs describe it.

One ``Field`` per leaf of the filter tree (``convo.query.tree.Term``), as datasette's
filters are one object each: the language's names for it (``from:``, ``speaker:``), the
exact check on a parsed record, the ``query.filters.Filters`` list the fast flat scan
fills, the byte-prefilter needle kind, and the SQL over the index
(``convo.query.plan``), with the help line ``convo query --help`` and docs/query.md show.
Adding a field touches this table, its test and the docs line (docs/architecture.md).

Index SQL (``Field.sql``) returns a condition on ``messages m`` and its parameters, and
says whether it is *exact* (selects precisely what the check accepts) or a *superset*
(the planner then checks each candidate). A field without SQL is decided by its check
on the lines the rest of the query leaves (or by the scan).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from convo.core import fields
from convo.core.names import NameQuery
from convo.core.slotted import Frozen
from convo.query.filters import Filters, checks, text_check

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

Check = Callable[[dict[str, "Any"]], bool]


# A condition on ``messages m`` is SQL text and its parameters. TRUE and FALSE are folded
# away when conditions are combined, so the planner (``convo.query.plan``) and the cost
# shape of an AND (``convo.query.drive``) can tell a leaf that narrows nothing.
TRUE, FALSE = "1", "0"
Cond = tuple[str, tuple["Any", ...]]


def conjoin(parts: list[Cond]) -> Cond:
    """The AND of ``parts``, TRUE and FALSE folded away."""
    return _join(parts, " AND ", FALSE, TRUE)


def disjoin(parts: list[Cond]) -> Cond:
    """The OR of ``parts``, TRUE and FALSE folded away."""
    return _join(parts, " OR ", TRUE, FALSE)


def _join(parts: list[Cond], op: str, absorbing: str, neutral: str) -> Cond:
    if any(c == absorbing for c, _ in parts):
        return absorbing, ()
    kept = [(c, p) for c, p in parts if c != neutral]
    if not kept:
        return neutral, ()
    if len(kept) == 1:
        return kept[0]
    conds = [c for c, _ in kept]
    while len(conds) > _FAN:
        conds = ["(" + op.join(conds[i : i + _FAN]) + ")" for i in range(0, len(conds), _FAN)]
    return "(" + op.join(conds) + ")", tuple(x for _, p in kept for x in p)


# SQLite reads ``a AND b AND c`` as a chain as deep as its terms, and refuses one over
# 1,000 deep ("Expression tree is too large"): 1,000 -tag: terms were an internal error.
# Terms past this many are grouped in parentheses of this many, a tree of log depth.
_FAN = 32


def negate(part: Cond) -> Cond:
    """NOT ``part`` (TRUE and FALSE swap)."""
    c, p = part
    if c in (TRUE, FALSE):
        return (FALSE if c == TRUE else TRUE), ()
    return f"NOT {c}", p


class Sql(Frozen):
    """A condition on ``messages m``; ``exact``: it selects exactly what the check does
    (else a superset of it). ``rows``: a SELECT of the ids it selects (duplicates
    allowed; the same parameters), cheaper to count than the condition (the planner's
    estimates, ``convo.query.drive``); ``distinct``: ``rows`` lists each message once,
    and only messages of the index, so that its length is the leaf's count
    (``plan.count``); ``fts``: the ``index.substring.FullText`` a text leaf's
    condition is made of (counted by it); ``total``: a SELECT of the leaf's count, one
    number (the same parameters), read from the index's ``value_counts`` rather than
    counted (``index.schema.COUNTED``). (``Frozen`` classes here, not NamedTuples:
    ``typing`` stays off an indexed read's start-up, docs/startup.md.)"""

    __slots__ = ("cond", "distinct", "exact", "fts", "params", "rows", "total")
    cond: str
    params: tuple[Any, ...]
    exact: bool
    rows: str | None
    fts: Any
    distinct: bool
    total: str | None

    def __init__(
        self, cond: str, params: tuple[Any, ...] = (), exact: bool = True,
        rows: str | None = None, fts: Any = None, distinct: bool = False,
        total: str | None = None,
    ) -> None:  # fmt: skip
        self._set(
            cond=cond, params=params, exact=exact, rows=rows, fts=fts, distinct=distinct,
            total=total,
        )  # fmt: skip


NEVER = Sql(FALSE)


class Field(Frozen):
    __slots__ = ("check", "flat", "help", "name", "needle", "sql", "superset", "usage", "words")
    name: str  # the tree's leaf name
    words: tuple[str, ...]  # its names in the query language (() when it has none)
    usage: str  # how it is written, for help: "from:NAME"
    help: str  # what it matches, one line
    check: Callable[[str], Check]  # the exact check of one value
    flat: str | None  # the Filters list the flat scan fills with it
    needle: str | None  # the prefilter's needle kind for it (see tree._hints)
    sql: Callable[[sqlite3.Connection, str], Sql] | None  # None: not in the index
    superset: bool  # its SQL selects a superset, each candidate then checked

    def __init__(
        self, name: str, words: tuple[str, ...], usage: str, help: str,
        check: Callable[[str], Check], flat: str | None = None, needle: str | None = None,
        sql: Callable[[sqlite3.Connection, str], Sql] | None = None, superset: bool = False,
    ) -> None:  # fmt: skip
        self._set(
            name=name, words=words, usage=usage, help=help, check=check, flat=flat,
            needle=needle, sql=sql, superset=superset,
        )  # fmt: skip


def _flat_check(kind: str) -> Callable[[str], Check]:
    def make(value: str) -> Check:
        given: dict[str, Any] = {kind: [value]}
        (one,) = checks(Filters(**given))
        return one

    return make


def _json(values: Any) -> str:
    """A JSON array for ``json_each(?)`` (the standard library's encoder: importing orjson
    would add uuid and platform to an indexed read's start-up)."""
    import json

    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def name_ids(conn: sqlite3.Connection, query: str) -> list[int]:
    """Ids of the distinct names ``query`` matches by the name rule (``core.names``)."""
    rule = NameQuery(query)
    if rule.tokens:
        # the names holding every token: one grouped query, not an INTERSECT a term a
        # token (SQLite allows 500 terms, and a name of more words was an internal error)
        tokens = sorted(set(rule.tokens))
        rows = conn.execute(
            "SELECT name_id, name FROM names WHERE name_id IN (SELECT name_id FROM"
            " name_tokens WHERE token IN (SELECT value FROM json_each(?))"
            " GROUP BY name_id HAVING count(DISTINCT token) = ?)",
            (_json(tokens), len(tokens)),
        )
    else:
        rows = conn.execute("SELECT name_id, name FROM names")
    return [nid for nid, name in rows if rule.matches(name)]


def _speaker_sql(conn: sqlite3.Connection, value: str) -> Sql:
    ids = name_ids(conn, value)
    if not ids:
        return NEVER
    return Sql("m.speaker_id IN (SELECT value FROM json_each(?))", (_json(ids),))


def _listener_sql(conn: sqlite3.Connection, value: str) -> Sql:
    ids = name_ids(conn, value)
    if not ids:
        return NEVER
    rows = (
        "SELECT message_id FROM message_listeners WHERE name_id IN (SELECT value FROM json_each(?))"
    )
    return Sql(f"m.message_id IN ({rows})", (_json(ids),), rows=rows)


def _tag_sql(conn: sqlite3.Connection, value: str) -> Sql:
    # (message_id, tag_folded) is the table's key, and a message's tags go with it
    # (``index.writer.delete_message``): its rows are the tag's messages, each once.
    rows = "SELECT message_id FROM message_tags WHERE tag_folded = ?"
    return Sql(f"m.message_id IN ({rows})", (value.casefold(),), rows=rows, distinct=True)


def _thread_sql(conn: sqlite3.Connection, value: str) -> Sql:
    if not value:
        return NEVER  # the scan never matches an empty thread
    return Sql("(m.thread = ? OR m.id = ?)", (value, value))


def _id_sql(conn: sqlite3.Connection, value: str) -> Sql:
    return Sql("m.id = ?", (value,)) if value else NEVER


def _format_sql(conn: sqlite3.Connection, value: str) -> Sql:
    # Formats are few: the stored spellings equal to the value by casefold, looked up on
    # the index of distinct formats, keep the comparison Python's (SQL's folds ASCII only).
    folded = value.casefold()
    names = tuple(f for f in _formats(conn) if f.casefold() == folded)
    if not names:
        return NEVER
    return Sql(f"m.format IN ({_marks(names)})", names, total=_total("format", names))


def _marks(values: tuple[str, ...]) -> str:
    """``?`` per value: a format's few spellings as parameters (``json_each`` of a JSON
    array would import the json module onto an indexed read's path)."""
    return ", ".join("?" * len(values))


def _total(field: str, values: tuple[str, ...]) -> str:
    """A SELECT of how many messages have one of ``values`` in ``field`` (its
    parameters: ``values``), from ``value_counts`` (``index.schema.COUNTED``)."""
    return (
        "SELECT ifnull(sum(n), 0) FROM value_counts"
        f" WHERE field = '{field}' AND value IN ({_marks(values)})"
    )


def _formats(conn: sqlite3.Connection) -> list[str]:
    """The distinct formats of the store, one seek on ``messages_by_format`` each (``SELECT
    DISTINCT`` walks every entry of that index: 40-50 ms of a 1M-message store's
    ``format:`` query, the seeks well under 1 ms for the store's few formats)."""
    names: list[str] = []
    row = conn.execute("SELECT min(format) FROM messages WHERE format >= ''").fetchone()
    while row is not None and row[0] is not None:
        names.append(row[0])
        row = conn.execute("SELECT min(format) FROM messages WHERE format > ?", row).fetchone()
    return names


def _role_sql(conn: sqlite3.Connection, value: str) -> Sql:
    # The index stores the canonical role (``fields.role``): lower-case ASCII.
    role = (value.casefold(),)
    return Sql("m.role = ?", role, total=_total("role", role))


# A subject holding a character outside ASCII, whose case folding SQL's LIKE does not know.
_NON_ASCII = "m.subject GLOB '*[^' || char(1) || '-' || char(127) || ']*'"


def _like(word: str) -> str:
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "%" + escaped + "%"  # (was re.sub(r"([\\%_])", r"\\\1", word): no `re`)


def _subject_sql(conn: sqlite3.Connection, value: str) -> Sql:
    """Every word in the subject: LIKE (ASCII case folding) for ASCII subjects, and every
    non-ASCII subject as a candidate: a superset the check then decides."""
    words = value.casefold().split()
    if not words:
        return Sql(TRUE, exact=False)
    likes = " AND ".join("m.subject LIKE ? ESCAPE '\\'" for _ in words)
    return Sql(f"(({likes}) OR {_NON_ASCII})", tuple(_like(w) for w in words), exact=False)


def _text_sql(column: str | None) -> Callable[[sqlite3.Connection, str], Sql]:
    """Every word of the value, a case-folded substring of the text (``column`` of the
    full-text table, else the subject or the text): the full-text index's candidates
    (``convo.index.substring``), each then checked."""

    def sql(conn: sqlite3.Connection, value: str) -> Sql:
        from convo.index.substring import lookup

        found = lookup(conn, value.casefold().split(), column)
        if found is None:
            return Sql(TRUE, exact=False)
        cond = found.cond()
        if cond == FALSE:
            return NEVER
        return Sql(cond, found.params(), exact=False, fts=found)

    return sql


def _words_in(get: Callable[[dict], list[str]]) -> Callable[[str], Check]:
    def make(value: str) -> Check:
        words = [w.casefold() for w in value.split()]
        return lambda r: all(any(w in p.casefold() for p in get(r)) for w in words)

    return make


def _subject(r: dict) -> list[str]:
    s = fields.string(r, "subject")
    return [s] if s else []


def _phrase(value: str) -> Check:
    words = value.casefold().split()
    if len(words) < 2:
        return text_check([words])
    import re  # (not at import: docs/startup.md, "Third pass")

    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    return lambda r: pattern.search(fields.searchable_text(r).casefold()) is not None


def _equal_folded(get: Callable[[dict], str | None]) -> Callable[[str], Check]:
    def make(value: str) -> Check:
        folded = value.casefold()
        return lambda r: (get(r) or "").casefold() == folded

    return make


def _source(value: str) -> Check:
    folded = value.casefold()
    return lambda r: folded in (fields.string(r, "source_id") or "").casefold()


def _id(value: str) -> Check:
    return lambda r: fields.record_id(r) == value


def _no_check(value: str) -> Check:
    raise ValueError("date: is a range, decided by tree.Range")


F = Field
FIELDS: dict[str, Field] = {f.name: f for f in (
    F("from", ("from", "speaker"), "from:NAME, speaker:NAME", "the speaker's name, address or whole words of it (-s)", _flat_check("speakers"), "speakers", "speakers", _speaker_sql),
    F("to", ("to", "listener"), "to:NAME, listener:NAME", "a listener, by the same name rule (-r)", _flat_check("listeners"), "listeners", "listeners", _listener_sql),
    F("tag", ("tag",), "tag:TAG", "a tag, in any case (-t)", _flat_check("tags"), "tags", "tags", _tag_sql),
    F("date", ("date", "after", "before"), "date:A..B", "A <= time < B (after:A, before:B); alone: 2024-03", _no_check),
    F("subject", ("subject",), "subject:WORDS", "every word in the subject, any case, part of a word", _words_in(_subject), None, "texts", _subject_sql, True),
    F("body", ("text",), "text:WORDS", "every word in the text only", _words_in(fields.chunks), None, "texts", _text_sql("text"), True),
    F("thread", ("thread",), "thread:ID", "a thread, or a file without threads (--thread)", _flat_check("threads"), "threads", None, _thread_sql),
    F("id", ("id",), "id:ID", "one message", _id, None, None, _id_sql),
    F("format", ("format",), "format:NAME", "the input format, as `convo formats` names it", _equal_folded(lambda r: fields.string(r, "format")), None, "texts", _format_sql),
    F("role", ("role",), "role:ROLE", "the chat role: user, assistant, system or tool", _equal_folded(fields.role), None, None, _role_sql),
    F("source", ("source",), "source:PART", "part of the source id (a file name)", _source),
    F("words", (), "word", "in the text or subject, any case, part of a word (-q)", _flat_check("texts"), "texts", "texts", _text_sql(None), True),
    F("phrase", (), '"a phrase"', "its words in this order, in the text or subject", _phrase, None, "texts", _text_sql(None), True),
    F("regex", (), "", "a Python regular expression in the text or subject (-e)", _flat_check("regexes"), "regexes"),
)}  # fmt: skip

# The language's field names: ``from:`` and ``speaker:`` both name the leaf "from".
LANGUAGE = {word: f.name for f in FIELDS.values() for word in f.words}
# The flat scan's list for each leaf that has one (tree.to_filters).
FLAT = {f.name: f.flat for f in FIELDS.values() if f.flat}


def help_lines() -> list[str]:
    """The fields as ``convo query --help`` lists them: usage, then what it matches."""
    shown = [f for f in FIELDS.values() if f.usage]
    width = max(len(f.usage) for f in shown) + 2
    return [f"{f.usage.ljust(width)}{f.help}" for f in shown]


def markdown_table() -> str:
    """The fields as docs/query.md's table (a test keeps the page equal to this)."""
    rows = ["| field | matches | index |", "| --- | --- | --- |"]
    for f in FIELDS.values():
        if not f.usage:
            continue
        index = "yes" if f.sql is not None or f.name == "date" else "no (checked on each line)"
        if f.superset:
            index = "narrows (each candidate checked)"
        usage = f.usage.replace("|", "\\|")
        rows.append(f"| `{usage}` | {f.help} | {index} |")
    return "\n".join(rows)
