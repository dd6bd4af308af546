"""OpenHands V1 events (the software-agent-sdk's, read by ``openhands``).

Shape (OpenHands/software-agent-sdk ``openhands-sdk/openhands/sdk/event/``: ``base.py``
``Event`` {``id`` a UUID, ``timestamp`` naive local ISO, ``source`` user | agent |
environment}, a ``kind`` naming the class; ``llm_convertible/message.py``,
``action.py``, ``observation.py``, ``system.py``): the CLI and the V1 app keep one
event a file, ``~/.openhands/conversations/<id>/events/event-NNNNN-<uuid>.json``
(a cloud download: ``event_NNNNNN_<uuid>.json`` in a zip, with ``meta.json``), the
conversation's agent settings in ``base_state.json`` beside ``events/`` (recognised,
no message: a warning says so).

- ``MessageEvent``: ``llm_message`` {``role``, ``content``: [{``type``: text, ``text``} |
  {``type``: image, ``image_urls``}], ``reasoning_content``, ``thinking_blocks``},
  ``activated_skills``, ``extended_content`` (text the agent's context added);
- ``ActionEvent``: ``thought`` (text parts), ``reasoning_content``,
  ``thinking_blocks``, ``action`` {``kind``: TerminalAction, FileEditorAction,
  FinishAction..., its arguments}, ``tool_name``, ``tool_call_id``, ``tool_call``
  {``name``, ``arguments`` a JSON string}, ``summary``, ``security_risk``;
- ``ObservationEvent``: ``tool_name``, ``tool_call_id``, ``action_id``,
  ``observation`` {``kind``, ``content`` parts, ``is_error``, ``exit_code``...};
  ``UserRejectObservation`` (``rejection_reason``), ``AgentErrorEvent`` (``error``);
- ``SystemPromptEvent`` (``system_prompt`` a text part, ``tools``);
  ``ConversationErrorEvent`` (``code``, ``detail``); and state, token, pause,
  condensation, hook and streaming events, which hold no message.

Decisions (as for the V0 events): a message is the person's (``user``) or the
agent's (``assistant``); an action the assistant's thought, then ``[tool_use TOOL]
{args}``; an observation, a rejection or an agent error the ``tool``'s ``[tool_result
TOOL] ...`` (`` error`` after the name when it failed); the system prompt
``system``'s; a conversation error an ``openhands`` notice. Thinking is private
(``extra.thinking``). The events of no message are skipped, counted by kind.
"""

from __future__ import annotations

from typing import Any

from convo.importers.agents.blocks import dumps, parse_arguments
from convo.importers.jsoninput import as_dict, as_list, as_str

KINDS = frozenset(
    {"MessageEvent", "ActionEvent", "ObservationEvent", "UserRejectObservation",
     "AgentErrorEvent", "SystemPromptEvent", "ConversationErrorEvent"}
)  # fmt: skip
# what the events' own fields say; the rest of an event goes to extra
_OWN = frozenset(
    {"id", "timestamp", "source", "kind", "llm_message", "thought", "reasoning_content",
     "thinking_blocks", "action", "observation", "tool_call", "system_prompt",
     "rejection_reason", "error", "detail", "tools"}
)  # fmt: skip

Parts = tuple[str, list[str], list[str], dict[str, Any]]


def is_v1_event(value: Any) -> bool:
    """A V1 event: a ``kind`` ending in ``Event`` or ``Observation`` and its ``source``."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("kind"), str)
        and value["kind"].endswith(("Event", "Observation"))
        and value.get("source") in ("user", "agent", "environment")
    )


def v1_parts(event: dict[str, Any], include_thinking: bool) -> Parts | None:
    """(speaker, chunks, tags, extra) of an event; None for one of no message."""
    kind = event["kind"]
    if kind not in KINDS:
        return None
    thinking = _thinking(event) + _thinking(as_dict(event.get("llm_message")))
    speaker, chunks, tags, extra = _said(event, kind)
    if include_thinking:
        chunks = [f"[thinking] {t}" for t in thinking] + chunks
    elif thinking:
        extra["thinking"] = thinking
    extra.update({k: v for k, v in event.items() if k not in _OWN and v not in (None, [], {}, "")})
    extra["kind"] = kind
    return speaker, chunks, tags, extra


def _said(event: dict[str, Any], kind: str) -> Parts:
    """(speaker, chunks, tags, extra) of an event of ``KINDS``, its thinking aside."""
    if kind == "MessageEvent":
        msg = as_dict(event.get("llm_message"))
        speaker = "user" if event.get("source") == "user" else "assistant"
        return speaker, _texts(msg.get("content")), [], {}
    if kind == "ActionEvent":
        return "assistant", [*_texts(event.get("thought")), _call(event)], [], {}
    if kind == "SystemPromptEvent":
        tools = [as_str(as_dict(t).get("title")) for t in as_list(event.get("tools"))]
        prompt = _texts([event.get("system_prompt")])
        return "system", prompt, ["system"], {"tools": [t for t in tools if t] or None}
    if kind == "ConversationErrorEvent":
        said = as_str(event.get("detail")) or as_str(event.get("code"))
        return "openhands", [f"[error] {said}"], ["system", "error"], {}
    return _result(event, kind)


def _result(event: dict[str, Any], kind: str) -> Parts:
    """An observation, a rejection or an agent error: the tool's answer."""
    tool = as_str(event.get("tool_name")) or "?"
    obs = as_dict(event.get("observation"))
    if kind == "UserRejectObservation":
        said, failed = f"Action rejected: {as_str(event.get('rejection_reason'))}", True
    elif kind == "AgentErrorEvent":
        said, failed = as_str(event.get("error")), True
    else:
        code = obs.get("exit_code")
        failed = obs.get("is_error") is True or (isinstance(code, int) and code not in (0, -1))
        said = "\n".join(_texts(obs.get("content")))
    rest = {k: v for k, v in obs.items() if k not in ("content", "kind") and v not in (None, "")}
    extra: dict[str, Any] = {"observation": rest} if rest else {}
    flag = " error" if failed else ""
    return "tool", [f"[tool_result {tool}{flag}] {said}"], ["error"] if failed else [], extra


def _call(event: dict[str, Any]) -> str:
    """``[tool_use TOOL] {args}``: the action's arguments, else the tool call's."""
    action = as_dict(event.get("action"))
    call = as_dict(event.get("tool_call"))
    tool = as_str(event.get("tool_name")) or as_str(call.get("name")) or "?"
    if action:
        args = {k: v for k, v in action.items() if k != "kind"}
    else:
        args = parse_arguments(call.get("arguments")).get("input", {})
    return f"[tool_use {tool}] {dumps(args)}"


def _texts(parts: Any) -> list[str]:
    out: list[str] = []
    for part in as_list(parts):
        p = as_dict(part)
        if p.get("type") == "image":
            urls = [as_str(u) for u in as_list(p.get("image_urls"))]
            out += ["[image] data URL" if u.startswith("data:") else f"[image] {u}" for u in urls]
        elif isinstance(p.get("text"), str):
            out.append(p["text"])
    return out


def _thinking(obj: dict[str, Any]) -> list[str]:
    said = [as_str(b.get("thinking")) for b in map(as_dict, as_list(obj.get("thinking_blocks")))]
    reasoning = as_str(obj.get("reasoning_content"))
    return [t for t in [reasoning, *said] if t]
