"""Gemini CLI's shared chats (``gemini-cli-md``): what ``/chat share file.md`` writes.

Shape (google-gemini/gemini-cli ``packages/cli/src/ui/commands/chatCommand.ts``, later
``ui/utils/historyExportUtils.ts``: ``serializeHistoryToMarkdown``): each ``Content`` of
the chat's history as ``## USER 🧑‍💻`` or ``## MODEL ✨`` (``role.toUpperCase()`` and
an icon), a blank line and its parts joined with nothing between them: a text as it is,
a function call as ``**Tool Command**:`` and its JSON (``{"id"?, "name", "args"}``) in a
``json`` fence, a function response as ``**Tool Response**:`` and its JSON (``{"id"?,
"name", "response": {"output"}}``); the messages apart by ``---`` lines (some copies
without them). The history opens with the CLI's context (``This is the Gemini CLI. We
are setting up the context for our chat.``) and its answer.

Decisions: one record a message: ``USER`` is the ``user``'s, ``MODEL`` the ``gemini``'s
(as ``gemini-cli`` names it); a user message of tool responses only is the ``tool``'s
(``extra.original_role`` ``user``). A function call is ``[tool_use NAME] {args}``, a
response ``[tool_result NAME] output`` (its ``output``, else the response's JSON); a
fence that is no JSON stays text. A heading inside a fenced block is text. The file has
no times: the epoch sentinel, with one warning. thread ``gemini-cli-md:<file>``; ids
content hashes; empty messages counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.agents.blocks import dumps, inner_json
from convo.importers.agents.md_turns import fenced_turns
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_str
from convo.importers.registry import Format

NAME = "gemini-cli-md"
_TURN = re.compile(r"## (?P<who>USER|MODEL) ?(?:\U0001f9d1\u200d?\U0001f4bb|\u2728)\s*")
_TOOL = re.compile(
    r"\*\*Tool (?P<kind>Command|Response)\*\*:\n```json\n(?P<json>.*?)\n```(?=\n|$)", re.S
)
SPEAKERS = {"USER": "user", "MODEL": "gemini"}


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff\r\n ")
    first = text.split("\n", 1)[0]
    return 95 if _TURN.fullmatch(first) else 0


def _parts(text: str) -> tuple[list[str], int]:
    """A message's chunks (text, calls, responses in order) and how many were responses."""
    chunks: list[str] = []
    answers = pos = 0
    for found in _TOOL.finditer(text):
        if text[pos : found.start()].strip():
            chunks.append(text[pos : found.start()].strip("\n"))
        chunks.append(_tool(found["kind"], found["json"], found[0]))
        answers += found["kind"] == "Response"
        pos = found.end()
    if text[pos:].strip():
        chunks.append(text[pos:].strip("\n"))
    return chunks, answers


def _tool(kind: str, raw: str, whole: str) -> str:
    try:
        value: Any = inner_json(raw)
    except ValueError:
        return whole  # not the JSON the CLI writes: the text as it is
    call = as_dict(value)
    name = as_str(call.get("name")) or "?"
    if kind == "Command":
        return f"[tool_use {name}] {dumps(call.get('args', {}))}"
    response = call.get("response")
    output = as_dict(response).get("output", as_dict(response).get("error", response))
    flag = " error" if "error" in as_dict(response) else ""
    said = output if isinstance(output, str) else dumps(output)
    return f"[tool_result {name}{flag}] {said}"


class _File:
    def __init__(self, source: Source, ctx: ImportContext):
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.who = self.where = ""
        self.lines: list[str] = []
        self.empty = self.records = 0

    def close(self) -> Iterator[ConversationMessage]:
        if not self.who:
            return
        while self.lines and self.lines[-1].strip() in ("", "---"):
            self.lines.pop()
        chunks, answers = _parts("\n".join(self.lines).strip("\n"))
        who, self.who, self.lines = self.who, "", []
        if not chunks:
            self.empty += 1
            return
        speaker = SPEAKERS[who]
        role = "user" if who == "USER" else "assistant"
        if role == "user" and answers == len(chunks):
            speaker = role = "tool"
        self.records += 1
        yield message(
            chunks,
            speaker=speaker,
            listeners=["gemini"] if speaker != "gemini" else ["user"],
            source_id=self.where,
            format=NAME,
            thread=self.thread,
            role=role,
            extra={"original_role": "user" if role == "tool" else None},
        )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source, ctx)
    yield from fenced_turns(
        source, ctx, f, _TURN, "text before the first ## USER / ## MODEL message"
    )
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty message')}")
    if f.records:
        ctx.warn(source.name, "a shared chat carries no times: messages get the epoch sentinel")


DESCRIPTION = "Gemini CLI's shared chats (/chat share file.md: ## USER and ## MODEL headings)"
EXAMPLE = "## USER 🧑\u200d💻\n\nwhy does boil() never return?\n\n---\n\n## MODEL ✨\n\nThe loop never heats."
FIELDS = Fields(
    speaker="`user` (`## USER`), `gemini` (`## MODEL`); a message of tool responses: `tool`",
    listeners="user ↔ gemini; a tool's response → gemini",
    time="none (the file has no times): the epoch sentinel, with one warning",
    zone="none",
    thread="`gemini-cli-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    extra="`original_role` (`user` for a message of tool responses)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.md",), sniff, read, EXAMPLE, fields=FIELDS),)
