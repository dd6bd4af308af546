"""``Finisher._typed``, the finishing of a ``TYPED`` chat message written out, against
``Finisher.__call__``'s long way (a subclass takes it): the same lines or refusals, the
same numbering and occurrence counters, message after message."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.errors import RecordError
from convo.core.record import TYPED, chat_message
from convo.core.timestamps import EPOCH_STR
from convo.pipeline.ingest import Finisher


class _LongWay(Finisher):
    """A ``Finisher`` that is not exactly one: ``__call__`` takes the long way."""


text = st.text(alphabet="ab é\x00💬", max_size=3)
stamps = st.sampled_from(
    [None, "", EPOCH_STR, "2024-01-02T03:04:05Z", "2024-01-02T03:04:05+02:00",
     "2024-13-01T00:00:00Z", "not a time"]
)  # fmt: skip
one = st.fixed_dictionaries(
    {
        "text": text,
        "role": st.sampled_from(["user", "assistant", "system", "tool"]),
        "listeners": st.lists(text, max_size=1),
        "fmt": st.sampled_from(["openai", "anthropic", "", None]),
        "thread": st.one_of(st.none(), text),
        "source_id": st.one_of(st.none(), text),
        "id": st.one_of(st.none(), text),
        "timestamp": stamps,
        "chunks": st.one_of(st.none(), st.lists(text, max_size=2)),
    }
)


def _finish(finisher: Finisher, m: dict) -> object:
    msg = chat_message(m["text"], m["role"], m["listeners"], m["fmt"], m["thread"], typed=True)
    msg.source_id, msg.id, msg.timestamp = m["source_id"], m["id"], m["timestamp"]
    if m["chunks"] is not None:
        msg.text_chunks = m["chunks"]
    try:
        return finisher(msg).jsonl()
    except RecordError as e:
        return e.what, e.where
    finally:
        assert TYPED.msg is None  # taken either way


@settings(max_examples=200, deadline=None)
@given(msgs=st.lists(one, max_size=8), fmt=st.sampled_from(["openai", "anthropic"]))
def test_typed_finishing_equals_the_long_way(msgs, fmt) -> None:
    fast, slow = Finisher(fmt, "dir/f.json", []), _LongWay(fmt, "dir/f.json", [])
    for m in msgs + msgs:  # repeats: the occurrence counters
        assert _finish(fast, m) == _finish(slow, m)
        assert (fast.count, fast.numbered) == (slow.count, slow.numbered)
    assert fast.ids._seen.recent == slow.ids._seen.recent


def test_tags_take_the_long_way() -> None:
    """With tags a typed message is finished the long way (the tags are any value)."""
    m = {"text": "hi", "role": "user", "listeners": [], "fmt": "openai", "thread": None,
         "source_id": None, "id": None, "timestamp": None, "chunks": None}  # fmt: skip
    line = _finish(Finisher("openai", "f.json", ["x"]), m)
    assert isinstance(line, bytes) and b'"tags":["x"]' in line
