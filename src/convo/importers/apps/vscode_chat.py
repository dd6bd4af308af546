"""VS Code chat sessions: GitHub Copilot Chat and other chat participants (``vscode-chat``).

Shape (VS Code's serialized chat model, as "Chat: Export Session..." writes it and as VS
Code keeps it in ``workspaceStorage/<hash>/chatSessions/<sessionId>.json``; read from the
readers of real sessions found with the code search): ``{version, requesterUsername,
responderUsername, initialLocation, sessionId?, creationDate?, lastMessageDate?,
customTitle?, requests: [...]}``; each request ``{requestId, message: {text, parts},
variableData: {variables: [{name, value, ...}]}, response: [part, ...], result:
{timings: {firstProgress, totalElapsed}, errorDetails?}, agent?: {id, name}, modelId?,
timestamp (epoch ms), isCanceled?}``. Response parts are markdown ``{value}`` (no
``kind``) or ``{kind: "markdownContent", content: {value}}``, ``inlineReference``
(a file or symbol named inline), ``codeblockUri``, ``toolInvocationSerialized``
(``invocationMessage``/``pastTenseMessage``, ``toolId``), ``textEditGroup`` (``uri``,
``edits``), ``thinking`` (``value``), ``warning``, and progress or confirmation parts.

Decisions:
- Each request is two messages: the user's (speaker = ``requesterUsername``, role
  ``user``) and the answer (speaker = ``responderUsername``, else the agent's name,
  role ``assistant``), each the other's listener; the answer replies to the request.
- Text: the request's ``message.text``; the answer's markdown with inline references
  written as their names (as VS Code shows them), a ``[tool TOOL] message`` chunk per
  tool invocation, an ``[edit PATH]`` chunk per edited file, ``[warning] ...`` for a
  warning. Thinking goes to ``extra.thinking`` (``--include-thinking``: a ``[thinking]``
  chunk). Progress, confirmation and code-block URI parts carry no text of their own.
- timestamp = the request's ``timestamp``; the answer's adds ``result.timings
  .totalElapsed`` when given. ``extra``: the attached context (``variableData``
  names), ``agent``, ``modelId``, ``isCanceled``, ``errorDetails``.
- thread = ``vscode-chat:<sessionId>`` (else the file name), subject = ``customTitle``.
- id = ``vscode-chat:<requestId>`` and ``vscode-chat:<requestId>:response``. A
  ``requestId`` is a random UUID VS Code makes for each request, so the id's scope is
  the whole world: two sessions, two machines, two users never share one. A request
  without one gets a content id (``convo.importers.build``).
- A request that is not an object is rejected with its location; one with neither text
  nor answer is skipped, counted in one warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import EmptyCounter
from convo.importers.apps.vscode_chat_log import is_log, replay
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "vscode-chat"
_SILENT = ("codeblockUri", "progressMessage", "progressTask", "prepareToolInvocation",
           "undoStop", "confirmation", "command", "extensions", "references")  # fmt: skip


def sniff(source: Source) -> int:
    """What every session has: a ``requests`` list and who asked or answered."""
    text = json_head_with(source, opens="{", key="requests")
    if not text:
        return 0
    if is_log(text):  # the operation log VS Code keeps a session in since late 2025
        return 92
    if has_key(text, "requesterUsername") or has_key(text, "responderUsername"):
        return 92
    return 70 if has_key(text, "requestId") and has_key(text, "response") else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = _session(source, ctx)
    requester = as_str(doc.get("requesterUsername")) or "user"
    responder = as_str(doc.get("responderUsername"))
    session = as_str(doc.get("sessionId"))
    thread = f"{NAME}:{session}" if session else source.match_name or source.name
    subject = as_str(doc.get("customTitle")) or None
    empty = EmptyCounter()
    for n, req in enumerate(as_list(doc.get("requests")), 1):
        where = ctx.loc(f"request-{n}")
        if not isinstance(req, dict):
            ctx.reject(where, "not a VS Code chat request", req)
            continue
        answerer = responder or as_str(as_dict(req.get("agent")).get("name")) or "assistant"
        asked = _asked(req, requester, answerer, where, (thread, subject))
        answer = _answer(req, answerer, requester, where, (thread, subject), ctx)
        if asked is None and answer is None:
            empty.skip(where)
            continue
        if asked is not None:
            yield asked
        if answer is not None:
            if asked is not None:
                answer.reply_to = asked.id
            yield answer
    empty.report(ctx, "requests with neither text nor answer")


def _session(source: Source, ctx: ImportContext) -> dict[str, Any]:
    """The session: the ``.json`` document, or what an operation log's entries leave."""
    head = json_head_with(source, opens="{", key="requests")
    return replay(source, ctx) if head and is_log(head) else as_dict(load_json(source))


def _asked(
    req: dict[str, Any], speaker: str, listener: str, where: str, about: tuple[str, str | None]
) -> ConversationMessage | None:
    text = as_str(as_dict(req.get("message")).get("text"))
    if not text.strip():
        return None
    rid = as_str(req.get("requestId"))
    variables = [as_str(as_dict(v).get("name")) for v in _variables(req)]
    return message(
        text,
        speaker=speaker,
        listeners=[listener],
        timestamp=epoch_ts(req.get("timestamp"), ms=True),
        id=f"{NAME}:{rid}" if rid else None,
        source_id=where,
        format=NAME,
        thread=about[0],
        subject=about[1],
        role="user",
        extra={"context": [v for v in variables if v] or None},
    )


