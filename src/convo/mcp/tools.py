"""The tools ``convo mcp`` offers: name, description and JSON Schema of each, declared once.

The descriptions are fixed text written here: no message text ever reaches them (text
from the archive is untrusted and goes back only as data in a tool's result). Every tool
only reads; ``server.py`` marks each one ``readOnlyHint``. ``arguments`` checks a call's
arguments against its schema (the subset of JSON Schema these schemas use), so a bad
argument is one clear line, as a bad option is on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from convo.core.errors import UsageError
from convo.store.api import SEARCH_LIMIT

MAX_RESULTS = 100  # results per call, at most (issue 38: bounded answers)
TEXT_LIMIT = 2000  # characters of a message's text per result; the rest by get_message(offset)

_STRINGS = {"type": "array", "items": {"type": "string"}}
FILTERS: dict[str, dict[str, Any]] = {
    "query": {
        "type": "string",
        "description": "convo's query language, ANDed with the other filters: from:NAME, "
        "to:NAME, tag:TAG, date:A..B (date:2024-03, date:7d..), subject:WORDS, text:WORDS, "
        'thread:ID, id:ID, format:NAME, role:ROLE, source:PART, bare words, "a phrase"; '
        "NOT or a leading -, OR, parentheses. Example: from:alice tag:security -tag:spam",
    },
    "speaker": {**_STRINGS, "description": "Speaker names, any one matches: a name, display "
                "name, address or a run of whole words of it (Alice matches Alice Smith)."},
    "listener": {**_STRINGS, "description": "Listener names, any one matches (same rule)."},
    "tag": {**_STRINGS, "description": "Tags, any one matches (any case)."},
    "since": {"type": "string", "description": "Messages at or after this time: an ISO date "
              "or time, yesterday, or an age such as 7d, 2w, 3h."},
    "until": {"type": "string", "description": "Messages before this time (same forms)."},
    "words": {**_STRINGS, "description": "Words that must occur in the text or subject (any case)."},
    "regex": {**_STRINGS, "description": "Regular expressions the text must match."},
    "thread": {**_STRINGS, "description": "Thread ids (or the id of a thread's first message)."},
}  # fmt: skip


def _limit(default: int) -> dict[str, Any]:
    return {
        "type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": default,
        "description": f"At most this many results (default {default}, at most {MAX_RESULTS}).",
    }  # fmt: skip


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The tool's input schema (JSON Schema, draft 2020-12)."""
        return {
            "type": "object", "properties": self.properties,
            "required": list(self.required), "additionalProperties": False,
        }  # fmt: skip


