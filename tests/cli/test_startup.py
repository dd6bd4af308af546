"""Start-up stays lazy: what ``convo --help`` and an indexed ``convo list`` import.

Not timed (machines differ): the modules a run leaves in ``sys.modules`` are checked, in
a fresh interpreter, so an eager import that slips in anywhere shows up here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from tests.index.helpers import rec, write_store

from convo.cli.app import app

_RUN = """
import json, sys
sys.argv = ["convo", *json.loads(sys.argv[1])]
from convo.cli.app import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""

# Loaded on first use only: pydantic (records), the formats, rich, entry-point metadata.
NEVER_AT_START = ("pydantic", "rich", "importlib.metadata", "email", "dateutil")
FORMAT_FAMILIES = ("records", "transcripts", "email", "agents", "apps", "forums")


def _modules(*argv: str, env: dict[str, str] | None = None) -> set[str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(list(argv))],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": src, **(env or {})},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stderr.rpartition("MODULES ")[2]))


# ``_RUN`` imports json, and json imports re: this one passes the arguments as they are.
_RUN_WITHOUT_JSON = """
import sys
sys.argv = ["convo", *sys.argv[1:]]
from convo.cli.app import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
"""


def _modules_without_json(*argv: str) -> set[str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", _RUN_WITHOUT_JSON, *argv],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": src},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.rpartition("MODULES ")[2].split())


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_help_imports_only_the_command_line():
    modules = _modules("--help")
    convo = {m for m in modules if m.startswith("convo.")}
    assert convo <= {
        m
        for m in convo
        if m.startswith("convo.cli")
        # lazy: the package's own; slotted: the option groups' classes (not dataclasses)
        or m in ("convo.core", "convo.core.errors", "convo.core.lazy", "convo.core.slotted")
    }, convo
    for name in (*NEVER_AT_START, "sqlite3", "orjson"):
        assert not _loaded(modules, name), name


def test_indexed_list_loads_no_format_and_no_pydantic(tmp_path):
    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(20)])
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), "list", "--latest", "3", "-f", "jsonl")
    for name in (*NEVER_AT_START, "typer", "click"):  # the fast path (cli/fast.py)
        assert not _loaded(modules, name), name
    for name in ("convo.index.build", "convo.query.language"):
        assert name not in modules, name
    for family in FORMAT_FAMILIES:
        assert not _loaded(modules, f"convo.importers.{family}"), family
    assert "convo.index.lookup" in modules  # it did read through the index


# What an indexed read of a fresh index must not import (the index answers, so neither the
# scan's machinery nor any writing side is needed): measured with ``python -X importtime``,
# each of these cost 1-20 ms of a command whose lookup takes about 1 ms. The second line:
# the scan (``Selector``, its filters' checks), the reading side of named inputs (core.io,
# core.jsonl: orjson, which imports uuid and platform), the import options
# (importers.context), the index's checker and full-text search, the progress bar's
# thread, and the people file's reader when no people file is given: together 25-30% of
# the CPU time of `list --latest 10` and `query --count` (paired runs against the code
# before the cut; BENCHMARKS.md, the index section, has the commands' times).
NOT_FOR_AN_INDEXED_READ = (
    *NEVER_AT_START, "typer", "click", "gzip", "tempfile", "hashlib", "shutil", "pickle",
    "convo.importers.registry", "convo.output.writers.table", "convo.output.views",
    "convo.query.compiled", "convo.query.linescan", "convo.query.parallel", "convo.core.pool",
    "convo.store.append", "convo.index.build", "convo.store.dedup", "convo.query.language",
    "convo.query.scan", "convo.query.blocks", "convo.core.io", "convo.core.jsonl", "orjson",
    "uuid", "platform", "zlib", "convo.importers.context", "convo.core.encoding",
    "convo.core.walk", "convo.index.check", "convo.index.search", "convo.index.rows",
    "threading", "glob", "convo.core.people",
    # Nor, since the classes on the path are plain (core/slotted.py), dataclasses and the
    # inspect it imports (8.8 ms with the code each dataclass generated); nor a zone's
    # machinery for a naive --since (core.timestamps.LocalZone: dateutil.tz loads
    # ctypes, zoneinfo and importlib.resources, ~10 ms), nor a day's parser; nor pathlib
    # with the urllib.parse it imports (~4 ms: the store's and index's paths are strings).
    "dataclasses", "inspect", "ctypes", "zoneinfo", "importlib.resources", "decimal",
    "pathlib", "urllib", "ipaddress",
)  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [
        ["list", "--latest", "3", "-f", "jsonl"],
        ["query", "--count"],
        ["query", "--count", "--tag", "x"],
        ["query", "--speaker", "bob", "-f", "jsonl"],
        ["list", "--latest", "3", "--sort=-time", "--tag", "x", "-f", "json"],
        ["query", "--count", "--since", "2018-01-01"],  # a naive day, in the local zone
        ["query", "--count", "--since", "2018-01-01T10:00", "--until", "2031"],
        ["query", "--count", "--utc", "--since", "7d"],
    ],
)
def test_indexed_read_imports_only_what_it_needs(tmp_path, argv):
    recs = [rec(i, speaker="Bob <bob@x.org>" if i % 3 else "Al", tags=["x"]) for i in range(20)]
    store = write_store(tmp_path / "s.jsonl", recs)
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), *argv)
    for name in NOT_FOR_AN_INDEXED_READ:
        assert not _loaded(modules, name), name
    assert not _loaded(modules, "convo.importers.records"), "a format was loaded"
    assert "convo.index.lookup" in modules


