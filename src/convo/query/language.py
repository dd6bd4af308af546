"""The query language of ``convo query``, as notmuch and mu users write it.

    from:alice to:bob tag:urgent date:7d.. subject:auth "jwt tokens" -tag:spam

- Fields: ``from:``/``speaker:``, ``to:``/``listener:`` (the name rule of ``-s``),
  ``tag:``, ``date:A..B`` (every form ``--since`` takes; either end may be left out;
  ``date:2024-03`` alone is March, ``date:yesterday`` yesterday, ``date:2024-03-06T10``
  that hour; ``after:A`` is ``date:A..`` and ``before:B`` ``date:..B``), ``subject:``, ``text:`` (the text only), ``thread:``,
  ``id:``, ``format:``, ``role:``, ``source:`` (part of the source id). A value with
  spaces is quoted: ``from:"Alice Smith"``.
- A bare word searches the text and subject (a case-insensitive substring, as ``-q``);
  a ``"quoted phrase"`` finds its words in that order.
- ``AND`` is implicit; ``OR``; ``NOT`` or a leading ``-``; parentheses group. ``NOT``
  binds tightest, then AND, then OR. The operators are upper case (``or`` is a word).

``parse(text)`` returns a ``convo.query.tree`` node (None for an empty query); a syntax
error is a ``UsageError`` located at its column: ``query:14: unclosed quote``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

from convo.core.errors import UsageError
from convo.core.lazy import pattern
from convo.core.slotted import Slotted
from convo.core.timestamps import UTC, format_timestamp_utc, parse_when
from convo.query.field_table import LANGUAGE
from convo.query.tree import Node, Not, Range, Term, all_of, any_of

FIELDS = LANGUAGE  # the language's field names -> the tree's leaf names
_PARTIAL = pattern(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_STOP = ' \t\r\n()"'
# A field's name, before its colon (the language's regular expression was
# ``([A-Za-z_]+):(.*)``; no `re` for a query: docs/startup.md, "Third pass").
_FIELD_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
# The words that name one end of a ``date:`` range: ``after:A`` is from A on (``A <= time``,
# as ``--since``), ``before:B`` before B (``time < B``, as ``--until``), as Gmail's
# search reads them (Slack's ``after:`` starts the day after its date: convo keeps one
# rule, ``--since``'s).
_DATE_SIDES = {"after": "{}..", "before": "..{}"}
HINT = 'see `convo query --help` (fields, "phrases", OR, NOT, -, parentheses)'
# Parentheses and NOTs nested deeper than this are refused: the parser, the tree's
# walks and the index's SQL recurse once a level (5,000 "(" was a RecursionError).
MAX_DEPTH = 100


class Token(Slotted):
    __slots__ = ("col", "kind", "name", "value")
    kind: str  # "(", ")", "-", "AND", "OR", "NOT", "word", "phrase", "field"
    value: str
    col: int  # 1-based
    name: str  # the field of a "field" token

    def __init__(self, kind: str, value: str, col: int, name: str = "") -> None:
        self.kind = kind
        self.value = value
        self.col = col
        self.name = name


def error(col: int, what: str, hint: str = HINT) -> UsageError:
    return UsageError(what, where=f"query:{col}", hint=hint)


def _quoted(text: str, i: int) -> tuple[str, int]:
    """The phrase opening at ``text[i] == '"'`` and the index after it."""
    end = text.find('"', i + 1)
    if end < 0:
        raise error(i + 1, "unclosed quote", 'close it with " or drop it')
    return text[i + 1 : end], end + 1


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append(Token(c, c, i + 1))
            i += 1
        elif c == '"':
            value, j = _quoted(text, i)
            out.append(Token("phrase", value, i + 1))
            i = j
        elif c == "-" and i + 1 < n and text[i + 1] not in _STOP:
            out.append(Token("-", c, i + 1))
            i += 1
        else:
            i = _word(text, i, out)
    return out


def _word(text: str, i: int, out: list[Token]) -> int:
    j = i
    while j < len(text) and text[j] not in _STOP:
        j += 1
    word = text[i:j]
    if word in ("AND", "OR", "NOT"):
        out.append(Token(word, word, i + 1))
        return j
    field, colon, value = word.partition(":")
    if not (colon and field and all(c in _FIELD_LETTERS for c in field)):
        out.append(Token("word", word, i + 1))
        return j
    name = FIELDS.get(field.lower())
    if name is None:
        known = ", ".join(f"{f}:" for f in FIELDS)
        # an id typed alone (`convo show chatgpt:m4`, `slack:C0:1709.0005`) looks like a field
        its_id = f", or id:{word} for the message of that id" if value else ""
        raise error(
            i + 1,
            f"unknown field {field}:",
            f'fields: {known}; quote a word with a colon: "{word}"{its_id}',
        )
    if not value and j < len(text) and text[j] == '"':
        value, j = _quoted(text, j)
    if not value.strip():
        raise error(i + 1, f"{field}: needs a value", f'e.g. {field}:word or {field}:"two words"')
    out.append(Token("field", _date_side(field, value, i + 1), i + 1, name))
    return j


def _date_side(field: str, value: str, col: int) -> str:
    """The value of a field as ``date:`` reads it: ``after:A`` is ``date:A..``,
    ``before:B`` ``date:..B`` (``_DATE_SIDES``); any other field's as it is."""
    side = _DATE_SIDES.get(field.lower())
    if side is None:
        return value
    if ".." in value:
        raise error(col, f"{field}: takes one time", f"date:A..B takes two: {field}:{value}")
    return side.format(value)


