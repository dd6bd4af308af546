"""``core.lazy.pattern``: a regular expression compiled on first use answers as the
compiled one, for every method and attribute, str and bytes alike."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from convo.core import timestamps
from convo.core.lazy import LazyPattern, pattern

TIMESTAMP_PATTERNS = [v for v in vars(timestamps).values() if isinstance(v, LazyPattern)]
TEXT = st.text(st.sampled_from("0123456789-:TZ+. ()GMTUutc\n\tFrom x"), max_size=30)


@given(TEXT, st.integers(0, len(TIMESTAMP_PATTERNS) - 1))
def test_a_lazy_pattern_is_its_compiled_pattern(text, which):
    lazy = TIMESTAMP_PATTERNS[which]
    eager = re.compile(*lazy._args)
    subject = text.encode() if isinstance(eager.pattern, bytes) else text
    for name in ("match", "fullmatch", "search"):
        got, want = getattr(lazy, name)(subject), getattr(eager, name)(subject)
        assert (got and got.groups(), got and got.span()) == (
            want and want.groups(),
            want and want.span(),
        )
    assert lazy.findall(subject) == eager.findall(subject)
    assert lazy.sub(subject[:0], subject) == eager.sub(subject[:0], subject)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (eager.pattern, eager.flags, eager.groups)


def test_compiled_on_first_use_only():
    lazy = pattern(r"(a)+", re.I)
    assert not hasattr(LazyPattern, "compiled") and lazy._args == (r"(a)+", re.I)
    assert lazy.fullmatch("AaA") is not None and lazy.groups == 1
    assert not hasattr(lazy, "nothing")
