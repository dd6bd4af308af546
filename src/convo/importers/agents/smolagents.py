"""smolagents' agent memory saved as JSON (``smolagents``): ``agent.memory
.get_full_steps()`` / ``get_succinct_steps()``, and the run lines its benchmark scripts
write (``{"question", "prediction", "intermediate_steps": [...]}``, open_deep_research's
``output/*.jsonl``).

Shape (huggingface/smolagents ``src/smolagents/memory.py``: each step's ``dict()``):
``TaskStep`` ``{task, task_images}``; ``ActionStep`` ``{step_number, timing: {start_time,
end_time, duration} (before 1.17 ``start_time`` and ``end_time`` at the top),
model_input_messages (the full steps only), tool_calls: [{id, type: function, function:
{name, arguments}}], error: {type, message}, model_output_message, model_output,
code_action, observations, action_output, token_usage, is_final_answer}``;
``PlanningStep`` ``{model_input_messages, model_output_message, plan, timing,
token_usage}``; ``SystemPromptStep`` ``{system_prompt}``; ``FinalAnswerStep``
``{output}``. Times are epoch seconds.

Decisions (as the steps' own ``to_messages`` make them messages): a task is the
``user``'s; an action the ``assistant``'s (its ``model_output``, then ``[tool_use NAME]
{arguments}`` a call), its observations (or error) the ``tool``'s (``[tool_result NAME]
...``, NAME the first call's; ``error`` flagged), a plan the ``assistant``'s (tagged
``plan``), a system prompt ``system``, a final answer the ``assistant``'s (tagged
``final``). time = the step's start (an observation: its end); a step without one
takes the last time seen, none yet: the epoch sentinel, warned. thread =
``smolagents:<file>`` (a run line: ``smolagents:<task_id>``, else ``<file>:<line>``);
ids content hashes; the model's input messages are not kept (each repeats the steps
before it); token usage, code, the action's output in ``extra``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import dumps, parse_arguments
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "smolagents"
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"], "system": []}
_STEP_KEYS = ("step_number", "system_prompt", "plan", "task")


def is_step(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if "step_number" in value:
        return "tool_calls" in value or "model_output" in value or "observations" in value
    if "plan" in value:
        return "timing" in value or "model_output_message" in value
    if "task" in value:
        return "task_images" in value
    return set(value) == {"system_prompt"} or set(value) == {"output"}


def is_run(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("intermediate_steps"), list)
        and ("question" in value or "prediction" in value)
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")) or not any(
        f'"{k}"' in text for k in (*_STEP_KEYS, "intermediate_steps")
    ):
        return 0
    values = [
        v
        for value in sample_values(text)[:20]
        for v in (value if isinstance(value, list) else [value])
    ]
    return (
        85
        if values
        and (any(is_run(v) for v in values) or sum(map(is_step, values)) * 2 > len(values))
        else 0
    )


class _Run:
    """One run's thread, the last time seen and the untimed count."""

    def __init__(self, thread: str, ctx: ImportContext):
        self.thread, self.ctx = thread, ctx
        self.when: str | None = None
        self.untimed = 0

    def record(self, speaker: str, chunks: list[str], where: str, when: Any = None,
               tags: list[str] | None = None, extra: dict[str, Any] | None = None) -> ConversationMessage:  # fmt: skip
        with contextlib.suppress(ValueError):  # a time that does not read: the last one
            self.when = parse_any(when, self.ctx.options.tz) or self.when
        self.untimed += self.when is None
        return message(chunks, speaker=speaker, listeners=OTHER[speaker], timestamp=self.when,
                       source_id=where, format=NAME, thread=self.thread, role=speaker,
                       tags=tags or [], extra=extra)  # fmt: skip

    def step(self, step: dict[str, Any], where: str) -> Iterator[ConversationMessage]:
        timing = as_dict(step.get("timing"))
        start = timing.get("start_time", step.get("start_time"))
        end = timing.get("end_time", step.get("end_time"))
        if "system_prompt" in step:
            yield self.record("system", [as_str(step["system_prompt"])], where)
        elif "task" in step:
            yield self.record("user", [as_str(step["task"])], where, start)
        elif "plan" in step:
            yield self.record("assistant", [as_str(step["plan"])], where, start, ["plan"])
        elif "output" in step and "step_number" not in step:
            yield self.record("assistant", [_text(step["output"])], where, None, ["final"])
        else:
            yield from self._action(step, where, start, end)

    def _action(
        self, step: dict[str, Any], where: str, start: Any, end: Any
    ) -> Iterator[ConversationMessage]:
        calls = [as_dict(c) for c in as_list(step.get("tool_calls"))]
        chunks = [_text(step["model_output"])] if step.get("model_output") else []
        for call in calls:
            fn = as_dict(call.get("function"))
            args = parse_arguments(fn.get("arguments"))
            said = args["input_raw"] if "input_raw" in args else dumps(args["input"])
            chunks.append(f"[tool_use {as_str(fn.get('name')) or '?'}] {said}")
        extra = {k: step.get(k) for k in ("step_number", "code_action", "action_output", "token_usage")
                 if step.get(k) not in (None, "", [])}  # fmt: skip
        yield self.record(
            "assistant",
            chunks or [""],
            where,
            start,
            ["final"] if step.get("is_final_answer") else [],
            extra,
        )
        error = as_dict(step.get("error"))
        said = as_str(step.get("observations")) or as_str(error.get("message"))
        if said:
            name = as_str(as_dict(calls[0].get("function")).get("name")) if calls else "observation"
            flag = " error" if error else ""
            yield self.record(
                "tool",
                [f"[tool_result {name}{flag}] {said}"],
                where,
                end,
                ["error"] if error else [],
            )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    steps = _Run(f"{NAME}:{ctx.thread_of(source.name)}", ctx)
    runs = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if is_run(sample):
            runs += 1
            yield from _run(sample, where, ctx)
            continue
        items = sample if isinstance(sample, list) else [sample]
        for k, step in enumerate(items, 1):
            at = where if items == [sample] else sub(ctx, where, f"step-{k}")
            if is_step(step):
                yield from steps.step(step, at)
            else:
                ctx.reject(
                    at,
                    "not a smolagents memory step (task, step_number, plan, system_prompt)",
                    step,
                )
    if steps.untimed:
        ctx.warn(
            source.name,
            f"{counted(steps.untimed, 'step')} without a time {plural(steps.untimed, 'gets', 'get')} the epoch sentinel",
        )


