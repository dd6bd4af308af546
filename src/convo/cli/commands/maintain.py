"""``convo rm``, ``convo tag`` and ``convo compact``: store maintenance, on the Store API.

Not registered by themselves: ``register(app)`` adds the three commands. Each is one call
of ``convo.store.Store`` (``remove``, ``tag``, ``compact``: atomic rewrites under the
store's lock, the index following). Messages are chosen by the query every read command
takes (``convo query --help``; the shared options AND with it; naive times in ``--tz``,
else local; people's aliases with ``--people``), and/or by ids read from standard input
with ``-`` (one id a line, or JSONL records: their ``id``), so ``convo query … | convo rm -``
removes what the query listed. ``rm`` shows what it would remove with ``--dry-run`` and
asks on a terminal unless ``--yes``.

``tag`` takes notmuch's form, ``convo tag +todo -inbox -- QUERY`` (``+TAG`` adds,
``-TAG`` removes; the query follows ``--``), and the older ``convo tag add|rm TAG QUERY``.
Its options are long ones only, so that ``-inbox`` is a tag, not ``-i nbox``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from convo.cli.read_args import ReadArgs
from convo.cli.runtime import err

if TYPE_CHECKING:
    from convo.store.rewrite import MaintenanceResult

DRY = typer.Option(False, "--dry-run", help="Show what would change; change nothing.")


def _lines_read(label: str):
    """A counter of the store's lines read, with their rate, while a rewrite runs (on a
    terminal's stderr; nothing otherwise)."""
    from convo.cli.runtime import environment
    from convo.output.progress import progress

    return progress(environment(), label)


def _ids_from_stdin() -> list[str]:
    """Ids piped in: one a line, JSONL records (their ``id``), or one JSON array of
    records (``-f json``; its lines are not ids)."""
    import orjson

    ids: list[str] = []
    lines = iter(sys.stdin.buffer)
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.startswith(b"[") and not ids:
            return _ids_of_array(line + b"".join(lines))
        if line.startswith(b"{"):
            try:
                rid = orjson.loads(line).get("id")
            except (orjson.JSONDecodeError, AttributeError):
                rid = None
            if isinstance(rid, str):
                ids.append(rid)
            continue
        ids.append(line.decode("utf-8", "surrogateescape"))
    return ids