def _variables(req: dict[str, Any]) -> list[Any]:
    return as_list(as_dict(req.get("variableData")).get("variables"))


def _answer(
    req: dict[str, Any],
    speaker: str,
    listener: str,
    where: str,
    about: tuple[str, str | None],
    ctx: ImportContext,
) -> ConversationMessage | None:
    chunks, thinking = _response_chunks(as_list(req.get("response")))
    if ctx.options.include_thinking:
        chunks += [f"[thinking] {t}" for t in thinking]
    if not chunks:
        return None
    rid = as_str(req.get("requestId"))
    result = as_dict(req.get("result"))
    start, took = req.get("timestamp"), as_dict(result.get("timings")).get("totalElapsed")
    both = isinstance(start, int | float) and isinstance(took, int | float)
    return message(
        chunks,
        speaker=speaker,
        listeners=[listener],
        timestamp=epoch_ts(start + took if both else start, ms=True),  # type: ignore[operator]
        id=f"{NAME}:{rid}:response" if rid else None,
        source_id=f"{where}.response",
        format=NAME,
        thread=about[0],
        subject=about[1],
        role="assistant",
        extra={
            "agent": as_str(as_dict(req.get("agent")).get("id")) or None,
            "model": as_str(req.get("modelId")) or None,
            "canceled": True if req.get("isCanceled") else None,
            "error": as_dict(result.get("errorDetails")) or None,
            "thinking": (thinking or None) if not ctx.options.include_thinking else None,
        },
    )


def _response_chunks(parts: list[Any]) -> tuple[list[str], list[str]]:
    """(text chunks, thinking) of an answer: markdown and inline references run together
    into one chunk; tools, edits and warnings are chunks of their own."""
    chunks: list[str] = []
    prose: list[str] = []
    thinking: list[str] = []
    for part in parts:
        p = as_dict(part)
        kind = as_str(p.get("kind"))
        if kind in ("", "markdownContent", "inlineReference"):
            prose.append(_prose(p, kind))
            continue
        if kind == "thinking":
            thinking.append(_value(p.get("value")))
            continue
        line = _other(p, kind)
        if line:
            chunks.append("".join(prose).strip())
            prose = []
            chunks.append(line)
    chunks.append("".join(prose).strip())
    return [c for c in chunks if c], [t for t in thinking if t]


def _value(v: Any) -> str:
    """A string, or the ``value`` of a markdown-string object."""
    return v if isinstance(v, str) else as_str(as_dict(v).get("value"))


def _prose(p: dict[str, Any], kind: str) -> str:
    if kind == "inlineReference":
        ref = as_dict(p.get("inlineReference"))
        name = as_str(p.get("name")) or as_str(ref.get("name"))
        path = as_str(as_dict(ref.get("uri")).get("path")) or as_str(ref.get("path"))
        return f"`{name or PurePosixPath(path).name}`" if name or path else ""
    return _value(p.get("content")) if kind else _value(p.get("value"))


def _other(p: dict[str, Any], kind: str) -> str:
    """The chunk of a part that is not prose ("" for the parts with no text)."""
    if kind in _SILENT:
        return ""
    if kind in ("toolInvocationSerialized", "toolInvocation"):
        said = _value(p.get("pastTenseMessage")) or _value(p.get("invocationMessage"))
        return f"[tool {as_str(p.get('toolId')) or 'call'}] {said}".strip()
    if kind in ("textEditGroup", "notebookEditGroup"):
        path = as_str(as_dict(p.get("uri")).get("path"))
        return f"[edit {PurePosixPath(path).name if path else 'file'}]"
    if kind == "warning":
        return f"[warning] {_value(p.get('content'))}".strip()
    return ""


DESCRIPTION = "VS Code chat sessions: GitHub Copilot Chat (chatSessions/*.json, Export Session)"
EXAMPLE = (
    '{"requesterUsername": "ann", "responderUsername": "GitHub Copilot", "requests": '
    '[{"requestId": "request_1", "message": {"text": "What is a monad?"}, '
    '"response": [{"value": "A monoid in the category of endofunctors."}], "timestamp": 1712000000000}]}'
)
FIELDS = Fields(
    speaker="the request: `requesterUsername`; the answer: `responderUsername`, else the "
    "agent's name",
    listeners="request ↔ answer: each the other's",
    time="the request's `timestamp`; the answer's adds `result.timings.totalElapsed`",
    zone="epoch milliseconds: UTC",
    thread="`vscode-chat:<sessionId>` (else the file's name)",
    id="`vscode-chat:<requestId>` and `vscode-chat:<requestId>:response`; none: " + CONTENT_HASH,
    scope="none: a `requestId` is a random UUID",
    reply_to="the answer: its request",
    subject="`customTitle`",
    extra="`agent`, `model` (`modelId`), `context` (the attached context's names), "
    "`canceled`, `error`; thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
