"""Logs of chat API calls (``api-log``): one JSON object a line, ``{"timestamp"?,
"request": {"model", "messages", "system"?...}, "response": {...}}``, the request's body
and the answer as the SDK returned it, as applications log their calls to the OpenAI
chat completions API (``openai_calls.jsonl``, gateways' request logs) or to Anthropic's
Messages API.

Decisions:
- The answer says the API: a ``chat.completion`` (``choices``) is OpenAI's, a
  ``message`` with content blocks Anthropic's; the request's messages are read as that
  API's (records labelled ``openai`` / ``anthropic``, as the messages themselves would
  be), the answer as the assistant's: every choice of it (``n`` > 1), the first at
  ``#response``, the others at ``#response.choice-K`` with ids ``<id>:K``; the next call
  sending back any of them goes on from it without reading it again. A Responses API answer
  (``"object": "response"``) has its request's ``input`` and ``instructions`` and its
  ``output`` items read by ``openai_responses`` (records labelled
  ``openai-responses``); a call naming its ``previous_response_id`` goes on that
  response's conversation.
- Each call sends the whole conversation again. Calls whose first messages (up to the
  first user message) are the same are one conversation, ``thread`` =
  ``api-log:<file>:<hash of those>``: a call's messages already read from an earlier
  call of it (the same messages in the same places) are not read again, only what the
  call adds, then its answer. A call that changes the history (an edit) is read from
  the first message that differs.
- time = the answer's ``created`` (OpenAI, epoch seconds), else the line's
  ``timestamp`` (ISO, or epoch seconds); the messages a call adds take the line's time,
  else the answer's. Ids: the answer's own (``chatcmpl-...``, ``msg_...``), else the
  content hash.
- A line without a request's messages or an answer is rejected with its place; a call
  that failed (``response`` holding an ``error``) keeps its new messages and is warned.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.finish import convert
from convo.importers.agents.openai_responses import ItemReader
from convo.importers.agents.parts import NotMessage, Thread
from convo.importers.build import ContentIds, file_scope
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, json_head, json_lines
from convo.importers.registry import Format

NAME = "api-log"


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    try:
        first = orjson.loads(text.split("\n", 1)[0])
    except orjson.JSONDecodeError:
        return 0
    return 88 if _call(first) else 0


def _call(value: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """A logged call's request and answer, or None."""
    if not isinstance(value, dict):
        return None
    request, response = value.get("request"), value.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        return None
    if isinstance(request.get("messages"), list) or _responses(response):
        return request, response
    return None


def _responses(response: dict[str, Any]) -> bool:
    """A Responses API answer (``{"object": "response", "output": [items]}``)."""
    return response.get("object") == "response" or isinstance(response.get("output"), list)


def _api(response: dict[str, Any]) -> str:
    """``anthropic`` for a Messages API answer, else ``openai``."""
    if response.get("type") == "message" and isinstance(response.get("content"), list):
        return "anthropic"
    return "openai"


def _item_digest(item: Any) -> bytes:
    """What tells a Responses item sent again (its texts, call and output), not its
    ``id`` or ``status`` (left out when an application builds the next input itself)."""
    i = as_dict(item)
    content = i.get("content")
    if isinstance(content, list):
        content = [as_dict(p).get("text") for p in content]
    kept = [i.get("type") or "message", i.get("role"), content]
    kept += [i.get(k) for k in ("name", "arguments", "call_id", "output", "summary")]
    return hashlib.blake2b(orjson.dumps(_bare(kept), default=str), digest_size=8).digest()


# What tells a message sent again from another: the SDK's answer carries members the
# request sending it back leaves out (``refusal``, ``annotations``, ``citations``: null).
_SAME = ("role", "content", "tool_calls", "tool_call_id", "name", "function_call")


def _digest(msg: dict[str, Any]) -> bytes:
    kept = {k: _bare(msg.get(k)) for k in _SAME if _bare(msg.get(k)) not in (None, "", [], {})}
    return hashlib.blake2b(
        orjson.dumps(kept, option=orjson.OPT_SORT_KEYS, default=str), digest_size=8
    ).digest()


