"""AutoGen 0.2 runtime logs: ``autogen.runtime_logging``'s ``logs.db`` (the SQLite
logger, the default) and ``runtime.log`` (the file logger) (``autogen-runtime``).

Shape (AutoGen 0.2's ``autogen/logger/file_logger.py``, kept by AG2): one line
``Started new session with Session ID: <uuid>`` each ``runtime_logging.start()``, then
one JSON object a line, each a ``json.dumps`` of what the logger was told:
- a chat completion: ``{invocation_id, client_id, wrapper_id, request (the API request:
  model, messages...), response (``str(ChatCompletion)``: the pydantic repr, not JSON),
  is_cached, cost, start_time, end_time, thread_id, source_name}`` (``source_name``, the
  agent that asked, since mid-2024);
- a new agent: ``{id, agent_name, wrapper_id, session_id, current_time, agent_type,
  args, thread_id}``;
- an event: ``{source_id, source_name, event_name, agent_module?, agent_class?,
  json_state (a JSON string), timestamp, thread_id}``; ``received_message`` events
  (``ConversableAgent._process_received_message``) hold ``{"message": str | dict,
  "sender": name, "valid": bool}``: every message an agent received;
- new wrappers and clients (``json_state`` with the client's configuration), function
  uses (``input_args``, ``returns``), AG2's flow points (``code_point``), and the
  logger's own error lines (``[file_logger] Failed to ...``).
Times are ``datetime.utcnow()`` written ``YYYY-MM-DD HH:MM:SS.ffffff``: UTC.

The SQLite logger (``autogen/logger/sqlite_logger.py``) stores the same facts in tables:
``agents`` (``agent_id``, ``wrapper_id``, ``session_id``, ``name``, ``class``,
``init_args``, ``timestamp``), ``events`` (``event_name``, ``source_id``,
``source_name``, ``agent_module``, ``agent_class_name``, ``json_state``, ``timestamp``:
no session), ``chat_completions`` (``invocation_id``, ``client_id``, ``wrapper_id``,
``session_id``, ``source_name`` (newer schemas only), ``request`` and ``response`` as
JSON: ``to_dict(ChatCompletion)``, or ``{"response": text}``), ``oai_wrappers``,
``oai_clients``, ``version``, and in AG2 ``function_calls``. Its rows are read in time
order (agents and events by ``timestamp``, completions by ``end_time``, as the file
logger writes them) and go through the same rules; an event's session is that of its
agent's row (the latest at or before the event). The database is opened read-only.

Decisions:
- The conversation is the ``received_message`` events: speaker = the message's ``name``
  (a group chat manager relays each message to every member with its speaker's
  ``name``), else the ``sender``; listeners = the receiving agent (``source_name``).
  The manager's relays of one message to the other members (same speaker, same
  content, right after it) are one record whose listeners are every receiver. Text as
  the ``openai`` format reads the message dict (content, tool calls as ``[tool_use
  NAME] {...}``); role ``tool`` for tool and function results, else none (agents are
  peers). ``extra``: the message dict (``original``), ``valid`` when false.
- A chat completion is the model call behind an agent's reply: kept in
  ``extra.completions`` of that agent's next message (``invocation_id``, ``model``,
  ``cost``, ``is_cached``, ``start_time``, ``end_time``, ``usage``, the request without
  its ``messages``, which are the conversation's earlier records, and the count of
  them). In a session with no ``received_message`` before it (an ``OpenAIWrapper``
  used without agents), or one never followed by a message of its agent (a reflection
  summary at the end of a chat), the completion is a record of its own: first the
  request's messages not seen before in the session (by text, counted, so a repeated
  "ok" is kept; the counts are the session's texts, which every request of the session
  repeats whole anyway), then the reply: speaker ``source_name`` (else ``assistant``), role
  assistant, listeners the speaker of the request's last message, id the
  ``invocation_id``, time ``end_time``; the request's messages get its ``start_time``
  (their own time is not logged: they were said by then).
- A completion without ``source_name`` (older logs) belongs to the agent whose
  ``wrapper_id`` it carries (the agents' lines or rows name it).
- Agents: the session's agents (name, class) are in the first message's
  ``extra.conversation``. Other events (``reply_func_executed`` repeats the reply that
  is then sent), function uses (their results are sent as tool messages), wrappers,
  clients (configuration, possibly keys: never copied), flow points and the logger's
  error lines are not messages: counted in one warning.
- thread = ``autogen-runtime:<session uuid>``, from the session line (else an agent's
  ``session_id``; a log cut before its session line: the file, ``FILE_SCOPE``).

Ids and their scope (docs/ids.md): events carry no id: the content hash (format,
thread, speaker, time, text), its conversation the session, a uuid AutoGen makes at
each start: unique everywhere. A completion of its own: its ``invocation_id`` (a uuid).

Detection: a SQLite database whose schema (in its first page) names
``chat_completions``, ``oai_wrappers`` and ``events``; the session line, or a first JSON
line with the logger's keys (``invocation_id`` with ``wrapper_id``; ``event_name`` with
``json_state``; ``agent_name`` with ``agent_type``).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.autogen_logsdb import db_rows, is_db
from convo.importers.agents.blocks import chunks_of, jsonable, tool_use_block
from convo.importers.agents.frameworks import openai_parts
from convo.importers.agents.parts import NotMessage, Parts, Thread
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "autogen-runtime"
_SESSION = re.compile(r"Started new session with Session ID: *(\S+)")
_KEYS = (
    re.compile(r'^\{"invocation_id": "[^"]*", "client_id": '),
    re.compile(r'^\{"(?:source_id|id)": -?\d+, "(?:source_name|agent_name)": '),
    re.compile(r'^\{"(?:wrapper_id|client_id)": -?\d+, "(?:session_id|wrapper_id)": '),
)
# never copied from a request: its messages (records of their own) and secrets
_NOT_KEPT = frozenset({"messages", "api_key", "azure_ad_token", "azure_ad_token_provider"})
_PYSTR = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
_CONTENT = re.compile(rf"\bcontent=({_PYSTR}|None)")
_MODEL = re.compile(rf"\bmodel=({_PYSTR})")
_USAGE = re.compile(r"\b(completion_tokens|prompt_tokens|total_tokens)=(\d+)")
_CALL = re.compile(
    rf"ChatCompletionMessageToolCall\(id=({_PYSTR}), function=Function\(arguments=({_PYSTR}), "
    rf"name=({_PYSTR})\)"
)


def sniff(source: Source) -> int:
    if is_db(source):
        tables = (b"chat_completions", b"oai_wrappers", b"events")
        return 95 if all(t in source.head for t in tables) else 0
    head = source.head_text()
    first = head.lstrip("\ufeff").split("\n", 1)[0]
    if _SESSION.match(first):
        return 95
    return 90 if any(p.match(first) for p in _KEYS) else 0


def _pystr(literal: str) -> str | None:
    if literal == "None":
        return None
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError):
        return literal
    return value if isinstance(value, str) else None


def parse_response(raw: Any) -> dict[str, Any]:
    """The reply of a logged response: ``{"texts", "calls", "model", "usage"}``. The file
    logger writes ``str(ChatCompletion)`` (a pydantic repr): its ``content='...'`` and
    tool calls are read from the repr's string literals; a dict (the SQLite logger's
    JSON) is read as the API's object; any other string is the reply itself (an error)."""
    if isinstance(raw, dict):
        return _from_json(raw)
    text = raw if isinstance(raw, str) else ""
    if not text.startswith("ChatCompletion("):
        return {"texts": [text] if text else [], "calls": [], "model": None, "usage": None}
    texts = [t for m in _CONTENT.finditer(text) if (t := _pystr(m[1]))]
    calls = [
        {"id": _pystr(m[1]), "function": {"name": _pystr(m[3]), "arguments": _pystr(m[2])}}
        for m in _CALL.finditer(text)
    ]
    model = _MODEL.search(text)
    usage = {k: int(v) for k, v in _USAGE.findall(text)} or None
    return {"texts": texts, "calls": calls, "model": model and _pystr(model[1]), "usage": usage}


