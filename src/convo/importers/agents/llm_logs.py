"""Simon Willison's LLM CLI logs (``llm-logs``): the JSON ``llm logs --json`` writes.

Shape (simonw/llm ``llm/cli.py``: ``logs_list``, ``annotate_log_rows`` and
``log_rows_as_json``; ``llm/logs.py``: ``log_row_extras`` and ``legacy_log_row_extras``;
``docs/logging.md``): a JSON array, oldest first, of one object a model call (a
"response"): ``{"id": ULID, "model", "prompt", "system", "prompt_json", "options_json",
"response", "response_json", "conversation_id": ULID, "duration_ms", "datetime_utc":
"2025-02-16T22:34:30.374882+00:00", "input_tokens", "output_tokens", "token_details",
"conversation_name", "conversation_model", "schema_json", "prompt_fragments" /
"system_fragments": [{"hash", "content", "aliases"}], "tools", "tool_calls": [{"id",
"tool_id", "name", "arguments", "tool_call_id"}], "tool_results": [{"id", "tool_id",
"name", "output", "tool_call_id", "exception", "instance", "attachments"}],
"attachments": [{"id", "type", "path", "url", "content_length"}]}``. Older versions
write fewer keys (no tools, fragments or tokens; ``prompt_json`` a string); ``-t``
drops the ``*_json`` keys and shortens the texts; search results (``-q``) come best
first.

Decisions:
- One call gives up to three records, in this order: the tool results it sent back
  (speaker ``tool``: ``[tool_result NAME] output``, ``error`` when it raised), the
  prompt (speaker ``user``: its text, then ``[attachment TYPE] path-or-url``), the
  response (speaker ``assistant``: its text, then ``[tool_use NAME] {arguments}``).
  A record with nothing to say is not made (a tool-only follow-up has no prompt).
- time: the prompt's and the tool results' = ``datetime_utc``; the response's =
  ``datetime_utc`` + ``duration_ms`` (when it finished).
- thread = ``llm:<conversation_id>``; subject = ``conversation_name``, on each
  conversation's first record in the file.
- id = ``llm:<id>`` (the prompt), ``llm:<id>:response``, ``llm:<id>:tools``: LLM's ids
  are ULIDs, unique everywhere (docs/ids.md); the integers of the first versions
  (before 0.5) are unique only in their file: ``llm:<file>:<id>`` (``build.file_local_id``,
  the conversation too); a call without one: the content hash.
- ``extra``: the model, the system prompt, the options, the fragments (hash, aliases,
  content as written), the token counts and duration, the schema; the raw provider
  payloads (``prompt_json``, ``response_json``) are not kept (their text and tool
  calls are read).
- An element that is not a call (no ``prompt`` or ``response`` key) is rejected with
  its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import format_timestamp_utc, iso_ts, parse_datetime
from convo.importers.agents.blocks import whole_chunk
from convo.importers.build import OwnIds, file_local, file_local_id, file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "llm-logs"
KEYS = ("conversation_id", "datetime_utc", "response", "prompt")
OTHER = {"tool": "assistant", "user": "assistant", "assistant": "user"}
_FRACTION = re.compile(r"T\d\d:\d\d:\d\d\.(\d+)")


def _is_call(value: Any) -> bool:
    return isinstance(value, dict) and "prompt" in value and "response" in value


def sniff(source: Source) -> int:
    """An array whose first element holds LLM's own keys (``datetime_utc`` and
    ``conversation_id`` are this tool's names)."""
    text = json_head_with(source, '"datetime_utc"', key="conversation_id", opens="[")
    if not text:
        return 0
    found = sum(f'"{k}"' in text for k in (*KEYS, "duration_ms", "options_json", "model"))
    return 90 if found >= 6 else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ())
    doc.expect("expected the JSON array `llm logs --json` writes")
    named: set[str] = set()
    own = OwnIds()  # a damaged or hand-joined log repeating an id: its content hash
    for item, line in doc.items():
        where = ctx.loc(line)
        if not _is_call(item):
            ctx.reject(where, "not an LLM log entry (prompt, response)", item)
            continue
        for rec in call_records(item, where, named, source.name):
            rec.id = own.checked(rec.id, rec.text_chunks)
            yield rec
    own.close()
    if own.clashes:
        ctx.warn(source.name, own.warning("record"))


def call_records(
    call: dict[str, Any], where: str, named: set[str], file: str
) -> Iterator[ConversationMessage]:
    """One call's records (``named``: the conversations whose subject was given);
    ``convo.importers.agents.llm_logsdb`` reads the database's calls through it too."""
    own = as_str(call.get("id"))
    base = file_local_id("llm", own, file) if own else ""
    conversation = as_str(call.get("conversation_id"))
    thread = f"llm:{file_local(conversation, file_scope(file))}" if conversation else None
    subject = None
    if conversation and conversation not in named:
        named.add(conversation)
        subject = as_str(call.get("conversation_name")) or None
    started = iso_ts(call.get("datetime_utc"), UTC)
    finished = _finished(call.get("datetime_utc"), call.get("duration_ms"))
    results = [_result(as_dict(r)) for r in as_list(call.get("tool_results"))]
    prompt = [as_str(call.get("prompt"))]
    prompt += [_attachment(as_dict(a)) for a in as_list(call.get("attachments"))]
    said = [as_str(call.get("response"))]
    said += [_call(as_dict(c)) for c in as_list(call.get("tool_calls"))]
    turns = (
        ("tool", results, started, ":tools", {"tool_results": _result_ids(call)}),
        ("user", prompt, started, "", _prompt_extra(call)),
        ("assistant", said, finished, ":response", _response_extra(call)),
    )
    for speaker, chunks, when, suffix, extra in turns:
        if not any(chunks):
            continue
        yield message(
            chunks,
            speaker=speaker,
            listeners=[OTHER[speaker]],
            timestamp=when,
            id=f"{base}{suffix}" if base else None,
            source_id=where,
            format=NAME,
            thread=thread,
            subject=subject,
            role=speaker,
            extra=extra,
        )
        subject = None


