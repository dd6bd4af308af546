"""Gemini CLI's headless output, read by ``gemini-cli`` (``convo.importers.agents.gemini_cli``).

Shape (google-gemini/gemini-cli ``packages/core/src/output/types.ts``,
``stream-json-formatter.ts``, ``json-formatter.ts``):

- ``gemini -p ... --output-format stream-json``: one event a line, each with its
  ``timestamp``: ``init`` (``session_id``, ``model``), ``message`` (``role`` user or
  assistant, ``content``; the answer streamed in pieces, ``delta: true``), ``tool_use``
  (``tool_name``, ``tool_id``, ``parameters``), ``tool_result`` (``tool_id``, ``status``
  success or error, ``output``, ``error: {type, message}``), ``error`` (``severity``,
  ``message``) and ``result`` (``status``, ``error``, ``stats``);
- ``--output-format json``: one object ``{session_id?, response, stats, error?}``
  (``JSON.stringify(output, null, 2)``; a fatal error ``{session_id?, error}``).

Decisions, as for the CLI's session files (``gemini_cli``):
- speakers ``user`` and ``gemini`` (role assistant), each the other's listener; thread
  ``gemini-cli:<session_id>``, the session file's; ids: content hashes.
- An answer's pieces (``delta``) are one record, at the first piece's time; the tool
  calls that follow it and their results are chunks of it (``[tool_use NAME] {args}``,
  ``[tool_result NAME] output``, ``NAME error``) until the model speaks again, as the
  session file keeps them in the message that made the calls.
- ``error`` events and a failed ``result``: ``system`` records spoken by ``gemini-cli``,
  tagged ``system``; ``init`` and a successful ``result`` (its figures) are skipped,
  counted in one warning (the model goes to the next answer's ``extra.model``).
- ``json``: its ``response`` is the answer (no time: the epoch sentinel, warned; the
  prompt is not in it), ``error`` a system record.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.jsonstream import read_top_level
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import CallNames, dumps
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.jsoninput import as_dict, as_str, json_lines

NAME = "gemini-cli"
EVENTS = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})


def is_stream_start(value: Any) -> bool:
    """The ``init`` event a stream-json output starts with."""
    return (
        isinstance(value, dict)
        and value.get("type") == "init"
        and isinstance(value.get("session_id"), str)
        and "model" in value
        and "timestamp" in value
    )


def is_json_output(value: Any) -> bool:
    """``--output-format json``'s one object: an answer with its stats, or an error
    (``formatError``: no stats) of a session."""
    if not isinstance(value, dict) or not value.keys() <= {
        "session_id", "response", "stats", "error"
    }:  # fmt: skip
        return False
    if isinstance(value.get("response"), str):
        return isinstance(value.get("stats"), dict)
    error = value.get("error")
    return isinstance(error, dict) and "message" in error and "session_id" in value


@dataclass
class _Answer:
    """The answer being read: its text pieces, tool chunks, place and time."""

    where: str
    ts: str | None
    text: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


class _Stream:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.thread = ctx.thread_of(source.name)
        self.model: str | None = None
        self.answer: _Answer | None = None
        self.names = CallNames()  # tool_id -> tool_name (the latest: memory stays flat)
        self.skipped: Counter[str] = Counter()

    def made(self, text: str | list[str], where: str, ts: str | None, who: str,
             tags: list[str] | None = None, extra: dict[str, Any] | None = None,
             ) -> ConversationMessage:  # fmt: skip
        role = {"user": "user", "gemini": "assistant"}.get(who, "system")
        listeners = {"user": ["gemini"], "gemini": ["user"]}.get(who, [])
        return message(text, speaker=who, listeners=listeners, timestamp=ts, source_id=where,
                       format=NAME, thread=self.thread, role=role, tags=tags,
                       extra=extra)  # fmt: skip

    def flush(self) -> Iterator[ConversationMessage]:
        answer, self.answer = self.answer, None
        if answer is None:
            return
        text = "".join(answer.text)
        chunks = ([text] if text else []) + answer.tools
        extra = {"model": self.model} if self.model else None
        yield self.made(chunks or [""], answer.where, answer.ts, "gemini", extra=extra)


def read_json_output(value: dict[str, Any], source: Source, ctx: ImportContext,
                     ) -> Iterator[ConversationMessage]:  # fmt: skip
    """``--output-format json``: the answer, or the error."""
    st = _Stream(source, ctx)
    sid = as_str(value.get("session_id"))
    st.thread = f"{NAME}:{sid}" if sid else st.thread
    where = ctx.loc(1)
    ctx.warn(source.name, "Gemini CLI's json output carries no time: the epoch sentinel")
    if isinstance(value.get("response"), str):
        yield st.made(value["response"], where, None, "gemini", extra={"stats": value["stats"]})
    if value.get("error") is not None:
        error = as_dict(value.get("error"))
        text = as_str(error.get("message")) or dumps(value.get("error"))
        yield st.made(f"[error] {text}", where, None, NAME, tags=["system"], extra={"error": error})


def read_stream(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    st = _Stream(source, ctx)
    for _, where, value in json_lines(source, ctx):
        if not isinstance(value, dict) or as_str(value.get("type")) not in EVENTS:
            ctx.reject(where, "not a Gemini CLI stream-json event (type, timestamp)", value)
            continue
        yield from _event(value, where, iso_ts(value.get("timestamp"), ctx.options.tz), st)
    yield from st.flush()
    if st.skipped:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(st.skipped.items()))
        ctx.warn(source.name, f"skipped events that hold no message: {counts}")


def _event(
    value: dict[str, Any], where: str, ts: str | None, st: _Stream
) -> Iterator[ConversationMessage]:
    kind = value["type"]
    if kind == "message" and value.get("role") == "assistant":
        yield from _answer_piece(value, where, ts, st)
    elif kind == "message":
        yield from st.flush()
        yield st.made(as_str(value.get("content")), where, ts, "user")
    elif kind in ("tool_use", "tool_result"):
        if st.answer is None:
            st.answer = _Answer(where, ts)
        st.answer.tools.append(_tool_chunk(value, st))
    elif kind == "init":
        sid = as_str(value.get("session_id"))
        st.thread = f"{NAME}:{sid}" if sid else st.thread
        st.model = as_str(value.get("model")) or None
        st.skipped[kind] += 1
    elif kind == "error" or as_str(value.get("status")) not in ("", "success"):
        yield from st.flush()
        text = as_str(value.get("message")) or as_str(as_dict(value.get("error")).get("message"))
        label = as_str(value.get("severity")) or "error"
        yield st.made(f"[{label}] {text}", where, ts, NAME, tags=["system"], extra={"event": value})
    else:
        st.skipped[kind] += 1


def _answer_piece(
    value: dict[str, Any], where: str, ts: str | None, st: _Stream
) -> Iterator[ConversationMessage]:
    """A piece of the answer: a new record after the answer's tools, or a whole one."""
    if st.answer is not None and (st.answer.tools or not value.get("delta")):
        yield from st.flush()  # the model speaks again after its tools
    if st.answer is None:
        st.answer = _Answer(where, ts)
    st.answer.text.append(as_str(value.get("content")))


