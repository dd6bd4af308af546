"""Helpers for the new-format tests: run one module's reader without the global registry."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from conftest import ROOT, corpus_dir
from convo.core.errors import InputError, RecordError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext, ImportOptions, Rejection
from convo.importers.registry import Format, Registry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
THINKING = ImportOptions(include_thinking=True)  # --include-thinking

# Words, names and texts of generated exports (the read-back properties).
WORD = st.text(st.characters(whitelist_categories=("L", "Nd")), min_size=1, max_size=8)
NAME = st.lists(WORD, min_size=1, max_size=2).map(" ".join)
TEXT = st.lists(WORD, min_size=1, max_size=5).map(" ".join)


def files_taken(names: set[str], own: set[str]) -> dict[str, str]:
    """Every file of the corpus, the sample data and the fixtures (save the fixture
    folders ``own``) that detection gives one of the formats ``names``: {path: format}.
    A new format's test asserts it is empty (no other file is read as that format)."""
    roots = (corpus_dir(), ROOT / "sample_data", FIXTURES)
    reg = Registry()
    taken = {}
    for root in roots:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            if not p.is_file() or (root == FIXTURES and p.relative_to(FIXTURES).parts[0] in own):
                continue
            try:
                name = reg.detect(Source(p)).name
            except InputError:
                continue
            if name in names:
                taken[str(p)] = name
    return taken


def assert_one_text_an_id(recs: list[dict[str, Any]]) -> None:
    """No two different messages share an id (the same message twice may: docs/ids.md)."""
    seen: dict[str, Any] = {}
    for r in recs:
        assert seen.setdefault(r["id"], r["textChunks"]) == r["textChunks"], r["id"]


def run(
    read: Callable[..., Any], path: str | Path, options: ImportOptions | None = None, **kw: Any
) -> tuple[list[dict[str, Any]], list[Rejection], list[str]]:
    """(records as dicts, rejections, warnings) from ``read(source, ctx, **kw)``."""
    rejects: list[Rejection] = []
    warnings: list[str] = []
    source = Source(path, name=Path(path).name)
    ctx = ImportContext(source, options, on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in read(source, ctx, **kw)]
    return recs, rejects, warnings


def finished(
    fmt: str, source: Source, msgs: Iterable[ConversationMessage]
) -> Iterator[tuple[ConversationMessage, RecordError | None]]:
    """Each message as the pipeline finishes it (``pipeline.ingest.Finisher``: a reader's
    id held to one message of the source, then the store's check): (the message, None),
    or (the message, the error of the check refusing it)."""
    from convo.pipeline.ingest import Finisher

    finish = Finisher(fmt, source.name, [])
    try:
        for msg in msgs:
            try:
                yield finish(msg), None
            except RecordError as e:
                yield msg, e
    finally:
        finish.close()


def fresh_registry(*modules: Any) -> Registry:
    """A new registry: the built-in formats plus the given modules' ``FORMATS``."""
    reg = Registry()
    reg.formats()  # loads the built-ins first, so ours are added beside them
    for mod in modules:
        for fmt in mod.FORMATS:
            reg.register(fmt)
    return reg


def detect_name(reg: Registry, path: str | Path) -> str:
    fmt: Format = reg.detect(Source(path))
    return fmt.name


def new_modules() -> list[Any]:
    """Every module of this wave's new formats (each has ``FORMATS``)."""
    import importlib

    names = (
        "convo.importers.apps.claude_ai",
        "convo.importers.agents.sharegpt",
        "convo.importers.agents.hf_chat",
        "convo.importers.agents.openai_responses",
        "convo.importers.agents.openai_api",
        "convo.importers.agents.gemini",
        "convo.importers.agents.langchain",
        "convo.importers.agents.vercel_ai",
        "convo.importers.forums.mastodon",
        "convo.importers.forums.mastodon_api",
        "convo.importers.forums.bluesky",
        "convo.importers.forums.discourse_archive",
        "convo.importers.forums.discourse_raw",
        "convo.importers.apps.twitter_dms",
        "convo.importers.forums.twitter",
        "convo.importers.apps.irc",
        "convo.importers.apps.matrix",
        "convo.importers.apps.matrix_txt",
        "convo.importers.apps.google_chat",
        "convo.importers.forums.gitlab",
        "convo.importers.apps.gitter",
        "convo.importers.apps.vscode_chat",
        "convo.importers.agents.agentscope_session",
        "convo.importers.agents.autogen_runtime",
        "convo.importers.agents.autogen_state",
        "convo.importers.forums.reddit_export",
        "convo.importers.agents.langgraph_store",
        "convo.importers.apps.gemini_activity",
        "convo.importers.agents.codex",
        "convo.importers.agents.gemini_cli",
        "convo.importers.apps.open_webui",
        "convo.importers.apps.sillytavern",
        "convo.importers.agents.cline",
        "convo.importers.agents.aider",
        "convo.importers.apps.skype",
        "convo.importers.apps.zulip",
        "convo.importers.apps.rocketchat",
        "convo.importers.apps.slackdump",
        "convo.importers.agents.pydantic_ai",
        "convo.importers.agents.swe_agent",
        "convo.importers.agents.llamaindex",
        "convo.importers.agents.letta",
        "convo.importers.agents.goose",
        "convo.importers.agents.ollama",
        "convo.importers.agents.crewai",
        "convo.importers.agents.cursor_md",
        "convo.importers.agents.agents_session",
        "convo.importers.agents.smolagents",
        "convo.importers.agents.mem0",
        "convo.importers.agents.amazon_q",
        "convo.importers.agents.zed_md",
        "convo.importers.agents.windsurf_md",
        "convo.importers.agents.copilot_md",
        "convo.importers.agents.cline_md",
        "convo.importers.agents.gemini_cli_md",
        "convo.importers.agents.continue_md",
        "convo.importers.agents.specstory",
        "convo.importers.apps.librechat",
        "convo.importers.transcripts.ass",
        "convo.importers.transcripts.ttml",
        "convo.importers.transcripts.youtube",
        "convo.importers.apps.imessage",
        "convo.importers.apps.imessage_html",
        "convo.importers.apps.imessage_db",
        "convo.importers.apps.instagram_legacy",
        "convo.importers.apps.messenger_html",
        "convo.importers.apps.imazing",
        "convo.importers.apps.pidgin",
        "convo.importers.apps.line",
        "convo.importers.apps.skype_tar",
        "convo.importers.apps.telegram_html",
        "convo.importers.agents.llm_logs",
        "convo.importers.agents.llm_logsdb",
        "convo.importers.email.msg",
        "convo.importers.agents.aistudio",
        "convo.importers.apps.grok",
        "convo.importers.apps.lmstudio",
        "convo.importers.apps.jan",
        "convo.importers.apps.continue_dev",
        "convo.importers.apps.kakaotalk",
        "convo.importers.apps.discord_txt",
        "convo.importers.apps.wechat",
        "convo.importers.apps.discord_html",
        "convo.importers.agents.claude_history",
        "convo.importers.agents.openhands",
        "convo.importers.agents.cursor",
        "convo.importers.agents.copilot_cli",
        "convo.importers.agents.zed",
        "convo.importers.apps.discord_package",
        "convo.importers.apps.hangouts",
        "convo.importers.apps.linkedin",
        "convo.importers.apps.snapchat",
        "convo.importers.apps.deepseek",
        "convo.importers.agents.api_log",
    )
    return [importlib.import_module(n) for n in names]
