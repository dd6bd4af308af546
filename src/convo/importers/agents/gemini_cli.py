"""Gemini CLI sessions and prompt logs (``gemini-cli``): ``~/.gemini/tmp/<project>/``.

Shape (google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts``
and ``chatRecordingTypes.ts``; ``packages/core/src/core/logger.ts``):

- a session, ``chats/session-<time>-<id>.json`` (August 2025 to April 2026): one
  ``ConversationRecord`` ``{sessionId, projectHash, startTime, lastUpdated, summary?,
  kind?, directories?, messages: [...]}``;
- the same as JSONL (since April 2026, ``.jsonl``): a first line with the session's
  fields, then one line a message, written again whole each time it changes (tool calls,
  thoughts, tokens added), ``{"$set": {...}}`` lines updating the session's fields (a
  ``messages`` list among them replaces every message) and ``{"$rewindTo": ID}`` lines
  dropping that message and every one after it (``loadConversationRecord``);
- a message: ``{id, timestamp, type: user|gemini|info|error|warning, content,
  displayContent?}`` (content a string, a Part or a list of them); a ``gemini`` one
  adds ``toolCalls: [{id, name, args, result (Parts: a functionResponse), status,
  timestamp, displayName, description, resultDisplay}]``, ``thoughts: [{subject,
  description, timestamp}]``, ``tokens``, ``model``;
- ``logs.json``: the prompts typed, ``[{sessionId, messageId, timestamp, type: "user",
  message}]`` (the CLI's up-arrow history).

The headless output (``gemini -p --output-format stream-json`` or ``json``) is read by
``convo.importers.agents.gemini_cli_stream``. The ``/chat save`` checkpoints (``checkpoint-<tag>.json``: Gemini API contents, bare or
``{"history": [...]}``) are read by ``gemini``.

Decisions:
- speaker = the type: ``user`` and ``gemini`` (role assistant), each the other's
  listener; ``info``, ``error``, ``warning`` (the CLI's notices) are spoken by
  ``gemini-cli``, role system, tagged ``system``.
- Text: what the user typed (``displayContent``, else ``content``; the content sent,
  when it differs, in ``extra.sent``); a reply's text parts, then per tool call
  ``[tool_use NAME] {args}`` and ``[tool_result NAME] output`` (``NAME error`` for an
  error, ``NAME cancelled`` for a cancelled call), the output from the
  ``functionResponse`` (else the ``resultDisplay`` text). Tool calls are kept whole in
  ``extra.tool_calls``.
- Thoughts are private: ``extra.thinking``; ``--include-thinking``: ``[thinking]``
  chunks before the text.
- A JSONL session is read as the CLI loads it: each message in its first place with its
  last version; messages rewound are skipped, as are earlier versions, each counted in
  one warning. It takes two passes over the file; the second holds a message only until
  the ones before it are written (in order in every file the CLI writes).
- time = the message's ``timestamp``; thread = ``gemini-cli:<sessionId>``; subject =
  the session's ``summary``; the session's other fields on its first record
  (``extra.session``).
- ids: ``gemini-cli:<id>`` (a random UUID); a short one ``gemini-cli:<session>:<id>``; a
  logged prompt ``gemini-cli:<session>:log-<messageId>`` (tagged ``prompt-log``: the
  same prompts are in the session files, under other ids).
- Anything else is rejected with its line (JSONL) or its place in the document.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.jsonl import iter_lines
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import dumps
from convo.importers.agents.gemini_cli_stream import headless_kind, read_headless
from convo.importers.agents.samples import sample_values
from convo.importers.build import GLOBAL_ID_LENGTH, message
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "gemini-cli"
KINDS = ("user", "gemini", "info", "error", "warning")
SESSION_KEYS = ("sessionId", "projectHash")


def _is_session(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(k), str) for k in SESSION_KEYS)


def _is_log_entry(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and "messageId" in value
        and "message" in value
        and "type" in value
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if text.startswith("{") and headless_kind(text):
        return 95
    if not text.startswith(("{", "[")) or '"sessionId"' not in text:
        return 0
    if text.startswith("{"):
        try:
            first = orjson.loads(text.split("\n", 1)[0])
        except orjson.JSONDecodeError:  # a pretty-printed session document
            return 95 if '"projectHash"' in text and '"messages"' in text else 0
        return 95 if _is_session(first) else 0
    entries = sample_values(text)[:20]
    good = sum(_is_log_entry(e) for e in entries)
    return 90 if entries and _is_log_entry(entries[0]) and good * 2 > len(entries) else 0


class _Session:
    """One session's thread, subject and fields, and the options a record needs."""

    def __init__(self, ctx: ImportContext, fields: dict[str, Any]):
        self.ctx = ctx
        self.id = as_str(fields.get("sessionId"))
        self.thread = f"{NAME}:{self.id}" if self.id else ctx.thread_of(ctx.source.name)
        self.subject = as_str(fields.get("summary")) or None
        self.fields: dict[str, Any] | None = {
            k: v for k, v in fields.items() if k not in ("messages", "sessionId", "summary")
        }

    def rec_id(self, raw: str) -> str | None:
        if not raw:
            return None
        if len(raw) >= GLOBAL_ID_LENGTH or not self.id:
            return f"{NAME}:{raw}"
        return f"{NAME}:{self.id}:{raw}"


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    text = json_head(source)
    headless = headless_kind(text) if text.startswith("{") else ""
    if headless:
        yield from read_headless(source, ctx, headless)
        return
    if text.startswith("["):
        yield from _logs(source, ctx)
        return
    try:
        orjson.loads(text.split("\n", 1)[0])
    except orjson.JSONDecodeError:
        yield from _document(source, ctx)
        return
    yield from _jsonl(source, ctx)