def _bare(value: Any) -> Any:
    """``value`` without its null members, nested."""
    if isinstance(value, dict):
        return {k: _bare(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_bare(v) for v in value]
    return value


def _common(a: list[bytes], b: list[bytes]) -> int:
    """How many first items ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class _Conversations:
    """The conversations of one log: each one's thread state and the digests of the
    messages read from it so far."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.file = file_scope(source.name)
        self.ids = ContentIds(source.name)
        self.seen: dict[str, list[bytes]] = {}
        self.threads: dict[str, Thread] = {}
        self.items_reader = ItemReader(ctx)
        self.responses_by_id: dict[str, str] = {}  # a Responses answer's id → its thread
        # per conversation: where the last call's choices stand and their digests
        self.choices: dict[str, tuple[int, set[bytes]]] = {}

    def key(self, request: dict[str, Any]) -> str:
        msgs = as_list(request.get("messages"))
        first_user = next((k for k, m in enumerate(msgs) if as_dict(m).get("role") == "user"), 0)
        head = [request.get("system"), msgs[: first_user + 1]]
        return hashlib.blake2b(orjson.dumps(head, default=str), digest_size=6).hexdigest()

    def call(self, value: dict[str, Any], where: str) -> Iterator[ConversationMessage]:
        request, response = _call(value) or ({}, {})
        if _responses(response):
            yield from self.responses_call(request, response, value, where)
            return
        key = self.key(request)
        thread = self.threads.setdefault(key, Thread(id=f"{NAME}:{self.file}:{key}"))
        fmt = _api(response)
        msgs = [m for m in as_list(request.get("messages")) if isinstance(m, dict)]
        if fmt == "anthropic" and request.get("system") not in (None, "", []):
            msgs = [{"role": "system", "content": request["system"]}, *msgs]
        digests = [_digest(m) for m in msgs]
        start = self._start(key, digests)
        line_time = _time(value.get("timestamp"))
        answer_time = _time(response.get("created")) or line_time
        for k in range(start, len(msgs)):
            yield from self._one(
                msgs[k], fmt, thread, f"{where}#msg-{k + 1}", line_time or answer_time
            )
        yield from self._answered(key, digests, response, (fmt, thread, where, answer_time))

    def _answered(
        self,
        key: str,
        digests: list[bytes],
        response: dict[str, Any],
        call: tuple[str, Thread, str, str | None],
    ) -> Iterator[ConversationMessage]:
        """The answer's records (``call``: its API, thread, place and time); the
        conversation's messages read so far noted."""
        fmt, thread, where, when = call
        answers = self._answers(response, fmt, where)
        self.seen[key] = digests
        if not answers:
            self.ctx.warn(
                where, "the call's answer holds no message (a failed call?): its request read"
            )
            return
        # the history goes on with one of the choices: whichever the next call sends back
        self.seen[key] = [*digests, _digest(answers[0][1])]
        self.choices[key] = (len(digests), {_digest(a) for _, a in answers})
        extra = {k: response.get(k) for k in ("model", "usage", "id") if response.get(k)}
        own = response.get("id")
        for k, (place, answer) in enumerate(answers):
            own_k = own if k == 0 or not isinstance(own, str) else f"{own}:{k}"
            yield from self._one(answer, fmt, thread, place.format(where), when, own_k, extra)

    def _start(self, key: str, digests: list[bytes]) -> int:
        """How many of a call's messages its conversation's earlier calls read already."""
        known = self.seen.get(key, [])
        at, chosen = self.choices.get(key, (-1, set()))
        if 0 <= at < min(len(known), len(digests)) and digests[at] in chosen:
            # the conversation went on with another of the last call's choices: read already
            known = [*known[:at], digests[at], *known[at + 1 :]]
        return _common(known, digests)

    def responses_call(
        self, request: dict[str, Any], response: dict[str, Any], value: dict[str, Any], where: str
    ) -> Iterator[ConversationMessage]:
        """A Responses API call: its ``input`` (a string or items; ``instructions`` a
        first system item) and its ``output`` items, read by ``openai_responses``. A call
        continuing an earlier response (``previous_response_id``) sends only what is
        new, in that response's thread."""
        items = request.get("input")
        items = [{"role": "user", "content": items}] if isinstance(items, str) else as_list(items)
        if isinstance(request.get("instructions"), str) and request["instructions"].strip():
            items = [{"role": "system", "content": request["instructions"]}, *items]
        prev = self.responses_by_id.get(str(request.get("previous_response_id")))
        digests = [_item_digest(i) for i in items]
        first_user = next((k for k, i in enumerate(items) if as_dict(i).get("role") == "user"), 0)
        key = (
            prev or hashlib.blake2b(b"".join(digests[: first_user + 1]), digest_size=6).hexdigest()
        )
        start = 0 if prev else _common(self.seen.get(key, []), digests)
        thread = f"{NAME}:{self.file}:{key}"
        answer_time = _time(response.get("created_at")) or _time(value.get("timestamp"))
        line_time = _time(value.get("timestamp")) or answer_time
        yield from self.items_reader.items(items[start:], f"{where}#input", thread, line_time)
        output = as_list(response.get("output"))
        yield from self.items_reader.items(output, f"{where}#response", thread, answer_time)
        self.seen[key] = [
            *(self.seen.get(key, []) if prev else []),
            *digests,
            *map(_item_digest, output),
        ]
        if isinstance(response.get("id"), str):
            self.responses_by_id[response["id"]] = key

    def _answers(
        self, response: dict[str, Any], fmt: str, where: str
    ) -> list[tuple[str, dict[str, Any]]]:
        """The answer's messages and their places (a place holds ``{}`` for the line's):
        Anthropic's one message; every OpenAI choice (``n`` > 1 asks for several), as
        ``openai-completion`` reads them, the first at ``#response``, the others at
        ``#response.choice-K``; a choice beside them holding no message is rejected with
        its place (none holding one: the caller warns)."""
        if fmt == "anthropic":
            return [("{}#response", {"role": "assistant", "content": response["content"]})]
        choices = as_list(response.get("choices"))
        places = [
            "{}#response" if k == 0 else f"{{}}#response.choice-{k}" for k in range(len(choices))
        ]
        out = [
            (p, m)
            for p, c in zip(places, choices, strict=True)
            if isinstance(m := as_dict(c).get("message"), dict)
        ]
        if out:
            for place, choice in zip(places, choices, strict=True):
                if not isinstance(as_dict(choice).get("message"), dict):
                    self.ctx.reject(place.format(where), "not a choice with a message", choice)
        return out

    def _one(
        self,
        obj: dict[str, Any],
        fmt: str,
        thread: Thread,
        where: str,
        when: str | None,
        own_id: Any = None,
        extra: dict[str, Any] | None = None,
    ) -> Iterator[ConversationMessage]:
        try:
            msg = convert(obj, fmt, thread, zone=self.ctx.options.tz, checked_later=True,
                          include_thinking=self.ctx.options.include_thinking)  # fmt: skip
        except NotMessage as e:
            self.ctx.reject(where, f"not a message ({fmt}): {e.what}", obj)
            return
        msg.source_id = where
        msg.timestamp = msg.timestamp or when
        if isinstance(own_id, str) and own_id:
            msg.id = f"{fmt}:{own_id}"
        if extra:
            msg.extra = {**(msg.extra or {}), "call": extra}
        self.ids.assign(msg)
        yield msg


def _time(value: Any) -> str | None:
    try:
        return parse_any(value) if value is not None else None
    except ValueError:
        return None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    convs = _Conversations(source, ctx)
    try:
        for _, where, value in json_lines(source, ctx):
            if _call(value) is None:
                ctx.reject(where, "not a logged API call ({request: {messages}, response})", value)
                continue
            yield from convs.call(value, where)
    finally:
        convs.items_reader.close()


DESCRIPTION = (
    "Logs of chat API calls: JSONL of {request, response} (OpenAI chat and Responses, Anthropic)"
)
EXAMPLE = (
    '{"timestamp": "2025-05-01T10:00:00Z", "request": {"model": "gpt-4o-mini", "messages": '
    '[{"role": "user", "content": "Hi"}]}, "response": {"object": "chat.completion", '
    '"choices": [{"message": {"role": "assistant", "content": "Hello"}}]}}'
)
FIELDS = Fields(
    speaker="the message's role (`name` when given), as the API's messages are read",
    listeners="the other party (user ↔ assistant; a tool's result → the assistant)",
    time="the answer's `created`, else the line's `timestamp`; added messages the line's",
    zone="epoch seconds and ISO times with an offset: UTC; a naive ISO time in `--tz`",
    thread="`api-log:<file>:<hash of the first messages>`: the calls of one conversation",
    id="the answer's own id (`openai:chatcmpl-...`, `anthropic:msg_...`; Responses items: "
    "`openai:<item id>`), else the content hash",
    scope="the file (the thread is the file's)",
    extra="`call` on the answer (model, usage, id); as the API's messages: `blocks` (tool "
    "calls and results, media), `original` (the message as sent, when the record does not "
    "hold all of it)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.jsonl", "*.json", "*.log"), sniff, read, EXAMPLE, fields=FIELDS),)  # fmt: skip
