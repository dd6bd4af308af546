"""``Thread.turn(role)``, the listeners of a message its role speaks in one call, against
its plain twin: ``listeners(role, role)`` then ``heard(role, role)``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.importers.agents.frameworks import Thread

_roles = st.sampled_from(["user", "assistant", "tool", "system", "developer", "Alice", ""])
_names = st.one_of(st.none(), _roles)


@settings(max_examples=200, deadline=None)
@given(
    primed=st.fixed_dictionaries({"user": _names, "assistant": _names}),
    roles=st.lists(_roles, max_size=12),
)
def test_turn_equals_listeners_then_heard(primed, roles):
    fast, plain = Thread(), Thread()
    fast.last.update(primed)
    plain.last.update(primed)
    for role in roles:
        expected = plain.listeners(role, role)
        plain.heard(role, role)
        assert fast.turn(role) == expected
        assert fast.last == plain.last