def _document(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",))
    head = doc.expect("not a Gemini CLI session (no messages)", need=(*SESSION_KEYS, "summary"))
    session = _Session(ctx, head)
    for n, msg in enumerate(doc.values(), 1):
        rec = _message(msg, ctx.loc(f"msg-{n}"), session)
        if rec is not None:
            yield rec


def _logs(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ())
    doc.expect("expected a JSON array of Gemini CLI log entries")
    for n, entry in enumerate(doc.values(), 1):
        where = ctx.loc(f"item-{n}")
        if not _is_log_entry(entry):
            ctx.reject(where, "not a Gemini CLI log entry (sessionId, messageId, message)", entry)
            continue
        sid = as_str(entry["sessionId"])
        spelled = as_str(entry.get("type")) or "user"
        yield message(
            as_str(entry.get("message")),
            speaker=spelled,
            listeners=["gemini"] if spelled == "user" else [],
            timestamp=iso_ts(entry.get("timestamp"), ctx.options.tz),
            id=f"{NAME}:{sid}:log-{as_str(entry.get('messageId'))}",
            source_id=where,
            format=NAME,
            thread=f"{NAME}:{sid}",
            role="user" if spelled == "user" else None,
            tags=["prompt-log"],
        )


class _Scan:
    """The first pass over a JSONL session: the session's fields and, for each message
    kept (in the CLI's order), where its last version is: (line, index in that line's
    ``messages``, or -1 for the line itself)."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.order: dict[str, tuple[int, int]] = {}

    def line(self, number: int, value: Any) -> None:
        if not isinstance(value, dict):
            return
        if isinstance(value.get("$rewindTo"), str):
            self._rewind(value["$rewindTo"])
        elif isinstance(value.get("$set"), dict):
            update = value["$set"]
            self._fields(update)
            if isinstance(update.get("messages"), list):
                self.order.clear()
                self._embedded(number, update["messages"])
        elif isinstance(value.get("id"), str):
            self.order[value["id"]] = (number, -1)
        elif _is_session(value):
            self._fields(value)
            self._embedded(number, as_list(value.get("messages")))

    def _fields(self, update: dict[str, Any]) -> None:
        self.fields.update({k: v for k, v in update.items() if k != "messages"})

    def _embedded(self, number: int, messages: list[Any]) -> None:
        for k, msg in enumerate(messages):
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                self.order[msg["id"]] = (number, k)

    def _rewind(self, target: str) -> None:
        if target not in self.order:
            self.order.clear()
            return
        ids = list(self.order)
        for mid in ids[ids.index(target) :]:
            del self.order[mid]


def _parsed(source: Source) -> Iterator[tuple[int, bytes, Any, bool]]:
    """Each line: (number, bytes, value or ``_BAD``, torn). Standard input is spooled to
    a file (``Source.real_path``) so that it can be read twice."""
    with open(source.real_path(), "rb") if source.is_stdin else source.open() as stream:
        for line in iter_lines(stream):
            try:
                value = orjson.loads(line.raw)
            except orjson.JSONDecodeError:
                value = _BAD
            yield line.number, line.raw, value, line.torn


_BAD = object()


def _jsonl(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    scan = _Scan()
    for number, _, value, _ in _parsed(source):
        scan.line(number, value)
    session = _Session(ctx, scan.fields)
    wanted: dict[int, list[tuple[int, str]]] = {}
    for mid, (number, k) in scan.order.items():
        wanted.setdefault(number, []).append((k, mid))
    out = _InOrder(list(scan.order))
    dropped = {EARLIER: 0, REWOUND: 0}
    for number, raw, value, torn in _parsed(source):
        where = ctx.loc(number)
        if value is _BAD:
            cut = " (the last line, cut short)" if torn else ""
            ctx.reject(where, f"not JSON{cut}", raw.decode("utf-8", "replace"))
            continue
        _unread_embedded(value, where, ctx)
        if number in wanted:
            for k, mid in wanted[number]:
                msg = value if k < 0 else _embedded_messages(value)[k]
                out.add(mid, _message(msg, where if k < 0 else f"{where}.msg-{k + 1}", session))
            yield from out.ready()
        else:
            _unwanted(value, where, scan, dropped, ctx)
    for what, n in dropped.items():
        if n:
            ctx.warn(source.name, f"skipped {what}: {n}")  # right for 1 and many


def _unwanted(
    value: Any, where: str, scan: _Scan, dropped: dict[str, int], ctx: ImportContext
) -> None:
    """A line holding no message read: counted (an earlier version, a message rewound),
    passed over (the session's fields, an update) or rejected."""
    if isinstance(value, dict) and isinstance(value.get("id"), str):
        later = value["id"] in scan.order
        dropped[EARLIER if later else REWOUND] += 1
    elif not (_is_session(value) or _is_update(value)):
        ctx.reject(where, "not a Gemini CLI session line (a message, $set or $rewindTo)", value)


def _unread_embedded(value: Any, where: str, ctx: ImportContext) -> None:
    """A session or ``$set`` line's messages the first pass could not place (not an
    object, no string id) and a ``messages`` that is no list: rejected (they were passed
    over unsaid: a one-line session document holding them read as nothing)."""
    if not (_is_session(value) or _is_update(value)):
        return
    holder = as_dict(value["$set"]) if "$set" in value else value
    if "messages" not in holder:
        return
    if not isinstance(holder["messages"], list):
        ctx.reject(where, "a session's messages that are not a list", holder["messages"])
        return
    for k, msg in enumerate(holder["messages"]):
        if not (isinstance(msg, dict) and isinstance(msg.get("id"), str)):
            ctx.reject(f"{where}.msg-{k + 1}", "a message without a string id", msg)


EARLIER = "earlier versions of updated messages"
REWOUND = "messages removed by a rewind"


def _embedded_messages(value: Any) -> list[Any]:
    """The ``messages`` of a ``$set`` line or of a session line."""
    value = as_dict(value)
    return as_list(
        as_dict(value["$set"]).get("messages") if "$set" in value else value.get("messages")
    )


def _is_update(value: Any) -> bool:
    return isinstance(value, dict) and ("$set" in value or "$rewindTo" in value)


class _InOrder:
    """Records given in any order, written in ``order`` (a message's last version may
    come after a later message's first)."""

    def __init__(self, order: list[str]):
        self.order = order
        self.next = 0
        self.held: dict[str, ConversationMessage | None] = {}

    def add(self, mid: str, rec: ConversationMessage | None) -> None:
        self.held[mid] = rec

    def ready(self) -> Iterator[ConversationMessage]:
        while self.next < len(self.order) and self.order[self.next] in self.held:
            rec = self.held.pop(self.order[self.next])
            self.next += 1
            if rec is not None:
                yield rec


def _message(msg: Any, where: str, session: _Session) -> ConversationMessage | None:
    """One message record; None (rejected) for what is not one."""
    ctx = session.ctx
    kind = as_str(as_dict(msg).get("type"))
    if kind not in KINDS or not isinstance(msg.get("id"), str):
        ctx.reject(where, "not a Gemini CLI message (id and type user, gemini, info...)", msg)
        return None
    chunks, extra = _text_and_extra(msg, ctx.options.include_thinking)
    extra["session"], session.fields = session.fields, None
    speaker, role, listeners, tags = _parties(kind)
    return message(
        chunks or [""],
        speaker=speaker,
        listeners=listeners,
        timestamp=iso_ts(msg.get("timestamp"), ctx.options.tz),
        id=session.rec_id(msg["id"]),
        source_id=where,
        format=NAME,
        thread=session.thread,
        subject=session.subject,
        role=role,
        tags=tags,
        extra=extra,
    )


def _text_and_extra(msg: dict[str, Any], include: bool) -> tuple[list[str], dict[str, Any]]:
    """A message's chunks (thoughts with ``include``, what was shown, its tool calls) and
    its ``extra``."""
    thoughts = [t for t in as_list(msg.get("thoughts")) if isinstance(t, dict)]
    chunks = [f"[thinking] {_thought_text(t)}" for t in thoughts] if include else []
    content = msg.get("content")
    shown = msg.get("displayContent") or content
    chunks += _content(shown)
    sent = _content(content) if shown is not content else []
    calls = [c for c in as_list(msg.get("toolCalls")) if isinstance(c, dict)]
    for call in calls:
        chunks += _call_chunks(call)
    extra: dict[str, Any] = {
        "sent": sent if sent != _content(shown) else None,
        "tool_calls": calls,
        "thinking": thoughts if not include else None,
        "model": msg.get("model"),
        "tokens": msg.get("tokens"),
    }
    return chunks, extra


def _parties(kind: str) -> tuple[str, str, list[str], list[str] | None]:
    """(speaker, role, listeners, tags) of a message type."""
    if kind == "user":
        return "user", "user", ["gemini"], None
    if kind == "gemini":
        return "gemini", "assistant", ["user"], None
    return "gemini-cli", "system", [], ["system", kind]


def _thought_text(t: dict[str, Any]) -> str:
    subject, text = as_str(t.get("subject")), as_str(t.get("description"))
    return f"**{subject}** {text}".strip() if subject else text


def _content(value: Any) -> list[str]:
    """The chunks of a ``PartListUnion``: a string, a Part, or a list of either."""
    if value is None:
        return []
    parts = value if isinstance(value, list) else [value]
    return [c for c in (_part_chunk(p) for p in parts) if c]


def _part_chunk(part: Any) -> str:
    if isinstance(part, str):
        return part
    p = as_dict(part)
    if isinstance(p.get("text"), str):
        return f"[thinking] {p['text']}" if p.get("thought") else p["text"]
    call, reply = as_dict(p.get("functionCall")), as_dict(p.get("functionResponse"))
    if call:
        return f"[tool_use {as_str(call.get('name'))}] {dumps(call.get('args') or {})}"
    if reply:
        text, failed = _response_text(reply)
        return f"[tool_result {as_str(reply.get('name'))}{' error' if failed else ''}] {text}"
    data = as_dict(p.get("inlineData")) or as_dict(p.get("fileData"))
    if data:
        mime = as_str(data.get("mimeType"))
        kind = "image" if mime.startswith("image/") else "file"
        ref = as_str(data.get("fileUri")) or as_str(data.get("displayName"))
        return f"[{kind} {ref or mime}]".replace(" ]", "]")
    return dumps(part) if part else ""


def _response_text(reply: dict[str, Any]) -> tuple[str, bool]:
    """A functionResponse's output (``response.output``), or its error."""
    response = reply.get("response")
    if isinstance(response, dict):
        if isinstance(response.get("output"), str):
            return response["output"], False
        if "error" in response:
            err = response["error"]
            return (err if isinstance(err, str) else dumps(err)), True
    return (response if isinstance(response, str) else dumps(response)), False


def _call_chunks(call: dict[str, Any]) -> list[str]:
    """``[tool_use NAME] {args}`` and, once it ran, ``[tool_result NAME] output``."""
    name = as_str(call.get("name")) or "?"
    out = [f"[tool_use {name}] {dumps(call.get('args') or {})}"]
    status = as_str(call.get("status"))
    texts: list[str] = []
    failed = status == "error"
    for part in (
        as_list(call.get("result"))
        if isinstance(call.get("result"), list)
        else [call.get("result")]
    ):
        reply = as_dict(as_dict(part).get("functionResponse"))
        if reply:
            text, error = _response_text(reply)
            texts.append(text)
            failed = failed or error
        elif part:
            texts.append(_part_chunk(part))
    if not texts and isinstance(call.get("resultDisplay"), str):
        texts.append(call["resultDisplay"])
    flag = " error" if failed else " cancelled" if status == "cancelled" else ""
    if texts or flag:
        out.append(f"[tool_result {name}{flag}] {chr(10).join(texts)}".rstrip())
    return out


DESCRIPTION = (
    "Gemini CLI sessions (~/.gemini/tmp/*/chats/session-*.json, .jsonl), logs.json and "
    "headless output (gemini -p --output-format stream-json or json)"
)
EXAMPLE = (
    '{"sessionId": "9c2b8f0e-3d4a-4f5b-8c6d-7e8f9a0b1c2d", "projectHash": "5e1f...", '
    '"startTime": "2025-09-10T08:00:00.000Z", "messages": [{"id": "3f0c...", '
    '"timestamp": "2025-09-10T08:00:05.000Z", "type": "user", "content": "Hi"}]}'
)
FIELDS = Fields(
    speaker="the type: `user`, `gemini`; the CLI's notices (info, error, warning): `gemini-cli`",
    listeners="user ↔ gemini; notices: none",
    time="the message's `timestamp` (headless: the event's; `json` output has none)",
    zone="the offset the source writes (UTC `Z`); " + NAIVE_IN_TZ,
    thread="`gemini-cli:<sessionId>` (headless: `session_id`)",
    id="`gemini-cli:<id>` (a random UUID); a short one `gemini-cli:<session>:<id>`; a "
    "logged prompt `gemini-cli:<session>:log-<messageId>`; headless output: content hashes",
    scope="none for UUIDs; short ids and logged prompts: the session",
    subject="the session's `summary`",
    tags="`system` and the type on the CLI's notices; `prompt-log` on logs.json's prompts",
    extra="`session` (the session's other fields, on its first record), `tool_calls` "
    "(whole), `model`, `tokens`, `sent` (the content sent, when the user typed other "
    "text); thoughts in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("session-*.json", "session-*.jsonl", "logs.json", "*.json", "*.jsonl"),
           sniff, read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