def _ids_of_array(data: bytes) -> list[str]:
    """The ids of the records of a JSON array (what ``convo query -f json`` writes)."""
    import orjson

    from convo.core.errors import UsageError

    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise UsageError(
            "standard input starts with [ but is not a JSON array",
            hint="pipe ids, JSONL records (-f jsonl) or a JSON array of records (-f json)",
        ) from None
    items = value if isinstance(value, list) else []
    return [r["id"] for r in items if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _not_an_id(store: Any, query_text: str) -> None:
    """A bare word that is a message's id: say how to select by id, rather than remove
    the messages whose text holds the word (rm and tag change the store)."""
    from convo.core.errors import UsageError

    for word in query_text.split():
        if ":" not in word and not word.startswith(("-", '"', "(")) and store.get(word):
            raise UsageError(
                f"{word} is the id of a message, and a bare word matches text",
                hint=f"select it by id: id:{word} (or text:{word} for the text)",
            )


def _selection(
    args: ReadArgs, store: Any = None, example: str = "convo rm 'tag:spam'"
) -> tuple[Any, list[str]]:
    """The query and the ids (``-`` among the words reads ids from stdin); ``example``:
    the command's own, for the hint when nothing is selected."""
    from convo.core.errors import UsageError

    ids: list[str] = []
    if "-" in args.inputs:
        ids = _ids_from_stdin()
        if not ids:
            raise UsageError("no ids on standard input", hint="pipe ids or JSONL records to `-`")
    others = [i for i in args.inputs if i != "-"]
    if others:
        raise UsageError(
            f"{others[0]} reads as a file; rm and tag change the store only",
            hint=f"to match it as text, quote it: '\"{others[0]}\"'",
        )
    args.inputs = []
    if store is not None and store.exists():
        _not_an_id(store, args.query)
    query = args.build_query()
    if query.where is None and not ids:
        raise UsageError("nothing selected", hint=f"give a query ({example}), options, or ids on -")
    return query, ids


def _show_ids(result: Any) -> None:
    from convo.core.text.terminal import printable

    out = sys.stdout
    for rid in result.ids:
        out.write(printable(rid, newlines=False) + "\n")
    if result.matched > len(result.ids):
        err(f"... and {result.matched - len(result.ids)} more")
    out.flush()


def rm(
    *,
    dry_run: bool = DRY,
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    args: ReadArgs,
) -> int:
    """Remove the messages a query selects from the store (and/or ids piped to -)."""
    from convo.cli.runtime import environment
    from convo.core.plural import counted

    st = args.open_store()
    query, ids = _selection(args, st)
    env = environment()
    ask = not yes and not dry_run and env.stdin_isatty and env.stderr_isatty
    if dry_run or ask:
        with _lines_read("reading") as track:
            preview = st.remove(query, ids=ids, dry_run=True, track=track)
        _say_notes(preview)
        if dry_run:
            _show_ids(preview)
            err(f"would remove {counted(preview.matched, 'message')} from {st.path}")
            return 0
        if not preview.matched:
            err("nothing to remove")
            return 0
        if not typer.confirm(
            f"Remove {counted(preview.matched, 'message')} from {st.path}?", err=True
        ):
            err("nothing removed")
            return 1
    with _lines_read("removing") as track:
        result = st.remove(query, ids=ids, track=track)
    _say_notes(result)
    err(f"removed {counted(result.matched, 'message')} from {st.path} (index: {result.index})")
    return 0


def _say_notes(result: MaintenanceResult) -> None:
    """What happened before the rewrite (a killed save undone as the lock was taken)."""
    for note in result.notes:
        err(note)


def split_tags(words: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``+a -b rest...`` as (added, removed, the rest); ``add|rm TAG rest`` too."""
    from convo.core.errors import UsageError

    if words and words[0] in ("add", "rm"):
        if len(words) < 2:
            raise UsageError(f"tag {words[0]} needs a tag", hint=f"convo tag {words[0]} TAG QUERY")
        tag = words[1]
        return ([tag], [], words[2:]) if words[0] == "add" else ([], [tag], words[2:])
    add, remove, rest = [], [], []
    for i, w in enumerate(words):
        if w == "--":
            rest = words[i + 1 :]
            break
        if w.startswith("+") and len(w) > 1:
            add.append(w[1:])
        elif w.startswith("-") and len(w) > 1 and w != "-" and ":" not in w:
            remove.append(w[1:])
        else:
            rest = words[i:]
            break
    if not (add or remove):
        raise UsageError("no tag to add or remove", hint="convo tag +todo -inbox -- QUERY")
    return add, remove, rest


def tag(
    *,
    dry_run: bool = DRY,
    args: ReadArgs,
) -> int:
    """Add (+TAG) and remove (-TAG) tags: convo tag +todo -inbox -- QUERY."""
    from convo.cli.words import split_query, tag_names
    from convo.core.plural import counted

    add, remove, rest = split_tags(args.words)
    add, remove = tag_names(add), tag_names(remove)
    args.inputs, args.query = split_query(rest)
    st = args.open_store()
    changes = " ".join([*(f"+{t}" for t in add), *(f"-{t}" for t in remove)])
    query, ids = _selection(args, st, example=f"convo tag {changes} -- 'tag:inbox'")
    with _lines_read("tagging") as track:
        result = st.tag(query, add=add, remove=remove, ids=ids, dry_run=dry_run, track=track)
    _say_notes(result)
    if dry_run:
        _show_ids(result)
    verb = "would retag" if dry_run else "retagged"
    err(f"{verb} {counted(result.matched, 'message')} (index: {result.index})")
    return 0


def compact(*, dry_run: bool = DRY, args: ReadArgs) -> int:
    """Drop torn and invalid lines and repeated ids from the store (kept in <store>.torn)."""
    from convo.core.plural import counted

    st = args.open_store(plain=True)
    with _lines_read("compacting") as track:
        result = st.compact(dry_run=dry_run, track=track)
    _say_notes(result)
    verb = "would drop" if dry_run else "dropped"
    renamed = ""
    if result.renamed:
        renamed = (
            f"; {'would give' if dry_run else 'gave'} {counted(result.renamed, 'message')} "
            "whose id another message had (of another time and text) their content hash"
        )
    err(
        f"{verb} {counted(result.dropped_bad, 'unreadable line')} and "
        f"{counted(result.dropped_duplicates, 'repeated id')} from {st.path}{renamed} "
        f"(index: {result.index})"
    )
    return 0


def register(app: typer.Typer) -> None:
    """Add ``rm``, ``tag`` and ``compact`` to the ``convo`` app."""
    from convo.cli.options import selection_options, store_options
    from convo.cli.runtime import command

    app.command("rm")(command(selection_options(rm)))
    loose = {"ignore_unknown_options": True}
    app.command("tag", context_settings=loose)(command(selection_options(tag, short=False)))
    app.command("compact")(command(store_options(compact)))
