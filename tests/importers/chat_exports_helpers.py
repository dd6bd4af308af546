"""Helpers for the chat-export tests: run a reader, collect records and rejections."""

from __future__ import annotations

from pathlib import Path

from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest

MY_FORMATS = {
    "slack", "slack-file", "discord", "telegram", "messenger", "chatgpt", "teams",
    "mattermost", "whatsapp", "zoomchat", "discord-text",
}  # fmt: skip


def ingest(path: str | Path, fmt: str | None = None, options: ImportOptions | None = None):
    """(records as dicts, rejections, warnings) for one input."""
    rejects: list = []
    warnings: list[str] = []
    run = Ingest(options, format_name=fmt, on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in run.messages([str(path)])]
    return recs, rejects, warnings


def stdin_comparable(recs: list[dict]) -> list[dict]:
    """Records with the content-hash ids of thread-less messages masked: those hash the
    file's name (their conversation), which standard input does not have."""
    return [
        {**r, "id": "h:"} if r["id"].startswith("h:") and not r.get("thread") else r for r in recs
    ]
