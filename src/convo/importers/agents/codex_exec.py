"""``codex exec --json`` output, read by ``codex`` (``convo.importers.agents.codex``).

Shape (openai/codex ``codex-rs/exec/src/exec_events.rs``: ``ThreadEvent``,
``ThreadItem``, ``ThreadItemDetails``): one event a line, ``{"type": "thread.started",
"thread_id"}``, ``turn.started``, ``turn.completed`` (``usage``), ``turn.failed``
(``error.message``), ``item.started`` / ``item.updated`` / ``item.completed`` (``item``:
``{id, type, ...}``), ``item.plan.delta``, ``request_user_input`` (``questions``) and
``error`` (``message``). The items: ``agent_message`` (``text``), ``reasoning``
(``text``, a summary), ``command_execution`` (``command``, ``aggregated_output``,
``exit_code``, ``status``), ``file_change`` (``changes: [{path, kind}]``, ``status``),
``mcp_tool_call`` (``server``, ``tool``, ``arguments``, ``result.content``, ``error``),
``web_search`` (``query``), ``todo_list`` (``items: [{text, completed}]``), ``plan``
(``text``), ``collab_tool_call``, ``error`` (``message``). Versions of late 2025 named the
item's type ``item_type`` and an answer ``assistant_message``.

Decisions (as a rollout's, ``codex``):
- An item is read when completed (``item.completed``); its ``started`` / ``updated``
  events are earlier states of it, skipped with the turn events and the usage, counted
  in one warning.
- The prompt is not in the stream (only the answers): no user records.
- ``agent_message``: the assistant's text, heard by ``user``. A tool's item is the
  assistant's call (``[tool_use NAME] {args}``, heard by ``tool``), then, when it has an
  output, the tool's result (``[tool_result NAME] output``, ``NAME error`` when it
  failed or exited non-zero, heard by the assistant): a command is ``shell``, an MCP call
  ``SERVER.TOOL``, a file change ``apply_patch`` (its changes, no output), a web search
  ``web_search``. ``todo_list`` and ``plan`` are the assistant's, tagged ``plan``.
- ``reasoning`` is private: the next record's ``extra.thinking`` (with
  ``--include-thinking`` a ``[thinking]`` record of its own; at the end, a record with
  no text keeps it).
- ``error`` (an item, an event, a failed turn): a ``system`` record spoken by ``codex``.
- No times: the epoch sentinel, one warning. thread = ``codex:<thread_id>`` (the
  session's, as its rollout), else the file's name. ids: content hashes (item ids
  ``item_N`` start again in each run of a resumed thread).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.agents.blocks import dumps
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.jsoninput import as_dict, as_list, as_str, json_lines

NAME = "codex"
EVENTS = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "item.plan.delta",
        "request_user_input",
        "error",
    }
)
_ANSWERS = ("agent_message", "assistant_message")


def is_exec_event(value: Any, *, first: bool = False) -> bool:
    """A ``codex exec --json`` line; ``first``: one that starts such a file (an event
    with the member it carries: ``turn.started`` has none, and is no start)."""
    if not isinstance(value, dict) or as_str(value.get("type")) not in EVENTS:
        return False  # as_str: a type of another JSON type (an object) is no event
    members = {"thread_id", "item", "usage", "error", "message", "item_id"}
    return not first or bool(members & value.keys())


class _Run:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.thread = ctx.thread_of(source.name)
        self.thinking: list[str] = []
        self.thought_at = ""
        self.skipped: Counter[str] = Counter()

    def made(
        self,
        text: str | list[str],
        where: str,
        who: tuple[str, str],
        listeners: list[str],
        extra: dict[str, Any] | None = None,
        tags: list[str] | None = None,
    ) -> ConversationMessage:
        more = dict(extra or {})
        if self.thinking and who[1] != "system":
            more["thinking"], self.thinking = self.thinking, []
        return message(text, speaker=who[0], listeners=listeners, source_id=where,
                       format=NAME, thread=self.thread, role=who[1], tags=tags,
                       extra=more)  # fmt: skip


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    run = _Run(source, ctx)
    ctx.warn(source.name, "codex exec --json output carries no times: the epoch sentinel")
    for _, where, value in json_lines(source, ctx):
        if not is_exec_event(value):
            ctx.reject(where, "not a codex exec --json event (type and its member)", value)
            continue
        yield from _event(value, where, run)
    if run.thinking:
        yield run.made([""], run.thought_at, ("assistant", "assistant"), ["user"])
    if run.skipped:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(run.skipped.items()))
        ctx.warn(source.name, f"skipped events that repeat the items or hold no message: {counts}")


def _event(value: dict[str, Any], where: str, run: _Run) -> Iterator[ConversationMessage]:
    kind = value["type"]
    if kind == "thread.started":
        tid = as_str(value.get("thread_id"))
        run.thread = f"{NAME}:{tid}" if tid else run.thread
    elif kind == "item.completed" and isinstance(value.get("item"), dict):
        yield from _item(value["item"], where, run)
    elif kind in ("error", "turn.failed"):
        text = as_str(value.get("message")) or as_str(as_dict(value.get("error")).get("message"))
        yield _notice(f"[{kind}] {text or '?'}", where, run, value)
    elif kind == "request_user_input":
        asked = [as_str(as_dict(q).get("question")) for q in as_list(value.get("questions"))]
        text = "\n".join(q for q in asked if q) or dumps(value.get("questions"))
        yield run.made(f"[request_user_input] {text}", where, ("assistant", "assistant"),
                       ["user"], extra={"event": value})  # fmt: skip
    else:
        run.skipped[kind] += 1


def _notice(text: str, where: str, run: _Run, event: dict[str, Any]) -> ConversationMessage:
    return run.made(text, where, ("codex", "system"), [], extra={"event": event}, tags=["system"])


def _item(item: dict[str, Any], where: str, run: _Run) -> Iterator[ConversationMessage]:
    kind = as_str(item.get("type")) or as_str(item.get("item_type"))
    text = as_str(item.get("text"))
    if kind in _ANSWERS:
        yield run.made(text, where, ("assistant", "assistant"), ["user"])
    elif kind == "reasoning":
        run.thinking.append(text)
        run.thought_at = where
        if run.ctx.options.include_thinking:
            yield run.made(f"[thinking] {text}", where, ("assistant", "assistant"), ["user"],
                           extra={"reasoning": True})  # fmt: skip
            run.thinking = []
    elif kind == "error":
        yield _notice(f"[error] {as_str(item.get('message'))}", where, run, item)
    elif kind in ("plan", "todo_list"):
        todo = [f"[{'x' if as_dict(t).get('completed') else ' '}] {as_str(as_dict(t).get('text'))}"
                for t in as_list(item.get("items"))]  # fmt: skip
        yield run.made([f"[{kind}] {text}".rstrip(), *todo], where, ("assistant", "assistant"),
                       ["user"], tags=["plan"])  # fmt: skip
    else:
        yield from _tool(item, kind, where, run)


def _tool(item: dict[str, Any], kind: str, where: str, run: _Run) -> Iterator[ConversationMessage]:
    """A tool's item: the call, then its output (when it has one)."""
    name, args, output, failed = _call_of(item, kind)
    status = as_str(item.get("status"))
    failed = failed or status in ("failed", "declined")
    call = {k: v for k, v in item.items() if k not in ("aggregated_output", "result")}
    yield run.made(f"[tool_use {name}] {dumps(args)}", where, ("assistant", "assistant"),
                   ["tool"], extra={"type": kind, "item": call})  # fmt: skip
    if output is not None or failed:
        flag = " error" if failed else ""
        result = f"[tool_result {name}{flag}] {output if output is not None else status}"
        yield run.made(result, where, ("tool", "tool"), ["assistant"], extra={"type": kind})


