"""The command reference, from the CLI itself: one Markdown page per ``convo`` command.

The click command tree behind the Typer app is walked (``cli.group.app``; a group's
subcommands too): each command's help, usage line, arguments and options with their
type, default, environment variable and help, as ``convo COMMAND --help`` has them, the
way cog writes sqlite-utils' CLI reference. Nothing depends on the terminal: text is
wrapped by no one, usage lines are built from the parameters, and the caller
(``docs_reference.isolated``) keeps the environment and config out of defaults.
"""

from __future__ import annotations

import inspect
from typing import Any

from reference_markdown import code_block, inline, paragraphs, table_cell

PROG = "convo"


def command_tree() -> tuple[Any, Any]:
    """The app's click group and a context for it (prog name ``convo``)."""
    import typer.main

    from convo.cli.group import app

    group = typer.main.get_command(app)
    return group, group.context_class(group, info_name=PROG)


def walk(group: Any, ctx: Any) -> list[tuple[list[str], Any, Any]]:
    """Every command under ``group``: (its words after ``convo``, command, context), in the
    order ``convo --help`` lists them; a group's subcommands follow it."""
    found: list[tuple[list[str], Any, Any]] = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None or cmd.hidden:
            continue
        sub_ctx = cmd.context_class(cmd, info_name=name, parent=ctx)
        words = [*ctx.command_path.split()[1:], name]
        found.append((words, cmd, sub_ctx))
        if hasattr(cmd, "list_commands"):
            found.extend(walk(cmd, sub_ctx))
    return found


def page_name(words: list[str]) -> str:
    """``rm.md``, ``tag-add.md``; ``convo index``'s page is ``index-command.md``, as
    ``index.md`` is the list of commands."""
    name = "-".join(words)
    return ("index-command" if name == "index" else name) + ".md"


def _help(cmd: Any) -> tuple[str, str]:
    """A command's first paragraph (its summary) and the rest of its help, as written."""
    text = inspect.cleandoc(cmd.help or "").replace("\b\n", "")
    first, _, rest = text.partition("\n\n")
    return " ".join(first.split()), rest.strip("\n")


def usage(cmd: Any, ctx: Any) -> str:
    pieces = cmd.collect_usage_pieces(ctx)
    return " ".join([ctx.command_path, *pieces])


def _choices(param: Any) -> list[str] | None:
    info = getattr(param.type_descriptor, "parameter_info", None)
    parser: Any = getattr(info, "parser", None)
    if hasattr(parser, "names"):  # cli.choices.Choices
        return list(parser.names())
    if param.type_descriptor.is_choice:
        return [str(c) for c in param.type_descriptor.choices or ()]
    return None


_TYPES = {"str": "text", "int": "integer", "float": "number", "bool": "boolean", "Path": "path"}


def type_label(param: Any) -> str:
    """What the value is: a flag, one of some choices, or text, integer, number..."""
    if getattr(param, "is_flag", False):
        return "flag"
    choices = _choices(param)
    if choices:
        label = "one of " + ", ".join(f"`{c}`" for c in choices)
    else:
        annotation = param.type_descriptor.annotation
        element = (getattr(annotation, "__args__", None) or (annotation,))[0]
        label = _TYPES.get(getattr(element, "__name__", str(element)), str(element))
    limits = param._get_number_range_help_str()
    if limits:
        label += f" ({limits})"
    if param.multiple or param.nargs == -1:
        label += ", repeatable"
    return label


def default_label(param: Any, ctx: Any) -> str:
    if isinstance(param.show_default, str):
        return inline(param.show_default)
    value = param.get_default(ctx, call=False)
    if callable(value):
        return "computed when run"
    if value is None or value == () or value == []:
        return "none"
    if value is False and getattr(param, "is_flag", False):
        return "off"
    if value is True and getattr(param, "is_flag", False):
        return "on"
    return f"`{value}`"


def signature(param: Any) -> str:
    """``-o, --output FILE`` (an argument: its metavar)."""
    if param.param_type_name == "argument":
        return f"`{param.metavar or param.name.upper()}`"
    names = ", ".join([*sorted(param.opts, key=len), *param.secondary_opts])
    if not getattr(param, "is_flag", False):
        choices = _choices(param)
        shown = param.metavar
        if choices and (shown is None or shown.startswith("[")):  # as --help shows them
            shown = "[" + "|".join(choices) + "]"
        names += " " + (shown or param.name.upper())
    return f"`{names}`"


def param_entry(param: Any, ctx: Any) -> str:
    facts = [f"type: {type_label(param)}", f"default: {default_label(param, ctx)}"]
    if param.envvar:
        envvars = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar)
        facts.append("environment: " + ", ".join(f"`${e}`" for e in envvars))
    if param.required:
        facts.append("required")
    help_text = inline(" ".join((param.help or "").split())) or "(no help)"
    return f"- {signature(param)}: {help_text}\n  ({'; '.join(facts)})"


def _params_section(title: str, params: list[Any], ctx: Any) -> list[str]:
    if not params:
        return []
    return [f"## {title}", "", *(param_entry(p, ctx) for p in params), ""]


def command_page(words: list[str], cmd: Any, ctx: Any) -> str:
    summary, rest = _help(cmd)
    visible = [p for p in cmd.params if not getattr(p, "hidden", False)]
    lines = [
        f"# {PROG} {' '.join(words)}",
        "",
        "<!-- Generated by tools/docs_reference.py from the CLI; do not edit. -->",
        "",
        inline(summary),
        "",
        code_block(usage(cmd, ctx)),
        "",
    ]
    if rest:
        lines += [*paragraphs(rest), ""]
    lines += _params_section("Arguments", [p for p in visible if _is_argument(p)], ctx)
    options = [p for p in visible if not _is_argument(p)]
    lines += _params_section("Options", options, ctx)
    if hasattr(cmd, "list_commands"):
        lines += ["## Commands", ""]
        lines += [
            f"- [`{PROG} {' '.join(w)}`]({page_name(w)}): {inline(_help(c)[0])}"
            for w, c, _ in walk(cmd, ctx)
        ]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _is_argument(param: Any) -> bool:
    return bool(param.param_type_name == "argument")


def index_page(group: Any, ctx: Any, commands: list[tuple[list[str], Any, Any]]) -> str:
    summary, _ = _help(group)
    lines = [
        "# Command reference",
        "",
        "<!-- Generated by tools/docs_reference.py from the CLI; do not edit. -->",
        "",
        f"{inline(summary)} Every command, as `{PROG} COMMAND --help` shows it, one page "
        "each; the options below go before the command (`convo --store x.jsonl list`).",
        "",
        code_block(usage(group, ctx)),
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for words, cmd, _ in commands:
        name = " ".join(words)
        link = f"[`{name}`]({page_name(words)})"
        lines.append(f"| {link} | {table_cell(inline(_help(cmd)[0]))} |")
    lines.append("")
    visible = [p for p in group.params if not getattr(p, "hidden", False)]
    lines += _params_section("Options of every command", visible, ctx)
    return "\n".join(lines).rstrip("\n") + "\n"


def pages() -> dict[str, str]:
    """``commands/<command>.md`` for every command and ``commands/index.md``."""
    group, ctx = command_tree()
    commands = walk(group, ctx)
    out = {"commands/index.md": index_page(group, ctx, commands)}
    for words, cmd, sub_ctx in commands:
        out["commands/" + page_name(words)] = command_page(words, cmd, sub_ctx)
    return out
