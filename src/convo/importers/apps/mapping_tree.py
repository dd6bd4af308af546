"""A conversation kept as a tree of nodes by id (``mapping``: ``{id: {id, parent,
children, message}}``), as ChatGPT and DeepSeek export theirs: every edit of a prompt and
every regenerated answer is a branch; the app shows one.

``mapping_branch`` gives the nodes of the branch shown: from the root to the current
node when the export names it (ChatGPT's ``current_node``), else down the last child
(the latest edit or regeneration) from the root; a mapping whose nodes name no parent
or child the mapping holds (rewritten by other tools) is read whole, in time order.
``other_branches`` gives the nodes holding a message that the branch shown leaves out
(earlier edits of a prompt, regenerated answers): the readers keep them too, tagged
``off-branch`` (``apps.common.OFF_BRANCH``), each replying to its nearest kept ancestor
(``nearest``), so a query with ``-tag:off-branch`` gives the conversation as the app shows
it and nothing the user wrote is dropped (the rule claude-ai's reader keeps as well).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str

MAX_DEPTH = 100_000


def mapping_branch(
    mapping: dict[str, Any], current: str, time_of: Callable[[dict[str, Any]], float | None]
) -> list[dict[str, Any]]:
    """Nodes from the root to the current node (or to the last leaf); all of them in
    ``time_of`` order when the mapping has no links."""
    if not _linked(mapping):
        return _by_time(mapping, time_of)
    if current in mapping:
        return _walk(mapping, current, lambda node: as_str(node.get("parent")) or None)[::-1]
    roots = [k for k, v in mapping.items() if as_str(as_dict(v).get("parent")) not in mapping]
    return _walk(mapping, roots[0] if roots else None, lambda node: _last_child(node, mapping))


def with_message(nodes: Iterable[Any]) -> int:
    """How many of ``nodes`` hold a message."""
    return sum(1 for node in nodes if isinstance(as_dict(node).get("message"), dict))


def other_branches(
    mapping: dict[str, Any], branch: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    """``(key, node)`` of each node holding a message that ``branch`` leaves out, parents
    before children: depth first from the roots, children in their listed order, then any
    node no root reaches (a cycle) in the mapping's order."""
    if len(branch) >= len(mapping):  # the common case, one branch: no walk (7% of a read)
        return []
    on = {id(node) for node in branch}
    return [
        (key, node)
        for key in _depth_first(mapping)
        if id(node := as_dict(mapping[key])) not in on and isinstance(node.get("message"), dict)
    ]


def _depth_first(mapping: dict[str, Any]) -> list[str]:
    """The mapping's keys depth first from its roots, children in their listed order,
    then those no root reaches (a cycle) in the mapping's order."""
    seen: set[str] = set()
    order: list[str] = []
    roots = [k for k, v in mapping.items() if as_str(as_dict(v).get("parent")) not in mapping]
    for start in [*roots, *mapping]:
        stack = [start]
        while stack:
            key = stack.pop()
            if key in seen or key not in mapping:
                continue
            seen.add(key)
            order.append(key)
            kids = [as_str(k) for k in as_list(as_dict(mapping[key]).get("children"))]
            stack.extend(reversed([k for k in kids if k in mapping and k not in seen]))
    return order


class BranchWalk:
    """The nodes of a mapping holding a message, with whether each is off the branch
    shown: the branch first, then the other branches' (``other_branches``); and whom a
    kept message replies to: on the branch, the previous one kept; off it, its nearest
    kept ancestor (``nearest``). The reader says what it keeps (``keep``)."""

    def __init__(self, mapping: dict[str, Any], branch: list[dict[str, Any]]):
        self.mapping = mapping
        others = other_branches(mapping, branch)
        self._walk = [(node, False) for node in branch] + [(node, True) for _, node in others]
        # node key -> its record's id, kept only when other branches need their parents'
        self._keys = {id(node): key for key, node in mapping.items()} if others else None
        self._kept: dict[str, str] = {}
        self._previous: str | None = None

    def __iter__(self) -> Iterator[tuple[dict[str, Any], dict[str, Any], bool]]:
        """(node, its message, off the branch shown)."""
        for node, off in self._walk:
            msg = node.get("message")
            if isinstance(msg, dict):
                yield node, msg, off

    def reply_to(self, node: dict[str, Any], off: bool) -> str | None:
        if not off or self._keys is None:
            return self._previous
        return nearest(self.mapping, self._keys.get(id(node), ""), self._kept)

    def keep(self, node: dict[str, Any], off: bool, rec_id: str | None) -> None:
        if rec_id is not None and self._keys is not None:
            self._kept[self._keys.get(id(node), "")] = rec_id
        if not off:
            self._previous = rec_id


def nearest(mapping: dict[str, Any], key: str, kept: dict[str, str]) -> str | None:
    """The id ``kept`` gives the nearest ancestor of node ``key`` it holds, else None."""
    seen: set[str] = set()
    parent = as_str(as_dict(mapping.get(key)).get("parent"))
    while parent in mapping and parent not in seen:
        if parent in kept:
            return kept[parent]
        seen.add(parent)
        parent = as_str(as_dict(mapping[parent]).get("parent"))
    return None


def _linked(mapping: dict[str, Any]) -> bool:
    """Whether any node names a parent or a child that the mapping holds."""
    for node in map(as_dict, mapping.values()):
        if as_str(node.get("parent")) in mapping:
            return True
        if any(as_str(k) in mapping for k in as_list(node.get("children"))):
            return True
    return len(mapping) < 2


def _by_time(
    mapping: dict[str, Any], time_of: Callable[[dict[str, Any]], float | None]
) -> list[dict[str, Any]]:
    """Every node, by ``time_of`` (stable; an untimed node sorts with the node before it)."""
    keyed = []
    last = float("-inf")
    for i, node in enumerate(map(as_dict, mapping.values())):
        t = time_of(node)
        if t is not None:
            last = t
        keyed.append((last, i, node))
    keyed.sort(key=lambda x: (x[0], x[1]))
    return [node for _, _, node in keyed]


def _walk(
    mapping: dict[str, Any], start: str | None, step: Callable[[dict[str, Any]], str | None]
) -> list[dict[str, Any]]:
    """The nodes met from ``start`` following ``step``; stops at a cycle or MAX_DEPTH."""
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = start
    while node_id and node_id in mapping and node_id not in seen and len(seen) < MAX_DEPTH:
        seen.add(node_id)
        node = as_dict(mapping[node_id])
        path.append(node)
        node_id = step(node)
    return path


def _last_child(node: dict[str, Any], mapping: dict[str, Any]) -> str | None:
    """The latest edit under ``node``: its last child that the mapping holds."""
    kids = [as_str(k) for k in as_list(node.get("children")) if as_str(k) in mapping]
    return kids[-1] if kids else None