@pytest.mark.parametrize(
    "argv",
    [
        ["query", "--count"],
        ["query", "--count", "--tag", "x"],
        ["query", "--count", "--since", "2018-01-01"],
        ["query", "--count", "--", "role:user", "OR", "-tag:x"],
        ["query", "--count", "format:mbox"],
    ],
)
def test_indexed_count_imports_no_typing(tmp_path, argv):
    """The modules of an indexed count import ``typing`` only for the type checker
    (``TYPE_CHECKING = False``; their small classes are ``core.slotted`` ones, not
    NamedTuples): ``typing`` with what it alone imports was about 5 ms of CPU of a
    40-50 ms command (docs/startup.md, "Indexed read")."""
    store = write_store(tmp_path / "s.jsonl", [rec(i, tags=["x"]) for i in range(5)])
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), *argv)
    assert "typing" not in modules
    assert "convo.index.lookup" in modules


@pytest.mark.parametrize(
    "argv",
    [
        ["query", "--count"],
        ["query", "--count", "format:mbox"],
        ["query", "--count", "role:user"],
        ["query", "--count", "--tag", "x"],
        ["list", "--latest", "3", "-f", "jsonl"],
    ],
)
def test_indexed_read_imports_no_re_enum_or_signal_wrapper(tmp_path, argv):
    """``re`` (with ``enum``, its flags' class), and the ``signal`` module (the
    ``_signal`` functions wrapped in three IntEnums) are not imported by an indexed count
    or latest, nor ``contextlib`` by a count: together 28M of the 131M instructions of
    ``query --count format:mbox`` (docs/startup.md, "Third pass").
    Their patterns are compiled on first use (``core.lazy.pattern``), a path-like word
    and a field's name are checked by hand (``tests/cli/test_words.py`` holds each check
    equal to its pattern), the exit codes are plain ints."""
    store = write_store(tmp_path / "s.jsonl", [rec(i, tags=["x"]) for i in range(5)])
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules_without_json("--store", str(store), *argv)
    for name in ("re", "enum", "signal"):
        assert name not in modules, name
    if argv[0] == "query":  # a count (stderr not a terminal): no progress bar's module,
        # no contextlib (``index.lookup.Opened``, ``cli.commands.read._NoBar``)
        # nor the matches' module, which only lines read need (``store.select``)
        for name in ("contextlib", "convo.output.progress", "convo.query.matches", "array"):
            assert name not in modules, name
    assert "convo.index.lookup" in modules


