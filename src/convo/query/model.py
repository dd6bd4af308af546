"""The ``Query``: which messages, in which order, how many. Every command builds one here.

A Query is a filter tree (``convo.query.tree``; None selects everything), an order
(``sort``: None for input order, ``time``, ``-time``; ``latest``: the N most recent) and
a ``limit``/``reverse``. ``build`` is the one place a Query is made from what a person
typed: the query language (``convo.query.language``) and the shared options (``-s``,
``--tag``, ``--since``…, which AND with the query), with the two rules every command
shares:

- **Time zone**: a naive time (``--since 2024-03-06T09:00``, ``date:2024-03``) is read
  in ``--tz`` when given, else UTC with ``--utc``, else the local zone (``$TZ``).
- **People**: with a people file, a ``from:``/``to:`` name that names a person matches
  every alias of that person (``tree.with_people``).

So ``list``, ``query``, ``rm``, ``tag``, ``search``, ``stats``… read one query alike.
"""

from __future__ import annotations

from datetime import tzinfo

from convo.core.errors import UsageError
from convo.core.slotted import Frozen, Slotted

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.core.people import People
    from convo.query.filters import Filters
    from convo.query.tree import Node

SORTS = (None, "time", "-time")


def zone_of(name: str | None, *, default: tzinfo | None = None) -> tzinfo | None:
    """``--tz`` as a tzinfo (``default`` when not given); a bad zone is a usage error."""
    from convo.core.timestamps import get_zone

    if name is None:
        return default
    if not name.strip():
        raise UsageError("empty --tz", hint="use an IANA name like Europe/Berlin, UTC or +02:00")
    try:
        return get_zone(name)
    except Exception as e:
        raise UsageError(f"bad --tz {name!r} ({e})") from None


def reading_zone(tz: str | None, utc: bool) -> tzinfo:
    """The zone naive query times are read in: ``--tz``, else UTC with ``--utc``, else local."""
    from datetime import UTC

    zone = zone_of(tz, default=UTC if utc else None)
    if zone is None:
        from convo.core.timestamps import LocalZone  # (dateutil's, made when a time is read)

        zone = LocalZone()
    return zone


class Query(Frozen):
    """What to select (``where``), in which order, and how many; immutable (``replace``
    makes a changed copy)."""

    __slots__ = ("latest", "limit", "reverse", "sort", "where")
    where: Node | None
    limit: int | None
    reverse: bool
    sort: str | None
    latest: int | None

    def __init__(
        self,
        where: Node | None = None,
        limit: int | None = None,
        reverse: bool = False,
        sort: str | None = None,
        latest: int | None = None,
    ) -> None:
        if limit is not None and limit < 0:
            raise UsageError("--limit must be 0 or more")
        if latest is not None and latest < 0:
            raise UsageError("--latest must be 0 or more")
        if sort not in SORTS:
            raise UsageError(f"unknown sort {sort!r}", hint="use time or -time")
        self._set(where=where, limit=limit, reverse=reverse, sort=sort, latest=latest)

    @property
    def ordered(self) -> bool:
        """An order other than the input's is asked for."""
        return self.sort is not None or self.latest is not None

    def filters(self) -> Filters:
        """The ``Filters`` the scan runs for this query."""
        if self.where is None:
            from convo.query.filters import Filters

            return Filters(limit=self.limit, reverse=self.reverse)
        from convo.query.tree import to_filters

        return to_filters(self.where, limit=self.limit, reverse=self.reverse)

    def and_(self, node: Node | None) -> Query:
        """This query with ``node`` ANDed in."""
        from convo.query.tree import all_of

        return self.replace(where=all_of([self.where, node]))


class Options(Slotted):
    """The shared filter options as typed (``since`` as written: ``7d``, ``2024-03``)."""

    __slots__ = ("listeners", "regexes", "since", "speakers", "tags", "texts", "threads", "until")
    speakers: list[str]
    listeners: list[str]
    tags: list[str]
    since: str | None
    until: str | None
    texts: list[str]
    regexes: list[str]
    threads: list[str]

    def __init__(
        self,
        speakers: list[str] | None = None,
        listeners: list[str] | None = None,
        tags: list[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        texts: list[str] | None = None,
        regexes: list[str] | None = None,
        threads: list[str] | None = None,
    ) -> None:
        self.speakers = [] if speakers is None else speakers
        self.listeners = [] if listeners is None else listeners
        self.tags = [] if tags is None else tags
        self.since = since
        self.until = until
        self.texts = [] if texts is None else texts
        self.regexes = [] if regexes is None else regexes
        self.threads = [] if threads is None else threads

    def given(self) -> bool:
        return any((self.speakers, self.listeners, self.tags, self.since, self.until,
                    self.texts, self.regexes, self.threads))  # fmt: skip


def build(
    text: str = "",
    options: Options | None = None,
    *,
    tz: str | None = None,
    utc: bool = False,
    people: People | None = None,
    **order: Any,
) -> Query:
    """The Query of a query text and the options (ANDed), by the rules above.

    ``order``: ``limit``, ``reverse``, ``sort``, ``latest``.
    """
    options = options or Options()
    if not text.strip() and not options.given():
        return Query(**order)
    _decoded(text, options)
    from convo.query import tree

    zone = reading_zone(tz, utc) if (options.since or options.until or text) else None
    node = tree.all_of([
        tree.terms("from", options.speakers), tree.terms("to", options.listeners),
        tree.terms("tag", options.tags), _range(options, zone),
        tree.terms("words", options.texts), tree.terms("regex", options.regexes),
        tree.terms("thread", options.threads), _parsed(text, zone),
    ])  # fmt: skip
    if node is not None and people is not None:
        node = tree.with_people(node, people)
    return Query(node, **order)


def _decoded(text: str, options: Options) -> None:
    """Every word of the query and the options is text (``core.errors.check_decoded``)."""
    from convo.core.errors import check_decoded

    for value in (text, options.since, options.until, *options.speakers, *options.listeners,
                  *options.tags, *options.texts, *options.regexes, *options.threads):  # fmt: skip
        if value:
            check_decoded(value)


def _parsed(text: str, zone: tzinfo | None) -> Node | None:
    if not text.strip():
        return None
    from convo.query.language import parse

    return parse(text, zone=zone)


def _range(options: Options, zone: tzinfo | None) -> Node | None:
    from convo.core.timestamps import parse_when
    from convo.query.tree import Range

    if not (options.since or options.until):
        return None
    try:
        since = parse_when(options.since, zone=zone) if options.since else None
        until = parse_when(options.until, zone=zone) if options.until else None
    except (ValueError, OverflowError) as e:
        raise UsageError(
            str(e),
            hint="use an ISO date (2024, 2024-03, 2024-03-06), a time, 'yesterday' "
            "or an age like 7d, 2w, 3h",
        ) from None
    if since and until and since >= until:
        raise UsageError(
            f"--since {options.since} is not before --until {options.until}: no time is "
            "in that range",
            hint="--until is exclusive (--since 2024-03-06 --until 2024-03-07 is one day); "
            "swap them if they are the wrong way round",
        )
    return Range(since, until) if since or until else None
