"""Conformance with LangMem's threads and messages documentation.

Each test names the passage it checks: a thread has ``id``, ``messages`` and optional
``metadata``; a message is an ``OpenAIMessage`` (role, content, name, metadata with
``user_id`` and ``timestamp``) or a LangMem ``Message`` (id, content, timestamp, user).
"""

from __future__ import annotations

import json

import orjson

from convo.cli.app import app
from convo.output import exporters as ex
from convo.pipeline.ingest import read_messages

THREAD = {
    "id": "thread-1",
    "metadata": {"project": "onboarding"},
    "messages": [
        {"role": "user", "content": "Hi, I'm Alice.", "name": "Alice",
         "metadata": {"user_id": "user-alice", "timestamp": "2024-06-01T08:00:00Z"}},
        {"role": "assistant", "content": "Welcome, Alice!",
         "metadata": {"timestamp": "2024-06-01T08:00:05Z"}},
    ],
}  # fmt: skip


def write(tmp_path, value, name="thread.json"):
    path = tmp_path / name
    path.write_bytes(orjson.dumps(value))
    return path


def test_thread_fields(tmp_path):
    """线程: id (unique identifier), messages (the list exchanged), metadata (optional)."""
    got = list(read_messages(write(tmp_path, THREAD)))
    assert {m.format for m in got} == {"langmem"}
    assert [m.thread for m in got] == ["thread-1", "thread-1"]
    (thread,) = ex.to_langmem(got)
    assert thread == THREAD


def test_openai_message_metadata(tmp_path):
    """OpenAIMessage: content, role, name; metadata with an optional user_id (whose
    memories are kept) and an optional timestamp."""
    alice, bot = read_messages(write(tmp_path, THREAD))
    assert (alice.role, alice.speaker, alice.extra["user_id"]) == ("user", "Alice", "user-alice")
    assert alice.timestamp == "2024-06-01T08:00:00Z" and bot.timestamp == "2024-06-01T08:00:05Z"
    assert alice.metadata.recipients == ["assistant"]


def test_langmem_message_shape(tmp_path):
    """Message TypedDict: id (UUID), content (str or list of dicts), timestamp (datetime),
    user (UserForMessage)."""
    thread = {"id": "t2", "messages": [
        {"id": "6f1c4c1e-0000-4000-8000-000000000001", "content": "Remember I like tea.",
         "timestamp": "2024-06-02T09:00:00+02:00", "user": {"id": "u-1", "name": "Bob"}},
        {"id": "6f1c4c1e-0000-4000-8000-000000000002",
         "content": [{"type": "text", "text": "Noted."}], "timestamp": "2024-06-02T07:00:01Z",
         "user": {"id": "u-1", "name": "Bob"}},
    ]}  # fmt: skip
    got = list(read_messages(write(tmp_path, thread)))
    assert [m.format for m in got] == ["langmem", "langmem"]
    first = got[0]
    assert first.id == "6f1c4c1e-0000-4000-8000-000000000001"
    assert first.timestamp == "2024-06-02T07:00:00Z" and first.speaker == "Bob"
    assert first.role == "user" and first.extra["user"] == {"id": "u-1", "name": "Bob"}
    assert got[1].text_chunks == ["Noted."]
    assert ex.to_langmem(got) == [{**thread, "metadata": {}}]  # metadata written, empty


def test_thread_metadata_survives_the_cli_pipe(tmp_path, runner):
    """Issue 19: `convo ingest thread.json | convo export --to langmem` keeps the thread's
    own metadata ({"project": "onboarding"})."""
    path = write(tmp_path, THREAD)
    ingested = runner.invoke(app, ["ingest", str(path), "-o", "-"])
    assert ingested.exit_code == 0, ingested.output
    exported = runner.invoke(app, ["export", "--to", "langmem"], input=ingested.stdout)
    assert exported.exit_code == 0, exported.output
    (thread,) = json.loads(exported.stdout)
    assert thread["id"] == "thread-1"
    assert thread["metadata"] == {"project": "onboarding"}
    assert thread["messages"] == THREAD["messages"]