@pytest.mark.parametrize("argv", [["-q", "hello"], ['"hello world"'], ["-q", "hello world"]])
def test_an_indexed_text_count_parses_no_line_it_can_decide(tmp_path, argv):
    """The candidates of text words and phrases are decided on their bytes
    (``store.select._check``): no orjson (with the dataclasses, uuid and inspect it
    imports, about 57M instructions of a command of 270M), no ``typing``."""
    recs = [rec(i, text="hello world" if i % 20 == 0 else "other") for i in range(40)]
    keys = ("textChunks", "metadata", "tags", "timestamp")  # in the order convo writes them
    recs = [{**{k: r.pop(k) for k in keys}, **r} for r in recs]
    store = write_store(tmp_path / "s.jsonl", recs)
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), "query", "--count", *argv)
    for name in ("orjson", "typing", "dataclasses", *NOT_FOR_AN_INDEXED_READ):
        if name != "convo.query.language" or argv[0] == "-q":  # a phrase is the language's
            assert not _loaded(modules, name), name
    assert "convo.query.rawtext" in modules


@pytest.mark.parametrize(
    "words",
    [["format:mbox"], ["date:2018..2031", "tag:x"], ["role:user", "OR", "-tag:x"], ["thread:t1"]],
)
def test_indexed_query_words_import_only_the_language(tmp_path, words):
    """A query in the language (``format:mbox``) adds only its parser (and, for a
    format's or a name's SQL, the standard library's json): no zone for a query
    without a date, no dateutil for one with a day."""
    recs = [rec(i, speaker="Bob <bob@x.org>" if i % 3 else "Al", tags=["x"]) for i in range(20)]
    store = write_store(tmp_path / "s.jsonl", recs)
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), "query", "--count", "--explain", "--", *words)
    for name in NOT_FOR_AN_INDEXED_READ:
        if name != "convo.query.language":
            assert not _loaded(modules, name), name
    assert "convo.query.language" in modules and "convo.index.lookup" in modules


@pytest.mark.parametrize("fmt", ["csv", "markdown", "json", "table"])
def test_count_is_the_number_alone(tmp_path, fmt):
    """``--count`` makes no writer: no CSV header or document title before the number,
    through the index or the scan."""
    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(7)])
    argv = ["--store", str(store), "query", "--count", "-f", fmt]
    for indexed in (False, True):
        if indexed:
            from convo.index import refresh

            assert refresh(store, wait=True).available
        proc = subprocess.run(
            [sys.executable, "-m", "convo", *argv], capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
        )  # fmt: skip
        assert (proc.returncode, proc.stdout) == (0, "7\n"), proc.stderr


@pytest.mark.parametrize("argv", [["--count"], ["-f", "jsonl"], ["--latest", "2", "-f", "jsonl"]])
def test_a_bad_regex_is_a_usage_error_before_anything_is_read(tmp_path, argv):
    """The scan's selector is made only when needed, but one with a regex still first: a
    bad regex is the usage error, and a stale index is not brought up to date for it."""
    from convo.index import refresh, status

    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(5)])
    assert refresh(store, wait=True).available
    with open(store, "ab") as f:
        f.write(write_store(tmp_path / "more.jsonl", [rec(9)]).read_bytes())
    assert status(store).state == "append"
    proc = subprocess.run(
        [sys.executable, "-m", "convo", "--store", str(store), "query", "-e", "(", *argv],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("convo: error: bad --regex") and proc.stderr.count("\n") == 1
    assert status(store).state == "append"


@pytest.mark.parametrize(
    ("option", "error"),
    [(["--encoding", "no-such"], "unknown --encoding"), (["--start-date", "soon"], "unreadable --start-date")],
)  # fmt: skip
def test_bad_import_options_are_usage_errors_on_an_indexed_read(tmp_path, option, error):
    """The import options are made when an input is read, but checked before: a read the
    index answers still refuses a bad one."""
    from convo.index import refresh

    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(5)])
    assert refresh(store, wait=True).available
    for argv in (["query", "--count"], ["list", "--latest", "2", "-f", "jsonl"]):
        proc = subprocess.run(
            [sys.executable, "-m", "convo", "--store", str(store), *argv, *option],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
        )  # fmt: skip
        assert proc.returncode == 2 and error in proc.stderr, proc.stderr


