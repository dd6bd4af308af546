"""OpenHands event streams (``openhands``): a saved trajectory, or the file store's events.
V1's events (the agent SDK's, a ``kind`` a class) are read by ``openhands_v1``.

Shape (All-Hands-AI/OpenHands ``openhands/events/serialization/event.py``
``event_to_dict`` / ``event_to_trajectory``; the types in ``openhands/core/schema/
action.py`` and ``observation.py``; where they are written: ``openhands/storage/
locations.py``, ``openhands/events/event_store.py``, ``openhands/core/main.py``):

- an event is ``{"id", "timestamp" (naive local ISO: ``datetime.now().isoformat()``),
  "source": user | agent | environment, "message", "cause", "tool_call_metadata":
  {"function_name", "tool_call_id", "model_response", ...}, "llm_metrics"}`` with either
  ``"action": TYPE, "args": {...}, "timeout"`` or ``"observation": TYPE, "content",
  "extras": {...}, "success"``. Actions: ``message`` (``content``, ``image_urls``,
  before November 2024 ``images_urls``, since June 2025 ``file_urls``), ``system`` (the
  system prompt: ``content``, ``tools``, ``openhands_version``, ``agent_class``),
  ``run``, ``run_ipython``, ``read``, ``write``, ``edit``, ``browse``,
  ``browse_interactive``, ``call_tool_mcp``, ``think``, ``finish`` (``final_thought``),
  ``recall``, ``change_agent_state``, ``condensation`` and more, most with a
  ``thought``; observations: ``run`` (``extras.metadata.exit_code``, older
  ``extras.exit_code``), ``read``, ``edit`` (``extras.diff``), ``error``,
  ``agent_state_changed`` (``extras.agent_state``), ``recall``, ``browse``
  (``extras.screenshot``, base64, unless the trajectory dropped it), ...
- ``--save-trajectory-path`` (and the app's "download trajectory",
  ``trajectory-<conversation>.json``) writes a JSON array of events; the server's
  ``/trajectory`` route answers ``{"trajectory": [...]}``; the file store keeps one
  event a file, ``sessions/<conversation>/events/<id>.json`` (with a user,
  ``users/<user>/conversations/<conversation>/events/``), and pages of them in
  ``event_cache/<start>-<end>.json`` (arrays).

Decisions:
- One record an event, so nothing is passed over: a ``message`` is the person's (source
  ``user``) or the assistant's (``agent``) text, its images and files named; the system
  prompt is ``system``'s (tagged ``system``; the tools' names in ``extra.tools``); any
  other action is the assistant's ``thought`` then ``[tool_use TYPE] {args}`` (whole);
  an observation is the ``tool``'s ``[tool_result TYPE] content``, TYPE the action's it
  answers (its ``cause``), else its own (``error`` after the name for an ``error``
  observation, ``success: false`` or a non-zero exit code), an ``agent_state_changed``
  ``openhands``'s ``[agent_state_changed STATE]`` (role ``system``, no listener, tagged
  ``system``); a screenshot is named, not kept.
- listeners the other party (the tool's output → the assistant).
- time = ``timestamp``, naive, in ``--tz`` (else UTC).
- thread = ``openhands:<conversation>``: the folder above ``events/`` or
  ``event_cache/``, else the file's name without ``trajectory-`` and ``.json``.
- An ``event_cache/`` page is a copy of ``events/``: an event whose own file is in the
  ``events/`` folder beside it is read from there, not twice (one warning).
- id = ``openhands:<conversation>:<event id>`` (an event id is unique in its
  conversation; an event file and its cache page give the same record, the same id);
  one repeated on another message (the pipeline's rule, docs/ids.md), or none: the
  content hash.
- ``extra``: ``event_id``, ``cause``, ``action`` or ``observation``, ``source``, the
  tool call's ``function_name`` and ``tool_call_id``, an observation's ``extras`` (the
  screenshot and the browser's page objects left out), ``llm_metrics``' cost and tokens.
- An element that is not an event (``action`` or ``observation``) is rejected with its
  place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

from convo.core.io import Source, load_json
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import (
    CallNames,
    block_chunk,
    dumps,
    normalise_block,
    whole_chunk,
)
from convo.importers.agents.openhands_v1 import is_v1_event, v1_parts
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "openhands"
SOURCES = ("user", "agent", "environment")
OTHER = {
    "user": ["assistant"],
    "assistant": ["user"],
    "tool": ["assistant"],
    "system": ["assistant"],
    "openhands": [],  # its own notices (the agent's state)
}
# an event's own keys, in event_to_dict's order: id, timestamp, source, message, ...
_EVENT = re.compile(
    r'\{\s*"id"\s*:\s*-?\d+\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"source"\s*:\s*'
    r'"(?:user|agent|environment)"'
)
_KIND = re.compile(r'"(?:action|observation)"\s*:\s*"[a-z_]+"')
# a V1 event (openhands_v1): its kind and its source, in either order
_V1 = re.compile(
    r'"kind"\s*:\s*"[A-Z]\w*(?:Event|Observation)".{0,4000}?"source"\s*:\s*"(?:user|agent|environment)"'
    r'|"source"\s*:\s*"(?:user|agent|environment)".{0,4000}?"kind"\s*:\s*"[A-Z]\w*(?:Event|Observation)"',
    re.S,
)
_WRAPPED = re.compile(r'\A\{\s*"trajectory"\s*:\s*\[')
# the browser's objects and the screenshot (event_to_trajectory drops them too)
DROPPED = frozenset({
    "dom_object", "axtree_object", "active_page_index", "last_browser_action",
    "last_browser_action_error", "focused_element_bid", "extra_element_properties",
    "screenshot", "set_of_marks",
})  # fmt: skip


def is_event(value: Any) -> bool:
    return is_v1_event(value) or (
        isinstance(value, dict)
        and (isinstance(value.get("action"), str) or isinstance(value.get("observation"), str))
    )


def _is_base_state(source: Source, text: str) -> bool:
    """V1's ``base_state.json`` beside ``events/`` (the conversation's agent settings)."""
    return (
        source.match_name == "base_state.json"
        and bool(re.match(r'\A\{\s*"', text))
        and ('"agent"' in text)
    )


def sniff(source: Source) -> int:
    text = json_head(source)
    if _is_base_state(source, text):
        return 90
    if text.startswith(("{", "[")) and _V1.search(text[:4096]):
        return 90
    if not text.startswith(("{", "[")) or not _EVENT.search(text[:4096]):
        return 0
    if not _KIND.search(text):
        return 0
    if text.startswith("[") or _WRAPPED.match(text):
        return 92
    return 90 if re.match(r"\A\{\s*\"id\"", text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    stream = _Stream(source, ctx)
    text = json_head(source)
    if _is_base_state(source, text):  # recognised, so a conversation folder reads cleanly
        ctx.warn(source.name, "OpenHands base_state.json: the agent's settings, no message")
        return
    if text.startswith("{") and not _WRAPPED.match(text):
        value = load_json(source)  # one event a file: events/<id>.json
        if is_event(value):
            yield from _some(stream.record(value, source.name))
        else:
            ctx.reject(source.name, "not an OpenHands event (action or observation)", value)
        stream.finish()
        return
    doc = StreamedDoc(source, ("trajectory",) if _WRAPPED.match(text) else ())
    doc.expect("expected an OpenHands trajectory (a JSON array of events)")
    events = _events_beside(source)
    for item, line in doc.items():
        where = ctx.loc(line)
        if not is_event(item):
            ctx.reject(where, "not an OpenHands event (action or observation)", item)
            continue
        if events is not None and _in(events, item.get("id")):
            stream.elsewhere += 1
            continue
        yield from _some(stream.record(item, where))
    stream.finish()


def _events_beside(source: Source) -> Path | None:
    """The ``events/`` folder beside an ``event_cache/`` page, when there is one."""
    if source.path is None or source.path.parent.name != "event_cache":
        return None
    folder = source.path.parent.parent / "events"
    return folder if folder.is_dir() else None


def _in(folder: Path, number: Any) -> bool:
    """Whether the event ``number`` has its own file in ``folder`` (read from there)."""
    if not isinstance(number, int) or isinstance(number, bool):
        return False
    return (folder / f"{number}.json").is_file()


def conversation(source: Source) -> str:
    """The conversation a file belongs to: the folder above ``events/`` or
    ``event_cache/``, else the file's name (``trajectory-<id>.json``, ``<sid>.json``;
    a name such as ``output.json`` with its folder: ``build.file_scope``)."""
    path = PurePath(source.path) if source.path is not None else PurePath(source.name)
    if path.parent.name in ("events", "event_cache") and path.parent.parent.name:
        return path.parent.parent.name
    name = file_scope(source.name)  # a name apps give every file keeps its folder
    stem = name.removesuffix(".json")
    return stem.removeprefix("trajectory-") or stem


class _Stream:
    """One file's events: its conversation, ids, the actions' types by event id."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.source = source
        if source.is_stdin:
            self.scope = None
            self.thread = ctx.thread_of(source.name)
        else:
            self.scope = conversation(source)
            self.thread = f"{NAME}:{self.scope}"
        self.kinds = CallNames()  # an action's type by its event id (what an observation answers)
        self.elsewhere = 0  # a cache page's events that have their own file beside
        self.skipped: dict[str, int] = {}  # V1 events of no message, by kind

    def record(self, event: dict[str, Any], where: str) -> ConversationMessage | None:
        origin = as_str(event.get("source"))
        if is_v1_event(event):
            parts = v1_parts(event, self.ctx.options.include_thinking)
            if parts is None:
                self.skipped[event["kind"]] = self.skipped.get(event["kind"], 0) + 1
                return None
            speaker, chunks, tags, extra = parts
        elif "action" in event and isinstance(event.get("action"), str):
            speaker, chunks, tags, extra = _action(event, origin)
            self.kinds.add(str(event.get("id")), event["action"])
        else:
            speaker, chunks, tags, extra = _observation(
                event, self.kinds.get(str(event.get("cause")))
            )
        number = event.get("id")
        own = (
            f"{NAME}:{self.scope}:{number}"
            if self.scope and isinstance(number, int) and not isinstance(number, bool)
            else f"{NAME}:{number}"  # a V1 event's UUID
            if isinstance(number, str) and len(number) >= 16
            else None
        )
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=OTHER[speaker],
            timestamp=self._time(event.get("timestamp")),
            id=own,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role="system" if speaker == "openhands" else speaker,
            tags=tags,
            extra={**_common(event, origin), **extra},
        )

    def _time(self, value: Any) -> str | None:
        try:
            return parse_any(value if isinstance(value, str) else None, self.ctx.options.tz)
        except ValueError:
            return None

    def finish(self) -> None:
        if self.skipped:
            counts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.skipped.items()))
            self.ctx.warn(self.source.name, f"skipped events that hold no message: {counts}")
        if self.elsewhere:
            n = self.elsewhere
            self.ctx.warn(self.source.name, f"{counted(n, 'event')} of this cache page "
                          f"{plural(n, 'has its', 'have their')} own file in events/ beside it: "
                          "read from there")  # fmt: skip


