"""Google AI Studio prompts saved to Drive (``aistudio``): one chat a file, as AI Studio
saves it (Drive's auto-save, the in-app Download; Takeout's ``Google AI Studio`` folder).

Shape (no published schema; as readers of these files read them: the AI Studio parsers
and Drive tools in public repositories, e.g. an ``aistudio_complete_parser.py`` and a
``prompt_extractor`` package's ``parse_chunks``): ``{"runSettings": {"model":
"models/gemini-2.5-pro", "temperature", ...}, "systemInstruction": {"parts": [{"text"}]}
(or ``{"text"}``, or ``{}``), "citations": [{"uri"}], "chunkedPrompt": {"chunks": [{"text",
"role": "user"|"model", "tokenCount", "isThought", "finishReason", "createTime",
"branchParent": {"displayName"}, "driveImage"|"driveDocument"|"driveVideo": {"id"}}],
"pendingInputs": [{"text", "role"}]}}``. The file holds no title (the Drive file's name
is the chat's) and no id; newer chunks carry ``createTime``.

Decisions (as ``gemini``'s, the API these chats are made with):
- One record a chunk: speaker ``user`` or ``model`` (role user/assistant), listeners
  the other; the system instruction a first ``system`` record.
- Thought chunks (``isThought``) are private: their text goes to the next answer's
  ``extra.thinking`` (``[thinking] ...`` chunks with ``--include-thinking``); thoughts
  with no answer after them are a model record of their own.
- A Drive attachment is a chunk ``[attachment driveImage <id>]``.
- time = ``createTime`` (the system instruction: the first chunk's); without it the
  epoch sentinel, with one warning a file.
- thread = ``aistudio:<file>``; subject = the file's name, on the first record.
- An unsent draft (``pendingInputs`` with text) is not a message: a warning says so.
- ids: the content hash (the chunks have none), its conversation the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "aistudio"
OTHER = {"user": "model", "model": "user", "system": "model"}
ROLE = {"user": "user", "model": "assistant", "system": "system"}
_DRIVE = ("driveImage", "driveDocument", "driveVideo", "driveAudio")


def sniff(source: Source) -> int:
    """An object with ``chunkedPrompt`` (AI Studio's name) and ``runSettings``."""
    text = json_head_with(source, '"chunkedPrompt"', opens="{")
    return 95 if text and '"runSettings"' in text else (80 if text else 0)


def _system(doc: dict[str, Any]) -> str:
    inst = doc.get("systemInstruction")
    if isinstance(inst, str):
        return inst
    inst = as_dict(inst)
    if as_str(inst.get("text")):
        return as_str(inst.get("text"))
    return "\n".join(as_str(as_dict(p).get("text")) for p in as_list(inst.get("parts"))).strip()


def _said(chunk: dict[str, Any]) -> list[str]:
    said = [as_str(chunk.get("text"))]
    for key in _DRIVE:
        drive = as_dict(chunk.get(key))
        if drive:
            said.append(f"[attachment {key} {as_str(drive.get('id'))}]".replace(" ]", "]"))
    return said


_Turn = tuple[str, list[str], dict[str, Any], str | None, str]


def _turns(doc: dict[str, Any], ctx: ImportContext) -> list[_Turn]:
    """The records to make, in order: (speaker, text, extra, time, locator)."""
    model = as_str(as_dict(doc.get("runSettings")).get("model")) or None
    turns: list[_Turn] = []
    system = _system(doc)
    if system:
        turns.append(("system", [system], {}, None, "system"))
    thoughts: list[str] = []
    for i, raw in enumerate(as_list(as_dict(doc.get("chunkedPrompt")).get("chunks"))):
        chunk = as_dict(raw)
        if not chunk:
            ctx.reject(ctx.loc(f"chunk-{i + 1}"), "not a chunk (an object)", raw)
        elif chunk.get("isThought"):
            thoughts.append(as_str(chunk.get("text")))
        else:
            turns.append((*_turn(chunk, thoughts, model), f"chunk-{i + 1}"))
            thoughts = []
    if thoughts:
        turns.append((*_turn({"role": "model"}, thoughts, model), "thoughts"))
    return turns


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = as_dict(load_json(source))
    stem = strip_compressed(PurePath(source.name).name)
    title = stem[:-5] if stem.endswith(".json") else stem
    thread = f"aistudio:{file_scope(source.name)}"
    turns = _turns(doc, ctx)
    pending = as_list(as_dict(doc.get("chunkedPrompt")).get("pendingInputs"))
    if any(as_str(as_dict(p).get("text")).strip() for p in pending):
        ctx.warn(source.name, "an unsent draft (pendingInputs) is not a message: not imported")
    first = next((t[3] for t in turns if t[3]), None)  # the system instruction's time
    if turns and first is None:
        ctx.warn(source.name, "AI Studio chunks carry no times: messages get the epoch sentinel")
    subject: str | None = title
    for speaker, said, extra, when, at in turns:
        if ctx.options.include_thinking and extra.get("thinking"):
            said = [f"[thinking] {t}" for t in extra["thinking"]] + said
        yield message(said, speaker=speaker, listeners=[OTHER.get(speaker, "model")],
                      timestamp=when or first, source_id=ctx.loc(at), format=NAME,
                      thread=thread, subject=subject, role=ROLE.get(speaker, "user"),
                      extra=extra)  # fmt: skip
        subject = None


def _turn(
    chunk: dict[str, Any], thoughts: list[str], model: str | None
) -> tuple[str, list[str], dict[str, Any], str | None]:
    speaker = as_str(chunk.get("role")) or "user"
    extra: dict[str, Any] = {
        "model": model if speaker == "model" else None,
        "thinking": [t for t in thoughts if t],
        "token_count": chunk.get("tokenCount"),
        "finish_reason": as_str(chunk.get("finishReason")) or None,
        "branch_parent": as_str(as_dict(chunk.get("branchParent")).get("displayName")) or None,
    }
    return speaker, _said(chunk), extra, iso_ts(chunk.get("createTime"))


DESCRIPTION = "Google AI Studio prompts saved to Drive (chunkedPrompt JSON)"
EXAMPLE = (
    '{"runSettings": {"model": "models/gemini-2.5-pro"}, "systemInstruction": {}, '
    '"chunkedPrompt": {"chunks": [{"text": "hi", "role": "user", "tokenCount": 1}, '
    '{"text": "Hello!", "role": "model", "finishReason": "STOP"}]}}'
)
FIELDS = Fields(
    speaker="`role` (`user`, `model`); the system instruction: `system`",
    listeners="the other party",
    time="`createTime` of the chunk; without it the epoch sentinel (one warning a file)",
    zone="UTC (`Z`)",
    thread="`aistudio:<file>`",
    id=CONTENT_HASH,
    scope="the file (the chunks have no ids)",
    subject="the file's name (the chat's title in AI Studio), on the first record",
    extra="`model` (`runSettings.model`), `thinking` (the thought chunks before an answer), "
    "`token_count`, `finish_reason`, `branch_parent`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