def test_scan_fallback_still_loads_the_scan(tmp_path):
    """Without an index the same command scans (the lazy imports load what it needs)."""
    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(20)])
    modules = _modules("--store", str(store), "query", "--speaker", "alice", "-f", "jsonl")
    assert "convo.query.compiled" in modules and "convo.query.linescan" in modules


def test_help_converts_no_command():
    """The command list comes from what was registered; only a command that runs is
    turned into a click command (``cli/lazy.py``)."""
    group = typer.main.get_command(app)
    assert group.main(["--help"], prog_name="convo", standalone_mode=False) == 0
    assert group.commands.converted() == []
    ctx = typer.Context(group)
    assert group.get_command(ctx, "list").name == "list"
    assert group.commands.converted() == ["list"]
    assert list(group.commands) == group.list_commands(ctx)  # registration order kept


@pytest.mark.parametrize("argv", [["people", "-f", "json"], ["threads", "-f", "json"]])
def test_typer_commands_coerce_without_pydantic(tmp_path, argv):
    """A command typer parses imports no pydantic for its plain options (cli/coercion.py,
    on typer's public API only)."""
    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(5)])
    from convo.index import refresh

    assert refresh(store, wait=True).available
    modules = _modules("--store", str(store), *argv)
    assert "typer" in modules and not _loaded(modules, "pydantic")


# What `convo ingest chat.json` must not import for a JSON chat format (docs/startup.md
# has the import times): the email and transcript format modules (detection imports a
# format's module only when its gate admits the head: importers/gates.py), the mail
# parser of the standard library, importlib.metadata (pydantic's plug-in loader, reached
# when a schema is built: the record's is deferred to its first validation, and typer's
# adapters are not built for options not given: cli/coercion.py), typer's pydantic
# adapters themselves; for a head that opens an object, the text chat formats too.
NOT_FOR_A_JSON_CHAT_INGEST = (
    "convo.importers.email.", "convo.importers.transcripts.", "email", "importlib.metadata",
    "typer._adapters", "pydantic.plugin._loader", "convo.importers.forums.stackexchange",
    "convo.importers.forums.phpbb", "convo.importers.apps.chatgpt",
    "convo.importers.apps.discord",
    # Imported where they are used (a worker's pickles, the index, a hash other than
    # blake2b, an HTML body), not at start (docs/startup.md).
    "pickle", "sqlite3", "_hashlib", "html.parser",
)  # fmt: skip
NOT_FOR_A_JSON_OBJECT = (
    "convo.importers.apps.whatsapp",
    "convo.importers.apps.irc",
    "convo.importers.apps.zoom",
)


@pytest.mark.parametrize(
    ("doc", "also_not"),
    [
        ('{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}', NOT_FOR_A_JSON_OBJECT),
        ('[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]', ()),
    ],
)  # fmt: skip
def test_json_chat_ingest_imports_no_other_family(tmp_path, doc, also_not):
    path = tmp_path / "chat.json"
    path.write_text(doc)
    modules = _modules("ingest", str(path), "-o", str(tmp_path / "out.jsonl"), "--quiet")
    assert (tmp_path / "out.jsonl").read_text().count("\n") >= 1  # it did import
    for name in (*NOT_FOR_A_JSON_CHAT_INGEST, *also_not):
        if name.endswith("."):
            assert not any(m.startswith(name) for m in modules), name
        else:
            assert not _loaded(modules, name), name
    assert "convo.importers.agents.formats" in modules


@pytest.mark.parametrize(
    "doc",
    [
        '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}',
        '[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]',
    ],
)
def test_chat_ingest_imports_no_pydantic(tmp_path, doc):
    """The record's classes are plain dataclasses and an ingest validates its records
    without pydantic (``check_message``): pydantic is imported on a first validation
    only (``core/record_model.py``; docs/startup.md has what it cost)."""
    path = tmp_path / "chat.json"
    path.write_text(doc)
    modules = _modules("ingest", str(path), "-o", str(tmp_path / "out.jsonl"), "--quiet")
    assert (tmp_path / "out.jsonl").read_text().count("\n") == 2 - doc.startswith("[")
    assert "convo.core.record" in modules
    assert not _loaded(modules, "pydantic") and not _loaded(modules, "pydantic_core")
    assert "convo.core.record_model" not in modules
