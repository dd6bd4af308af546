"""VS Code's chat sessions as an operation log: ``chatSessions/<sessionId>.jsonl``, read
by ``vscode-chat`` (``convo.importers.apps.vscode_chat``) as the session it rebuilds.

Shape (microsoft/vscode ``src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts``,
``ObjectMutationLog.read``; VS Code keeps a session so since late 2025, the ``.json`` file
before): one JSON entry a line. ``{"kind": 0, "v": <the whole session>}`` (the first
line, again when the log is compacted), ``{"kind": 1, "k": [path], "v": value}`` (set the
value at the path), ``{"kind": 2, "k": [path], "v"?: [items], "i"?: n}`` (cut the array
at the path to ``n`` items when ``i`` is given, then append ``v``), ``{"kind": 3, "k":
[path]}`` (delete). A path is keys and indexes from the session down; an empty one
changes nothing (as VS Code reads it).

Decisions: the entries are applied in order, as VS Code does, and the session they leave
is read. A line that is not JSON, an entry of no known kind, and one whose path leads
nowhere are rejected with their line (the rest still applied).
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.core.io import Source
from convo.core.jsonl import iter_lines
from convo.importers.context import ImportContext

_INITIAL, _SET, _PUSH, _DELETE = 0, 1, 2, 3


def is_log(head: str) -> bool:
    """A head whose first line opens an operation log's initial entry."""
    first = head.lstrip("\ufeff \r\n").split("\n", 1)[0]
    return first.replace(" ", "").startswith('{"kind":0,"v":{') and (
        '"requests"' in first or '"responderUsername"' in first
    )


def replay(source: Source, ctx: ImportContext) -> dict[str, Any]:
    """The session the log's entries leave (``{}`` when it has no initial entry)."""
    state: Any = None
    with source.open() as f:
        for line in iter_lines(f):
            try:
                entry = orjson.loads(line.raw)
                state = _apply(state, entry)
            except (orjson.JSONDecodeError, LookupError, TypeError, ValueError) as e:
                ctx.reject(ctx.loc(line.number), f"not a chat session log entry ({e})", line.raw)
    return state if isinstance(state, dict) else {}


def _apply(state: Any, entry: Any) -> Any:
    kind = entry.get("kind") if isinstance(entry, dict) else None
    if kind == _INITIAL:
        return entry.get("v")
    if state is None or kind not in (_SET, _PUSH, _DELETE):
        raise ValueError("an entry before the initial one" if state is None else f"kind {kind!r}")
    path = entry.get("k")
    if not isinstance(path, list) or not path:
        return state  # the root: VS Code's reader leaves it as it is
    parent = state
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if kind == _PUSH:
        _push(parent, last, entry)
    elif kind == _SET:
        _put(parent, last, entry.get("v"))
    elif isinstance(parent, dict):
        parent.pop(last, None)
    return state


def _push(parent: Any, key: Any, entry: dict[str, Any]) -> None:
    """The array at ``key`` cut to ``i`` items (when given), then ``v`` appended."""
    items = parent[key] if isinstance(parent, dict) and isinstance(parent.get(key), list) else []
    if isinstance(entry.get("i"), int):
        del items[entry["i"] :]
    items.extend(entry.get("v") or [])
    parent[key] = items


def _put(parent: Any, key: Any, value: Any) -> None:
    if isinstance(parent, list) and isinstance(key, int) and key == len(parent):
        parent.append(value)  # JavaScript sets one past the end
    else:
        parent[key] = value