Parts = tuple[str, list[str], list[str], dict[str, Any]]


def _action(event: dict[str, Any], origin: str) -> Parts:
    kind = event["action"]
    args = as_dict(event.get("args"))
    speaker = "user" if origin == "user" else "assistant"
    if kind == "message":
        return speaker, _said(event, args), [], {}
    if kind == "system":
        return "system", [as_str(args.get("content"))], ["system"], _system(args)
    thought = as_str(args.get("thought"))
    if kind == "finish":
        said = as_str(args.get("final_thought")) or as_str(event.get("message"))
        rest = {k: v for k, v in args.items() if k not in ("thought", "final_thought")}
        chunks = [c for c in (thought, said) if c]
        return speaker, [*chunks, f"[finish] {dumps(rest)}" if rest else "[finish]"], [], {}
    rest = {k: v for k, v in args.items() if k != "thought"}
    call = whole_chunk({"type": "tool_use", "name": kind, "input": rest})
    return speaker, [thought, call] if thought else [call], [], {}


def _said(event: dict[str, Any], args: dict[str, Any]) -> list[str]:
    """A message's text, then its images and files named."""
    chunks = [as_str(args.get("content")) or as_str(event.get("message"))]
    images = args.get("image_urls", args.get("images_urls"))
    chunks += [_image(url) for url in as_list(images)]
    return chunks + [f"[file] {as_str(url)}" for url in as_list(args.get("file_urls"))]


