"""``ConversationMessage.jsonl()`` (the record's line, its lists not copied) against its
plain twin, ``core.jsonl.dumps(msg.serialize())``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.jsonl import dumps
from convo.core.record import ConversationMessage, ConversationMessageMeta

text = st.text(max_size=6)
maybe = st.one_of(st.none(), text)
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=200)
@given(
    chunks=st.lists(text, max_size=3),
    speaker=maybe,
    listeners=st.lists(text, max_size=2),
    tags=st.lists(text, max_size=2),
    fields=st.fixed_dictionaries(
        {},
        optional={
            "timestamp": st.sampled_from(["2024-03-06T10:02:30Z", None]),
            "source_id": maybe,
            "id": maybe,
            "format": maybe,
            "thread": maybe,
            "reply_to": maybe,
            "role": maybe,
            "subject": maybe,
            "extra": st.one_of(st.none(), st.dictionaries(text, json_value, max_size=3)),
        },
    ),
)
def test_jsonl_equals_the_serialized_record(chunks, speaker, listeners, tags, fields):
    msg = ConversationMessage(
        text_chunks=chunks,
        metadata=ConversationMessageMeta(speaker=speaker, recipients=listeners),
        tags=tags,
        **fields,
    )
    before = (list(msg.text_chunks), list(msg.metadata.recipients), list(msg.tags))
    assert msg.jsonl() == dumps(msg.serialize())
    assert (msg.text_chunks, msg.metadata.recipients, msg.tags) == before
    record = msg.serialize()  # still a copy: changing it leaves the message as it was
    record["textChunks"].append("x")
    record["metadata"]["listeners"].append("x")
    record["tags"].append("x")
    assert (msg.text_chunks, msg.metadata.recipients, msg.tags) == before