def _run(line: dict[str, Any], where: str, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """A benchmark run: its question, its steps, its prediction."""
    task = as_str(line.get("task_id"))
    run = _Run(f"{NAME}:{task}" if task else f"{NAME}:{where}", ctx)
    question = as_str(line.get("augmented_question")) or as_str(line.get("question"))
    yield run.record(
        "user", [question], where, line.get("start_time"), extra={"question": line.get("question")}
    )
    for k, step in enumerate(line["intermediate_steps"], 1):
        at = sub(ctx, where, f"step-{k}")
        if is_step(step):
            yield from run.step(step, at)
        elif isinstance(step, dict) and "role" in step:  # older runs: the memory as messages
            role = {"tool-call": "assistant", "tool-response": "tool"}.get(
                as_str(step["role"]), as_str(step["role"])
            )
            yield run.record(
                role if role in OTHER else "assistant", [_text(step.get("content"))], at
            )
        else:
            ctx.reject(at, "not a smolagents memory step", step)
    extra = {k: line.get(k) for k in ("true_answer", "agent_error", "parsing_error", "iteration_limit_exceeded", "agent_name")
             if line.get(k) not in (None, "", False)}  # fmt: skip
    yield run.record(
        "assistant",
        [_text(line.get("prediction"))],
        sub(ctx, where, "prediction"),
        line.get("end_time"),
        ["final"],
        extra,
    )


DESCRIPTION = (
    "smolagents agent memory (get_full_steps / get_succinct_steps) and benchmark run lines"
)
EXAMPLE = (
    '[{"task": "How long does 1 l of water take to boil?", "task_images": null}, {"step_number": 1, '
    '"timing": {"start_time": 1735000000.0, "end_time": 1735000002.5}, "model_output": "Compute it.", '
    '"tool_calls": [], "observations": "167 s", "error": null, "is_final_answer": false}]'
)
FIELDS = Fields(
    speaker="`user` (a task, a run's question), `assistant` (an action, a plan, the answer), "
    "`tool` (observations, errors), `system` (the system prompt)",
    listeners="user ↔ assistant; observations → assistant",
    time="the step's `timing.start_time` (observations: its end), epoch seconds; else the last "
    "time seen",
    zone="epoch seconds: UTC",
    thread="`smolagents:<file>`; a run line: `smolagents:<task_id>`",
    id=CONTENT_HASH,
    scope="the thread",
    tags="`plan`, `final`, `error`",
    extra="`step_number`, `code_action`, `action_output`, `token_usage`; a run's `question`, "
    "`true_answer`, `agent_error`, `parsing_error`, `iteration_limit_exceeded`, `agent_name`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
