"""Option groups shared by commands, declared once (as sqlite-utils' shared decorators do).

One decorator per group, applied only where it applies:
- ``@import_options``: how named files are imported (``--from``, ``--tz``,
  ``--start-date``, ``--speakers``, ``--no-merge``, ``--strip-quotes``); ``ingest`` and every
  read command, so a file reads the same everywhere. The command gets ``imports: ImportArgs``.
- ``@read_options``: inputs (``FILE...``, ``--store``), the import group, filters and
  output options (``-f``, ``--utc``, ``--pager``); the command gets ``args: ReadArgs``.
  ``read_options_for(formats)`` limits ``-f`` to the formats a command can write.
  (``ImportArgs`` and ``ReadArgs`` are ``cli/read_args.py``'s.)

Typer reads the signature, so a decorator rewrites it; the command's own parameters stay
in front. Fixed choices are ``click.Choice``\\ s, so ``--help`` lists them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from convo.cli.choices import Choices, choice_option
from convo.cli.read_args import ImportArgs, ReadArgs
from convo.core.slotted import Frozen

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    import inspect  # (typer's side only: imported where a parameter is made)
    from typing import Any

SPEAKER_MODES = ("auto", "voice", "prefix", "none")


def _writer_names() -> list[str]:
    from convo.output.exporters.registry import registry

    return registry.shown_names()


def _format_names() -> list[str]:
    from convo.importers.registry import registry

    return sorted(registry.names())  # declared names: no format module imported


def _opt(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    import inspect

    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


class Spec(Frozen):
    """One shared option (no ``decls``: the FILE... argument), declared once: typer's
    parameter is made from it (``param``), and so is ``cli/fast.py``'s parse. (A
    ``Frozen`` class, not a NamedTuple: ``typing`` stays off an indexed read's start-up.)"""

    __slots__ = ("annotation", "choices", "complete", "decls", "default", "help", "metavar", "name")
    name: str
    annotation: Any
    default: Any
    decls: tuple[str, ...]
    help: str
    metavar: str | None
    choices: Choices | None
    complete: str | None  # a function of cli/completion.py: values from the index

    def __init__(
        self, name: str, annotation: Any, default: Any, decls: tuple[str, ...], help: str,
        metavar: str | None = None, choices: Choices | None = None, complete: str | None = None,
    ) -> None:  # fmt: skip
        self._set(
            name=name, annotation=annotation, default=default, decls=decls, help=help,
            metavar=metavar, choices=choices, complete=complete,
        )  # fmt: skip

    def param(self) -> inspect.Parameter:
        import inspect

        import typer

        if not self.decls:
            arg = typer.Argument(
                self.default, help=self.help, show_default=False, metavar=self.metavar
            )
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            return inspect.Parameter(self.name, kind, default=arg, annotation=self.annotation)
        if self.choices is not None:
            info = choice_option(
                self.default, *self.decls, choices=self.choices, help=self.help,
                metavar=self.metavar,
            )  # fmt: skip
        else:
            info = typer.Option(
                self.default, *self.decls, metavar=self.metavar, help=self.help,
                autocompletion=_completion(self.complete),
            )  # fmt: skip
        return _opt(self.name, self.annotation, info)


def _completion(name: str | None):
    """The completion function ``name`` of ``cli/completion.py`` (imported when used)."""
    if name is None:
        return None

    def complete(ctx: object, incomplete: str) -> list[str]:  # (typer reads these at run time)
        from convo.cli import completion

        return getattr(completion, name)(ctx, incomplete)

    return complete


def _params(specs: Sequence[Spec]) -> list[inspect.Parameter]:
    return [s.param() for s in specs]


S, L = str | None, list[str] | None
IMPORT_SPECS = (
    Spec("from_", S, None, ("--from",), "Input format of named files, instead of detection (one of `convo formats`).", "FORMAT", Choices(_format_names, "format")),
    Spec("tz", S, None, ("--tz",), "Zone for naive times (IANA name, UTC, local, +02:00): in source files (default UTC) and, for read commands, of --since/--until and the times shown (default local).", "ZONE"),
    Spec("start_date", S, None, ("--start-date",), "Transcripts: the date and time the recording started.", "WHEN"),
    Spec("speakers_mode", str, "auto", ("--speakers",), "Transcripts: how speakers are found.", None, Choices(SPEAKER_MODES, "--speakers")),
    Spec("no_merge", bool, False, ("--no-merge",), "Transcripts: one message per cue."),
    Spec("strip_quotes", bool, False, ("--strip-quotes",), "Email: drop quoted replies and signatures."),
    Spec("include_thinking", bool, False, ("--include-thinking",), "Agent exports: keep private reasoning as a [thinking] chunk (default: in extra only)."),
    Spec("encoding", S, None, ("--encoding",), "Text that declares no encoding (no BOM, no charset): read it as this (windows-1251, latin-1, ...) instead of guessing.", "NAME"),
)  # fmt: skip