def test_exported_openai_message_carries_timestamp_and_user_id(tmp_path):
    """OpenAIMessage metadata: "一个可选的 user_id 字段" and "一个可选的 timestamp 字段": a
    message from another format is written with its time (and user id) in ``metadata``,
    so export → import keeps the time, not the epoch sentinel."""
    path = write(tmp_path, {"messages": [
        {"id": "a1", "name": "Alice", "role": "user", "content": "hi",
         "metadata": {"topic": "tea"}, "timestamp": "2024-05-02 14:30:01.000"},
        {"id": "a2", "name": "Friday", "role": "assistant", "content": "hello",
         "metadata": {}, "timestamp": "2024-05-02 14:30:02.000"},
    ]}, name="agentscope.json")  # fmt: skip
    got = list(read_messages(path, format="agentscope"))
    got[0].extra["user_id"] = "user-alice"
    (thread,) = ex.to_langmem(got)
    first, second = thread["messages"]
    assert first["metadata"] == {"topic": "tea", "user_id": "user-alice",
                                 "timestamp": "2024-05-02T14:30:01Z"}  # fmt: skip
    assert second["metadata"] == {"timestamp": "2024-05-02T14:30:02Z"}
    back = list(read_messages(write(tmp_path, thread), format="langmem"))
    assert [(m.speaker, m.role, m.text_chunks, m.timestamp) for m in back] == [
        (m.speaker, m.role, m.text_chunks, m.timestamp) for m in got
    ]
    assert back[0].extra["user_id"] == "user-alice"


def test_exported_message_without_time_has_no_epoch_timestamp():
    """timestamp is optional; the epoch sentinel marks a message that had none, and is
    not written as one."""
    from convo.core.record import ConversationMessage, ConversationMessageMeta

    m = ConversationMessage(text_chunks=["x"], metadata=ConversationMessageMeta(speaker="u"),
                            role="user")  # fmt: skip
    (thread,) = ex.to_langmem([m])
    assert "metadata" not in thread["messages"][0]


def test_openai_message_without_role_is_recognised(tmp_path):
    """``class OpenAIMessage(TypedDict, total=False)``: every key is optional, the role too;
    a thread of such messages (their metadata with user_id/timestamp) is read as LangMem
    without --from, the role the user's."""
    thread = {"id": "t3", "messages": [
        {"content": "I moved to Lyon.",
         "metadata": {"user_id": "u-9", "timestamp": "2024-06-03T10:00:00Z"}}]}  # fmt: skip
    (got,) = read_messages(write(tmp_path, thread))
    assert (got.format, got.role, got.extra["user_id"]) == ("langmem", "user", "u-9")
    assert got.timestamp == "2024-06-03T10:00:00Z" and got.text_chunks == ["I moved to Lyon."]


def test_a_time_set_after_import_is_exported(tmp_path):
    """OpenAIMessage ``metadata``: "一个可选的 timestamp 字段"; Message: ``timestamp``. A
    source message with no time, given one afterwards (the message store's append time),
    is written back with it, where each shape holds it; with a time, unchanged."""
    thread = {"id": "t4", "messages": [
        {"role": "user", "content": "a", "metadata": {"user_id": "u"}},
        {"id": "6f1c4c1e-0000-4000-8000-000000000003", "content": "b", "user": {"id": "u"}},
        THREAD["messages"][1],
    ]}  # fmt: skip
    got = list(read_messages(write(tmp_path, thread), format="langmem"))
    for m in got[:2]:
        m.timestamp = "2024-06-04T00:00:00Z"
    a, b, c = ex.to_langmem(got)[0]["messages"]
    assert a["metadata"] == {"user_id": "u", "timestamp": "2024-06-04T00:00:00Z"}
    assert b["timestamp"] == "2024-06-04T00:00:00Z" and "metadata" not in b
    assert c == THREAD["messages"][1]