def _tool_chunk(value: dict[str, Any], st: _Stream) -> str:
    tool_id = as_str(value.get("tool_id"))
    if value["type"] == "tool_use":
        name = as_str(value.get("tool_name")) or "?"
        st.names.add(tool_id, name)
        return f"[tool_use {name}] {dumps(value.get('parameters') or {})}"
    name = st.names.get(tool_id) or tool_id or "?"
    if value.get("status") == "error":
        error = as_dict(value.get("error"))
        said = as_str(value.get("output")) or as_str(error.get("message")) or dumps(error)
        return f"[tool_result {name} error] {said}"
    output = value.get("output")
    return f"[tool_result {name}] {output if isinstance(output, str) else dumps(output)}"


_JSON_OUTPUT = re.compile(r'\A\{\s*(?:"session_id"\s*:\s*"[^"]*"\s*,\s*)?"response"\s*:\s*"')


def headless_kind(text: str) -> str:
    """``stream`` or ``json`` for a head of the CLI's headless output, else ""."""
    try:
        first = orjson.loads(text.split("\n", 1)[0])
    except orjson.JSONDecodeError:
        first = None
    if is_stream_start(first):
        return "stream"
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:  # a long answer the head cut
        return "json" if _JSON_OUTPUT.match(text) else ""
    return "json" if is_json_output(whole) else ""


def read_headless(source: Source, ctx: ImportContext, kind: str) -> Iterator[ConversationMessage]:
    if kind == "stream":
        yield from read_stream(source, ctx)
        return
    with source.open() as stream:
        value = read_top_level(stream, (), where=source.name)
    if not is_json_output(value):
        raise InputError("not Gemini CLI's json output (response, stats)", where=source.name)
    yield from read_json_output(value, source, ctx)
