"""SWE-agent and mini-SWE-agent trajectories (``swe-agent``): ``<instance>.traj``,
``<instance>.traj.json``.

Shapes:
- SWE-agent (SWE-agent/SWE-agent ``sweagent/agent/agents.py`` ``get_trajectory_data`` /
  ``save_trajectory``, types in ``sweagent/types.py``): ``{"trajectory": [steps],
  "history": [items], "info": {...}, "replay_config": "...", "environment": "..."}``.
  A history item is what the model was sent: ``role`` (system, user, assistant, tool),
  ``content`` (a string, or text parts once a history processor added cache control),
  ``agent``, ``message_type`` (``system_prompt``, ``demonstration``, ``observation``,
  ``action``; absent before 1.0), ``thought``, ``action``, ``tool_calls`` (OpenAI's
  shape), ``tool_call_ids``, ``is_demo``, ``thinking_blocks``. ``info``: ``exit_status``,
  ``submission``, ``model_stats``. With the retry loop the file is ``{"attempts":
  [attempt...], ...the chosen attempt's members}``. The demonstrations (``trajectories/
  demonstrations/*.traj``) are ``{"history": [...]}`` alone.
- mini-SWE-agent (SWE-agent/mini-swe-agent, ``docs/usage/output_files.md``): ``{"info":
  {"model_stats", "config", "mini_version", "exit_status", "submission"}, "messages":
  [OpenAI messages], "trajectory_format": "mini-swe-agent-1" | "mini-swe-agent-1.1"}``;
  a message's ``extra`` holds ``actions``, ``cost``, ``timestamp`` (epoch seconds),
  ``returncode``, ``response`` (the raw API response), the last one ``exit_status`` and
  ``submission``.

Decisions:
- One record a history item / message; speaker = the role (SWE-agent's ``user`` turns
  are the environment's observations: ``extra.message_type`` says which); listeners the
  other party (a tool's output → the assistant).
- The assistant's text is its content (thought and, without function calling, the
  command in it); tool calls add ``[tool_use NAME] {args}`` chunks, whole; a ``tool``
  item is ``[tool_result NAME] output`` (the name of the call it answers).
  ``thinking_blocks`` / ``reasoning_content`` are private: ``extra.thinking``
  (``--include-thinking``: ``[thinking]`` chunks). Demonstrations are tagged ``demo``
  (another task's example run, shown to the model). mini-SWE-agent's last message (an
  ``exit_status``) reads ``[exit STATUS]`` and the submission, tagged ``system``.
- The ``trajectory`` steps repeat the history's turns (with every step's whole
  ``query``): not read, passed over unkept (one warning). With ``attempts`` each attempt
  is read (its own thread), and the chosen attempt's copy at the top level is not read
  again (one warning).
- time: mini-SWE-agent's ``extra.timestamp`` (or a top-level ``timestamp``); SWE-agent
  records no time: the epoch sentinel, one warning a file.
- thread = ``swe-agent:<instance>``: mini-SWE-agent 2.x's own ``instance_id``, else the
  file's name without ``.traj``/``.traj.json`` (``:attempt-N`` per attempt). id = the
  content hash.
- ``extra``: ``agent``, ``message_type``, ``action``, ``tool_call_ids``, ``blocks``; the
  first record of a thread ``info`` (exit status, submission, model stats, versions;
  mini-SWE-agent's ``config`` left out, as its ``response`` is), mini-SWE-agent's
  ``actions``, ``cost``, ``returncode``.
- An item that is not a message (a ``role``) is rejected with its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import chunks_of, normalise_content, tool_use_block, whole_chunk
from convo.importers.agents.samples import sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, json_head, listed
from convo.importers.registry import Format

NAME = "swe-agent"
OTHER = {
    "user": ["assistant"],
    "system": ["assistant"],
    "assistant": ["user"],
    "tool": ["assistant"],
}
_SWE = re.compile(r'\A\{\s*"(?:trajectory|history|attempts|environment)"\s*:')
_SWE_ITEM = re.compile(r'"(?:message_type|agent|is_demo)"\s*:|"observation"\s*:[^{]*"thought"\s*:')
_MINI = re.compile(r'\A\{\s*"(?:info|messages)"\s*:')
_MINI_MARK = re.compile(
    r'"mini_version"\s*:|minisweagent\.|"trajectory_format"\s*:\s*"mini-swe-agent'
)
_SUFFIX = re.compile(r"(?:\.traj(?:\.json)?|\.json)\Z")
INFO_KEYS = ("exit_status", "submission", "model_stats", "swe_agent_version", "swe_rex_version",
             "mini_version", "best_attempt_idx", "review")  # fmt: skip


def sniff(source: Source) -> int:
    text = json_head(source)
    if _SWE.match(text) and _SWE_ITEM.search(text):
        return 90
    if _MINI.match(text) and _MINI_MARK.search(text):
        return 90
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    text = json_head(source)
    instance = _SUFFIX.sub("", strip_compressed(PurePath(source.name).name))
    base = f"{NAME}:{instance}" if instance and not source.is_stdin else ctx.thread_of(source.name)
    if _MINI.match(text) and not _SWE.match(text):
        doc = load_json(source)
        if not isinstance(doc, dict):
            ctx.reject(source.name, "not a mini-SWE-agent trajectory (an object)", doc)
            return
        own = doc.get("instance_id")  # mini-SWE-agent 2.x names its instance: any file name
        if isinstance(own, str) and own.strip():
            base = f"{NAME}:{own.strip()}"
        run = _Run(ctx, base, _info(doc.get("info")), doc.get("trajectory_format"))
        yield from run.items(listed(doc, "messages", source.name, ctx), source.name)
        run.finish(source.name)
        return
    if re.match(r'\A\{\s*"attempts"\s*:', text):
        yield from _attempts(source, ctx, base)
        return
    doc_ = StreamedDoc(source, ("history",), skip=("trajectory",))
    members = doc_.head(need=("info",))
    run = _Run(ctx, base, _info(members.get("info")), None)
    if doc_.found:
        yield from run.stream(doc_.items(), source.name)
    else:
        ctx.reject(source.name, "not a SWE-agent trajectory (no history)", None)
    if "trajectory" in doc_.keys:
        ctx.warn(source.name, "the trajectory's steps not read: they repeat the history's turns")
    run.finish(source.name)


def _attempts(source: Source, ctx: ImportContext, base: str) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("attempts",), skip=("trajectory", "history"))
    doc.head()
    untimed = 0
    for n, (attempt, _line) in enumerate(doc.items(), 1):
        where = ctx.loc(f"attempt-{n}")
        attempt = as_dict(attempt)
        run = _Run(ctx, f"{base}:attempt-{n}", _info(attempt.get("info")), None)
        yield from run.items(as_list(attempt.get("history")), where)
        untimed += run.untimed
    ctx.warn(source.name, "the chosen attempt's copy at the top level not read again; "
             "the trajectory's steps not read: they repeat the history's turns")  # fmt: skip
    if untimed:
        ctx.warn(source.name, "SWE-agent records no times: the epoch sentinel")


def _info(value: Any) -> dict[str, Any]:
    info = as_dict(value)
    return {k: info[k] for k in INFO_KEYS if k in info}


class _Run:
    """One run's history: the thread, its info (on the first record), tool names."""

    def __init__(self, ctx: ImportContext, thread: str, info: dict[str, Any], fmt: Any):
        self.ctx = ctx
        self.thread = thread
        self.info: dict[str, Any] | None = {**info, "trajectory_format": fmt} if fmt else info
        self.tools: dict[str, str] = {}
        self.untimed = 0

    def stream(self, items: Iterator[tuple[Any, int]], where: str) -> Iterator[ConversationMessage]:
        for n, (item, _line) in enumerate(items, 1):
            rec = self._one(item, sub(self.ctx, where, f"history-{n}"))
            if rec is not None:
                yield rec

    def items(self, items: list[Any], where: str) -> Iterator[ConversationMessage]:
        for n, item in enumerate(items, 1):
            rec = self._one(item, sub(self.ctx, where, f"msg-{n}"))
            if rec is not None:
                yield rec

    def _one(self, item: Any, where: str) -> ConversationMessage | None:
        if not isinstance(item, dict) or not isinstance(item.get("role"), str) or not item["role"]:
            self.ctx.reject(where, "not a trajectory message (role, content)", item)
            return None
        role = item["role"]
        extra_in = as_dict(item.get("extra"))
        chunks, extra = self._chunks(item, role)
        tags = ["demo"] if item.get("is_demo") is True else []
        if extra_in.get("exit_status") is not None:
            chunks = [
                f"[exit {as_str(extra_in['exit_status'])}]",
                as_str(extra_in.get("submission")),
            ]
            tags.append("system")
        extra.update({
            "agent": item.get("agent"),
            "message_type": item.get("message_type"),
            "action": item.get("action") if not item.get("tool_calls") else None,
            "tool_call_ids": item.get("tool_call_ids"),
            **{k: extra_in.get(k) for k in ("actions", "cost", "returncode")},
            "info": self.info,
        })  # fmt: skip
        self.info = None
        ts = _time(item.get("timestamp", extra_in.get("timestamp")), self.ctx)
        self.untimed += ts is None
        return message(
            chunks or [""],
            speaker=role,
            listeners=OTHER.get(role, []),
            timestamp=ts,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=role,
            tags=tags,
            extra=extra,
        )

    def _chunks(self, item: dict[str, Any], role: str) -> tuple[list[str], dict[str, Any]]:
        blocks = normalise_content(item.get("content"))
        if role == "tool":
            return self._result(item, blocks), {"blocks": blocks if len(blocks) > 1 else None}
        for call in as_list(item.get("tool_calls")):
            block = tool_use_block(as_dict(call))
            self.tools[as_str(block.get("id"))] = as_str(block.get("name"))
            blocks.append(block)
        thinking = _thinking(item)
        include = self.ctx.options.include_thinking
        chunks = [f"[thinking] {t}" for t in thinking] if include else []
        chunks += [whole_chunk(b) for b in blocks]
        text_only = all(b.get("type") == "text" for b in blocks)
        return chunks, {
            "blocks": None if text_only else blocks,
            "thinking": [] if include else thinking,
        }

    def _result(self, item: dict[str, Any], blocks: list[dict[str, Any]]) -> list[str]:
        """A ``tool`` item: ``[tool_result NAME] output``, NAME the call's it answers."""
        ids = [as_str(i) for i in as_list(item.get("tool_call_ids"))] or [
            as_str(item.get("tool_call_id"))
        ]
        label = next((self.tools[i] for i in ids if i in self.tools), "") or ids[0]
        text = "\n".join(c for c in chunks_of(blocks) if c)
        return [whole_chunk({"type": "tool_result", "name": label, "content": text})]

    def finish(self, name: str) -> None:
        if self.untimed:
            self.ctx.warn(
                name, "messages without a time (SWE-agent records none) get the epoch sentinel"
            )


