"""The config file: settings a person would otherwise repeat on every command line.

``$XDG_CONFIG_HOME/convo/config.toml`` (``~/.config/convo/config.toml``; ``$CONVO_CONFIG``
names another file), TOML:

    store = "~/convo/messages.jsonl"   # as --store / $CONVO_STORE
    people = "~/convo/people.toml"     # as --people / $CONVO_PEOPLE
    tz = "Europe/Berlin"               # as --tz: naive times read and shown in this zone
    sort = "-time"                     # list and query's order when none is asked for
    columns = "time,from,to,text"      # the columns of list and query's terminal table
    llm_url = "http://localhost:11434/v1"  # as --llm-url / $CONVO_LLM_URL
    llm_model = "llama3.1"             # as --llm-model / $CONVO_LLM_MODEL

A value given on the command line wins, then the environment variable, then the file,
then convo's default; ``convo config`` shows each value in effect and where it came
from. A store named only by the file is a location, as ``$CONVO_STORE`` is: a piped
standard input is still the input (docs/cli.md). A bad file is one located error line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from convo.core.errors import UsageError

KEYS = {
    "store": ("--store", "CONVO_STORE", "the store file"),
    "people": ("--people", "CONVO_PEOPLE", "the people file"),
    "tz": ("--tz", None, "the zone of naive times (default: local)"),
    "sort": ("--sort", None, "list/query order when none is given: time or -time"),
    "columns": (None, None, "the terminal table's columns, comma-separated"),
    "llm_url": ("--llm-url", "CONVO_LLM_URL", "the chat endpoint of --extractor llm"),
    "llm_model": ("--llm-model", "CONVO_LLM_MODEL", "the model of --extractor llm"),
}
SORTS = ("time", "-time")


def path() -> Path:
    """Where the config file is (whether or not it exists)."""
    named = os.environ.get("CONVO_CONFIG")
    if named:
        return Path(named).expanduser()
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(home) / "convo" / "config.toml"


def load() -> dict[str, str]:
    """The file's settings (empty without a file); unknown keys and bad values are errors."""
    where = path()
    try:
        data = where.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise UsageError(
            f"the config file cannot be read ({e.strerror})", where=str(where)
        ) from None
    import tomllib

    try:
        values = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UsageError(
            f"not a TOML file ({e})", where=str(where), hint="see `convo config --help`"
        ) from None
    return _checked(values, str(where))


def _checked(values: dict[str, Any], where: str) -> dict[str, str]:
    unknown = sorted(set(values) - set(KEYS))
    if unknown:
        raise UsageError(
            f"unknown setting {unknown[0]!r}", where=where, hint=f"settings: {', '.join(KEYS)}"
        )
    for key, value in values.items():
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"{key} must be a non-empty string", where=where)
        if "\x00" in value:  # TOML's "\u0000": no path or name holds one (an internal error)
            raise UsageError(f"{key} holds a NUL character (\\u0000)", where=where)
    if "sort" in values and values["sort"] not in SORTS:
        raise UsageError(f"sort must be time or -time, not {values['sort']!r}", where=where)
    if "columns" in values:
        from convo.output.writers.columns import parse

        parse(values["columns"], where=where)
    return {
        k: (str(Path(v).expanduser()) if k in ("store", "people") else v) for k, v in values.items()
    }


def in_effect(given: dict[str, str | None]) -> list[tuple[str, str | None, str]]:
    """``(key, value, source)`` for every setting: ``given`` (the command line's values),
    then the environment, then the file, then the default."""
    found = load()
    out = []
    for key, (option, env, _what) in KEYS.items():
        if option and given.get(key):
            out.append((key, given[key], f"the {option} option"))
        elif env and os.environ.get(env):
            out.append((key, os.environ[env], f"${env}"))
        elif key in found:
            out.append((key, found[key], str(path())))
        elif key == "store":  # where the commands read and write with none of the above
            from convo.store.path import store_location

            out.append((key, store_location(None), "default"))
        else:
            out.append((key, None, "default"))
    return out
