"""Options shared by commands, declared once (as sqlite-utils' shared decorators do).

``@read_options`` gives a command the inputs argument, every filter, the output options
and ``--store``, and hands the command one ``ReadArgs``. Typer reads the signature, so
the decorator rewrites it; the command's own parameters stay in front.
"""

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any

import typer

FORMAT_CHOICES = ("table", "jsonl", "json", "csv", "markdown", "text")


@dataclass
class ReadArgs:
    inputs: list[str] = field(default_factory=list)
    store: str | None = None
    speakers: list[str] = field(default_factory=list)
    listeners: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    texts: list[str] = field(default_factory=list)
    regexes: list[str] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)
    limit: int | None = None
    reverse: bool = False
    format: str | None = None
    utc: bool = False
    tz: str | None = None
    pager: bool = False

    def filters(self):
        """The ``query.Filters`` these options describe (relative dates resolved now)."""
        from convo.core.errors import UsageError
        from convo.core.timestamps import get_zone, parse_when
        from convo.query.scan import Filters

        try:
            zone = get_zone(self.tz)
        except ValueError as e:
            raise UsageError(str(e)) from None  # the message names the accepted forms
        try:
            since = parse_when(self.since, zone=zone) if self.since else None
            until = parse_when(self.until, zone=zone) if self.until else None
        except ValueError as e:
            raise UsageError(
                str(e),
                hint="use an ISO date (2024-03-06), a time, 'yesterday' or an age like 7d, 2w, 3h",
            ) from None
        if self.limit is not None and self.limit < 0:
            raise UsageError("--limit must be 0 or more")
        return Filters(
            speakers=self.speakers, listeners=self.listeners, tags=self.tags,
            since=since, until=until, texts=self.texts, regexes=self.regexes,
            threads=self.threads, limit=self.limit, reverse=self.reverse,
        )  # fmt: skip

    def matches(self, env, reporter, *, default_store: str | None = None, need_record: bool = True):
        """The selected records: inputs per DESIGN.md §2 (named, stdin, else the store),
        these filters, limit and order applied; bad lines and rejects go to ``reporter``."""
        from convo.pipeline.inputs import record_parts
        from convo.query.scan import Selector

        selector = Selector(self.filters())
        parts = record_parts(
            self.inputs, store=self.store or default_store, stdin_has_data=env.stdin_has_data,
            on_reject=reporter.reject,
        )  # fmt: skip
        return selector.select_parts(parts, reporter.bad_line, need_record=need_record)


def _opt(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def _input_params() -> list[inspect.Parameter]:
    return [
        inspect.Parameter(
            "inputs",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=typer.Argument(
                None,
                help="Files or folders to read (any importable format; - for stdin). "
                "Default: stdin when it is a pipe or a file, else the store.",
                show_default=False,
                metavar="FILE",
            ),
            annotation=list[str] | None,
        ),
        _opt(
            "store",
            str | None,
            typer.Option(
                None, "--store",
                help="The store file (default $XDG_DATA_HOME/convo/messages.jsonl).",
            ),
        ),
    ]  # fmt: skip


def _filter_params() -> list[inspect.Parameter]:
    L = list[str] | None
    return [
        _opt("speaker", L, typer.Option(None, "--speaker", "-s", metavar="NAME", help="Speaker name, display name, address or whole words of it; repeat to OR.")),
        _opt("listener", L, typer.Option(None, "--listener", "-r", metavar="NAME", help="A listener (recipient), matched like --speaker; repeat to OR.")),
        _opt("tag", L, typer.Option(None, "--tag", "-t", metavar="TAG", help="A tag (case-insensitive); repeat to OR.")),
        _opt("since", str | None, typer.Option(None, "--since", metavar="WHEN", help="From this time on: 2024-03-06, '2024-03-06 10:00', yesterday, 7d, 2w, 3h.")),
        _opt("until", str | None, typer.Option(None, "--until", metavar="WHEN", help="Before this time (exclusive); same forms as --since.")),
        _opt("text", L, typer.Option(None, "--text", "-q", metavar="WORDS", help="Words that must all occur in the text or subject (case-insensitive); repeat to OR.")),
        _opt("regex", L, typer.Option(None, "--regex", "-e", metavar="REGEX", help="A Python regular expression searched in the text; repeat to OR.")),
        _opt("thread", L, typer.Option(None, "--thread", metavar="ID", help="A thread id (or the id of its first message); repeat to OR.")),
        _opt("limit", int | None, typer.Option(None, "--limit", "-n", metavar="N", help="At most this many messages.")),
        _opt("reverse", bool, typer.Option(False, "--reverse", help="Last first (input order reversed).")),
        _opt("tz", str | None, typer.Option(None, "--tz", metavar="ZONE", help="Zone for naive --since/--until times (default UTC).")),
    ]  # fmt: skip


def _output_params() -> list[inspect.Parameter]:
    return [
        _opt("format", str | None, typer.Option(
            None, "--format", "-f", metavar="FORMAT",
            help="Output: table|jsonl|json|csv|markdown|text. Default: table on a terminal, jsonl when piped.",
        )),
        _opt("utc", bool, typer.Option(False, "--utc", help="Show times in UTC instead of local time.")),
        _opt("pager", bool, typer.Option(False, "--pager", help="Page long terminal output.")),
    ]  # fmt: skip


_READ_KEYS = {
    "inputs": "inputs", "store": "store", "speaker": "speakers", "listener": "listeners",
    "tag": "tags", "since": "since", "until": "until", "text": "texts", "regex": "regexes",
    "thread": "threads", "limit": "limit", "reverse": "reverse", "format": "format",
    "utc": "utc", "tz": "tz", "pager": "pager",
}  # fmt: skip


def read_options(func):
    """Add inputs, filters, output options and --store; call ``func(args: ReadArgs, ...)``."""
    sig = inspect.signature(func)
    own = [p for name, p in sig.parameters.items() if name != "args"]
    added = _input_params() + _filter_params() + _output_params()
    positional = [p for p in added if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in added if p.kind is inspect.Parameter.KEYWORD_ONLY]
    own_pos = [p for p in own if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    own_kw = [p for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
    params = (
        own_pos
        + positional
        + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own_kw]
        + keyword
    )

    @functools.wraps(func)
    def wrapper(*a: Any, **kwargs: Any) -> Any:
        values = {dest: kwargs.pop(src) for src, dest in _READ_KEYS.items() if src in kwargs}
        for key in ("inputs", "speakers", "listeners", "tags", "texts", "regexes", "threads"):
            values[key] = list(values.get(key) or [])
        fmt = values.get("format")
        if fmt is not None and fmt not in FORMAT_CHOICES:
            from convo.core.errors import UsageError

            raise UsageError(f"unknown --format {fmt!r}", hint="choose " + "|".join(FORMAT_CHOICES))
        return func(*a, args=ReadArgs(**values), **kwargs)

    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper
