"""Claude Code's prompt queue: what a person typed while the agent worked.

A session file logs the queue as ``{"type": "queue-operation", "operation", "timestamp",
"content"?, "reason"?}`` lines. An ``enqueue`` holds the typed text (or a background
task's ``<task-notification>``); what became of it is told by what follows, as watchers
of real sessions read it:

- a ``user`` line of the same text (the idle path: ``dequeue``, then the turn), or a
  ``queued_command`` attachment of the same prompt (Claude Code 2.1.2xx): delivered,
  and that line is its message;
- a ``remove`` with ``reason`` ``absorbed_mid_turn`` (2.1.28x), or a ``remove`` without
  ``content`` (2.1.3x, before the reason was written: the prompt rode into the running
  turn, as a compaction's summary of such a session recalls it): delivered into the
  turn with no line of its own. ``release`` gives the attachment line it stands for
  (``claude_code`` reads it as the user's message, tagged ``queued``), the removed
  content's, else the latest prompt typed by the person;
- a ``remove`` naming its ``content`` without a reason and before any delivery: the
  person took it back (withdrawn), no message; counted in a warning, as are the prompts
  still queued when the file ends.
"""

from __future__ import annotations

from typing import Any

from convo.core.plural import counted

NOTIFICATION = "<task-notification>"


def _text(env: dict[str, Any]) -> str | None:
    """The text a ``user`` line or a ``queued_command`` attachment delivers."""
    if env.get("type") == "attachment":
        att = env.get("attachment")
        prompt = att.get("prompt") if isinstance(att, dict) else None
        return prompt.strip() if isinstance(prompt, str) else None
    msg = env.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = "\n".join(t for t in texts if isinstance(t, str))
    return content.strip() if isinstance(content, str) else None


class PromptQueue:
    """The prompts queued and not yet delivered, in the order typed."""

    def __init__(self) -> None:
        self.pending: list[tuple[dict[str, Any], str]] = []  # (enqueue line, where)
        self.withdrawn: list[str] = []  # where each prompt taken back was queued

    def delivered(self, env: dict[str, Any]) -> None:
        """A line that may deliver a queued prompt as its own message."""
        if not self.pending or env.get("type") not in ("user", "attachment"):
            return
        text = _text(env)
        for k, (queued, _) in enumerate(self.pending):
            if text and str(queued.get("content")).strip() == text:
                del self.pending[k]
                return

    def operation(self, env: dict[str, Any], where: str) -> dict[str, Any] | None:
        """One ``queue-operation`` line; the attachment line a prompt delivered into the
        running turn stands for, else None."""
        op, content = env.get("operation"), env.get("content")
        if op == "enqueue" and isinstance(content, str) and content.strip():
            self.pending.append((env, where))
        elif op == "remove" and self.pending:
            k = self._removed(content)
            if k is None:
                return None
            queued, at = self.pending.pop(k)
            if isinstance(content, str) and env.get("reason") != "absorbed_mid_turn":
                self.withdrawn.append(at)
                return None
            return _attachment(queued)
        return None

    def _removed(self, content: Any) -> int | None:
        """Which pending prompt a ``remove`` takes: the one of its content, else the
        latest typed by the person (a task's notification is delivered as a turn of its
        own)."""
        if isinstance(content, str):
            return next(
                (k for k, (q, _) in enumerate(self.pending) if q.get("content") == content), None
            )
        typed = [k for k, (q, _) in enumerate(self.pending) if not _notification(q)]
        return typed[-1] if typed else None

    def report(self, warn: Any) -> None:
        """Say the prompts taken back and those still queued when the file ended."""
        if self.withdrawn:
            warn(
                self.withdrawn[0],
                f"{counted(len(self.withdrawn), 'queued prompt')} taken back before they were sent "
                "(Claude Code queue-operation remove): not imported, the first here",
            )
        if self.pending:
            warn(
                self.pending[0][1],
                f"{counted(len(self.pending), 'queued prompt')} never delivered (Claude Code "
                "queue-operation enqueue): not imported, the first here",
            )


def _notification(queued: dict[str, Any]) -> bool:
    return str(queued.get("content")).lstrip().startswith(NOTIFICATION)


def _attachment(queued: dict[str, Any]) -> dict[str, Any]:
    """The ``queued_command`` attachment line newer versions write for a prompt taken
    into the running turn."""
    return {
        "type": "attachment",
        "attachment": {
            "type": "queued_command",
            "prompt": queued.get("content"),
            "commandMode": "task-notification" if _notification(queued) else "prompt",
        },
        "timestamp": queued.get("timestamp"),
        "sessionId": queued.get("sessionId"),
        "queueOperation": queued,
    }