def _system(args: dict[str, Any]) -> dict[str, Any]:
    """The system prompt's extra: its tools' names (not their schemas), version, agent."""
    tools = [
        as_str(as_dict(as_dict(t).get("function")).get("name")) for t in as_list(args.get("tools"))
    ]
    return {
        "tools": [t for t in tools if t] or None,
        "openhands_version": args.get("openhands_version"),
        "agent_class": args.get("agent_class"),
    }


def _observation(event: dict[str, Any], called: str | None) -> Parts:
    """An observation: ``called`` is the type of the action it answers (its ``cause``)."""
    kind = as_str(event.get("observation"))
    extras = as_dict(event.get("extras"))
    kept = {k: v for k, v in extras.items() if k not in DROPPED}
    if kind == "agent_state_changed":
        state = as_str(extras.get("agent_state")) or "?"
        said = as_str(event.get("content"))
        chunk = f"[agent_state_changed {state}] {said}".rstrip()
        return "openhands", [chunk], ["system"], {"extras": kept or None}
    code = as_dict(extras.get("metadata")).get("exit_code", extras.get("exit_code"))
    failed = (
        kind == "error"
        or event.get("success") is False
        or (isinstance(code, int) and code not in (0, -1))
    )
    chunks = [whole_chunk({"type": "tool_result", "name": called or kind or "?",
                           "content": as_str(event.get("content")), "is_error": failed})]  # fmt: skip
    if extras.get("screenshot"):
        chunks.append(_image(extras["screenshot"]))
    return "tool", chunks, ["error"] if failed else [], {"extras": kept or None}