def _from_json(raw: dict[str, Any]) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for choice in raw.get("choices") or []:
        msg = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(msg, dict):
            continue
        if isinstance(msg.get("content"), str):
            texts.append(msg["content"])
        calls += [c for c in msg.get("tool_calls") or [] if isinstance(c, dict)]
    if not texts and not calls and isinstance(raw.get("response"), str):
        texts.append(raw["response"])
    usage = raw.get("usage") if isinstance(raw.get("usage"), dict) else None
    return {"texts": texts, "calls": calls, "model": raw.get("model"), "usage": usage}


def _kind(obj: dict[str, Any]) -> str:
    if "invocation_id" in obj and "request" in obj:
        return "completion"
    if "event_name" in obj:
        return "event"
    if "agent_name" in obj and "agent_type" in obj:
        return "agent"
    return "other"


class _Session:
    def __init__(self, ident: str):
        self.ident = ident
        self.thread = f"{NAME}:{ident}"
        self.agents: dict[str, str] = {}  # name -> class
        self.wrappers: dict[str, str] = {}  # an agent's OpenAIWrapper id -> its name
        self.talked = False  # a received_message was seen
        self.told = False  # the first message (with extra.conversation) was written
        self.pending: dict[str, list[dict[str, Any]]] = {}  # agent -> completions
        self.seen: Counter[str] = Counter()  # texts said in the session
        self.calls = Thread()  # a tool's answer named by the call it answers


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext):
        self.source, self.ctx = source, ctx
        self.session: _Session | None = None
        self.held: tuple[ConversationMessage, str, str] | None = None  # record, speaker, text
        self.skipped: Counter[str] = Counter()

    def _open(self, ident: str) -> Iterator[ConversationMessage]:
        yield from self._close()
        self.session = _Session(ident)

    def _current(self) -> _Session:
        if self.session is None:
            self.session = _Session(file_scope(self.source.name))
        return self.session

    def _close(self) -> Iterator[ConversationMessage]:
        yield from self._flush()
        s = self.session
        if s is not None:
            for agent, calls in s.pending.items():
                for call in calls:
                    yield from self._completion(call, agent)
            s.pending.clear()

    def _flush(self) -> Iterator[ConversationMessage]:
        if self.held is not None:
            yield self.held[0]
            self.held = None

    def read(self) -> Iterator[ConversationMessage]:
        rows = db_rows(self.source) if is_db(self.source) else self._log_rows()
        for loc, session, obj in rows:
            if session is not None and (self.session is None or session != self.session.ident):
                yield from self._open(session)
            if obj is not None:
                yield from self._object(obj, loc)
        yield from self._close()
        if self.skipped:
            told = ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items()))  # any count
            self.ctx.warn(self.source.name, f"not messages, skipped: {told}")

    def _log_rows(self) -> Iterator[tuple[str, str | None, dict[str, Any] | None]]:
        """(locator, session opened, object) for the file logger's lines."""
        for n, line in numbered_lines(self.source, self.ctx.text_decoder()):
            if not line.strip():
                continue
            m = _SESSION.search(line)
            if m and not line.startswith("{"):
                yield f"line-{n}", m[1], None
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.skipped["lines that are not JSON (the logger's errors)"] += 1
                continue
            if not isinstance(obj, dict):
                self.ctx.reject(self.ctx.loc(f"line-{n}"), "not an AutoGen log object", line)
                continue
            sid = obj.get("session_id") if _kind(obj) == "agent" else None
            opened = sid if self.session is None and isinstance(sid, str) and sid else None
            yield f"line-{n}", opened, obj

    def _object(self, obj: dict[str, Any], loc: str) -> Iterator[ConversationMessage]:
        kind = _kind(obj)
        if kind == "agent":
            name = obj.get("agent_name")
            if isinstance(name, str) and name:
                s = self._current()
                s.agents[name] = str(obj.get("agent_type") or "")
                if obj.get("wrapper_id") not in (None, ""):
                    s.wrappers[str(obj["wrapper_id"])] = name
            return
        if kind == "completion":
            s = self._current()
            agent = _str(obj.get("source_name")) or s.wrappers.get(str(obj.get("wrapper_id")))
            agent = agent or "assistant"
            obj["_loc"] = loc
            if s.talked:
                s.pending.setdefault(agent, []).append(obj)
            else:
                yield from self._completion(obj, agent)
        elif kind == "event" and obj.get("event_name") == "received_message":
            yield from self._received(obj, loc)
        else:
            self.skipped[_other(obj, kind)] += 1

    def _received(self, obj: dict[str, Any], loc: str) -> Iterator[ConversationMessage]:
        where = self.ctx.loc(loc)
        got = _said(obj)
        if isinstance(got, str):
            self.ctx.reject(where, got, obj)
            return
        state, msg = got
        try:
            parts = openai_parts({"role": "user", **msg} if "role" not in msg else msg)
        except NotMessage as e:
            self.ctx.reject_error(e, obj)
            return
        receiver, sender = _str(obj.get("source_name")), _str(state.get("sender"))
        speaker = _str(msg.get("name")) or sender
        s = self._current()
        s.calls.called(parts.blocks)
        chunks = chunks_of(parts.blocks, tools=s.calls.tools)
        text = "\n".join(chunks)
        s.talked = True
        if self._relayed(speaker, text, receiver):
            return
        yield from self._flush()
        s.seen[text] += 1
        extra: dict[str, Any] = {
            "original": state["message"],
            "valid": False if state.get("valid") is False else None,
            "sender": sender if sender != speaker else None,
            **self._conversation(s),
        }
        completions = s.pending.pop(speaker or "", None)
        if completions:
            extra["completions"] = [_completion_facts(c) for c in completions]
        rec = message(
            chunks or [""],
            speaker=speaker,
            listeners=[receiver] if receiver else [],
            timestamp=iso_ts(obj.get("timestamp")),
            source_id=where,
            format=NAME,
            thread=s.thread,
            role="tool" if msg.get("role") in ("tool", "function") else None,
            extra=extra,
        )
        self.held = (rec, speaker or "", text)

    def _relayed(self, speaker: str | None, text: str, receiver: str | None) -> bool:
        """A group chat manager's relay of the held message to one more member: that
        member joins its listeners."""
        held = self.held
        if held is None or held[1] != (speaker or "") or held[2] != text or not receiver:
            return False
        heard = held[0].metadata.recipients
        if receiver in heard or receiver == speaker:
            return False
        heard.append(receiver)
        return True

    def _completion(self, obj: dict[str, Any], agent: str) -> Iterator[ConversationMessage]:
        yield from self._flush()
        s = self._current()
        where = self.ctx.loc(str(obj.get("_loc")))
        started = iso_ts(obj.get("start_time"))
        last = None
        counts: Counter[str] = Counter()
        for k, m in enumerate(_request(obj).get("messages") or []):
            parts = _parts(m)
            if parts is None:
                continue
            text = "\n".join(chunks_of(parts.blocks))
            last = parts.speaker if parts.role != "assistant" else agent
            counts[text] += 1
            if counts[text] <= s.seen[text]:
                continue  # said before in this session
            s.seen[text] += 1
            yield message(
                chunks_of(parts.blocks) or [""],
                speaker=agent if parts.role == "assistant" and "name" not in m else parts.speaker,
                listeners=[agent] if parts.role == "user" else [],
                timestamp=started,
                source_id=f"{where}.request-{k + 1}",
                format=NAME,
                thread=s.thread,
                role=parts.role,
                extra={"original": m, **self._conversation(s)},
            )
        yield self._reply(obj, agent, last, where, started)

    def _reply(
        self, obj: dict[str, Any], agent: str, last: str | None, where: str, started: str | None
    ) -> ConversationMessage:
        s = self._current()
        reply = parse_response(obj.get("response"))
        blocks = [{"type": "text", "text": t} for t in reply["texts"]]
        blocks += [tool_use_block(c) for c in reply["calls"]]
        chunks = chunks_of(blocks)
        s.seen["\n".join(chunks)] += 1
        extra = {"completion": _completion_facts(obj), **self._conversation(s)}
        if reply["calls"]:
            extra["blocks"] = blocks
        return message(
            chunks or [""],
            speaker=agent,
            listeners=[last] if last else [],
            timestamp=iso_ts(obj.get("end_time")) or started,
            id=_str(obj.get("invocation_id")),
            source_id=where,
            format=NAME,
            thread=s.thread,
            role="assistant",
            extra=extra,
        )

    @staticmethod
    def _conversation(s: _Session) -> dict[str, Any]:
        if s.told:
            return {}
        s.told = True
        return {"conversation": {"agents": [{"name": k, "class": v} for k, v in s.agents.items()]}}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _request(obj: dict[str, Any]) -> dict[str, Any]:
    request = obj.get("request")
    return request if isinstance(request, dict) else {}


