"""What a framework converter finds in one message (``Parts``), the conversation it is
read in (``Thread``), and the errors that say an object is no message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from convo.core.errors import RecordError
from convo.core.plural import counted, plural
from convo.importers.agents.blocks import CallNames
from convo.importers.agents.classify import is_container, json_kind, peek_party
from convo.importers.agents.claude_queue import PromptQueue

AGENT_FORMATS = ("openai", "anthropic", "agentscope", "langmem", "autogen", "jianmu")


class NotMessage(RecordError):
    """The object is not a message of the expected framework. ``bookkeeping``: an entry
    the tool writes for itself, skipped (one warning a kind); ``title``: a conversation's
    title (a Claude Code ``summary``), kept on the next message instead; ``queue``: a
    Claude Code ``queue-operation`` line, for the thread's ``PromptQueue``."""

    def __init__(
        self,
        what: str,
        *,
        bookkeeping: bool = False,
        title: dict[str, Any] | None = None,
        queue: dict[str, Any] | None = None,
    ):
        super().__init__(
            what,
            hint="use --lenient to keep such objects as text, or --from to pick the format",
        )
        self.bookkeeping = bookkeeping
        self.title = title
        self.queue = queue


def check_message_object(obj: Any) -> None:
    """Raise NotMessage for what is no message object of any framework."""
    if type(obj) is not dict and not isinstance(obj, dict):
        raise NotMessage(f"a JSON {json_kind(obj)}, not a message object")
    if "messages" in obj and is_container(obj):
        raise NotMessage("a conversation nested inside a conversation")
    if "textChunks" in obj:
        raise NotMessage("a convo record, not an agent message (use --from jsonl)")


class TooDeep(RecordError):
    """A message nested beyond ``MAX_DEPTH``: rejected, never wrapped under --lenient."""


@dataclass
class Thread:
    """One conversation: its id, container fields and the two parties seen so far."""

    id: str | None = None
    extra: dict[str, Any] | None = None  # container fields, attached to the first message
    scope: str | None = None  # the file a short id is unique in (``source_key``)
    last: dict[str, str | None] = field(default_factory=lambda: {"user": None, "assistant": None})
    tools: CallNames = field(default_factory=CallNames)  # a result named by its call
    held_at: str | None = None  # where the titles waiting in ``extra`` were read
    when: Any = None  # the conversation's time, for messages without one (a DSPy entry's)
    # the assistant's text since the last other turn, its spaces out, in pieces (a result
    # that repeats it is skipped: ``finish``), and its length
    said: list[str] = field(default_factory=list)
    said_size: int = 0
    # bookkeeping entries skipped, by kind: [how many, where the first was]
    skipped: dict[str, list[Any]] = field(default_factory=dict)
    queued: PromptQueue = field(default_factory=PromptQueue)  # Claude Code's typed-ahead prompts

    def called(self, blocks: list[dict[str, Any]]) -> None:
        """Remember the names of the tool calls among ``blocks``."""
        for b in blocks:
            if b.get("type") == "tool_use":
                self.tools.add(b.get("id"), b.get("name"))

    def hold(self, title: dict[str, Any], where: str) -> None:
        """A conversation title (a Claude Code ``summary``) for the next message's
        ``extra.conversation.summaries``."""
        conv = self.extra if self.extra is not None else {}
        conv.setdefault("summaries", []).append(title)
        self.extra, self.held_at = conv, where

    def skip(self, what: str, where: str) -> None:
        """Count a bookkeeping entry (``what``: its kind) skipped at ``where``."""
        seen = self.skipped.setdefault(what, [0, where])
        seen[0] += 1

    def said_untaken(self, warn: Callable[[str, str], None]) -> None:
        """Say the bookkeeping entries skipped, one warning a kind (a Claude Code session
        holds hundreds of file-history snapshots), and the titles no message came after to
        take them (a file of titles, each for a ``leafUuid`` of another session file;
        a message read before has gone on: the reader streams)."""
        for what, (n, first) in self.skipped.items():
            warn(first, f"skipped: {what}" if n == 1 else f"skipped {n}: {what}, the first here")
        self.queued.report(warn)
        left = (self.extra or {}).get("summaries") if self.held_at else None
        if left:
            n = len(left)
            warn(self.held_at or "", f"{counted(n, 'conversation title')} (Claude Code summary "
                 f"{plural(n, 'line', 'lines')}) with no message after {plural(n, 'it', 'them')}: "
                 "not imported (each titles the branch ending at its leafUuid, a message of "
                 "another session file)")  # fmt: skip

    def prime(self, objs: Iterable[Any], fmt: str) -> None:
        """Know both parties' names before the first reply (a whole conversation at hand);
        stops reading ``objs`` once both are known (nothing later would change them)."""
        for obj in objs:
            if not isinstance(obj, dict):
                continue
            side, name = peek_party(obj, fmt)
            if side and name and self.last.get(side) is None:
                self.last[side] = name
                if self.primed:
                    return

    @property
    def primed(self) -> bool:
        """Both parties' names are known."""
        return self.last["user"] is not None and self.last["assistant"] is not None

    def listeners(self, role: str | None, speaker: str | None) -> list[str]:
        """The other party of the two-party exchange (see ``convo.importers.agents.reader``)."""
        if role == "user":
            other = self.last["assistant"] or "assistant"
        elif role in ("assistant", "tool"):
            other = self.last["user"] or "user"
            if role == "tool":
                other = self.last["assistant"] or "assistant"
        else:
            return []
        return [] if other == speaker else [other]

    def heard(self, role: str | None, speaker: str | None, aside: bool = False) -> None:
        """``speaker`` spoke as ``role``; ``aside``: not one of the two parties (a
        Claude Code subagent's exchange)."""
        if aside:
            return
        if role == "user":
            self.last["user"] = speaker
        elif role == "assistant":
            self.last["assistant"] = speaker


@dataclass
class Parts:
    """What a framework converter found, before the shared finishing."""

    speaker: str | None
    role: str | None
    blocks: list[dict[str, Any]]
    extra: dict[str, Any]
    timestamp: Any = None
    id: Any = None
    reply_to: Any = None
    thread: Any = None
    listeners: list[str] | None = None  # an explicit addressee (AutoGen handoff target)
    tags: list[str] = field(default_factory=list)
    repeats: str | None = None  # text that is no message if the assistant just said it
