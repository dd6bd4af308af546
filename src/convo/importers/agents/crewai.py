"""CrewAI's run logs (``crewai``): ``Crew(output_log_file=...)``, a ``.json`` or ``.txt``.

Shape (crewAIInc/crewAI ``utilities/file_handler.py``: ``FileHandler.log``, ``LogEntry``;
``crew.py``: ``_log_task_start``, ``_process_task_result``): each entry is
``{"timestamp": "YYYY-MM-DD HH:MM:SS" (local), "task_name", "task" (the description),
"agent" (the role), "status": "started" | "completed", "output"}`` (since 2025 also
``input``, ``message``, ``level``, ``crew``, ``flow``, ``tool``, ``error``, ``duration``,
``metadata``); a ``.json`` log is one JSON array of them (rewritten whole at each entry),
any other a text line an entry, ``TIME: key="value", key="value"`` (values as written:
line breaks and quotes included). The first versions logged ``agent``, ``task`` and
``status`` only, a completed task's output in ``task``.

Decisions:
- A started task is the crew's instruction to its agent: spoken by ``crew`` to the
  agent (role ``user``, tagged ``task``, the task's name as subject); a completed one is
  the agent's answer (its role, role ``assistant``) to ``crew``: ``output``, else (the
  first versions) ``task``. Another entry is a notice (``message``, ``error`` or
  ``output``; ``system``, tagged by its ``level``), spoken by its agent or ``crew``.
- time = ``timestamp``, local: read in ``--tz``. thread = the file (a log grows by
  every run written to it). ids: content hashes. Other fields go to ``extra`` (a
  completed task's description not again: its start said it).
- A text log's line that starts no entry belongs to the value before it; text before
  the first entry, and a JSON element that is not an entry, are rejected with their
  place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.samples import iter_samples, sample_values
from convo.importers.apps.common import numbered_lines
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import as_str, json_head
from convo.importers.registry import Format

NAME = "crewai"
KEYS = frozenset(
    {"timestamp", "task_name", "task", "agent", "status", "output", "input", "message",
     "level", "crew", "flow", "tool", "error", "duration", "metadata"}
)  # fmt: skip
_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
_LINE = re.compile(r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d): (?P<rest>(?:" + "|".join(sorted(KEYS)) + r')=".*)')  # fmt: skip
# a field of a text entry: KEY=" up to the quote that a known key's ", KEY=" follows
_FIELD = re.compile(r'(\w+)="(.*?)"(?=, (?:' + "|".join(sorted(KEYS)) + r')="|\s*$)', re.S)


def _is_entry(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("timestamp"), str)
        and _TIME.fullmatch(value["timestamp"]) is not None
        and bool({"agent", "task"} & value.keys())
        and value.keys() <= KEYS
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if text.startswith("["):
        values = sample_values(text)  # the array's elements (or the array, a short one)
        items = values[0] if len(values) == 1 and isinstance(values[0], list) else values
        good = sum(map(_is_entry, items[:20]))
        return 85 if good and good * 2 > len(items[:20]) else 0
    if text.startswith("{"):
        return 0
    first = text.split("\n", 1)[0]
    return 85 if _LINE.fullmatch(first) and "status=" in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    thread = f"{NAME}:{ctx.thread_of(source.name)}"
    if json_head(source).startswith("["):
        for sample, loc in iter_samples(source, ctx):
            where = ctx.loc(loc)
            if _is_entry(sample):
                yield _record(sample, where, thread, ctx)
            else:
                ctx.reject(where, "not a CrewAI log entry (timestamp, agent or task)", sample)
        return
    for where, entry in _text_entries(source, ctx):
        if entry is None:
            continue  # rejected where it starts
        yield _record(entry, where, thread, ctx)


def _text_entries(
    source: Source, ctx: ImportContext
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """Each entry of a text log with its first line's place, the lines it spans joined;
    None for one whose fields do not read back as written (rejected with its text)."""
    start, lines = "", []
    for number, line in numbered_lines(source, ctx.text_decoder()):
        found = _LINE.fullmatch(line)
        if found is None:
            if start:
                lines.append(line)
            elif line.strip():
                ctx.reject(ctx.loc(number), "text before the first CrewAI log entry", line)
            continue
        if start:
            yield start, _fields(start, lines, ctx)
        start, lines = ctx.loc(number), [found["time"] + "\x00" + found["rest"]]
    if start:
        yield start, _fields(start, lines, ctx)


def _fields(where: str, lines: list[str], ctx: ImportContext) -> dict[str, Any] | None:
    time, _, rest = "\n".join(lines).partition("\x00")
    rest = rest.rstrip()
    pairs = _FIELD.findall(rest)
    if ", ".join(f'{k}="{v}"' for k, v in pairs) != rest:  # a quote unclosed, a lost field
        ctx.reject(where, 'a CrewAI log entry whose key="value" fields do not read', rest)
        return None
    return {"timestamp": time, **dict(pairs)}


def _parts(entry: dict[str, Any]) -> tuple[Any, tuple[str, list[str]], str, list[str]]:
    """(what the entry says, (speaker, listeners), role, tags)."""
    status = as_str(entry.get("status"))
    agent = as_str(entry.get("agent")) or "agent"
    crew = as_str(entry.get("crew")) or "crew"
    if status == "started":
        return entry.get("task"), (crew, [agent]), "user", ["task"]
    if status == "completed":
        return entry.get("output", entry.get("task")), (agent, [crew]), "assistant", []
    said = next((entry[k] for k in ("message", "error", "output", "task") if entry.get(k)), "")
    level = as_str(entry.get("level")) or ("error" if entry.get("error") else "")
    return said, (agent if "agent" in entry else crew, []), "system", ["system", level]


def _record(
    entry: dict[str, Any], where: str, thread: str, ctx: ImportContext
) -> ConversationMessage:
    said, who, role, tags = _parts(entry)
    status = as_str(entry.get("status"))
    used = {"timestamp", "status", "agent", "crew", "task_name", "level"}  # level: a tag
    used |= {k for k in ("task", "output", "message", "error") if said is entry.get(k)}
    if status == "completed":
        used.add("task")  # the description its start said
    try:
        ts = parse_any(entry.get("timestamp"), ctx.options.tz)
    except ValueError:
        ts = None
    name = as_str(entry.get("task_name")) or None
    return message(
        said if isinstance(said, str) else ("" if said is None else str(said)),
        speaker=who[0],
        listeners=who[1],
        timestamp=ts,
        source_id=where,
        format=NAME,
        thread=thread,
        subject=name if status == "started" else None,
        role=role,
        tags=[t for t in tags if t],
        extra={"status": status or None, "task_name": name,
               **{k: v for k, v in entry.items() if k not in used}},
    )  # fmt: skip


DESCRIPTION = "CrewAI run logs (Crew(output_log_file=...): the .json array or the .txt lines)"
EXAMPLE = (
    '[{"timestamp": "2025-03-06 10:00:00", "task_name": "research_task", "task": "Find the '
    'boil bug", "agent": "Researcher", "status": "started"}]'
)
FIELDS = Fields(
    speaker="a started task: `crew` (its name); a completed one: the agent's role",
    listeners="the agent a task is given to; `crew` for an answer; notices: none",
    time="`timestamp`",
    zone=NAIVE_IN_TZ + " (CrewAI writes local time)",
    thread="`crewai:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    subject="a started task's `task_name`",
    tags="`task` on a started task; `system` and the level on notices",
    extra="`status`, `task_name`, and the entry's other fields (`input`, `tool`, `flow`, "
    "`duration`, `metadata`)",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.txt", "logs.txt"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