def _image(url: Any) -> str:
    text = as_str(url)
    if text and not text.startswith("data:") and not text.startswith(("http", "/", "file:")):
        text = "data:image/png;base64," + text  # a bare base64 screenshot
    return block_chunk(normalise_block({"type": "image_url", "image_url": {"url": text}}))


def _some(msg: ConversationMessage | None) -> Iterator[ConversationMessage]:
    if msg is not None:
        yield msg


def _common(event: dict[str, Any], origin: str) -> dict[str, Any]:
    call = as_dict(event.get("tool_call_metadata"))
    metrics = as_dict(event.get("llm_metrics"))
    usage = as_dict(metrics.get("accumulated_token_usage"))
    return {
        "event_id": event.get("id"),
        "cause": event.get("cause"),
        "action": event.get("action") if isinstance(event.get("action"), str) else None,
        "observation": event.get("observation")
        if "action" not in event and isinstance(event.get("observation"), str)
        else None,
        "source": origin or None,
        "function_name": call.get("function_name"),
        "tool_call_id": call.get("tool_call_id"),
        "cost": metrics.get("accumulated_cost"),
        "tokens": {k: usage[k] for k in ("prompt_tokens", "completion_tokens") if k in usage}
        or None,
    }


DESCRIPTION = (
    "OpenHands trajectories and event files (sessions/<id>/events/*.json; V1's "
    "conversations/<id>/events/event-*.json)"
)
EXAMPLE = (
    '[{"id": 0, "timestamp": "2025-03-01T10:15:00.123456", "source": "user", '
    '"message": "Fix the tests", "action": "message", "args": {"content": "Fix the tests", '
    '"image_urls": null, "wait_for_response": false}}]'
)
FIELDS = Fields(
    speaker="`user` (a message the person sent), `assistant` (the agent's messages and "
    "actions), `tool` (observations), `system` (the system prompt), `openhands` (the agent's "
    "state changes, role `system`)",
    listeners="the other party; an observation → the assistant; `openhands`'s notices: none",
    time="`timestamp`",
    zone="naive local times: `--tz`, else UTC",
    thread="`openhands:<conversation>` (the folder above `events/`, else the file's name)",
    id="`openhands:<conversation>:<event id>`; without an event id, " + CONTENT_HASH,
    scope="the conversation",
    tags="`system` (the system prompt, agent state changes), `error` (failed observations)",
    extra="`event_id`, `cause`, `action`/`observation`, `source`, `function_name`, "
    "`tool_call_id`, `extras` (an observation's), `cost`, `tokens`, `tools`, "
    "`openhands_version`, `agent_class`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "base_state.json"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
