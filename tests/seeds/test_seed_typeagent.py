"""Conformance with TypeAgent's universal message documentation (``ConversationMessage``).

Each test names the passage it checks; the page's own examples run against
``convo.core.record`` (the real package is checked in tests/compat/test_typeagent.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from convo.core.record import (
    UNIX_EPOCH,
    ConversationMessage,
    ConversationMessageMeta,
    TranscriptMessage,
    TranscriptMessageMeta,
    format_timestamp_utc,
)


def test_example_usage():
    """ConversationMessage, Example Usage: a simple message and a multi-chunk message."""
    msg = ConversationMessage(
        text_chunks=["Let's schedule a meeting for next Tuesday."],
        metadata=ConversationMessageMeta(speaker="Alice", recipients=["Bob", "Charlie"]),
        tags=["scheduling", "meeting"],
        timestamp="2024-03-06T14:30:00Z",
    )
    assert msg.text_chunks == ["Let's schedule a meeting for next Tuesday."]
    assert msg.tags == ["scheduling", "meeting"] and msg.timestamp == "2024-03-06T14:30:00Z"
    multi_chunk = ConversationMessage(
        text_chunks=[
            "First, we need to review the requirements.",
            "Then, we can start implementation.",
            "Finally, we'll write tests.",
        ],
        metadata=ConversationMessageMeta(speaker="Alice"),
    )
    assert len(multi_chunk.text_chunks) == 3 and multi_chunk.tags == []
    assert multi_chunk.timestamp is None


def test_fields_defaults():
    """Fields: tags default [], timestamp default None; ConversationMessageMeta speaker
    default None, recipients default []."""
    meta = ConversationMessageMeta()
    assert meta.speaker is None and meta.recipients == []
    msg = ConversationMessage(text_chunks=["x"], metadata=meta)
    assert msg.tags == [] and msg.timestamp is None


def test_epoch_sentinel():
    """timestamp, Special case: without a timestamp the Unix epoch "1970-01-01T00:00:00Z"
    is used as a sentinel value."""
    msg = ConversationMessage(text_chunks=["x"], metadata=ConversationMessageMeta())
    assert msg.serialize()["timestamp"] == "1970-01-01T00:00:00Z"
    assert format_timestamp_utc(UNIX_EPOCH) == "1970-01-01T00:00:00Z"


def test_recipients_are_listeners_in_serialization():
    """recipients: Also called "listeners" in serialization; serialize/deserialize."""
    msg = ConversationMessage(
        text_chunks=["hi"], metadata=ConversationMessageMeta(speaker="a", recipients=["b"])
    )
    data = msg.serialize()
    assert data["metadata"] == {"speaker": "a", "listeners": ["b"]}
    back = ConversationMessage.deserialize(data)
    assert back.metadata.recipients == ["b"] and back.text_chunks == ["hi"]


def test_source_and_dest():
    """Properties: source is an alias for speaker; dest is recipients if non-empty, else
    None."""
    meta = ConversationMessageMeta(speaker="Alice", recipients=["Bob"])
    assert meta.source == "Alice" and meta.dest == ["Bob"]
    assert ConversationMessageMeta(speaker="Alice").dest is None


def test_get_knowledge():
    """get_knowledge, Example Output: Person entities for the speaker and recipients;
    actions say from the speaker to each recipient; the message delegates to metadata."""
    meta = ConversationMessageMeta(speaker="Alice", recipients=["Bob", "Charlie"])
    knowledge = meta.get_knowledge()
    assert [(e.name, e.type) for e in knowledge.entities] == [
        ("Alice", ["person"]), ("Bob", ["person"]), ("Charlie", ["person"])
    ]  # fmt: skip
    assert [(a.verbs, a.subject_entity_name, a.object_entity_name) for a in knowledge.actions] == [
        (["say"], "Alice", "Bob"), (["say"], "Alice", "Charlie")
    ]  # fmt: skip
    msg = ConversationMessage(text_chunks=["x"], metadata=meta)
    assert msg.get_knowledge() == knowledge


def test_metadata_examples():
    """ConversationMessageMeta, Example Usage: email, transcript and chat styles."""
    email_meta = ConversationMessageMeta(
        speaker="alice@example.com", recipients=["bob@example.com", "carol@example.com"]
    )
    transcript_meta = ConversationMessageMeta(speaker="Alice Smith")
    chat_meta = ConversationMessageMeta(speaker="alice_dev", recipients=["@bob", "@charlie"])
    assert email_meta.dest == ["bob@example.com", "carol@example.com"]
    assert transcript_meta.recipients == []
    assert chat_meta.source == "alice_dev"


def test_add_timestamp():
    """add_timestamp(timestamp): Set or update the message timestamp."""
    msg = ConversationMessage(text_chunks=["x"], metadata=ConversationMessageMeta())
    msg.add_timestamp("2024-03-06T09:00:00Z")
    assert msg.timestamp == "2024-03-06T09:00:00Z"


def test_transcript_aliases():
    """TranscriptMessage = ConversationMessage; TranscriptMessageMeta =
    ConversationMessageMeta; Example: a transcript message."""
    assert TranscriptMessage is ConversationMessage
    assert TranscriptMessageMeta is ConversationMessageMeta
    msg = TranscriptMessage(
        text_chunks=["Welcome to today's presentation."],
        metadata=TranscriptMessageMeta(speaker="Alice"),
        timestamp="2024-03-06T09:00:00Z",
    )
    assert msg.speaker == "Alice"


def test_format_timestamp_utc():
    """format_timestamp_utc: UTC as is, other zones converted, naive raises ValueError."""
    dt = datetime(2024, 3, 6, 14, 30, 0, tzinfo=UTC)
    assert format_timestamp_utc(dt) == "2024-03-06T14:30:00Z"
    est = timezone(timedelta(hours=-5))
    assert format_timestamp_utc(datetime(2024, 3, 6, 9, 30, 0, tzinfo=est)) == (
        "2024-03-06T14:30:00Z"
    )
    with pytest.raises(ValueError):
        format_timestamp_utc(datetime(2024, 3, 6, 14, 30, 0))


def test_complete_example_messages():
    """Complete Example: the two messages built with format_timestamp_utc."""
    messages = [
        ConversationMessage(
            text_chunks=["We need to refactor the authentication module."],
            metadata=ConversationMessageMeta(speaker="Alice", recipients=["Bob", "Charlie"]),
            tags=["refactoring", "security"],
            timestamp=format_timestamp_utc(datetime(2024, 3, 6, 10, 0, 0, tzinfo=UTC)),
        ),
        ConversationMessage(
            text_chunks=["I agree. Let's use JWT tokens instead of sessions."],
            metadata=ConversationMessageMeta(speaker="Bob", recipients=["Alice"]),
            tags=["security", "architecture"],
            timestamp=format_timestamp_utc(datetime(2024, 3, 6, 10, 2, 30, tzinfo=UTC)),
        ),
    ]
    assert [m.timestamp for m in messages] == ["2024-03-06T10:00:00Z", "2024-03-06T10:02:30Z"]
    assert [len(m.get_knowledge().actions) for m in messages] == [2, 1]
