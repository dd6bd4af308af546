"""Claude Code's prompt history (``claude-history``): ``~/.claude/history.jsonl``.

Shape (Claude Code writes it; it is closed source, so the shape is the one its users'
tools read: letta-ai/letta-code ``src/skills/builtin/migrating-from-codex-and-claude-code/
references/claude-format.md``, denisraison/claude-plugins ``plugins/history-analyser/
skills/history-analysis/references/data-formats.md``): one line a prompt typed, in every
project, appended as typed::

    {"display": "fix this test: npm run test:unit", "pastedContents": {},
     "timestamp": 1759105062139, "project": "/Users/ann/repos/app",
     "sessionId": "0fd6a5d1-c1e4-494f-82d6-9391ccc1797d"}

``timestamp`` is epoch milliseconds; ``sessionId`` is written since the 2.0 versions (the
older lines have none); ``pastedContents`` maps a paste's number to ``{"id", "type":
"text"|"image", "content"?, "contentHash"?}``, which ``display`` names as ``[Pasted text
#1 +12 lines]`` (a large paste keeps only its ``contentHash``: its text is in
``~/.claude/paste-cache/``, not here).

Decisions:
- One record a line: speaker ``user``, listener ``assistant``, role ``user``, tagged
  ``prompt-log`` as Codex's and Gemini CLI's prompt logs are (the session file holds
  the same words as a message: a store holding both finds them twice, by design: the
  history also holds prompts of sessions since deleted). A slash command (``/clear``,
  ``/model opus``) is tagged ``command`` too.
- text = ``display`` as typed; each pasted text whose content is in the line is a chunk
  of its own after it (what was sent is searchable); images and pastes held only by
  hash are kept in ``extra.pasted`` (their number, type and hash), never lost silently.
- time = ``timestamp`` (ms, UTC). thread = the ``sessionId``, the thread Claude Code's
  session file gives its messages (format ``anthropic``), so a prompt joins its
  conversation; without one, the project: ``claude-code:<project>``, else the file.
- id: none of its own: the content hash (docs/ids.md). ``extra.project``: the project.
- A line that is not JSON or not a history entry (``display`` text and a ``timestamp``)
  is rejected with its line.
- A subagent's metadata beside its transcript (Claude Code 2.1:
  ``<session>/subagents/agent-<id>.meta.json``, ``{"agentType", "description",
  "toolUseId"}``, as daaain/claude-code-log's test data holds it) is recognised and
  holds no message: ingesting a project folder counted it as an unreadable file (exit 1).
  The transcript beside it (``agent-<id>.jsonl``) is the ``anthropic`` format's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import (
    as_dict,
    as_str,
    has_key,
    json_head,
    json_head_with,
    json_lines,
)
from convo.importers.registry import Format

NAME = "claude-history"
_COMMAND = re.compile(r"/[a-z][\w:-]*(?:\s|$)")  # /clear, /model opus; not /Users/ann/x.py


def is_entry(value: Any) -> bool:
    """A line of ``~/.claude/history.jsonl``: ``display`` text, a numeric ``timestamp``,
    and ``project`` or ``pastedContents`` (no ``type``/``role``: not a session line)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("display"), str)
        and isinstance(value.get("timestamp"), int | float)
        and not isinstance(value.get("timestamp"), bool)
        and ("project" in value or "pastedContents" in value)
        and not ({"type", "role", "message"} & value.keys())
    )


_SUBAGENT_META = re.compile(r"agent-[\w.-]+\.meta\.json")


def subagent_meta(source: Source) -> bool:
    """Whether ``source`` is a subagent's ``agent-<id>.meta.json`` (its name and keys)."""
    if not _SUBAGENT_META.fullmatch(source.match_name):
        return False
    text = json_head_with(source, key="agentType", opens="{")
    return bool(text) and has_key(text, "toolUseId")


def sniff(source: Source) -> int:
    if subagent_meta(source):
        return 80
    head = json_head(source)
    if not head.startswith("{"):
        return 0
    try:
        return 95 if is_entry(orjson.loads(head.split("\n", 1)[0])) else 0
    except orjson.JSONDecodeError:
        return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if subagent_meta(source):
        return  # a subagent's metadata: no message
    for _, where, value in json_lines(source, ctx):
        if not is_entry(value):
            ctx.reject(where, "not a Claude Code history entry (display, timestamp)", value)
            continue
        yield _record(value, where, source, ctx)


def _record(
    value: dict[str, Any], where: str, source: Source, ctx: ImportContext
) -> ConversationMessage:
    text: str = value["display"]
    pasted, kept = _pastes(value.get("pastedContents"))
    chunks = [text, *pasted]
    project, session = as_str(value.get("project")), as_str(value.get("sessionId"))
    thread = session or (f"claude-code:{project}" if project else ctx.thread_of(source.name))
    extra: dict[str, Any] = {"project": project or None, "pasted": kept or None}
    return message(
        [c for c in chunks if c] or [""],
        speaker="user",
        listeners=["assistant"],
        timestamp=epoch_ts(value["timestamp"], ms=True),
        source_id=where,
        format=NAME,
        thread=thread,
        role="user",
        tags=["prompt-log", "command"] if _COMMAND.match(text) else ["prompt-log"],
        extra={k: v for k, v in extra.items() if v is not None} or None,
    )


def _pastes(pasted: Any) -> tuple[list[str], list[dict[str, Any]]]:
    """(the pasted texts the line holds, the other pastes by number without content)."""
    texts, kept = [], []
    for key, paste in as_dict(pasted).items():
        paste = as_dict(paste)
        content = paste.get("content")
        if paste.get("type", "text") == "text" and isinstance(content, str) and content:
            texts.append(content)
        else:
            kept.append({"key": key, **{k: v for k, v in paste.items() if k != "content"}})
    return texts, kept


DESCRIPTION = "Claude Code's prompt history (~/.claude/history.jsonl: every prompt typed)"
EXAMPLE = (
    '{"display": "fix the failing test", "pastedContents": {}, "timestamp": 1759105062139, '
    '"project": "/Users/ann/app", "sessionId": "0fd6a5d1-c1e4-494f-82d6-9391ccc1797d"}'
)
FIELDS = Fields(
    speaker="`user` (every line is a prompt typed)",
    listeners="`assistant`",
    time="`timestamp` (epoch milliseconds, UTC)",
    zone="UTC (epoch times)",
    thread="the `sessionId` (the thread of that session's file, format `anthropic`); "
    "without one `claude-code:<project>`, else the file",
    id=CONTENT_HASH,
    scope="the content hash is unique everywhere",
    tags="`prompt-log` on every record; `command` on a slash command (`/clear`)",
    extra="`project`; `pasted`: the pastes whose text the line does not hold (images, "
    "pastes kept by `contentHash`), by number",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("history.jsonl", "*.jsonl", "agent-*.meta.json"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
