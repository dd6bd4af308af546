"""The argument objects of the option groups: ``ImportArgs`` (how named files are read),
``ReadArgs`` (the read options as given, and the ``Query`` they build) and ``OrderArgs``
(``--sort``, ``--latest``, ``--count``). The options
themselves, and how typer and ``cli/fast.py`` fill these, are ``cli/options.py``'s.
Plain classes (``core.slotted``), not dataclasses: a read imports no ``dataclasses``.
"""

from __future__ import annotations

from datetime import tzinfo

from convo.core.slotted import Slotted

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any


def zone_of(name: str | None, *, default: tzinfo | None = None) -> tzinfo | None:
    """``--tz`` as a tzinfo (``convo.query.model.zone_of``)."""
    from convo.query.model import zone_of as parse_zone

    return parse_zone(name, default=default)


class OrderArgs(Slotted):
    """The order group (``--sort``, ``--latest``, ``--count``) of list, query and show
    (its options: ``cli/order_options.py``)."""

    __slots__ = ("count", "latest", "sort")
    sort: str | None
    latest: int | None
    count: bool

    def __init__(self, sort: str | None = None, latest: int | None = None, count: bool = False):
        self.sort = sort
        self.latest = latest
        self.count = count


class ImportArgs(Slotted):
    """The import-option group: how named files are read, for ingest and read commands."""

    __slots__ = (
        "encoding",
        "format_name",
        "include_thinking",
        "merge",
        "speakers",
        "start_date",
        "strip_quotes",
        "tz",
        "tz_from_config",
    )  # fmt: skip
    format_name: str | None
    tz: str | None
    tz_from_config: bool  # the config file's zone, not --tz: --utc wins over it
    start_date: str | None
    speakers: str
    merge: bool
    strip_quotes: bool
    include_thinking: bool
    encoding: str | None

    def __init__(
        self,
        format_name: str | None = None,
        tz: str | None = None,
        start_date: str | None = None,
        speakers: str = "auto",
        merge: bool = True,
        strip_quotes: bool = False,
        include_thinking: bool = False,
        encoding: str | None = None,
        tz_from_config: bool = False,
    ) -> None:
        self.format_name = format_name
        self.tz = tz
        self.tz_from_config = tz_from_config
        self.start_date = start_date
        self.speakers = speakers
        self.merge = merge
        self.strip_quotes = strip_quotes
        self.include_thinking = include_thinking
        self.encoding = encoding

    def options(self, *, tags: list[str] | None = None, strict=False, lenient=False):
        """The ``ImportOptions`` these describe (``tags``/``strict``/``lenient``: ingest's own)."""
        from convo.importers.context import ImportOptions

        return ImportOptions(**self.values(tags=tags, strict=strict, lenient=lenient))

    def values(
        self, *, tags: list[str] | None = None, strict=False, lenient=False
    ) -> dict[str, Any]:
        """``options()``'s arguments, checked (a usage error for a bad value) without
        importing the importers."""
        from datetime import UTC

        from convo.core.errors import UsageError
        from convo.core.timestamps import parse_datetime

        zone = zone_of(self.tz, default=UTC) or UTC
        start = None
        if self.start_date:
            try:
                start = parse_datetime(self.start_date, zone)
            except (ValueError, OverflowError):
                raise UsageError(
                    f"unreadable --start-date {self.start_date!r}", hint="e.g. '2024-03-06 10:00'"
                ) from None
        if strict and lenient:
            raise UsageError("--strict and --lenient contradict each other", hint="choose one")
        if self.encoding is not None:  # (ImportOptions checks it too; this is before any read)
            from convo.core.encoding import check_encoding

            check_encoding(self.encoding)
        return dict(
            tz=zone, start_date=start, speakers=self.speakers, merge=self.merge,
            strip_quotes=self.strip_quotes, include_thinking=self.include_thinking,
            tags=list(tags or []), strict=strict, lenient=lenient, encoding=self.encoding,
        )  # fmt: skip