class _Parser:
    def __init__(self, text: str, zone: tzinfo | None, now: datetime | None):
        self.toks = tokens(text)
        self.end = len(text) + 1
        self.i = 0
        self.zone = zone
        self.now = now
        self.depth = 0  # parentheses and NOTs open around the token being read

    def deeper(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise error(
                tok.col,
                f"nested deeper than {MAX_DEPTH} parentheses and NOTs",
                "write the query flatter: NOT NOT x is x, (a OR (b OR c)) is a OR b OR c",
            )

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def parse(self) -> Node | None:
        if not self.toks:
            return None
        node = self.or_()
        tok = self.peek()
        if tok is not None:  # only a stray ")" stops an OR early
            raise error(tok.col, "unmatched )", "drop it or open it with (")
        return node

    def or_(self) -> Node:
        parts = [self.and_()]
        while (tok := self.peek()) is not None and tok.kind == "OR":
            self.take()
            parts.append(self.and_(after=tok))
        return any_of(parts)  # type: ignore[return-value]

    def and_(self, after: Token | None = None) -> Node:
        parts = [self.unary(after)]
        while (tok := self.peek()) is not None and tok.kind not in ("OR", ")"):
            if tok.kind == "AND":
                self.take()
                parts.append(self.unary(tok))
            else:
                parts.append(self.unary())
        return all_of(parts)  # type: ignore[return-value]

    def unary(self, after: Token | None = None) -> Node:
        tok = self.peek()
        if tok is None or tok.kind in ("OR", "AND", ")"):
            col = tok.col if tok is not None else self.end
            what = (
                f"{after.value} needs something after it"
                if after
                else f"expected a term, found {tok.value if tok else 'the end'}"
            )
            raise error(col, what)
        if tok.kind in ("NOT", "-"):
            self.take()
            self.deeper(tok)
            node = Not(self.unary(tok))
            self.depth -= 1
            return node
        return self.atom()

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "(":
            if (nxt := self.peek()) is not None and nxt.kind == ")":
                raise error(nxt.col, "empty parentheses")
            self.deeper(tok)
            node = self.or_()
            self.depth -= 1
            close = self.peek()
            if close is None or close.kind != ")":
                raise error(tok.col, "unclosed (", "close it with )")
            self.take()
            return node
        if tok.kind == "word":
            return Term("words", tok.value)
        if tok.kind == "phrase":
            return Term("phrase" if len(tok.value.split()) > 1 else "words", tok.value)
        if tok.name == "date":
            return self.date(tok)
        return Term(tok.name, tok.value)

    def date(self, tok: Token) -> Range:
        a, dots, b = tok.value.partition("..")
        try:
            if not dots:
                return Range(self.when(a), _period_end(a.strip(), self.zone, self.now))
            since, until = (
                (self.when(a) if a.strip() else None),
                (self.when(b) if b.strip() else None),
            )
        except (ValueError, OverflowError) as e:
            raise error(
                tok.col, f"bad date:{tok.value} ({e})",
                'date:A..B with A and B as --since takes them: 2024-03, "2024-03-06 10:00", 7d',
            ) from None  # fmt: skip
        if since and until and since >= until:
            raise error(
                tok.col, f"date:{tok.value} ends before it starts: no time is in it",
                "date:A..B is A <= time < B (date:2024-03-06..2024-03-07 is one day)",
            )  # fmt: skip
        return Range(since, until)

    def when(self, value: str) -> str:
        return parse_when(value, now=self.now, zone=self.zone)


# A time to the hour, minute or second (``2024-03-06T10``, ``2024-03-06 10:00``,
# ``2024-03-06T10:00:00Z``): ``date:`` alone is that hour, minute or second.
_CLOCK = pattern(r"\d{4}-\d{2}-\d{2}[T ](\d{2})(:\d{2})?(:\d{2})?(?:Z|[+-]\d{2}:?\d{2})?")


def _period_end(value: str, zone: tzinfo | None, now: datetime | None = None) -> str | None:
    """The first moment after the period ``value`` names alone: a year, month or day, a
    time's hour, minute or second, ``today`` or ``yesterday`` (as notmuch reads
    ``date:yesterday``: that day, not from then on); None for ``now`` and ages (``7d``),
    which run on to now."""
    lowered = value.lower()
    if lowered in ("today", "yesterday"):
        zone = zone or UTC
        local = (now or datetime.now(UTC)).astimezone(zone).date()
        if lowered == "today":
            local += timedelta(days=1)
        return format_timestamp_utc(datetime(local.year, local.month, local.day, tzinfo=zone))
    clock = _CLOCK.fullmatch(value)
    if clock is not None:
        unit = timedelta(seconds=1 if clock[3] else 60 if clock[2] else 3600)
        start = datetime.fromisoformat(parse_when(value, zone=zone).replace("Z", "+00:00"))
        return format_timestamp_utc(start + unit)
    m = _PARTIAL.fullmatch(value)
    if m is None:
        return None
    year, month, day = int(m[1]), int(m[2] or 0), int(m[3] or 0)
    if day:
        nxt = (datetime(year, month, day) + timedelta(days=1)).date().isoformat()
    elif month:
        nxt = f"{year + month // 12:04d}-{month % 12 + 1:02d}"
    else:
        nxt = f"{year + 1:04d}"
    return parse_when(nxt, zone=zone)


def parse(text: str, *, zone: tzinfo | None = None, now: datetime | None = None) -> Node | None:
    """The filter tree of a query (None when it is empty); naive dates are read in ``zone``."""
    return _Parser(text, zone, now).parse()
