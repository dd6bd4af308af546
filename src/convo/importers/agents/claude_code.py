"""Claude Code's lines: a session file's envelopes (``~/.claude/projects/P/S.jsonl``)
and the Agent SDK's messages; the Messages API object inside each is read by
``frameworks.anthropic_parts`` (passed in as ``inner``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from convo.importers.agents.classify import is_claude_sdk
from convo.importers.agents.parts import NotMessage, Parts

Inner = Callable[[dict[str, Any], str], Parts]


def claude_code_parts(env: dict[str, Any], inner: Inner) -> Parts:
    """One Claude Code line: a session file's or the Agent SDK's."""
    return _claude_sdk(env, inner) if is_claude_sdk(env) else _claude_code(env, inner)


def _claude_code(env: dict[str, Any], inner: Inner) -> Parts:
    """One line of a Claude Code session (``~/.claude/projects/PROJECT/SESSION.jsonl``).

    - ``summary`` (``{"type": "summary", "summary", "leafUuid"}``, no time): the title
      ``claude --resume`` shows for the conversation branch ending at ``leafUuid``
      (written at the top of a session file, often for a branch of an earlier file):
      no message, kept in the next message's ``extra.conversation.summaries``.
    - ``isSidechain``: a subagent's conversation (the Task tool), whose "user" is the
      main agent: spoken by ``assistant`` to ``subagent`` and back, tagged ``sidechain``.
    - ``isMeta`` (text Claude Code puts in the user's turn: caveats, command output)
      and ``isCompactSummary`` (the summary a compaction starts the new context with):
      role ``system``, tagged ``meta`` / ``compact-summary``, not spoken by the user.
    - ``system`` with ``subtype: compact_boundary`` (parentUuid null): a system message
      tagged ``compact``, replying to its ``logicalParentUuid`` (the last message before).
    - ``attachment`` (Claude Code 2.1): a ``queued_command`` is a prompt typed while the
      agent worked, taken into the running turn: the user's message (tagged ``queued``;
      another ``commandMode`` or ``origin``, as a task notification, Claude Code's:
      role ``system``); other attachments (hook output, reminders) are no message.
    - ``queue-operation``: the prompt queue (``convo.importers.agents.claude_queue``): a
      prompt taken into the running turn with no line of its own is read as the
      ``queued_command`` attachment newer versions write for it.
    - Any other line without a message (``system`` notices without ``content``, as
      ``turn_duration`` and ``stop_hook_summary``; ``custom-title``, ``pr-link`` and other
      bookkeeping of newer versions): skipped, one warning a kind.
    """
    kind = env.get("type")
    stamp = env.get("timestamp")
    _kept_elsewhere(env, kind)
    msg = _queued(env) if kind == "attachment" else env.get("message")
    if kind == "system" and isinstance(env.get("content"), str):
        msg = {"role": "system", "content": env["content"]}
    if not isinstance(msg, dict):
        if kind in ("user", "assistant"):  # a turn whose message is damaged
            raise NotMessage(f"a Claude Code {kind!r} entry without a message object")
        what = kind if kind != "attachment" else f"attachment {_attachment_kind(env)}"
        if kind == "system" and isinstance(env.get("subtype"), str):
            what = f"system {env['subtype']}"
        raise NotMessage(f"Claude Code {what} entry (not a message)", bookkeeping=True)
    role_default = kind if kind in ("user", "assistant", "system") else "user"
    parts = inner(msg, role_default)
    if kind == "attachment":
        parts.tags.append("queued")
    parts.extra["claude_code"] = "queue-operation" if env.get("queueOperation") else kind
    parts.id = env.get("uuid") or msg.get("id")
    parts.reply_to = env.get("parentUuid")
    parts.thread = env.get("sessionId")
    parts.timestamp = stamp
    _claude_code_marks(env, parts)
    return parts


def _kept_elsewhere(env: dict[str, Any], kind: Any) -> None:
    """Raise for a line kept apart from the messages: a ``summary`` (a title for the
    next message) and a ``queue-operation`` (for the thread's prompt queue)."""
    if kind == "summary":
        text = env.get("summary")
        if not isinstance(text, str):
            raise NotMessage("a Claude Code summary without text")
        raise NotMessage(
            "Claude Code summary (a conversation title, not a message)",
            bookkeeping=True,
            title={"summary": text, "leafUuid": env.get("leafUuid")},
        )
    if kind == "queue-operation":
        raise NotMessage("Claude Code queue-operation entry (not a message)", queue=env)


def _attachment_kind(env: dict[str, Any]) -> str:
    attachment = env.get("attachment")
    kind = attachment.get("type") if isinstance(attachment, dict) else None
    return kind if isinstance(kind, str) and kind else "?"


def _queued(env: dict[str, Any]) -> dict[str, Any] | None:
    """A ``queued_command`` attachment's prompt as the message it is: the user's when typed
    by the person (``commandMode`` ``prompt``, no ``origin`` or a ``human`` one), else a
    system message (a task's notification, a peer's hand-back); None for the others."""
    attachment = env.get("attachment")
    if _attachment_kind(env) != "queued_command" or not isinstance(attachment, dict):
        return None
    prompt = attachment.get("prompt")
    if not isinstance(prompt, str):
        return None
    origin = attachment.get("origin")
    who = origin.get("kind") if isinstance(origin, dict) else None
    typed = attachment.get("commandMode", "prompt") == "prompt" and who in (None, "human")
    return {"role": "user" if typed else "system", "content": prompt}


def _claude_sdk(env: dict[str, Any], inner: Inner) -> Parts:
    """One message of the Claude Agent SDK's stream (``claude -p --output-format
    stream-json``, ``--output-format json``'s one result, the SDK's ``query()`` saved,
    claude-code-action's execution file: a JSON array of them), as its ``SDKMessage``
    types have it: no time; ``session_id``; ``uuid`` (not in the first versions).

    - ``assistant`` / ``user``: a turn as in a session file (one content block a line);
      ``parent_tool_use_id`` set: a Task subagent's turn (as ``isSidechain``).
    - ``result``: the run's end, its ``result`` the final answer's text, which the last
      ``assistant`` lines said already (``finish.convert`` skips it then, counted); said
      nowhere else (``--output-format json``) it is the assistant's message, tagged
      ``result``; a failed run (``is_error``, ``error_*`` subtypes) a ``system`` notice
      spoken by ``claude-code``, tagged ``error`` (the run's figures: ``extra.original``).
    - ``system`` (``init``, ``compact_boundary``, ``status``, hook and retry notices),
      ``stream_event`` (partial deltas of a message that follows whole) and
      ``tool_progress``: no message, skipped (one warning a kind).
    """
    kind = env.get("type")
    if kind == "result":
        return _claude_sdk_result(env)
    msg = env.get("message")
    if kind not in ("user", "assistant") or not isinstance(msg, dict):
        subtype = env.get("subtype")
        what = f"{kind} {subtype}" if isinstance(subtype, str) and subtype else kind
        raise NotMessage(f"Claude Code {what} entry (not a message)", bookkeeping=True)
    parts = inner(msg, str(kind))
    parts.extra["claude_code"] = kind
    parts.id = env.get("uuid")  # a message's id repeats on each of its blocks' lines
    parts.thread = env.get("session_id")
    parent = env.get("parent_tool_use_id")
    marks = dict(env)
    if isinstance(parent, str) and parent:
        marks["isSidechain"] = True
    _claude_code_voices(marks, parts)
    return parts


def _claude_sdk_result(env: dict[str, Any]) -> Parts:
    text = env.get("result")
    subtype = env.get("subtype")
    failed = env.get("is_error") is True or subtype != "success"
    if failed:
        errors = env.get("errors")
        said = [e for e in errors if isinstance(e, str)] if isinstance(errors, list) else []
        if isinstance(text, str) and text:
            said.insert(0, text)
        line = " ".join([f"[error {subtype}]", *said]) if said else f"[error {subtype}]"
        parts = Parts("claude-code", "system", [{"type": "text", "text": line}], {})
        parts.tags.append("error")
    elif isinstance(text, str):
        parts = Parts("assistant", "assistant", [{"type": "text", "text": text}], {})
        parts.tags.append("result")
        parts.repeats = text
    else:
        raise NotMessage("a Claude Code result without its text")
    parts.extra["claude_code"] = "result"
    parts.id = env.get("uuid")
    parts.thread = env.get("session_id")
    return parts


def _claude_code_marks(env: dict[str, Any], parts: Parts) -> None:
    """What Claude Code's flags say of a line (see ``_claude_code``)."""
    subtype = env.get("subtype")
    if isinstance(subtype, str) and subtype:
        parts.extra["subtype"] = subtype
    if subtype == "compact_boundary":
        parts.tags.append("compact")
        parts.reply_to = parts.reply_to or env.get("logicalParentUuid")
        if isinstance(env.get("compactMetadata"), dict):
            parts.extra["compact"] = env["compactMetadata"]
    _claude_code_voices(env, parts)


def _claude_code_voices(env: dict[str, Any], parts: Parts) -> None:
    """Who speaks a Claude Code line its flags mark: Claude Code itself, or a subagent."""
    if env.get("isMeta") is True or env.get("isCompactSummary") is True:
        parts.tags.append("compact-summary" if env.get("isCompactSummary") is True else "meta")
        if parts.role == "user":
            parts.role = parts.speaker = "system"
    if env.get("isSidechain") is True:
        parts.tags.append("sidechain")
        if parts.role == "user" and parts.speaker == "user":
            parts.speaker, parts.listeners = "assistant", ["subagent"]
        elif parts.role == "tool":  # the subagent's own calls answered
            parts.listeners = ["subagent"]
        elif parts.role == "assistant" and parts.speaker == "assistant":
            parts.speaker, parts.listeners = "subagent", ["assistant"]
        agent = env.get("agentId")
        if isinstance(agent, str) and agent:
            parts.extra["agent_id"] = agent