def _command(item: dict[str, Any]) -> tuple[str, Any, str | None, bool]:
    code = item.get("exit_code")
    output = as_str(item.get("aggregated_output"))
    return "shell", {"command": item.get("command")}, output, isinstance(code, int) and code != 0


def _mcp(item: dict[str, Any]) -> tuple[str, Any, str | None, bool]:
    name = ".".join(x for x in (as_str(item.get("server")), as_str(item.get("tool"))) if x)
    error = as_str(as_dict(item.get("error")).get("message"))
    content = as_list(as_dict(item.get("result")).get("content"))
    texts = [as_str(as_dict(c).get("text")) or dumps(c) for c in content]
    output = error or ("\n".join(texts) if item.get("result") is not None else None)
    return name or "mcp", item.get("arguments"), output, bool(error)


def _file_change(item: dict[str, Any]) -> tuple[str, Any, str | None, bool]:
    return "apply_patch", {"changes": item.get("changes")}, None, False


def _web_search(item: dict[str, Any]) -> tuple[str, Any, str | None, bool]:
    return "web_search", {k: item[k] for k in ("query", "action") if item.get(k)}, None, False


_CALLS = {
    "command_execution": _command,
    "mcp_tool_call": _mcp,
    "file_change": _file_change,
    "web_search": _web_search,
}


def _call_of(item: dict[str, Any], kind: str) -> tuple[str, Any, str | None, bool]:
    """(tool name, arguments, output or None, failed) of a tool's item."""
    known = _CALLS.get(kind)
    if known is not None:
        return known(item)
    args = {k: v for k, v in item.items() if k not in ("id", "type", "item_type", "status")}
    return as_str(item.get("tool")) or kind or "?", args, None, False
