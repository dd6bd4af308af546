"""OpenAI Codex CLI session rollouts (``codex``): ``~/.codex/sessions/**/rollout-*.jsonl``.

Shape (openai/codex ``codex-rs/protocol/src/protocol.rs``: ``RolloutLine``, ``RolloutItem``,
``SessionMetaLine``, ``CompactedItem``, ``TurnContextItem``; ``models.rs``:
``ResponseItem``, ``ContentItem``, ``FunctionCallOutputPayload``), three generations:

- current (since about August 2025): each line ``{"timestamp", "type", "payload"}`` with
  ``type`` ``session_meta`` (``id``, ``timestamp``, ``cwd``, ``originator``,
  ``cli_version``, ``source``, ``git``, ``instructions``...), ``response_item`` (a
  Responses API item: ``message`` with ``role`` and ``input_text`` / ``output_text`` /
  ``input_image`` parts, ``reasoning`` with ``summary`` texts and ``encrypted_content``,
  ``function_call`` with ``name``, JSON-string ``arguments`` and ``call_id``,
  ``function_call_output`` with ``call_id`` and ``output`` (a string, or a list of
  ``input_text`` / ``input_image`` items), ``local_shell_call`` with ``action.command``,
  ``custom_tool_call`` with ``input`` text (``apply_patch``), ``custom_tool_call_output``,
  ``web_search_call``, ``ghost_snapshot``, ``compaction``), ``turn_context`` (``model``,
  ``cwd``, ``effort``, policies), ``compacted`` (``message``: the summary that replaces
  the history) and ``event_msg`` (the UI's events: ``user_message``, ``agent_message``
  and ``agent_reasoning`` repeat the items; ``token_count``, ``turn_aborted``,
  ``error``...);
- the first Rust CLI (May to August 2025): a first line ``{"id", "timestamp",
  "instructions", "git"}``, then the Responses items themselves, one a line, and
  ``{"record_type": "state"}`` lines;
- the TypeScript CLI (April to May 2025): one JSON document ``{"session": {"timestamp",
  "id", "instructions"}, "items": [...]}`` (``codex-cli/src/utils/storage/save-rollout.ts``).

``codex exec --json``'s events (``thread.started``, ``item.completed``...) are read by
``convo.importers.agents.codex_exec``.

Decisions:
- One record per item. speaker = the role (``developer`` as spelled, role ``system``);
  tool calls are the assistant's (``[tool_use NAME] {args}``, a shell call's ``{"command":
  [...]}``, a custom tool's input as written); an output is the ``tool``'s
  (``[tool_result NAME] ...``, the whole output; NAME the call's, found by its
  ``call_id`` earlier in the file, else the ``call_id``), its ``replyTo`` the call.
  Listeners: user ↔ assistant, a tool result → assistant, a call → tool.
- The user messages Codex writes itself (``<environment_context>``,
  ``<user_instructions>``, ``# AGENTS.md instructions``...) are kept, tagged ``context``.
- Reasoning is private: a ``reasoning`` item's summaries go to the next record's
  ``extra.thinking`` (a trailing one makes a record with no text); with
  ``--include-thinking`` it is a ``[thinking] ...`` record of its own. Encrypted
  reasoning has no readable text: ``{"encrypted": true}``.
- ``compacted``: a ``system`` record spoken by ``summary`` with the summary text (the
  replacement history repeats earlier items: its length is kept, not the items).
- ``event_msg`` lines are the UI's copy of the items, and telemetry: ``error`` and
  ``turn_aborted`` become ``system`` records spoken by ``codex`` (tagged ``system``);
  the others are skipped, counted by type in one warning. ``ghost_snapshot`` and
  ``compaction`` items (encrypted, for the model), ``record_type`` lines and line types
  newer than this reader (``{"timestamp", "type", "payload"}`` of another type) likewise.
- time = the line's ``timestamp``; the older generations have none a line: the
  session's ``timestamp`` for each of its items.
- thread = ``codex:<session id>`` (a UUID); without a session line, the file's name.
  ``session_meta`` and ``turn_context`` go to the next record's ``extra`` (``session``,
  ``turn_context``); the model of the latest turn context to each assistant record's
  ``extra.model``.
- ids: the items carry none (the content hash); a call is ``codex:<session>:<call_id>``,
  which its output replies to (a ``call_id`` is unique only in its session). The
  TypeScript CLI's item ids: ``codex:<session>:<id>``.
- The prompt history ``~/.codex/history.jsonl`` (``codex-rs/core/src/message_history.rs``
  ``HistoryEntry``: ``{"session_id", "ts", "text"}``, ``ts`` in epoch seconds), found
  beside the sessions: each prompt typed a ``user`` record tagged ``prompt-log`` in the
  thread of its session (the session's rollout holds the same words as a message).
- A subagent's rollout (2026: ``session_meta`` with ``thread_source`` ``subagent`` and
  ``subagent_history_start_ordinal``, each line its ``ordinal``) starts with a copy of
  its parent's (the parent's ``session_meta``, then its lines): the lines between its
  own ``session_meta`` and that ordinal are skipped, counted (the parent's rollout holds
  them). A fork without that ordinal is read whole.
- A line that is not JSON, or not an object of a known shape, is rejected with its line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts, iso_ts
from convo.importers.agents import codex_exec
from convo.importers.agents.blocks import CallNames, block_chunk, dumps, parse_arguments
from convo.importers.agents.openai_responses import message_chunks
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import (
    StreamedDoc,
    as_dict,
    as_list,
    as_str,
    json_head,
    json_lines,
)
from convo.importers.registry import Format

NAME = "codex"
LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
LISTENERS = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}
CALLS = ("function_call", "local_shell_call", "custom_tool_call", "web_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
SILENT_ITEMS = ("ghost_snapshot", "compaction", "compaction_summary")
KEPT_EVENTS = ("error", "turn_aborted", "stream_error")
CONTEXT_OPENERS = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
)


HISTORY_KEYS = frozenset(("session_id", "ts", "text"))


def _is_history_entry(value: Any) -> bool:
    """A line of ``~/.codex/history.jsonl`` (``message_history.rs``'s ``HistoryEntry``)."""
    return (
        isinstance(value, dict)
        and value.keys() >= HISTORY_KEYS
        and isinstance(value.get("ts"), int)
        and isinstance(value.get("text"), str)
        and not ({"type", "role", "payload"} & value.keys())
    )


def _generation(value: Any) -> str:
    """``envelope``, ``meta`` (the first Rust CLI's first line), ``legacy`` (the
    TypeScript CLI's document), ``history`` (the prompt history), ``exec`` (``codex exec
    --json``'s events) or "" for a first JSON value of none of these."""
    if not isinstance(value, dict):
        return ""
    if _is_history_entry(value):
        return "history"
    if codex_exec.is_exec_event(value, first=True):
        return "exec"
    if value.get("type") in LINE_TYPES and isinstance(value.get("payload"), dict):
        return "envelope"
    session = value.get("session")
    if isinstance(session, dict) and "id" in session and isinstance(value.get("items"), list):
        return "legacy"
    if isinstance(value.get("id"), str) and "timestamp" in value and "instructions" in value:
        return "meta" if "type" not in value and "role" not in value else ""
    return ""


# The start of a current rollout line as Codex's serde writes it (a first line longer than
# the sniffing head, a session_meta with long base instructions, does not parse whole).
_ENVELOPE = re.compile(
    r'\A\{"timestamp":\s*"[^"]*",\s*(?:"ordinal":\s*\d+,\s*)?"type":\s*"(?:'
    + "|".join(LINE_TYPES)
    + r')",\s*"payload":\s*\{'
)
_DOCUMENT = re.compile(r'\A\{\s*"session"\s*:\s*\{')  # the TypeScript CLI's, pretty-printed


def _head_generation(text: str) -> str:
    """The generation of a source from its head (``_generation``; "" for none)."""
    if _ENVELOPE.match(text):
        return "envelope"
    try:
        return _generation(orjson.loads(text.split("\n", 1)[0]))
    except orjson.JSONDecodeError:
        pass
    if _DOCUMENT.match(text) and '"items"' in text and '"instructions"' in text:
        return "legacy"
    return ""


def sniff(source: Source) -> int:
    text = json_head(source)
    return 95 if text.startswith("{") and _head_generation(text) else 0


class _State:
    """Per-source state: the session, pending context and reasoning, the counts."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.include = ctx.options.include_thinking
        self.session = ""
        self.thread = ctx.thread_of(source.name)
        self.time: str | None = None  # the older generations' session time
        self.model: str | None = None
        self.pending: dict[str, Any] = {}
        self.thinking: list[dict[str, Any]] = []
        self.thought_at: tuple[str, str | None] = ("", None)  # the last reasoning's place, time
        self.skipped: Counter[str] = Counter()
        self.tools = CallNames()  # an output is named by the call it answers
        self.copied = -1  # a subagent's rollout: the lines before this ordinal copy its parent's

    def start(self, meta: dict[str, Any]) -> None:
        sid = as_str(meta.get("id"))
        if sid and not self.session:
            self.session = sid
            self.thread = f"{NAME}:{sid}"
            start = meta.get("subagent_history_start_ordinal")
            self.copied = start if isinstance(start, int) and not isinstance(start, bool) else -1
        self.time = iso_ts(meta.get("timestamp"), self.ctx.options.tz) or self.time
        self.pending["session"] = {k: v for k, v in meta.items() if v not in (None, "", {}, [])}

    def scoped(self, local: str) -> str:
        return f"{NAME}:{self.session}:{local}" if self.session else f"{NAME}:{local}"


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    st = _State(source, ctx)
    generation = _head_generation(json_head(source))
    if generation in ("history", "exec"):
        yield from (_history if generation == "history" else codex_exec.read)(source, ctx)
        return
    legacy = generation == "legacy"
    yield from _legacy(source, st) if legacy else _lines(source, st)
    yield from _flush(st)
    if st.skipped:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(st.skipped.items()))
        ctx.warn(source.name, f"skipped lines that repeat the items or hold no message: {counts}")


def _history(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """``~/.codex/history.jsonl``: each prompt typed, in every session."""
    for _, where, value in json_lines(source, ctx):
        if not _is_history_entry(value):
            ctx.reject(where, "not a Codex history entry (session_id, ts, text)", value)
            continue
        session = as_str(value["session_id"])
        yield message(
            value["text"],
            speaker="user",
            listeners=["assistant"],
            timestamp=epoch_ts(value["ts"]),
            source_id=where,
            format=NAME,
            thread=f"{NAME}:{session}" if session else ctx.thread_of(source.name),
            role="user",
            tags=["prompt-log"],
        )


def _lines(source: Source, st: _State) -> Iterator[ConversationMessage]:
    for _, where, value in json_lines(source, st.ctx):
        yield from _line(value, where, st)


def _line(value: Any, where: str, st: _State) -> Iterator[ConversationMessage]:
    if not isinstance(value, dict):
        st.ctx.reject(where, "not a Codex rollout line (a JSON object)", value)
        return
    kind, payload = value.get("type"), value.get("payload")
    ordinal = value.get("ordinal")
    if isinstance(ordinal, int) and 0 < ordinal < st.copied:
        st.skipped["lines copied from the parent's rollout"] += 1
        return
    if kind in LINE_TYPES and isinstance(payload, dict):
        yield from _envelope(
            kind, payload, iso_ts(value.get("timestamp"), st.ctx.options.tz), where, st
        )
    elif isinstance(kind, str) and isinstance(payload, dict) and "timestamp" in value:
        st.skipped[kind] += 1  # a line type newer than this reader (Codex adds them)
    elif "record_type" in value:
        st.skipped[f"record_type {as_str(value.get('record_type')) or '?'}"] += 1
    elif _generation(value) == "meta":
        st.start(value)
    elif isinstance(kind, str):
        yield from _item(value, where, st.time, st)
    else:
        st.ctx.reject(where, "not a Codex rollout line (type and payload, or an item)", value)


def _envelope(
    kind: str, payload: dict[str, Any], ts: str | None, where: str, st: _State
) -> Iterator[ConversationMessage]:
    if kind == "session_meta":
        st.start(payload)
    elif kind == "turn_context":
        st.model = as_str(payload.get("model")) or st.model
        st.pending["turn_context"] = payload
    elif kind == "response_item":
        yield from _item(payload, where, ts, st)
    elif kind == "compacted":
        history = as_list(payload.get("replacement_history"))
        yield _made(st, as_str(payload.get("message")), where, ts, ("summary", "system"),
                    extra={"compacted": True, "replacement_history": len(history) or None})  # fmt: skip
    else:  # event_msg
        event = as_str(payload.get("type"))
        if event in KEPT_EVENTS:
            text = as_str(payload.get("message")) or as_str(payload.get("reason")) or event
            yield _made(st, f"[{event}] {text}", where, ts, ("codex", "system"),
                        extra={"event": payload}, tags=["system"])  # fmt: skip
        else:
            st.skipped[f"event_msg {event or '?'}"] += 1


def _legacy(source: Source, st: _State) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("items",))
    head = doc.expect("not a Codex session document (no items)", need=("session",))
    st.start(as_dict(head.get("session")))
    for n, item in enumerate(doc.values(), 1):
        yield from _item(item, st.ctx.loc(f"item-{n}"), st.time, st)


def _item(item: Any, where: str, ts: str | None, st: _State) -> Iterator[ConversationMessage]:
    kind = as_str(as_dict(item).get("type"))
    if not kind:
        st.ctx.reject(where, "not a Codex response item (no type)", item)
        return
    if kind in SILENT_ITEMS:
        st.skipped[kind] += 1
        return
    if kind == "reasoning":
        st.thinking.append(_thought(item))
        st.thought_at = (where, ts)
        if st.include:
            yield from _flush(st)
        return
    if kind == "message":
        yield _message(item, where, ts, st)
    elif kind in OUTPUTS:
        yield _output(item, where, ts, st)
    else:  # a call, or an item type this reader does not know: the assistant's
        yield _call(item, kind, where, ts, st)


def _message(item: dict[str, Any], where: str, ts: str | None, st: _State) -> ConversationMessage:
    spelled = as_str(item.get("role")) or "user"
    role = ROLES.get(spelled, spelled)
    chunks = message_chunks(item.get("content"))
    own = spelled == "user" and bool(chunks) and chunks[0].lstrip().startswith(CONTEXT_OPENERS)
    iid = as_str(item.get("id"))
    rest = {k: v for k, v in item.items() if k not in ("type", "role", "content", "id", "status")}
    parts = [p for p in as_list(item.get("content")) if as_dict(p).get("annotations")]
    return _made(st, chunks, where, ts, (spelled, role), item_id=iid,
                 extra={"item": rest, "parts": parts}, tags=["context"] if own else None)  # fmt: skip


def _call(
    item: dict[str, Any], kind: str, where: str, ts: str | None, st: _State
) -> ConversationMessage:
    call_id = as_str(item.get("call_id")) or as_str(item.get("id"))
    name = as_str(item.get("name"))
    if kind == "function_call":
        block = {"type": "tool_use", "name": name, **parse_arguments(item.get("arguments"))}
        chunk = block_chunk(block)
    elif kind == "local_shell_call":
        action = {k: v for k, v in as_dict(item.get("action")).items() if k != "type" and v}
        chunk = f"[tool_use shell] {dumps(action)}"
    elif kind == "custom_tool_call":
        chunk = f"[tool_use {name}] {as_str(item.get('input'))}"
    else:
        chunk = block_chunk({k: v for k, v in item.items() if k not in ("id", "status")})
    st.tools.add(call_id, "shell" if kind == "local_shell_call" else name)
    rest = {k: v for k, v in item.items() if k not in ("type", "id")}
    return _made(st, chunk, where, ts, ("assistant", "assistant"), listeners=["tool"],
                 rec_id=st.scoped(call_id) if call_id else None,
                 extra={"type": kind, "item": rest})  # fmt: skip


def _output(item: dict[str, Any], where: str, ts: str | None, st: _State) -> ConversationMessage:
    call_id = as_str(item.get("call_id"))
    output = item.get("output")
    success = None
    if isinstance(output, dict):  # {content, success} as some versions wrote it
        success = output.get("success")
        output = output.get("content", output)
    text = (
        output
        if isinstance(output, str)
        else "\n".join(message_chunks(output))
        if isinstance(output, list)
        else dumps(output)
    )
    label = as_str(item.get("name")) or st.tools.get(call_id) or call_id or "?"
    flag = " error" if success is False else ""
    return _made(st, f"[tool_result {label}{flag}] {text}", where, ts, ("tool", "tool"),
                 reply_to=st.scoped(call_id) if call_id else None,
                 extra={"type": item["type"], "call_id": call_id or None})  # fmt: skip


def _made(
    st: _State,
    text: str | list[str],
    where: str,
    ts: str | None,
    who: tuple[str, str],
    *,
    listeners: list[str] | None = None,
    item_id: str = "",
    rec_id: str | None = None,
    reply_to: str | None = None,
    extra: dict[str, Any] | None = None,
    tags: list[str] | None = None,
) -> ConversationMessage:
    """A record of this session, given the pending context and reasoning."""
    speaker, role = who
    more = dict(extra or {})
    if st.pending:
        more.update(st.pending)
        st.pending = {}
    if st.thinking:
        more["thinking"], st.thinking = st.thinking, []
    if role == "assistant" and st.model:
        more["model"] = st.model
    return message(
        text,
        speaker=speaker,
        listeners=listeners if listeners is not None else LISTENERS.get(role, []),
        timestamp=ts,
        id=rec_id or (st.scoped(item_id) if item_id else None),
        source_id=where,
        format=NAME,
        thread=st.thread,
        reply_to=reply_to,
        role=role,
        tags=tags,
        extra=more,
    )


def _flush(st: _State) -> Iterator[ConversationMessage]:
    """Reasoning with no record after it (or every one, with ``--include-thinking``), at
    the place and time of the last reasoning item."""
    if not st.thinking:
        return
    thoughts = st.thinking
    where, ts = st.thought_at
    if st.include:
        st.thinking = []
        chunks = [
            f"[thinking] {t}"
            for th in thoughts
            for t in th.get("summary", []) + th.get("content", [])
        ]
        yield _made(st, chunks or [""], where, ts, ("assistant", "assistant"),
                    extra={"reasoning": True, "encrypted": any(t.get("encrypted") for t in thoughts) or None})  # fmt: skip
    else:
        yield _made(st, [""], where, ts, ("assistant", "assistant"))


def _thought(item: Any) -> dict[str, Any]:
    item = as_dict(item)
    out: dict[str, Any] = {
        "summary": [as_str(as_dict(s).get("text")) for s in as_list(item.get("summary"))],
        "content": [as_str(as_dict(s).get("text")) for s in as_list(item.get("content"))],
        "encrypted": True if item.get("encrypted_content") else None,
    }
    return {k: v for k, v in out.items() if v}


DESCRIPTION = (
    "OpenAI Codex CLI session rollouts (~/.codex/sessions/**/rollout-*.jsonl, .json), "
    "its prompt history (~/.codex/history.jsonl) and codex exec --json output"
)
EXAMPLE = (
    '{"timestamp": "2025-10-29T00:59:38.317Z", "type": "response_item", "payload": '
    '{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}}'
)
FIELDS = Fields(
    speaker="the role (`developer` as spelled); tool calls: `assistant`; outputs: `tool`; "
    "a compaction: `summary`; an error or aborted turn: `codex`",
    listeners="user ↔ assistant; a call → tool; a tool result → assistant",
    time="the line's `timestamp`; the older generations: the session's `timestamp`; the "
    "prompt history: `ts` (epoch seconds)",
    zone="the offset the source writes (UTC `Z`); " + NAIVE_IN_TZ,
    thread="`codex:<session id>` (the prompt history: each entry's `session_id`; exec "
    "output: `thread_id`); without a session line, the file's name",
    id="a call `codex:<session>:<call_id>`; the TypeScript CLI's items "
    "`codex:<session>:<id>`; else " + CONTENT_HASH,
    scope="a `call_id` is unique in its session: the session's UUID scopes it",
    reply_to="an output: its call",
    tags="`context`: the user messages Codex writes itself; `system`: errors, aborted turns; "
    "`prompt-log`: the prompt history's prompts",
    extra="`session` (the session line), `turn_context`, `model` (the latest turn's); a "
    "call's `type` and `item`; an output's `type` and `call_id`; a message's other members "
    "in `item`, annotated `parts`; an event's `event`; a compaction's `compacted` and "
    "`replacement_history` (its length); reasoning in `thinking` unless "
    "`--include-thinking` (then `reasoning`, `encrypted`)",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("rollout-*.jsonl", "rollout-*.json", "*.jsonl", "*.json"),
           sniff, read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
