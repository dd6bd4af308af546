"""Amazon Q Developer CLI conversations (``amazon-q``): ``/save FILE`` (a
``ConversationState`` as JSON) and the CLI's own store, ``data.sqlite3``'s
``conversations`` table (one state a working directory, ``amazon_q_db``). Kiro CLI, its
successor, saves the same state.

Shape (aws/amazon-q-developer-cli ``crates/chat-cli/src/cli/chat/conversation.rs``,
``message.rs``): ``{conversation_id, next_message, history, valid_history_range,
transcript, tools, context_manager, latest_summary, model | model_info, ...}``. ``history``
a list of turns: ``{user, assistant, request_metadata}`` (before 1.13 a pair ``[user,
assistant]``). A user message ``{additional_context, env_context: {env_state:
{current_working_directory...}}, content, images, timestamp}``, its content ``{"Prompt":
{prompt}}``, ``{"ToolUseResults": {tool_use_results: [{tool_use_id, content: [{"Text"} |
{"Json"}], status: Success | Error}]}}`` or ``{"CancelledToolUses": {prompt,
tool_use_results}}``; an assistant message ``{"Response": {message_id, content}}`` or
``{"ToolUse": {message_id, content, tool_uses: [{id, name, orig_name, args}]}}``;
``request_metadata`` the request's ``request_start_timestamp_ms`` and
``stream_end_timestamp_ms``. ``transcript`` is the chat as the terminal showed it (``> ``
before a prompt, ``[Tool uses: NAME]`` after an answer); a state whose history was
emptied (a new session, ``/clear``) keeps only it.

Decisions: a prompt is the ``user``'s; tool results the ``tool``'s (``[tool_result NAME]
output``, NAME the call's, ``error`` flagged); an answer the ``assistant``'s, its calls
``[tool_use NAME] {args}`` after its text. A cancelled call's results, then the prompt
sent with them. time = the user message's ``timestamp``, else its request's start; an
answer's the request's stream end; none (the pairs of old versions): the epoch sentinel,
warned. Turns before ``valid_history_range`` (no longer sent to the model) are tagged
``evicted``; ``next_message`` (typed, not sent) is a ``user`` record tagged ``pending``;
``latest_summary`` a ``system`` record tagged ``summary``. With no history the
transcript's lines are the records (``> `` the user's, the rest the assistant's, no
times); with one, the transcript is its copy and is not read again (counted in a
warning). thread = ``amazon-q:<conversation_id>``; the working directory, model and
request ids in ``extra``; ids content hashes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.amazon_q_db import conversations, is_q_db
from convo.importers.agents.blocks import dumps
from convo.importers.agents.samples import iter_samples
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "amazon-q"
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"], "system": []}
_KEYS = ('"conversation_id"', '"valid_history_range"', '"transcript"')


def is_state(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("conversation_id"), str)
        and isinstance(value.get("history"), list)
        and ("valid_history_range" in value or "transcript" in value)
    )


def sniff(source: Source) -> int:
    if is_q_db(source):
        return 90
    text = json_head(source)
    if text.startswith("{") and all(k in text for k in _KEYS[:2]):
        return 90
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if is_q_db(source):
        for where, state in conversations(source):
            if is_state(state):
                yield from _State(state, where, ctx).records()
            else:
                ctx.reject(where, "not an Amazon Q conversation (conversation_id, history)", state)
        return
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if is_state(sample):
            yield from _State(sample, where, ctx).records()
        else:
            ctx.reject(where, "not an Amazon Q conversation (conversation_id, history)", sample)


class _State:
    """One saved conversation and what its records share."""

    def __init__(self, state: dict[str, Any], where: str, ctx: ImportContext):
        self.state, self.where, self.ctx = state, where, ctx
        self.thread = f"{NAME}:{state['conversation_id']}"
        info = as_dict(state.get("model_info"))
        self.model = as_str(state.get("model")) or as_str(info.get("model_id")) or None
        self.tools: dict[str, str] = {}  # a call's id -> its tool's name
        self.untimed = 0

    def records(self) -> Iterator[ConversationMessage]:
        history = self.state["history"]
        span = as_list(self.state.get("valid_history_range"))
        first = span[0] if span and isinstance(span[0], int) else 0
        for n, turn in enumerate(history):
            yield from self._turn(
                turn, f"{self.where}#history-{n + 1}", ["evicted"] if n < first else []
            )
        transcript = [t for t in as_list(self.state.get("transcript")) if isinstance(t, str)]
        if not history:
            for n, line in enumerate(transcript, 1):
                yield from self._transcript(line, f"{self.where}#transcript-{n}")
        elif transcript:
            self.ctx.warn(
                self.where,
                f"the transcript ({len(transcript)} lines) is the history's copy: not read again",
            )
        pending = as_dict(self.state.get("next_message"))
        if pending:
            yield from self._user(pending, {}, f"{self.where}#next_message", ["pending"])
        summary = as_list(self.state.get("latest_summary"))
        if summary and isinstance(summary[0], str):
            made = _ms(as_dict(summary[-1]).get("stream_end_timestamp_ms"))
            yield self._record(
                "system", [summary[0]], made, f"{self.where}#latest_summary", ["system", "summary"]
            )
        if self.untimed:
            self.ctx.warn(
                self.where,
                f"{counted(self.untimed, 'message')} without a time {plural(self.untimed, 'gets', 'get')} the epoch sentinel",
            )

    def _turn(self, turn: Any, where: str, tags: list[str]) -> Iterator[ConversationMessage]:
        if isinstance(turn, list) and len(turn) == 2:  # before 1.13: (user, assistant)
            user, assistant, meta = turn[0], turn[1], {}
        elif isinstance(turn, dict):
            user, assistant = turn.get("user"), turn.get("assistant")
            meta = as_dict(turn.get("request_metadata"))
        else:
            self.ctx.reject(where, "not an Amazon Q history entry (user, assistant)", turn)
            return
        yield from self._user(as_dict(user), meta, where, tags)
        yield from self._assistant(as_dict(assistant), meta, where, tags)

    def _user(
        self, user: dict[str, Any], meta: dict[str, Any], where: str, tags: list[str]
    ) -> Iterator[ConversationMessage]:
        content = as_dict(user.get("content"))
        when = user.get("timestamp") or _ms(meta.get("request_start_timestamp_ms"))
        extra = {"cwd": as_str(as_dict(as_dict(user.get("env_context")).get("env_state")).get("current_working_directory")) or None,
                 "additional_context": user.get("additional_context") or None,
                 "images": user.get("images") or None}  # fmt: skip
        results = as_dict(content.get("ToolUseResults") or content.get("CancelledToolUses"))
        chunks = [
            self._result(r) for r in as_list(results.get("tool_use_results")) if isinstance(r, dict)
        ]
        if chunks:
            yield self._record(
                "tool",
                chunks,
                when,
                where,
                tags,
                {"cancelled": True if "CancelledToolUses" in content else None},
            )
        prompt = as_str(as_dict(content.get("Prompt")).get("prompt")) or as_str(
            results.get("prompt")
        )
        if prompt or not chunks:
            yield self._record("user", [prompt], when, where, tags, extra)

    def _assistant(
        self, said: dict[str, Any], meta: dict[str, Any], where: str, tags: list[str]
    ) -> Iterator[ConversationMessage]:
        body = as_dict(said.get("ToolUse") or said.get("Response"))
        if not said:
            return
        chunks = [as_str(body.get("content"))] if as_str(body.get("content")).strip() else []
        for call in as_list(body.get("tool_uses")):
            call = as_dict(call)
            name = as_str(call.get("name")) or "?"
            self.tools[as_str(call.get("id"))] = name
            chunks.append(f"[tool_use {name}] {dumps(call.get('args', {}))}")
        extra = {"model": as_str(meta.get("model_id")) or self.model, "message_id": body.get("message_id"),
                 "request_id": meta.get("request_id")}  # fmt: skip
        when = _ms(meta.get("stream_end_timestamp_ms"))
        yield self._record("assistant", chunks or [""], when, where, tags, extra)

    def _result(self, result: dict[str, Any]) -> str:
        parts = []
        for part in as_list(result.get("content")):
            part = as_dict(part)
            parts.append(as_str(part["Text"]) if "Text" in part else dumps(part.get("Json", part)))
        name = (
            self.tools.get(as_str(result.get("tool_use_id")))
            or as_str(result.get("tool_use_id"))
            or "?"
        )
        flag = " error" if result.get("status") == "Error" else ""
        return f"[tool_result {name}{flag}] {chr(10).join(parts)}".rstrip()

    def _transcript(self, line: str, where: str) -> Iterator[ConversationMessage]:
        if not line.strip():
            return
        if line.startswith("> "):
            yield self._record("user", [line[2:]], None, where, [])
        else:
            yield self._record("assistant", [line.strip("\n")], None, where, [])

    def _record(self, speaker: str, chunks: list[str], when: Any, where: str, tags: list[str],
                extra: dict[str, Any] | None = None) -> ConversationMessage:  # fmt: skip
        try:
            ts = parse_any(when, self.ctx.options.tz) if when is not None else None
        except ValueError:
            ts = None
        self.untimed += ts is None
        return message(
            chunks,
            speaker=speaker,
            listeners=OTHER[speaker],
            timestamp=ts,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=speaker,
            tags=tags,
            extra=extra,
        )


def _ms(value: Any) -> Any:
    """Epoch milliseconds as the ISO time ``parse_any`` reads (a plain number would be
    taken for seconds when small)."""
    return value / 1000 if isinstance(value, int | float) and value > 10**11 else None


DESCRIPTION = (
    "Amazon Q Developer CLI conversations (/save's JSON, the data.sqlite3 conversations table)"
)
EXAMPLE = (
    '{"conversation_id": "0e2a3c0e-1c2f-4f5e-9d7a-1234567890ab", "next_message": null, "history": '
    '[{"user": {"content": {"Prompt": {"prompt": "list files"}}}, "assistant": {"Response": '
    '{"message_id": "m1", "content": "a.txt"}}}], "valid_history_range": [0, 1], "transcript": []}'
)
FIELDS = Fields(
    speaker="`user` (prompts), `assistant` (answers and their calls), `tool` (tool results), "
    "`system` (the latest summary)",
    listeners="user ↔ assistant; tool results → assistant",
    time="the user message's `timestamp`, else its request's start; an answer's stream end "
    "(`request_metadata`); none: the epoch sentinel, warned",
    zone="ISO times with their offset; epoch milliseconds: UTC",
    thread="`amazon-q:<conversation_id>`",
    id=CONTENT_HASH,
    scope="the conversation",
    tags="`evicted` (before `valid_history_range`), `pending` (`next_message`), `summary`",
    extra="`cwd`, `model`, `message_id`, `request_id`, `additional_context`, `images`, `cancelled`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "data.sqlite3", "*.sqlite3"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