def _parts(m: Any) -> Parts | None:
    if not isinstance(m, dict):
        return None
    try:
        return openai_parts(m)
    except NotMessage:
        return None


def _said(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """(the event's state, its message as a dict), or why the event has none."""
    state = obj.get("json_state")
    try:
        state = orjson.loads(state) if isinstance(state, str) else state
    except orjson.JSONDecodeError:
        state = None
    if not isinstance(state, dict) or "message" not in state:
        return "received_message event without a message"
    msg = state["message"]
    if isinstance(msg, str):
        msg = {"content": msg}
    if not isinstance(msg, dict):
        return "received_message whose message is not text or an object"
    return state, msg


def _other(obj: dict[str, Any], kind: str) -> str:
    """How the warning counts a line that is not a message."""
    if kind == "event":
        return f"{obj.get('event_name')} events"
    if "input_args" in obj:
        return "function uses"
    if "code_point" in obj:
        return "flow points"
    return "setup lines (wrappers, clients)"


def _completion_facts(obj: dict[str, Any]) -> dict[str, Any]:
    """What ``extra`` keeps of a chat completion (its request without the messages)."""
    request = _request(obj)
    reply = parse_response(obj.get("response"))
    facts: dict[str, Any] = {
        "invocation_id": obj.get("invocation_id"),
        "model": reply["model"] or request.get("model"),
        "cost": obj.get("cost"),
        "is_cached": obj.get("is_cached"),
        "start_time": obj.get("start_time"),
        "end_time": obj.get("end_time"),
        "usage": reply["usage"],
        "request": jsonable({k: v for k, v in request.items() if k not in _NOT_KEPT}),
        "request_messages": len(request.get("messages") or []),
    }
    facts["response"] = obj.get("response")  # as logged (a repr): finish reasons, ids
    return facts


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return _Reader(source, ctx).read()


DESCRIPTION = "AutoGen 0.2 / AG2 runtime logs: runtime_logging's logs.db and runtime.log"
EXAMPLE = (
    "Started new session with Session ID: 6f1c...\n"
    '{"source_id": 1402, "source_name": "assistant", "event_name": "received_message", '
    '"json_state": "{\\"message\\": \\"Plot NVDA\\", \\"sender\\": \\"user_proxy\\", '
    '\\"valid\\": true}", "timestamp": "2024-06-03 09:15:02.123456", "thread_id": 1}'
)
FIELDS = Fields(
    speaker="a `received_message` event's message `name` (group chats), else its `sender`; "
    "a completion of its own: its `source_name`",
    listeners="the receiving agent (`source_name`; a group chat manager's relays: every "
    "receiver); a completion of its own: the speaker of its request's last message",
    time="the event's `timestamp`; a completion's `end_time` (its request's new messages: "
    "`start_time`)",
    zone="UTC: AutoGen writes `datetime.utcnow()`",
    thread="`autogen-runtime:<session>`: the session line's uuid (a log cut before it: the file)",
    id="events: " + CONTENT_HASH + "; a completion of its own: its `invocation_id` (`<id>`)",
    scope="the session (a uuid each `runtime_logging.start()`); invocation ids: the world",
    extra="`original` (the message), `completions` (the model calls behind the reply: "
    "`invocation_id`, `model`, `cost`, `usage`, `request` without its messages, `response`), "
    "`completion` (a completion of its own: the same facts), `sender` (a relay's manager), "
    "`valid` when false; the session's agents in the first message's `conversation`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.log", "*.db"), sniff, read, EXAMPLE, fields=FIELDS),
)