class ReadArgs(Slotted):
    """The read options as given; ``build_query()`` turns them into the ``Query`` every
    reader runs."""

    __slots__ = (
        "explain",
        "format",
        "imports",
        "inputs",
        "limit",
        "options",
        "pager",
        "people",
        "query",
        "reverse",
        "store",
        "utc",
        "words",
    )  # fmt: skip
    inputs: list[str]
    store: str | None
    # the filter options as typed (``since``: ``7d``, ``2024-03``): a query.model.Options,
    # made when a command runs (``read_args``), so ``--help`` imports no query module
    options: Any
    limit: int | None
    reverse: bool
    format: str | None
    utc: bool
    pager: bool
    imports: ImportArgs
    query: str  # the query language (convo.query.language), ANDed with the options
    explain: bool  # --explain: say how the query is answered (index or scan)
    words: list[str]  # the arguments as given, before the split
    people: str | None  # a people file (--people, $CONVO_PEOPLE)

    def __init__(
        self,
        inputs: list[str] | None = None,
        store: str | None = None,
        options: Any = None,
        limit: int | None = None,
        reverse: bool = False,
        format: str | None = None,
        utc: bool = False,
        pager: bool = False,
        imports: ImportArgs | None = None,
        query: str = "",
        explain: bool = False,
        words: list[str] | None = None,
        people: str | None = None,
    ) -> None:
        self.inputs = [] if inputs is None else inputs
        self.store = store
        self.options = options
        self.limit = limit
        self.reverse = reverse
        self.format = format
        self.utc = utc
        self.pager = pager
        self.imports = ImportArgs() if imports is None else imports
        self.query = query
        self.explain = explain
        self.words = [] if words is None else words
        self.people = people

    @property
    def tz(self) -> str | None:
        """The zone of naive times: in source files, and (``shown_tz``) of the view."""
        return self.imports.tz

    @property
    def shown_tz(self) -> str | None:
        """The zone times are shown and naive query times read in, by name: ``--tz``,
        else the config file's unless ``--utc`` (the command line wins over the file),
        else None (UTC with ``--utc``, else local time)."""
        return None if self.utc and self.imports.tz_from_config else self.tz

    def zone(self) -> tzinfo | None:
        """The zone times are shown and naive ``--since``/``--until`` read in.

        ``--tz`` when given, else UTC with ``--utc``, else the config file's, else local
        time (None).
        """
        from datetime import UTC

        return zone_of(self.shown_tz, default=UTC if self.utc else None)

    def write_options(self):
        from convo.cli.runtime import state
        from convo.output.writers import WriteOptions

        columns = state.get("config_columns")  # the config file's (cli/config.py)
        if columns:
            from convo.output.writers.columns import parse

            columns = parse(columns)
        return WriteOptions(utc=self.utc, zone=zone_of(self.shown_tz), columns=columns or None)

    def build_query(self, order: OrderArgs | None = None):
        """The ``convo.query.model.Query`` of the query and the options (ANDed), built
        by the one set of rules every command shares (time zone, people)."""
        from convo.query.model import build

        return build(
            self.query, self.options, tz=self.shown_tz, utc=self.utc, people=self.load_people(),
            limit=self.limit, reverse=self.reverse,
            sort=order.sort if order else None, latest=order.latest if order else None,
        )  # fmt: skip

    def filters(self):
        """The ``query.Filters`` the scan runs (``build_query().filters()``)."""
        return self.build_query().filters()

    def load_people(self):
        """The people file's ``People`` (None without one)."""
        if not self.people:
            return None
        from convo.core.people import People

        return People.load(self.people)

    def where(self) -> dict[str, Any]:
        """The store's location and whether ``--store`` named it (``pipeline.inputs``)."""
        from convo.cli.runtime import state

        return {
            "store": self.store or state.get("store"),
            "store_named": bool(self.store) or bool(state.get("store_named")),
        }

    def parts(self, env, reporter):
        """The inputs (named files, stdin, else the store) read with the import options
        (checked now; made when an input is read, so reading the store through its index
        imports no importer)."""
        from convo.pipeline.inputs import STDIN_IGNORED, existing_store, reads_store

        where = self.where()
        stdin = env.stdin_has_data
        if stdin and reads_store(
            self.inputs, store_named=where["store_named"], stdin_has_data=True
        ):
            from convo.cli.runtime import err
            from convo.store.path import default_store_path

            err("note: " + STDIN_IGNORED.format(store=default_store_path(where["store"])))
        if reads_store(self.inputs, store_named=where["store_named"], stdin_has_data=stdin):
            existing_store(where["store"])  # now: before a writer's header
        values = self.imports.values()

        def parts():
            from convo.importers.context import ImportOptions
            from convo.pipeline.inputs import record_parts

            yield from record_parts(
                self.inputs, **where, stdin_has_data=stdin,
                options=ImportOptions(**values), format_name=self.imports.format_name,
                on_reject=reporter.reject,
            )  # fmt: skip

        return parts()

    def open_store(self, *, plain: bool = False):
        """The store as a ``Store`` that reads queries as these options do (``--tz`` or
        the config file's, ``--utc``, the people file; ``plain``: none of them, for
        ``compact``), for the commands that only read or change the store (``search``,
        ``similar``, ``rm``, ``tag``, ``compact``); a missing one is ``NoStore`` (a
        mistyped ``--store`` would otherwise answer "nothing")."""
        from convo.core.errors import NoStore
        from convo.store import Store

        where = self.where()["store"]
        if plain:
            store = Store(where)
        else:
            store = Store(where, tz=self.shown_tz, utc=self.utc, people=self.load_people())
        if not store.path.exists():
            raise NoStore(str(store.path))
        return store

    def store_input(self, env):
        """The store's path when these inputs are the store (it may have an index), else None."""
        from convo.pipeline.inputs import store_input

        return store_input(self.inputs, **self.where(), stdin_has_data=env.stdin_has_data)

    def matches(self, env, reporter, *, need_record: bool = True, selector=None):
        """The selected records: these inputs, filters, limit and order applied; bad lines
        and rejects go to ``reporter``."""
        from convo.store.select import select

        chosen = select(
            self.build_query(), self.parts(env, reporter), store=self.store_input(env),
            on_error=reporter.bad_line, need_record=need_record, selector=selector,
        )  # fmt: skip
        self.say_plan(chosen.plan)
        return (m for batch in chosen.batches for m in batch)

    def indexed_records(self, env):
        """The selected records (each name as its person's with a people file) when the
        inputs are the store and its index answers the query, else None: the caller
        then reads the inputs whole, on every core (``stats``, ``knowledge``). Call
        ``parts`` first (it checks the store and says when stdin is left unread)."""
        store = self.store_input(env)
        if store is None:
            return None
        from convo.store.select import through_index

        chosen = through_index(self.build_query(), store)
        if chosen is None:
            return None
        self.say_plan(chosen.plan)
        records = (m.record for batch in chosen.batches for m in batch)
        people = self.load_people()
        return records if people is None else map(people.canonical_record, records)

    def say_plan(self, plan: str) -> None:
        """With ``--explain``: how the query is answered, on stderr."""
        if self.explain:
            from convo.cli.runtime import err

            err(plan)