def _thinking(item: dict[str, Any]) -> list[str]:
    """An assistant item's private reasoning: ``thinking_blocks``, ``reasoning_content``."""
    said = [as_str(as_dict(b).get("thinking")) for b in as_list(item.get("thinking_blocks"))]
    said.append(as_str(item.get("reasoning_content")))
    return [t for t in said if t]


def _time(value: Any, ctx: ImportContext) -> str | None:
    try:
        return parse_any(value, ctx.options.tz) if isinstance(value, int | float | str) else None
    except ValueError:
        return None


DESCRIPTION = "SWE-agent and mini-SWE-agent trajectories (<instance>.traj, .traj.json)"
EXAMPLE = (
    '{"history": [{"role": "system", "content": "You are an autonomous programmer.", '
    '"agent": "main", "message_type": "system_prompt"}]}'
)
FIELDS = Fields(
    speaker="the role (SWE-agent's `user` turns are the environment's observations)",
    listeners="the other party; a tool's output → the assistant",
    time="mini-SWE-agent's `extra.timestamp`; SWE-agent records none: the epoch sentinel, "
    "with one warning a file",
    zone="epoch seconds: UTC",
    thread="`swe-agent:<instance>` (mini-SWE-agent 2.x's `instance_id`, else the file's name "
    "without `.traj`), `:attempt-N` per attempt of the retry loop",
    id=CONTENT_HASH,
    scope="the thread (the instance)",
    tags="`demo` on demonstrations; `system` on mini-SWE-agent's exit message",
    extra="`agent`, `message_type`, `action`, `tool_call_ids`, `blocks` (tool calls whole); "
    "`info` (exit status, submission, model stats) on a thread's first record; "
    "mini-SWE-agent's `actions`, `cost`, `returncode`; thinking in `thinking` unless "
    "`--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.traj", "*.traj.json", "*.json"), sniff, read,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
