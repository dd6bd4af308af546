"""A Cline, Roo Code or Kilo Code task's ``ui_messages.json``, read when the task's
``api_conversation_history.json`` is not beside it (``cline`` reads that file when it
is: the two hold the same task, and the panel's copy is then passed over).

Shape (cline/cline ``src/shared/ExtensionMessage.ts``, Roo Code's
``packages/types`` ``clineMessageSchema``): a JSON array of ``ClineMessage``
``{ts (epoch ms), type: "ask" | "say", ask?, say?, text?, images?, files?, reasoning?,
partial?}``. ``say``: ``task`` (Roo Code: the first ``text``), ``user_feedback``, ``text``,
``reasoning``, ``completion_result``, ``tool`` (``text`` the call as JSON, ``{"tool":
"readFile", "path"}``), ``command``, ``command_output``, ``use_mcp_server``,
``mcp_server_response``, ``browser_action``, ``browser_action_result``, ``error``...;
``ask``: ``followup`` (``{"question", "options"}``), ``plan_mode_respond``
(``{"response"}``), ``command``, ``tool``, ``completion_result``, ``resume_task``...

Decisions: the task and the person's feedback are the ``user``'s; the assistant's text,
questions, answers and tool calls (``[tool_use NAME] ...``) the ``assistant``'s; command,
MCP and browser output the ``tool``'s (``[tool_result NAME] ...``); errors and notices
``cline``'s, tagged ``system``. The panel's bookkeeping (``api_req_started`` and its
kin, checkpoints, resume prompts, progress) and empty messages are counted in one
warning. Reasoning is private (``extra.thinking``). Times are ``ts``; the thread the
task's, ``cline:<task id>``; ids content hashes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import inner_json
from convo.importers.agents.samples import iter_samples
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.jsoninput import as_str

NAME = "cline"
USER = frozenset({"task", "user_feedback", "user_feedback_diff"})
ASSISTANT = frozenset({"text", "completion_result", "followup", "plan_mode_respond",
                       "act_mode_respond", "qna_respond"})  # fmt: skip
CALLS = {"tool": None, "command": "execute_command", "use_mcp_server": "use_mcp_server",
         "browser_action": "browser_action", "browser_action_launch": "browser_action",
         "new_task": "new_task"}  # fmt: skip
RESULTS = {"command_output": "execute_command", "mcp_server_response": "use_mcp_server",
           "browser_action_result": "browser_action", "subtask_result": "new_task"}  # fmt: skip
BOOKKEEPING = frozenset({"api_req_started", "api_req_finished", "api_req_retried",
    "api_req_retry_delayed", "api_req_deleted", "api_req_rate_limit_wait", "deleted_api_reqs",
    "checkpoint_created", "checkpoint_saved", "resume_task", "resume_completed_task",
    "task_progress", "hook_status", "hook_output_stream", "mcp_server_request_started",
    "state_snapshot", "subagent_usage", "condense", "error_retry"})  # fmt: skip
LISTENERS = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"], NAME: []}


def _kind(sample: Any) -> str | None:
    """A UI message's ``say`` or ``ask`` kind; None when it is no ``ClineMessage``."""
    if not isinstance(sample, dict) or sample.get("type") not in ("ask", "say"):
        return None
    kind = sample.get(sample["type"])
    return kind if isinstance(kind, str) and isinstance(sample.get("ts"), int | float) else None


def read_ui(source: Source, ctx: ImportContext, thread: str) -> Iterator[ConversationMessage]:
    skipped: dict[str, int] = {}
    thinking: list[str] = []
    first = True
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        kind = _kind(sample)
        if kind is None:
            ctx.reject(where, "not a Cline UI message (ts, type ask or say)", sample)
            continue
        said = as_str(sample.get("text"))
        if kind == "reasoning" or as_str(sample.get("reasoning")):  # the message's reasoning
            thinking.append(said if kind == "reasoning" else as_str(sample.get("reasoning")))
        if kind == "reasoning":
            continue
        if kind in BOOKKEEPING or not said.strip():
            skipped[kind] = skipped.get(kind, 0) + 1
            continue
        yield _record(sample, kind, _turn(kind, said, first), where, thread, thinking[:], ctx)
        first = False
        thinking.clear()
    if skipped:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(skipped.items()))
        ctx.warn(source.name, f"the task panel's bookkeeping and empty messages not read ({kinds})")


def _record(
    sample: dict[str, Any], kind: str, turn: tuple[str, str, Any], where: str, thread: str,
    thinking: list[str], ctx: ImportContext,
) -> ConversationMessage:  # fmt: skip
    role, text, options = turn
    return message(
        [text], speaker=role, listeners=LISTENERS[role], timestamp=_time(sample["ts"], ctx),
        source_id=where, format=NAME, thread=thread, role=None if role == NAME else role,
        tags=_tags(role, kind, sample),
        extra={"ui": f"{sample['type']}:{kind}", "images": sample.get("images") or None,
               "files": sample.get("files") or None, "thinking": thinking or None,
               "model": sample.get("modelInfo"), "options": options},
    )  # fmt: skip


def _tags(role: str, kind: str, sample: dict[str, Any]) -> list[str]:
    """``system`` on a notice (``error`` too on an error's), ``partial`` on a message
    whose stream was cut."""
    tags = ["system"] if role == NAME else []
    if role == NAME and ("error" in kind or "failed" in kind):
        tags.append("error")
    return tags + (["partial"] if sample.get("partial") else [])


def _turn(kind: str, said: str, first: bool) -> tuple[str, str, Any]:
    """(speaker, text, the options a question offers) of one UI message."""
    if kind in USER or (first and kind == "text"):  # the task is the first text
        return "user", said, None
    if kind in ASSISTANT:
        asked = _json(said)
        for key in ("question", "response"):
            if isinstance(asked, dict) and isinstance(asked.get(key), str):
                return "assistant", asked[key], asked.get("options") or None
        return "assistant", said, None
    if kind in CALLS:
        call = _json(said)
        name = CALLS[kind] or (as_str(call.get("tool")) if isinstance(call, dict) else "") or kind
        return "assistant", f"[tool_use {name}] {said}", None
    if kind in RESULTS:
        return "tool", f"[tool_result {RESULTS[kind]}] {said}", None
    return NAME, said, None


def _json(text: str) -> Any:
    if not text.lstrip().startswith("{"):
        return None
    try:
        return inner_json(text)
    except ValueError:
        return None


def _time(value: Any, ctx: ImportContext) -> Any:
    try:
        return parse_any(value, ctx.options.tz)
    except ValueError:
        return None