def _import_args(kw: dict[str, Any]) -> ImportArgs:
    from convo.cli.runtime import state

    tz = kw.pop("tz")  # given (even empty, an error later), else the config file's
    return ImportArgs(
        format_name=kw.pop("from_"), tz=tz if tz is not None else state.get("config_tz"),
        tz_from_config=tz is None and state.get("config_tz") is not None, start_date=kw.pop("start_date"),
        speakers=kw.pop("speakers_mode"), merge=not kw.pop("no_merge"),
        strip_quotes=kw.pop("strip_quotes"), include_thinking=kw.pop("include_thinking"),
        encoding=kw.pop("encoding"),
    )  # fmt: skip


INPUT_SPECS = (
    Spec("inputs", L, None, (), "The query (`convo query --help`) and files or folders to read (any importable format; - for stdin). A word that is -, an existing path or looks like one (has a / or a file extension) is an input; the others make the query. Default input: stdin when it is a pipe and --store is not given, else the store.", "QUERY|FILE"),
    Spec("store", S, None, ("--store",), "The store file (default: $CONVO_STORE, else the config file's store, else $XDG_DATA_HOME/convo/messages.jsonl).", "PATH"),
    Spec("people", S, None, ("--people",), "A people file (TOML: aliases of one person; `convo people --help`); also before the command, or $CONVO_PEOPLE.", "FILE"),
)  # fmt: skip

FILTER_SPECS = (
    Spec("speaker", L, None, ("--speaker", "-s"), "Speaker name, display name, address or whole words of it; repeat to OR.", "NAME", None, "names"),
    Spec("listener", L, None, ("--listener", "-r"), "A listener (recipient), matched like --speaker; repeat to OR.", "NAME", None, "names"),
    Spec("tag", L, None, ("--tag", "-t"), "A tag (case-insensitive); repeat to OR.", "TAG", None, "tags"),
    Spec("since", S, None, ("--since",), "From this time on: 2024 (Jan 1st), 2024-03, 2024-03-06, '2024-03-06 10:00', yesterday, 7d, 2w, 3h.", "WHEN"),
    Spec("until", S, None, ("--until",), "Before this time (exclusive); same forms as --since.", "WHEN"),
    Spec("text", L, None, ("--text", "-q"), "Words that must all occur in the text or subject (case-insensitive); repeat to OR.", "WORDS"),
    Spec("regex", L, None, ("--regex", "-e"), "A Python regular expression searched in the text; repeat to OR.", "REGEX"),
    Spec("thread", L, None, ("--thread",), "A conversation as `convo threads` lists it: a thread id, or the file of messages without one (or the id of its first message); repeat to OR.", "ID", None, "threads"),
    Spec("limit", int | None, None, ("--limit", "-n"), "At most this many messages.", "N"),
    Spec("reverse", bool, False, ("--reverse",), "Last first: the order reversed (the input's, or --sort's)."),
)  # fmt: skip


def output_specs(formats: Sequence[str] | None) -> tuple[Spec, ...]:
    """``-f`` limited to ``formats`` (None: every registered writer), ``--utc``, ``--pager``."""
    choices = Choices(formats if formats else _writer_names, "--format")
    return (
        Spec("format", S, None, ("--format", "-f"), "Output format. Default: table on a terminal, else the command's piped format.", None, choices),
        Spec("utc", bool, False, ("--utc",), "Show times in UTC instead of local time."),
        Spec("pager", bool, False, ("--pager",), "Page long terminal output."),
        Spec("explain", bool, False, ("--explain",), "Say on stderr how the query is answered: through the index or by a scan, and why."),
    )  # fmt: skip


