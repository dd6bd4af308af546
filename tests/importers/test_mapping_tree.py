"""``convo.importers.apps.mapping_tree`` (ChatGPT's and DeepSeek's conversation trees):
the messages off the branch shown, against a plain twin, on random trees."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.importers.apps.mapping_tree import mapping_branch, other_branches


@st.composite
def trees(draw):
    n = draw(st.integers(1, 12))
    parents = [None] + [draw(st.integers(0, k - 1)) for k in range(1, n)]
    mapping = {}
    for k, parent in enumerate(parents):
        kids = [f"n{j}" for j, p in enumerate(parents) if p == k]
        message = {"id": f"m{k}"} if draw(st.booleans()) or k else None
        mapping[f"n{k}"] = {"id": f"n{k}", "parent": None if parent is None else f"n{parent}",
                            "children": kids, "message": message}  # fmt: skip
    current = draw(st.sampled_from([*mapping, ""]))
    return mapping, current


@settings(max_examples=60, deadline=None)
@given(trees())
def test_the_other_branches_are_every_message_off_the_branch_parents_first(tree):
    """Plain twin: every node holding a message that the branch does not hold (the fast
    path answers a one-branch tree without walking it)."""
    mapping, current = tree
    branch = mapping_branch(mapping, current, lambda node: None)
    on = {id(node) for node in branch}
    plain = {k for k, v in mapping.items() if id(v) not in on and v.get("message")}
    got = other_branches(mapping, branch)
    assert {k for k, _ in got} == plain
    place = {k: i for i, (k, _) in enumerate(got)}
    for k, node in got:  # a parent off the branch comes before its children
        assert place.get(node["parent"], -1) < place[k]