def _finished(started: Any, duration: Any) -> str | None:
    """The call's start plus its duration (whole seconds, UTC); the start alone when the
    duration is missing."""
    if not isinstance(started, str):
        return None
    if not isinstance(duration, int | float) or isinstance(duration, bool) or duration < 0:
        return iso_ts(started, UTC)
    fraction = _FRACTION.search(started)  # parse_datetime keeps whole seconds
    micro = int(fraction[1].ljust(6, "0")[:6]) if fraction else 0
    try:
        when: datetime = parse_datetime(started, UTC) + timedelta(
            microseconds=micro, milliseconds=duration
        )
        return format_timestamp_utc(when)
    except (ValueError, OverflowError):
        return iso_ts(started, UTC)


def _attachment(att: dict[str, Any]) -> str:
    kind = as_str(att.get("type")) or "?"
    said = as_str(att.get("path")) or as_str(att.get("url")) or as_str(att.get("id"))
    return f"[attachment {kind}] {said}".rstrip()


def _call(call: dict[str, Any]) -> str:
    name = as_str(call.get("name")) or as_str(call.get("tool_call_id")) or "?"
    return whole_chunk({"type": "tool_use", "name": name, "input": call.get("arguments") or {}})


def _result(result: dict[str, Any]) -> str:
    name = as_str(result.get("name")) or as_str(result.get("tool_call_id")) or "?"
    error = as_str(result.get("exception"))
    output = as_str(result.get("output"))
    files = [_attachment(as_dict(a)) for a in as_list(result.get("attachments"))]
    text = "\n".join(x for x in (output, error, *files) if x)
    return whole_chunk({"type": "tool_result", "name": name, "content": text,
                        "is_error": bool(error)})  # fmt: skip


def _result_ids(call: dict[str, Any]) -> list[dict[str, Any]]:
    """Which calls the results answer (their text is the record's)."""
    keys = ("tool_call_id", "name", "instance")
    return [{k: as_dict(r).get(k) for k in keys} for r in as_list(call.get("tool_results"))]


def _fragments(value: Any) -> list[dict[str, Any]]:
    return [
        {k: f.get(k) for k in ("hash", "aliases", "content") if f.get(k)}
        for f in (as_dict(x) for x in as_list(value))
    ]


def _prompt_extra(call: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": as_str(call.get("model")),
        "system": as_str(call.get("system")),
        "fragments": _fragments(call.get("prompt_fragments")),
        "system_fragments": _fragments(call.get("system_fragments")),
        "attachments": as_list(call.get("attachments")),
    }


def _response_extra(call: dict[str, Any]) -> dict[str, Any]:
    options = call.get("options_json")
    return {
        "model": as_str(call.get("model")),
        "options": options if isinstance(options, dict) else None,
        "schema": call.get("schema_json") if isinstance(call.get("schema_json"), dict) else None,
        "tool_calls": as_list(call.get("tool_calls")),
        "input_tokens": call.get("input_tokens"),
        "output_tokens": call.get("output_tokens"),
        "token_details": call.get("token_details"),
        "duration_ms": call.get("duration_ms"),
    }


DESCRIPTION = "LLM CLI logs (simonw/llm: `llm logs --json`)"
EXAMPLE = (
    '[{"id": "01jm8ec74wxsdatyn5pq1fp0s5", "model": "gpt-4o-mini", "prompt": "hi", '
    '"system": null, "response": "Hello!", "conversation_id": "01jm8ec74taftdgj2t4zra9z0j", '
    '"duration_ms": 560, "datetime_utc": "2025-02-16T22:34:30.374882+00:00"}]'
)
FIELDS = Fields(
    speaker="`user` (the prompt), `assistant` (the response), `tool` (tool results sent back)",
    listeners="the other party",
    time="`datetime_utc`; the response: `datetime_utc` + `duration_ms`",
    zone="UTC (`+00:00`; the first versions wrote naive UTC)",
    thread="`llm:<conversation_id>`",
    id="`llm:<id>` (the prompt), `llm:<id>:response`, `llm:<id>:tools`; no id: " + CONTENT_HASH,
    scope="none: LLM's ids are ULIDs (a short integer id of the first versions: the file)",
    subject="`conversation_name`, on a conversation's first record",
    extra="`model`, `system`, `fragments`, `system_fragments`, `attachments` (the prompt); "
    "`options`, `schema`, `tool_calls`, `input_tokens`, `output_tokens`, `token_details`, "
    "`duration_ms` (the response); `tool_results` (which calls the results answer)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