def read_specs(formats: Sequence[str] | None) -> tuple[Spec, ...]:
    """The parameters ``read_options_for(formats)`` adds, in their order."""
    return INPUT_SPECS + IMPORT_SPECS + FILTER_SPECS + output_specs(formats)


_READ_KEYS = {
    "inputs": "inputs", "store": "store", "people": "people", "speaker": "speakers", "listener": "listeners",
    "tag": "tags", "since": "since", "until": "until", "text": "texts", "regex": "regexes",
    "thread": "threads", "limit": "limit", "reverse": "reverse", "format": "format",
    "utc": "utc", "pager": "pager", "explain": "explain",
}  # fmt: skip
_LISTS = ("inputs", "speakers", "listeners", "tags", "texts", "regexes", "threads")


def _with_params(func, added: list[inspect.Parameter], build: Callable[[dict[str, Any]], dict]):
    """``func`` with ``added`` parameters in its signature; ``build`` turns their values
    (popped from the call's keyword arguments) into the keyword arguments ``func`` gets."""
    import inspect

    sig = inspect.signature(func)
    names = {p.name for p in added}
    # A parameter of ``func`` that an added one declares is that one (``build`` passes it).
    own = [
        p for name, p in sig.parameters.items()
        if name not in ("args", "imports", "order") and name not in names
    ]  # fmt: skip
    positional = [p for p in added if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in added if p.kind is inspect.Parameter.KEYWORD_ONLY]
    own_pos = [p for p in own if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    own_kw = [p for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
    params = [
        *own_pos, *positional,
        *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own_kw), *keyword,
    ]  # fmt: skip

    @functools.wraps(func)
    def wrapper(*a: Any, **kwargs: Any) -> Any:
        mine = {k: kwargs.pop(k) for k in list(kwargs) if k in names}
        return func(*a, **build(mine), **kwargs)

    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def with_params(func, specs: Sequence[Spec], build: Callable[[dict[str, Any]], dict]):
    """``func`` with the parameters of ``specs``, their values made into arguments by
    ``build`` (``read_args``: ``args: ReadArgs``)."""
    return _with_params(func, _params(specs), build)


def import_options(func):
    """Add the import-option group; call ``func(imports: ImportArgs, ...)``."""
    return _with_params(func, _params(IMPORT_SPECS), lambda kw: {"imports": _import_args(kw)})


def read_args(kw: dict[str, Any]) -> dict[str, ReadArgs]:
    """``{"args": ReadArgs}`` from the values of ``read_specs`` (popped from ``kw``)."""
    imports = _import_args(kw)
    values = {dest: kw.pop(src) for src, dest in _READ_KEYS.items() if src in kw}
    for key in _LISTS:
        values[key] = list(values.get(key) or [])
    from convo.cli.words import no_glued_query, split_query

    values["words"] = list(values["inputs"])
    values["inputs"], values["query"] = split_query(values["inputs"])
    no_glued_query(values)
    from convo.cli.runtime import state

    values["people"] = values.get("people") or state.get("people")  # the command's, else convo's
    from convo.query.model import Options

    _no_empty_filter(values)
    values["options"] = Options(**{k: values.pop(k) for k in FILTER_KEYS})
    return {"args": ReadArgs(**values, imports=imports)}


def _no_empty_filter(values: dict[str, Any]) -> None:
    """An empty filter option (``-q ''``, ``--since "$UNSET"``) is a usage error, as
    ``from:`` without a value is: it would match every message (the empty substring, a
    name of no words) or none of the filtering would happen, and ``rm`` would take all."""
    from convo.core.errors import UsageError

    for spec in FILTER_SPECS:
        value = values.get(_READ_KEYS[spec.name])
        given = value if isinstance(value, list) else [] if value is None else [value]
        if any(isinstance(v, str) and not v.strip() for v in given):
            flag = spec.decls[0]
            raise UsageError(f"{flag} needs a value", hint=f"e.g. {flag} {spec.metavar}")


FILTER_KEYS = ("speakers", "listeners", "tags", "since", "until", "texts", "regexes", "threads")


_TIME_SPECS = (
    Spec("tz", S, None, ("--tz",), "Zone of naive times in the query (IANA name, UTC, local, +02:00; default local).", "ZONE"),
    Spec("utc", bool, False, ("--utc",), "Read naive times in the query as UTC."),
)  # fmt: skip


def _long_only(spec: Spec) -> Spec:
    return spec.replace(decls=tuple(d for d in spec.decls if d.startswith("--")))


SELECTION_HELP = (
    "The query (`convo query --help`); - reads message ids from standard input (one a line, "
    "or JSONL records)."
)


def selection_options(func, *, short: bool = True):
    """The query words, ``--store``, the filters (no limit or order) and the zone, for
    commands that change what a query selects (``rm``, ``tag``); ``func(args: ReadArgs)``.
    ``short=False`` keeps long options only (``tag``'s ``-inbox`` is a tag)."""
    words = INPUT_SPECS[0].replace(help=SELECTION_HELP, metavar="QUERY")
    filters = [s for s in FILTER_SPECS if s.name not in ("limit", "reverse")]
    specs = (words, *INPUT_SPECS[1:], *_TIME_SPECS, *filters)
    if not short:
        specs = tuple(_long_only(s) if s.decls else s for s in specs)

    return _with_params(func, _params(specs), defaulted_read_args)


def defaulted_read_args(kw: dict[str, Any]) -> dict[str, ReadArgs]:
    """``read_args`` of a command that declares only some of the read options."""
    for spec in read_specs(None):
        kw.setdefault(spec.name, spec.default)
    return read_args(kw)


STORE_HELP = (
    "The store file (default: --store of convo, $CONVO_STORE, the config file's store, or "
    "the XDG data home)."
)
SERVED_TZ_HELP = (
    "Read naive times of queries in this zone (IANA name); default: the config file's tz, "
    "else local time."
)


def store_path(ctx: Any, explicit: str | None):
    """The store a maintenance command (``index``, ``embed``, ``mcp``, ``serve``) works
    on: its own ``--store`` (``STORE_HELP``), else the one every read command takes
    (convo's global ``--store``, ``$CONVO_STORE``, the config file's ``store``), else the
    default; links followed, so the index and lock live beside the target. ``ctx`` is
    kept for callers; the global choice is the callback's (``cli/group.py``)."""
    from convo.cli.runtime import state
    from convo.store import Store

    return Store(explicit or state.get("store")).real


def served_store(ctx: Any, explicit: str | None, tz: str | None, utc: bool):
    """The ``Store`` a server (``convo mcp``, ``convo serve``) answers from, opened as the
    read commands open theirs: ``store_path``'s store, the people file of
    ``--people``/``$CONVO_PEOPLE``/the config file, naive query times in ``tz`` (else UTC
    with ``utc``, else the config file's ``tz``, else local). An unknown zone is a usage
    error now, not on every call."""
    from convo.cli.runtime import state
    from convo.core.people import People
    from convo.query.model import zone_of
    from convo.store import Store

    if tz is None and not utc:  # --utc on the command line wins over the file's zone
        tz = state.get("config_tz")
    if tz is not None:
        zone_of(tz)
    people_file = state.get("people")
    people = People.load(people_file) if people_file else None
    return Store(store_path(ctx, explicit), tz=tz, utc=utc, people=people)


def store_options(func):
    """Only ``--store``; ``func(args: ReadArgs)``."""
    return _with_params(func, _params(INPUT_SPECS[1:]), defaulted_read_args)


def read_options_for(
    formats: Sequence[str] | None,
    hidden: Sequence[str] = (),
    helps: dict[str, str] | None = None,
):
    """``read_options`` with ``-f`` limited to ``formats`` (None: every registered writer);
    the options named in ``hidden`` (``format``, ``utc``, ``pager``) are left out of
    ``--help``, for a command they do not apply to: still accepted, so the command can
    refuse one with a hint (``export -f``) or a script that passes one keeps working.
    ``helps``: an option's own help in this command (``limit``: rows, not messages)."""

    def decorate(func):
        given = helps or {}
        specs = read_specs(formats)
        params = _params(tuple(s.replace(help=given[s.name]) if s.name in given else s
                               for s in specs))  # fmt: skip
        for p in params:
            if p.name in hidden:
                p.default.hidden = True  # typer's OptionInfo
        return _with_params(func, params, read_args)

    return decorate


def read_options(func):
    """Add inputs, import options, filters, output options and --store;
    call ``func(args: ReadArgs, ...)``."""
    return read_options_for(None)(func)
