"""DSPy's LM history (``lm.history``, ``dspy.settings``' global history) saved as JSON.

Shape (stanfordnlp/dspy ``dspy/clients/base_lm.py``, ``BaseLM._process_lm_response``):
one entry a model call, ``{"prompt", "messages" (the chat sent), "kwargs", "response",
"outputs" (the answers: strings, or ``{"text", "reasoning_content"?, "tool_calls"?,
"logprobs"?, "citations"?}``), "usage", "cost", "timestamp" (``datetime.now()
.isoformat()``: local, naive), "uuid", "model", "response_model", "model_type"}``. Saved
by users as a list of entries (``json.dump(lm.history, f, default=str)``), an entry a
conversation of the ``openai`` reader.

The messages alone were read, the answers (``outputs``) left in the first message's
``extra.conversation``: ``answered`` gives each answer as the assistant's message after
them, and every message of the entry the entry's time (``Thread.when``, read in
``--tz``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from convo.importers.agents.parts import Thread


def is_entry(conv: dict[str, Any]) -> bool:
    """A DSPy history entry: its answers, its call's id and time beside the messages."""
    return (
        isinstance(conv.get("outputs"), list)
        and isinstance(conv.get("uuid"), str)
        and isinstance(conv.get("timestamp"), str)
        and "model" in conv
    )


def _answer(output: Any) -> dict[str, Any]:
    if not isinstance(output, dict):
        return {"role": "assistant", "content": output if isinstance(output, str) else str(output)}
    content: list[dict[str, Any]] = []
    if isinstance(output.get("reasoning_content"), str) and output["reasoning_content"]:
        content.append({"type": "thinking", "thinking": output["reasoning_content"]})
    if isinstance(output.get("text"), str) and output["text"]:
        content.append({"type": "text", "text": output["text"]})
    answer: dict[str, Any] = {"role": "assistant", "content": content}
    calls = output.get("tool_calls")
    if isinstance(calls, list) and all(isinstance(c, dict) for c in calls):
        answer["tool_calls"] = calls
    elif calls:  # saved with default=str: the calls' text as written
        content.append({"type": "text", "text": f"[tool_calls] {calls}"})
    return answer


def _answers(outputs: list[Any]) -> Iterator[dict[str, Any]]:
    yield from map(_answer, outputs)


def answered(conv: dict[str, Any], thread: Thread, messages: Iterable[Any]) -> Iterable[Any]:
    """``messages``, then a DSPy entry's answers, the entry's time the thread's; any other
    conversation's messages as they are."""
    if not is_entry(conv):
        return messages
    thread.when = conv["timestamp"]
    if thread.extra:  # the answers are records now, not the conversation's fields
        thread.extra.pop("outputs", None)
    return chain(messages, _answers(conv["outputs"]))
