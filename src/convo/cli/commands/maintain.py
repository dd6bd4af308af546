"""``convo rm``, ``convo tag add|rm`` and ``convo compact``: store maintenance.

Not registered by themselves: ``register(app)`` adds the three commands. Each rewrites
the store atomically under its lock and keeps the index in step
(``convo.pipeline.maintenance``). Records are chosen by id (the arguments) and/or
filters (the shared filter meanings: speaker, listener, tag, time, text, regex, thread;
both given, both must hold). ``rm`` shows what it would remove with ``--dry-run`` and
asks on a terminal unless ``--yes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from convo.cli.commands.index import STORE_HELP, say, store_path

L = list[str] | None


@dataclass
class Selection:
    ids: list[str]
    speakers: list[str]
    listeners: list[str]
    tags: list[str]
    since: str | None
    until: str | None
    texts: list[str]
    regexes: list[str]
    threads: list[str]

    def matcher(self):
        """The records the filters select (None when no filter is given)."""
        from convo.core.errors import UsageError
        from convo.core.timestamps import parse_when
        from convo.query.scan import Filters, Selector

        try:
            since = parse_when(self.since) if self.since else None
            until = parse_when(self.until) if self.until else None
        except ValueError as e:
            raise UsageError(
                str(e), hint="use an ISO date (2024-03-06) or an age like 7d"
            ) from None
        filters = Filters(
            speakers=self.speakers, listeners=self.listeners, tags=self.tags, since=since,
            until=until, texts=self.texts, regexes=self.regexes, threads=self.threads,
        )  # fmt: skip
        return None if filters.is_empty() else Selector(filters).matches


def _selection(ids: L, speaker: L, listener: L, tag: L, since, until, text: L, regex: L, thread: L):
    return Selection(
        list(ids or []), list(speaker or []), list(listener or []), list(tag or []), since,
        until, list(text or []), list(regex or []), list(thread or []),
    )  # fmt: skip


IDS = typer.Argument(None, metavar="ID", help="Ids of the messages.", show_default=False)
SPEAKER = typer.Option(
    None, "--speaker", "-s", metavar="NAME", help="Speaker (as in query); repeat to OR."
)
LISTENER = typer.Option(None, "--listener", "-r", metavar="NAME", help="A listener; repeat to OR.")
TAG = typer.Option(
    None, "--tag", "-t", metavar="TAG", help="A tag (case-insensitive); repeat to OR."
)
SINCE = typer.Option(None, "--since", metavar="WHEN", help="From this time on.")
UNTIL = typer.Option(None, "--until", metavar="WHEN", help="Before this time (exclusive).")
TEXT = typer.Option(None, "--text", "-q", metavar="WORDS", help="Words in the text; repeat to OR.")
REGEX = typer.Option(
    None, "--regex", "-e", metavar="REGEX", help="A regular expression; repeat to OR."
)
THREAD = typer.Option(None, "--thread", metavar="ID", help="A thread id; repeat to OR.")
DRY = typer.Option(False, "--dry-run", "-n", help="Show what would change; change nothing.")
STORE = typer.Option(None, "--store", metavar="PATH", help=STORE_HELP)


def _show_ids(result: Any) -> None:
    from convo.core.text.terminal import printable
    from convo.output.env import Environment

    env = Environment()
    for rid in result.ids:
        env.stdout.write(printable(rid, newlines=False) + "\n")
    if result.matched > len(result.ids):
        say(f"... and {result.matched - len(result.ids)} more")
    env.stdout.flush()


def rm(
    ctx: typer.Context, ids: L = IDS, speaker: L = SPEAKER, listener: L = LISTENER, tag: L = TAG,
    since: str | None = SINCE, until: str | None = UNTIL, text: L = TEXT, regex: L = REGEX,
    thread: L = THREAD, dry_run: bool = DRY,
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    store: str | None = STORE,
) -> int:  # fmt: skip
    """Remove messages from the store (by id and/or filters)."""
    from convo.output.env import Environment
    from convo.pipeline.maintenance import remove
    from convo.pipeline.store import Store

    sel = _selection(ids, speaker, listener, tag, since, until, text, regex, thread)
    st = Store(store_path(ctx, store))
    matcher = sel.matcher()
    env = Environment()
    ask = not yes and not dry_run and env.stdin_isatty and env.stderr_isatty
    if dry_run or ask:
        preview = remove(st, ids=sel.ids, matcher=matcher, dry_run=True)
        if dry_run:
            _show_ids(preview)
            say(f"would remove {preview.matched} messages from {st.path}")
            return 0
        if not preview.matched:
            say("nothing to remove")
            return 0
        if not typer.confirm(f"Remove {preview.matched} messages from {st.path}?", err=True):
            say("nothing removed")
            return 1
    result = remove(st, ids=sel.ids, matcher=matcher)
    say(f"removed {result.matched} messages from {st.path} (index: {result.index})")
    return 0


def _tag(add: bool, name: str, sel: Selection, dry_run: bool, path: Any) -> int:
    from convo.pipeline.maintenance import tag as run_tag
    from convo.pipeline.store import Store

    st = Store(path)
    result = run_tag(st, name, add=add, ids=sel.ids, matcher=sel.matcher(), dry_run=dry_run)
    verb = ("would tag" if add else "would untag") if dry_run else ("tagged" if add else "untagged")
    if dry_run:
        _show_ids(result)
    say(f"{verb} {result.matched} messages (index: {result.index})")
    return 0


def _tag_command(add: bool, tag_help: str, doc: str):
    """``tag add`` or ``tag rm``: the same options, one direction."""

    def tag_command(
        ctx: typer.Context,
        name: str = typer.Argument(..., metavar="TAG", help=tag_help),
        ids: L = IDS, speaker: L = SPEAKER, listener: L = LISTENER, tag: L = TAG,
        since: str | None = SINCE, until: str | None = UNTIL, text: L = TEXT, regex: L = REGEX,
        thread: L = THREAD, dry_run: bool = DRY, store: str | None = STORE,
    ) -> int:  # fmt: skip
        from convo.core.tagnames import tag_name

        name, note = tag_name(name)
        if note:
            say(f"note: {note}")
        sel = _selection(ids, speaker, listener, tag, since, until, text, regex, thread)
        return _tag(add, name, sel, dry_run, store_path(ctx, store))

    tag_command.__doc__ = doc
    return tag_command


tag_add = _tag_command(True, "The tag to add.", "Add a tag to messages (by id and/or filters).")
tag_rm = _tag_command(
    False,
    "The tag to remove (case-insensitive).",
    "Remove a tag from messages (by id and/or filters).",
)


def compact(ctx: typer.Context, dry_run: bool = DRY, store: str | None = STORE) -> int:
    """Drop torn and invalid lines and repeated ids from the store (kept in <store>.torn)."""
    from convo.pipeline.maintenance import compact as run_compact
    from convo.pipeline.store import Store

    st = Store(store_path(ctx, store))
    result = run_compact(st, dry_run=dry_run)
    verb = "would drop" if dry_run else "dropped"
    say(
        f"{verb} {result.dropped_bad} unreadable lines and {result.dropped_duplicates} "
        f"repeated ids from {st.path} (index: {result.index})"
    )
    return 0


def register(app: typer.Typer) -> None:
    """Add ``rm``, ``tag add|rm`` and ``compact`` to the ``convo`` app."""
    from convo.cli.runtime import command

    app.command("rm")(command(rm))
    app.command("compact")(command(compact))
    tags = typer.Typer(help="Add or remove a tag.", no_args_is_help=True)
    tags.command("add")(command(tag_add))
    tags.command("rm")(command(tag_rm))
    app.add_typer(tags, name="tag")
