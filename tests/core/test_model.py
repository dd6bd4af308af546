"""The record model against TypeAgent 0.5.0's ConversationMessage (knowpro/universal_message.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from convo.core.record import (
    UNIX_EPOCH,
    ConversationMessage,
    ConversationMessageMeta,
    TranscriptMessage,
    TranscriptMessageMeta,
    content_id,
    format_timestamp_utc,
    json_schema,
)


def _action(verbs, subject, obj):
    return {
        "verbs": verbs,
        "verbTense": "past",
        "subjectEntityName": subject,
        "objectEntityName": obj,
        "indirectObjectEntityName": "none",
        "params": None,
        "subjectEntityFacet": None,
    }


def _person(name):
    return {"name": name, "type": ["person"], "facets": None}


class TestMeta:
    def test_defaults(self):
        meta = ConversationMessageMeta()
        assert meta.speaker is None
        assert meta.recipients == []
        assert meta.source is None
        assert meta.dest is None

    def test_source_and_dest(self):
        meta = ConversationMessageMeta("Alice", ["Bob"])
        assert meta.source == "Alice"
        assert meta.dest == ["Bob"]

    def test_listeners_alias_on_input(self):
        from pydantic import TypeAdapter

        meta = TypeAdapter(ConversationMessageMeta).validate_python(
            {"speaker": "A", "listeners": ["B"]}
        )
        assert type(meta) is ConversationMessageMeta
        assert meta.recipients == ["B"]
        assert ConversationMessageMeta(listeners=["C"]).recipients == ["C"]

    def test_knowledge_no_speaker_is_empty(self):
        k = ConversationMessageMeta(None, ["Bob"]).get_knowledge().to_dict()
        assert k == {"entities": [], "actions": [], "inverse_actions": [], "topics": []}

    def test_knowledge_empty_speaker_is_empty(self):
        k = ConversationMessageMeta("", []).get_knowledge().to_dict()
        assert k["entities"] == [] and k["actions"] == []

    def test_knowledge_speaker_only_says_and_speaks(self):
        k = ConversationMessageMeta("Alice").get_knowledge().to_dict()
        assert k == {
            "entities": [_person("Alice")],
            "actions": [_action(["say", "speak"], "Alice", "none")],
            "inverse_actions": [],
            "topics": [],
        }

    def test_knowledge_one_say_per_recipient(self):
        k = ConversationMessageMeta("Alice", ["Bob", "Carol"]).get_knowledge().to_dict()
        assert k == {
            "entities": [_person("Alice"), _person("Bob"), _person("Carol")],
            "actions": [_action(["say"], "Alice", "Bob"), _action(["say"], "Alice", "Carol")],
            "inverse_actions": [],
            "topics": [],
        }


class TestMessage:
    def test_positional_construction_like_typeagent(self):
        msg = ConversationMessage(
            ["hi"], ConversationMessageMeta("Alice", ["Bob"]), ["t"], "2024-01-01T00:00:00Z"
        )
        assert msg.text_chunks == ["hi"]
        assert msg.speaker == "Alice"
        assert msg.listeners == ["Bob"]
        assert msg.tags == ["t"]
        assert msg.timestamp == "2024-01-01T00:00:00Z"

    def test_defaults(self):
        msg = ConversationMessage(["x"])
        assert msg.metadata.speaker is None
        assert msg.tags == []
        assert msg.timestamp is None

    def test_get_knowledge_delegates_to_metadata(self):
        msg = ConversationMessage(["x"], ConversationMessageMeta("Alice"))
        assert msg.get_knowledge() == msg.metadata.get_knowledge()

    def test_add_timestamp_and_content(self):
        msg = ConversationMessage(["Hello"])
        msg.add_timestamp("2024-03-06T10:00:00Z")
        msg.add_content(", world")
        assert msg.timestamp == "2024-03-06T10:00:00Z"
        assert msg.text_chunks == ["Hello, world"]

    def test_serialize_writes_typeagent_keys_first(self):
        msg = ConversationMessage(
            ["I agree."],
            ConversationMessageMeta("Bob", ["Alice"]),
            ["security"],
            "2024-03-06T10:02:30Z",
            source_id="team.mbox#msg-2",
            id="<m2@x>",
            format="mbox",
            thread="<m1@x>",
            reply_to="<m1@x>",
            subject="Auth refactor",
        )
        record = msg.serialize()
        assert list(record)[:5] == ["textChunks", "metadata", "tags", "timestamp", "source_id"]
        assert record == {
            "textChunks": ["I agree."],
            "metadata": {"speaker": "Bob", "listeners": ["Alice"]},
            "tags": ["security"],
            "timestamp": "2024-03-06T10:02:30Z",
            "source_id": "team.mbox#msg-2",
            "id": "<m2@x>",
            "format": "mbox",
            "thread": "<m1@x>",
            "replyTo": "<m1@x>",
            "subject": "Auth refactor",
        }

    def test_serialize_omits_empty_optionals_and_fills_required(self):
        record = ConversationMessage(["x"]).serialize()
        assert set(record) == {
            "textChunks",
            "metadata",
            "tags",
            "timestamp",
            "source_id",
            "id",
            "format",
        }
        assert record["timestamp"] == "1970-01-01T00:00:00Z"
        assert record["id"].startswith("h:")
        assert record["format"] == "convo"

    def test_round_trip(self):
        msg = ConversationMessage(
            ["a", "b"], ConversationMessageMeta("A", ["B"]), ["t"], "2024-01-01T00:00:00Z",
            id="1", format="x", role="user", extra={"k": [1, 2]},
        )  # fmt: skip
        again = ConversationMessage.deserialize(msg.serialize())
        assert again == msg

    def test_deserialize_accepts_python_spellings(self):
        msg = ConversationMessage.deserialize(
            {"text_chunks": ["x"], "metadata": {"speaker": "A", "recipients": ["B"]}, "tags": []}
        )
        assert msg.text_chunks == ["x"] and msg.listeners == ["B"]

    def test_deserialize_typeagent_record_without_convo_keys(self):
        data = {
            "textChunks": ["x"],
            "metadata": {"speaker": "A", "listeners": []},
            "tags": [],
            "timestamp": "2024-01-01T00:00:00Z",
        }
        msg = ConversationMessage.deserialize(data)
        assert msg.id is None and msg.source_id is None

    def test_deserialize_ignores_unknown_keys(self):
        msg = ConversationMessage.deserialize({"textChunks": ["x"], "metadata": {}, "whatever": 1})
        assert msg.text_chunks == ["x"]

    def test_transcript_aliases(self):
        assert TranscriptMessage is ConversationMessage
        assert TranscriptMessageMeta is ConversationMessageMeta


class TestTimestamps:
    def test_epoch_constant(self):
        assert datetime(1970, 1, 1, tzinfo=UTC) == UNIX_EPOCH

    def test_naive_raises(self):
        with pytest.raises(ValueError, match="timezone-aware"):
            format_timestamp_utc(datetime(2024, 1, 1))

    def test_utc_gets_z(self):
        assert (
            format_timestamp_utc(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC))
            == "2024-01-02T03:04:05Z"
        )

    def test_other_zone_converted(self):
        berlin = timezone(timedelta(hours=1))
        assert (
            format_timestamp_utc(datetime(2024, 3, 6, 10, 0, tzinfo=berlin))
            == "2024-03-06T09:00:00Z"
        )

    def test_fractions_truncated(self):
        dt = datetime(2024, 1, 1, 0, 0, 0, 999999, tzinfo=UTC)
        assert format_timestamp_utc(dt) == "2024-01-01T00:00:00Z"


class TestIds:
    def test_content_id_is_stable_and_depends_on_content(self):
        a = ConversationMessage(
            ["x"], ConversationMessageMeta("A"), timestamp="2024-01-01T00:00:00Z", format="f"
        )
        b = ConversationMessage(
            ["x"], ConversationMessageMeta("A"), timestamp="2024-01-01T00:00:00Z", format="f"
        )
        c = ConversationMessage(
            ["y"], ConversationMessageMeta("A"), timestamp="2024-01-01T00:00:00Z", format="f"
        )
        assert content_id(a) == content_id(b) != content_id(c)

    def test_occurrence_counter(self):
        a = ConversationMessage(["ok"])
        assert content_id(a, 1) == content_id(a) + "-1"

    def test_chunk_boundaries_matter(self):
        assert content_id(ConversationMessage(["ab"])) != content_id(
            ConversationMessage(["a", "b"])
        )


def test_json_schema_uses_written_names():
    schema = json_schema()
    props = schema["properties"]
    assert "textChunks" in props and "replyTo" in props
    assert "text_chunks" not in props
    assert set(schema["required"]) >= {"textChunks", "metadata", "id", "format", "timestamp"}
