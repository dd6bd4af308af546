"""The generated references (docs/reference/) are what tools/docs_reference.py makes now.

A page that is stale, missing (a new command or format) or left over (one that is gone)
fails here; `python tools/docs_reference.py` writes them again. The format declarations
they are made from are checked against what the readers do.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import sys
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from conftest import ROOT
from convo.importers.fields import Fields
from convo.importers.registry import registry


def _load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


docs_reference = _load("docs_reference")  # puts tools/ on sys.path for the two below
reference_formats = _load("reference_formats")
reference_commands = _load("reference_commands")


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return docs_reference.pages()


def test_committed_pages_are_current(generated):
    problems = docs_reference.differences(generated, docs_reference.committed())
    assert problems == [], "run: python tools/docs_reference.py"


def test_every_command_and_format_has_a_page(generated):
    group, ctx = reference_commands.command_tree()
    for words, _, _ in reference_commands.walk(group, ctx):
        assert "commands/" + reference_commands.page_name(words) in generated
    for fmt in registry.formats():
        assert f"formats/{fmt.name}.md" in generated
    assert {"commands/index.md", "formats/index.md"} <= set(generated)
    commands = len(reference_commands.walk(group, ctx))
    assert len(generated) == commands + len(registry.formats()) + 2


def test_differences_name_stale_missing_and_left_over_pages():
    wanted = {"formats/a.md": "new\n", "formats/b.md": "b\n"}
    have = {"formats/a.md": "old\n", "formats/gone.md": "x\n"}
    assert docs_reference.differences(wanted, have) == [
        "stale: formats/a.md",
        "missing: formats/b.md",
        "left over: formats/gone.md",
    ]


def test_pages_hold_nothing_of_this_machine(generated, monkeypatch, tmp_path):
    """No home folder, checkout path or environment shows, whatever the environment says."""
    monkeypatch.setenv("CONVO_STORE", str(tmp_path / "mine.jsonl"))
    monkeypatch.setenv("COLUMNS", "37")
    again = docs_reference.pages()
    assert again == generated
    for name, text in generated.items():
        assert str(ROOT) not in text, name
        assert str(tmp_path) not in text, name
        assert "/home/" not in text and "/root" not in text, name


def test_every_format_declares_its_mapping():
    for fmt in registry.formats():
        assert isinstance(fmt.fields, Fields), f"{fmt.name} has no fields declaration"
        for field in dataclass_fields(Fields):
            value = getattr(fmt.fields, field.name)
            assert value.strip(), f"{fmt.name}: empty {field.name}"
            assert "|" not in value, f"{fmt.name}: {field.name} holds a |"
            assert value.count("`") % 2 == 0, f"{fmt.name}: {field.name} has an odd backtick"
        assert reference_formats.id_patterns(fmt.fields), f"{fmt.name}: its id names no shape"


def test_every_format_has_a_sample():
    names = {f.name for f in registry.formats()}
    assert names == set(reference_formats.SAMPLES) | set(reference_formats.BUILT)
    for name, path in reference_formats.SAMPLES.items():
        assert (ROOT / path).exists(), f"{name}: {path}"


@pytest.mark.parametrize("name", sorted(f.name for f in registry.formats()))
def test_declared_id_shapes_are_the_ids_made(name):
    """Every id the reader makes of its sample has one of the shapes the format declares."""
    fmt = registry.get(name)
    patterns = reference_formats.id_patterns(fmt.fields)
    _, records = reference_formats.sample_records(name)
    assert records
    for rec in records:
        assert any(p.match(rec["id"]) for p in patterns), (rec["id"], fmt.fields.id)


# A declaration that says a field is empty, and the record's field.
_EMPTY = {
    "listeners": (lambda f: f.listeners.startswith("none"), lambda r: r["metadata"]["listeners"]),
    "thread": (lambda f: f.thread == "none", lambda r: r.get("thread")),
    "replyTo": (lambda f: f.reply_to == "none", lambda r: r.get("replyTo")),
    "subject": (lambda f: f.subject == "none", lambda r: r.get("subject")),
    "tags": (lambda f: f.tags == "none of its own", lambda r: r.get("tags")),
    "extra": (lambda f: f.extra == "nothing", lambda r: r.get("extra")),
}


@pytest.mark.parametrize("name", sorted(f.name for f in registry.formats()))
def test_fields_declared_empty_are_empty(name):
    """What a declaration says a format never fills, its reader leaves empty."""
    fields = registry.get(name).fields
    _, records = reference_formats.sample_records(name)
    for key, (says_empty, value) in _EMPTY.items():
        if says_empty(fields):
            assert [value(r) for r in records if value(r)] == [], f"{name} fills {key}"


@pytest.mark.parametrize("name", sorted(f.name for f in registry.formats()))
def test_extra_keys_are_declared(name):
    """Every key a sample record has in ``extra`` is named (in backticks) in the format's
    ``extra`` declaration, unless records keep their ``extra`` as written."""
    fields = registry.get(name).fields
    if "as written" in fields.extra or "column" in fields.extra:
        return
    declared = set(re.findall(r"`([A-Za-z_]\w*)", fields.extra))
    _, records = reference_formats.sample_records(name)
    keys = {key for r in records for key in r.get("extra") or {}}
    assert sorted(keys - declared) == []


def _timestamps(name: str, options) -> list[str]:
    import convo

    with reference_formats.sample_path(name) as path:
        return [m.timestamp for m in convo.read_messages(path, format=name, options=options)]


@pytest.mark.parametrize("name", sorted(f.name for f in registry.formats()))
def test_declared_zone_rule_is_the_readers(name):
    """A format whose sample reads differently under another --tz says its naive times are
    read in --tz (and one that says they are not, reads the same); one whose times move
    with --start-date says so."""
    from convo import ImportOptions

    fields = registry.get(name).fields
    plain = _timestamps(name, ImportOptions())
    zoned = _timestamps(name, ImportOptions(tz=ZoneInfo("Asia/Kolkata")))
    started = _timestamps(name, ImportOptions(start_date=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)))
    uses_tz = "`--tz`" in fields.zone and "not in `--tz`" not in fields.zone
    if zoned != plain:
        assert uses_tz, fields.zone
    if "not in `--tz`" in fields.zone:
        assert zoned == plain
    if started != plain:
        assert "`--start-date`" in fields.time, fields.time


# Other files of the formats whose ids or threads take several shapes.
MORE_SAMPLES = [
    ("gitlab", "tests/fixtures/formats/gitlab/issues_list.json"),
    ("gitlab", "tests/fixtures/formats/gitlab/mr_discussions.json"),
    ("discourse", "tests/fixtures/forum/discourse-latest.json"),
    ("discourse", "tests/fixtures/forum/discourse-posts-latest.json"),
    ("openai-completion", "tests/fixtures/formats/openai_api/batch_output.jsonl"),
    ("openai-responses", "tests/fixtures/formats/openai_responses/items.jsonl"),
    ("gemini", "tests/fixtures/formats/gemini/request.json"),
    ("gemini", "tests/fixtures/formats/gemini/sdk-dumps.jsonl"),
    ("signal", "tests/fixtures/formats/signal/sigtop-bob.json"),
    ("signal", "tests/fixtures/formats/signal/sigtop-bob.txt"),
    ("hackernews", "tests/fixtures/forum/hn-firebase.jsonl"),
    ("reddit", "tests/fixtures/forum/pushshift-comments.jsonl"),
    ("sharegpt", "tests/fixtures/formats/sharegpt/sharegpt.jsonl"),
    ("claude-ai", "tests/fixtures/formats/claude_ai/conversations-old.json"),
    ("vercel-ai", "tests/fixtures/formats/vercel_ai/v4-messages.json"),
    (
        "cline",
        "tests/fixtures/formats/cline/roo/3f2e1d0c-9b8a-4765-8432-10fedcba9876/"
        "api_conversation_history.json",
    ),
    ("gemini-cli", "tests/fixtures/formats/gemini_cli/session-2026-05-04T10-30-7b2e4d1a.jsonl"),
    ("gemini-cli", "tests/fixtures/formats/gemini_cli/logs.json"),
    (
        "codex",
        "tests/fixtures/formats/codex/rollout-2025-05-02-b2f7e0c4-1a9d-4c3e-8f5a-6d7e8f9a0b1c.json",
    ),
    (
        "codex",
        "tests/fixtures/formats/codex/"
        "rollout-2025-07-14T16-02-11-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
    ),
    ("stackexchange", "sample_data/forum/stackexchange/Comments.xml"),
    ("github", "sample_data/forum/github-issue.json"),
    ("twitter-dm", "tests/fixtures/formats/twitter_dm/direct-messages-group.js"),
    ("mbox", "tests/fixtures/email/no-from-envelope.mbox"),
]


@pytest.mark.parametrize(("name", "path"), MORE_SAMPLES)
def test_declared_id_shapes_cover_other_files(name, path, monkeypatch):
    import convo

    monkeypatch.chdir(ROOT)
    patterns = reference_formats.id_patterns(registry.get(name).fields)
    ids = [m.id for m in convo.read_messages(path, format=name)]
    assert ids
    assert [i for i in ids if not any(p.match(i) for p in patterns)] == []


# Where docs/ids.md (hand-written) may fall behind the code: none now. The format
# reference's "Ids and their scope" table is generated from the declarations.
IDS_MD_LACKS: set[str] = set()
IDS_MD_DIFFERS: set[tuple[str, str]] = set()


def _ids_md_rows() -> dict[str, str]:
    """docs/ids.md's table: each format name or pattern it names in its first column
    (``openai-*``), with the id column of its row."""
    text = (ROOT / "docs" / "ids.md").read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) < 3 or cells[0] in ("format", "---"):
            continue
        for name in re.findall(r"`([a-z0-9*-]+)`", cells[0]):
            rows[name] = rows.get(name, "") + " " + cells[1]
    return rows


def _ids_md_row(rows: dict[str, str], name: str) -> str | None:
    found = [row for pattern, row in rows.items() if fnmatch.fnmatchcase(name, pattern)]
    return " ".join(found) if found else None


def test_ids_md_names_every_format_and_its_ids():
    """docs/ids.md's table and the declarations agree: every format has a row, and each
    id shape a format declares has its prefix in that row (or the row says the ids are
    the source's own, ``FORMAT:...``)."""
    rows = _ids_md_rows()
    lacking, differing = set(), set()
    for fmt in registry.formats():
        row = _ids_md_row(rows, fmt.name)
        if row is None:
            lacking.add(fmt.name)
            continue
        for shape in re.findall(r"`([^`]+)`", fmt.fields.id):
            prefix = shape.split(":", 1)[0]
            if ":" not in shape or not prefix.isalpha() or prefix == "h":
                continue
            generic = "FORMAT:" in row or "the source's" in row or "as written" in row
            if f"{prefix}:" not in row and not generic:
                differing.add((fmt.name, shape))
    assert lacking == IDS_MD_LACKS
    assert differing == IDS_MD_DIFFERS


def test_walk_reaches_the_commands_of_a_group():
    """A command group (``convo tag add``, were there one) gets its page, and its own page
    lists its commands."""
    import typer
    import typer.main

    app = typer.Typer()

    @app.command()
    def top() -> None:
        """Top."""

    sub = typer.Typer(help="A group of commands.")

    @sub.command()
    def leaf(n: int = typer.Option(3, "--n", help="How many.")) -> None:
        """The leaf."""

    app.add_typer(sub, name="grp")
    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="convo")
    found = reference_commands.walk(group, ctx)
    assert [words for words, _, _ in found] == [["top"], ["grp"], ["grp", "leaf"]]
    words, cmd, sub_ctx = found[1]
    page = reference_commands.command_page(words, cmd, sub_ctx)
    assert "[`convo grp leaf`](grp-leaf.md): The leaf." in page
    words, cmd, sub_ctx = found[2]
    page = reference_commands.command_page(words, cmd, sub_ctx)
    assert page.startswith("# convo grp leaf\n")
    assert "- `--n N`: How many.\n  (type: integer; default: `3`)" in page


@pytest.mark.parametrize("name", sorted(reference_formats.SAMPLES))
def test_the_command_on_a_page_gives_the_record_shown(name, runner, monkeypatch):
    """`convo ingest --from NAME FILE`, as a format's page writes it, prints the record the
    page shows (long strings shortened as on the page)."""
    import json

    from conftest import records
    from convo.cli.app import app

    page = (ROOT / "docs" / "reference" / "formats" / f"{name}.md").read_text(encoding="utf-8")
    m = re.search(
        r"^`convo ingest --from (\S+) '([^']+)'` gives \(record (\d+) of (\d+)\)", page, re.M
    )
    assert m and m[1] == name, "the page names no command"
    shown = json.loads(page.split("```json\n", 1)[1].split("\n```", 1)[0])
    monkeypatch.chdir(ROOT)
    result = runner.invoke(app, ["ingest", "--quiet", "--from", name, m[2]])
    got = records(result.stdout)
    assert len(got) == int(m[4])
    assert reference_formats.shorten(got[int(m[3]) - 1]) == shown
