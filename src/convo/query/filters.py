"""What the filters mean, on parsed records: ``Filters`` and the exact checks.

Semantics: repeating one filter ORs, different filters AND.
- ``speaker``/``listener``: case-insensitive match of the whole name, its display name,
  its address, or a run of whole words in it (``Alice`` matches ``Alice Smith
  <alice@x.org>`` and ``alice@x.org``, not ``Alicia``).
- ``tag``: case-insensitive equality with one of the message's tags.
- ``since``/``until``: ``since <= timestamp < until`` (until is exclusive).
- ``text``: every word of the value occurs in the text or subject (case-insensitive
  substring, so ``auth`` finds ``authentication``).
- ``regex``: Python regular expression searched in the text and subject.
- ``thread``: the message's ``thread`` equals the value, or its ``id`` does (the root).
- ``tree``: a query-language filter (``convo.query.tree``). When it is set it is the
  exact meaning, and the flat fields hold only what every match must contain, for the
  byte prefilter (``tree.to_filters`` builds both); they are then not checked.

Fields are read through ``convo.core.fields``, so a record of the wrong shape
(``"textChunks": false``, ``"id": []``) simply does not match instead of raising.
``convo.query.scan`` decides most lines on raw bytes first and calls these only for
lines that may match.
"""

from __future__ import annotations

from collections.abc import Callable

from convo.core import fields
from convo.core.errors import UsageError
from convo.core.names import NameQuery
from convo.core.slotted import Slotted

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    import re
    from typing import Any

Check = Callable[[dict[str, "Any"]], bool]


class Filters(Slotted):
    __slots__ = (
        "limit",
        "listeners",
        "regexes",
        "reverse",
        "since",
        "speakers",
        "tags",
        "texts",
        "threads",
        "tree",
        "until",
    )  # fmt: skip
    speakers: list[str]
    listeners: list[str]
    tags: list[str]
    since: str | None  # record timestamp strings: since <= timestamp < until
    until: str | None
    threads: list[str]
    texts: list[str]
    regexes: list[str]
    limit: int | None
    reverse: bool
    tree: Any  # a query.tree.Compiled: then the exact check (see above)

    def __init__(
        self,
        speakers: list[str] | None = None,
        listeners: list[str] | None = None,
        tags: list[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        threads: list[str] | None = None,
        texts: list[str] | None = None,
        regexes: list[str] | None = None,
        limit: int | None = None,
        reverse: bool = False,
        tree: Any = None,
    ) -> None:
        self.speakers = [] if speakers is None else speakers
        self.listeners = [] if listeners is None else listeners
        self.tags = [] if tags is None else tags
        self.since = since
        self.until = until
        self.threads = [] if threads is None else threads
        self.texts = [] if texts is None else texts
        self.regexes = [] if regexes is None else regexes
        self.limit = limit
        self.reverse = reverse
        self.tree = tree

    def is_empty(self) -> bool:
        return not (
            self.speakers or self.listeners or self.tags or self.since or self.until
            or self.threads or self.texts or self.regexes or self.tree
        )  # fmt: skip


def text_terms(filters: Filters) -> list[list[str]]:
    """Each ``--text`` value as its case-folded words (all must occur)."""
    return [[t.casefold() for t in q.split()] for q in filters.texts]


def _pieces(record: dict[str, Any]) -> list[str]:
    subject = fields.string(record, "subject")
    chunks = fields.chunks(record)
    return [subject, *chunks] if subject else chunks


def _one_word_in(term: str, pieces: list[str]) -> bool:
    # lower() first: a non-ASCII character whose lower() holds ASCII has the same
    # casefold() (tests check this), so a hit in lower() is a hit; casefold() is needed
    # only for pieces with no such hit.
    for p in pieces:
        if term in p.lower():
            return True
    return any(term in p.casefold() for p in pieces if not p.isascii())


def text_check(terms: list[list[str]]) -> Check:
    """Every word of one of ``terms`` occurs in the subject or a text chunk."""
    if len(terms) == 1 and len(terms[0]) == 1:
        term = terms[0][0]
        return lambda r: _one_word_in(term, _pieces(r))

    def check(record: dict[str, Any]) -> bool:
        # No term holds whitespace, so "in subject + newline + chunks" is "in one of them".
        folded = [p.casefold() for p in _pieces(record)]
        return any(all(any(t in f for f in folded) for t in ts) for ts in terms)

    return check


def time_check(since: str | None, until: str | None) -> Check:
    def check(record: dict[str, Any]) -> bool:
        ts = fields.timestamp(record)
        if since and ts < since:
            return False
        return not (until and ts >= until)

    return check


def _regexes(values: list[str]) -> list[re.Pattern[str]]:
    import re  # only for --regex (docs/startup.md, "Third pass")

    try:
        return [re.compile(r) for r in values]
    except re.error as e:
        raise UsageError(
            f"bad --regex ({e})", hint="use Python regular expression syntax"
        ) from None


def _word_checks(filters: Filters) -> list[Check]:
    out: list[Check] = []
    if filters.speakers:
        speakers = [NameQuery(s) for s in filters.speakers]
        out.append(lambda r: any(q.matches(fields.speaker(r)) for q in speakers))
    if filters.listeners:
        listeners = [NameQuery(s) for s in filters.listeners]
        out.append(lambda r: any(q.matches(v) for v in fields.listeners(r) for q in listeners))
    if filters.tags:
        tags = {t.casefold() for t in filters.tags}
        out.append(lambda r: any(t.casefold() in tags for t in fields.tags(r)))
    return out


def checks(filters: Filters) -> list[Check]:
    """The exact checks of ``filters``, cheapest first; a record matches when all pass."""
    if filters.tree is not None:
        # The time range every match needs first (a cheap no), then the tree itself.
        timed = filters.since or filters.until
        return (
            [time_check(filters.since, filters.until), filters.tree.check]
            if timed
            else [filters.tree.check]
        )
    out = _word_checks(filters)
    if filters.since or filters.until:
        out.append(time_check(filters.since, filters.until))
    if filters.texts:
        out.append(text_check(text_terms(filters)))
    if filters.regexes:
        pats = _regexes(filters.regexes)
        out.append(lambda r: any(p.search(fields.searchable_text(r)) for p in pats))
    if filters.threads:
        threads = set(filters.threads)
        out.append(lambda r: fields.conversation(r) in threads or fields.record_id(r) in threads)
    return out