MESSAGE = (
    "Each message: id, speaker, listeners, time (UTC), tags, thread, reply_to, subject, "
    "format, role, source_id (where it came from: file#place), text (cut at "
    f"{TEXT_LIMIT} characters with truncated true: get_message with offset gives the rest); "
    "listeners and tags at most 50 (listeners_total, tags_total: how many); any other "
    f"value but an id over {TEXT_LIMIT} characters is cut, ending in '…'."
)
TOOLS = (
    Tool("search", "Search the conversation archive by what you are looking for (a "
         "question, words, an error string, a name), best matches first, with a score. "
         "Field terms in the text (from:alice, tag:x, date:2024-03..; OR and parentheses "
         "between them: from:alice OR from:bob) filter, the other "
         "words are ranked (BM25); the other arguments filter before ranking. " + MESSAGE,
         {"text": {"type": "string", "description": "What to look for."},
          "mode": {"type": "string", "enum": ["fts", "semantic", "hybrid"],
                   "description": "fts: ranked words (BM25), always available; semantic: "
                   "by meaning; hybrid: both fused. Omitted: hybrid when the store has "
                   "vectors (convo embed), else fts. The answer's mode says which ran."},
          "fts": {"type": "boolean", "default": False, "description": "text is SQLite "
                  'FTS5 syntax ("a phrase", prefix*, a OR b, NOT, NEAR(a b)), keyword only.'},
          **FILTERS, "limit": _limit(SEARCH_LIMIT)}, ("text",)),
    Tool("query", "List the messages a query selects (no ranking), in store order, or "
         "by time with sort, or the latest N. more is true when more messages match than "
         "were returned. " + MESSAGE,
         {**FILTERS,
          "sort": {"type": "string", "enum": ["store", "time", "-time"], "default": "store",
                   "description": "store: as stored; time: oldest first; -time: newest first."},
          "latest": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                     "description": "Only the N most recent matches."},
          "limit": _limit(20)}),
    Tool("get_message", "One message by its id, with its whole text from offset (long "
         f"texts come in pieces of {TEXT_LIMIT} characters: call again with next_offset).",
         {"id": {"type": "string", "description": "The message id (from search or query)."},
          "offset": {"type": "integer", "minimum": 0, "default": 0,
                     "description": "Where in the text to start, in characters."}}, ("id",)),
    Tool("get_thread", "The messages of a thread in time order. id is a thread id or the "
         "id of any message (then its thread); with window N, only the N messages before "
         "and after that message. " + MESSAGE,
         {"id": {"type": "string", "description": "A thread id or a message id."},
          "window": {"type": "integer", "minimum": 0, "maximum": 50, "description":
                     "Messages before and after the message id (omit for the whole thread)."},
          "start": {"type": "integer", "minimum": 0, "default": 0,
                    "description": "Skip this many messages of the thread (paging)."},
          "limit": _limit(MAX_RESULTS)}, ("id",)),
    Tool("people", "The people in the selected messages: each speaker and listener name "
         "with the messages they sent and received, first and last time, formats, the "
         "person a people file maps them to, and names that look like one person.",
         {**FILTERS, "limit": _limit(50)}),
    Tool("stats", "Counts for the selected messages: messages, words, first and last "
         "time per speaker, tag and format, and a timeline.", dict(FILTERS)),
    Tool("knowledge", "Knowledge in the selected messages (TypeAgent's shape): who talks "
         "to whom, top entities and topics, each speaker's topics.",
         {**FILTERS,
          "top": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": 20,
                  "description": "Rows per list."},
          "metadata_only": {"type": "boolean", "default": False,
                            "description": "Only the speaker/listener knowledge."}}),
)  # fmt: skip
BY_NAME = {t.name: t for t in TOOLS}

_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict}


def arguments(tool: Tool, given: dict[str, Any] | None) -> dict[str, Any]:
    """``given`` checked against the tool's schema, with the defaults filled in."""
    given = dict(given or {})
    for name in tool.required:
        if given.get(name) is None:  # JSON null is no argument
            raise UsageError(f"{tool.name}: missing argument {name!r}")
    out: dict[str, Any] = {}
    for name, value in given.items():
        spec = tool.properties.get(name)
        if spec is None:
            known = ", ".join(tool.properties)
            raise UsageError(f"{tool.name}: unknown argument {name!r}", hint=f"known: {known}")
        if value is not None:
            out[name] = _checked(tool.name, name, spec, value)
    for name, spec in tool.properties.items():
        if name not in out and "default" in spec:
            out[name] = spec["default"]
    return out


def _checked(tool: str, name: str, spec: dict[str, Any], value: Any) -> Any:
    where = f"{tool}: argument {name!r}"
    value = _typed(where, spec["type"], value)
    if "enum" in spec and value not in spec["enum"]:
        raise UsageError(f"{where} must be one of {', '.join(spec['enum'])}")
    low, high = spec.get("minimum"), spec.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"from {low} to {high}"
        raise UsageError(f"{where} must be {bounds}")
    return value


def _typed(where: str, kind: str, value: Any) -> Any:
    """``value`` when it has the JSON type ``kind`` (a lone string as a list of one)."""
    if isinstance(value, str) and kind == "array":
        value = [value]
    if not isinstance(value, _TYPES[kind]) or (kind == "integer" and isinstance(value, bool)):
        raise UsageError(f"{where} must be {'an' if kind[0] in 'aio' else 'a'} {kind}")
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where} must be a list of strings")
    for text in value if isinstance(value, list) else [value]:
        if isinstance(text, str) and not _encodable(text):
            raise UsageError(f"{where} holds a lone surrogate (\\u{_surrogate(text):04x})")
    return value


def _encodable(text: str) -> bool:
    """Whether ``text`` is Unicode that UTF-8 can hold: JSON's ``\\ud800`` escapes can
    make a lone surrogate, which SQLite and every output refuse."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(text: str) -> int:
    return next(ord(c) for c in text if 0xD800 <= ord(c) <= 0xDFFF)
