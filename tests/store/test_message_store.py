"""JsonlMessageStore and its async twin against the message-store protocol."""

from __future__ import annotations

import asyncio
import threading
import time
import warnings

import orjson
import pytest

from convo.cli.app import app
from convo.core.errors import RecordError
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.memory.history import (
    AsyncJsonlMessageStore,
    AsyncMessageStoreProtocol,
    JsonlMessageStore,
    MaxCountRetention,
    MessageEvent,
    MessageStoreProtocol,
)
from convo.memory.messages import ai, human, system, to_text, tool
from convo.store import Store


@pytest.fixture
def path(tmp_path):
    return tmp_path / "history.jsonl"


def texts(msgs):
    return [m.text for m in msgs]


def test_protocols_are_implemented(path):
    assert isinstance(JsonlMessageStore(path), MessageStoreProtocol)
    assert isinstance(AsyncJsonlMessageStore(path), AsyncMessageStoreProtocol)


def test_append_and_get_in_order(path):
    st = JsonlMessageStore(path)
    assert st.get_messages() == []
    assert st.append(system("be brief"))
    assert st.append_many([human("hi", name="Bob"), ai("hello")]) == 2
    msgs = st.get_messages()
    assert texts(msgs) == ["be brief", "hi", "hello"]
    assert [m.role for m in msgs] == ["system", "user", "assistant"]
    assert msgs[1].speaker == "Bob"
    assert texts(st.get_messages(limit=2)) == ["hi", "hello"]
    assert texts(st.get_messages(limit=0)) == ["be brief", "hi", "hello"]  # <= 0: all
    assert texts(st.get_messages(limit=-1)) == ["be brief", "hi", "hello"]
    assert texts(st.get_messages(limit=10)) == ["be brief", "hi", "hello"]


def test_ids_times_and_source_filled_without_touching_the_caller(path):
    st = JsonlMessageStore(path)
    msg = ConversationMessage(["hi"], ConversationMessageMeta(speaker="Ann"))
    st.append(msg)
    assert msg.id is None and msg.timestamp is None
    (stored,) = st.get_messages()
    assert stored.id.startswith("m:") and stored.timestamp.endswith("Z")
    assert stored.source_id == f"history.jsonl#{stored.id}"


def test_same_text_twice_is_two_turns_but_same_id_is_deduplicated(path):
    st = JsonlMessageStore(path)
    assert st.append(human("ok")) and st.append(human("ok"))
    known = st.get_messages()[0]
    assert st.append(known) is False
    assert st.append_many([known, human("new")]) == 1
    assert texts(st.get_messages()) == ["ok", "ok", "new"]


def test_subscribers_get_one_event_per_added_message(path):
    st = JsonlMessageStore(path)
    events: list[MessageEvent] = []
    cb = st.subscribe(events.append)
    assert cb == events.append
    st.append_many([human("a"), ai("b")])
    st.append(st.get_messages()[0])  # a duplicate: no event
    assert [(e.event_type, e.message.text) for e in events] == [("added", "a"), ("added", "b")]
    assert events[0].message == st.get_messages()[0]
    st.unsubscribe(cb)
    st.unsubscribe(cb)  # unknown: ignored
    st.append(human("c"))
    assert len(events) == 2


def test_failing_subscriber_does_not_lose_the_message(path, caplog):
    st = JsonlMessageStore(path)
    seen = []

    @st.subscribe
    def boom(event):
        raise RuntimeError("subscriber bug")

    st.subscribe(seen.append)
    assert st.append(human("kept"))
    assert texts(st.get_messages()) == ["kept"] and len(seen) == 1
    assert "subscriber" in caplog.text


def test_subscriber_may_use_the_store(path):
    st = JsonlMessageStore(path)
    counts = []
    st.subscribe(lambda e: counts.append(len(st.get_messages())))
    st.append_many([human("a"), human("b")])
    assert counts == [2, 2]


def test_concurrent_appends_from_threads(path):
    st = JsonlMessageStore(path)
    events = []
    lock = threading.Lock()

    def on_event(e):
        with lock:
            events.append(e.message.text)

    st.subscribe(on_event)

    def worker(k):
        for i in range(25):
            st.append(human(f"t{k}-{i}"))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    msgs = st.get_messages()
    assert len(msgs) == 200 and len({m.id for m in msgs}) == 200
    assert sorted(texts(msgs)) == sorted(events)
    for k in range(8):  # each thread's messages keep their order
        mine = [m.text for m in msgs if m.text.startswith(f"t{k}-")]
        assert mine == [f"t{k}-{i}" for i in range(25)]
    lines = path.read_bytes().splitlines()
    assert all(orjson.loads(x)["textChunks"] for x in lines)


def test_concurrent_appends_and_replace_with_retention(path):
    st = JsonlMessageStore(path, max_messages=30)

    def worker(k):
        for i in range(20):
            st.append(human(f"{k}-{i}"))
            if i % 7 == 0:
                st.replace(st.get_messages(limit=10))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    msgs = st.get_messages()
    assert 0 < len(msgs) <= 30
    assert len({m.id for m in msgs}) == len(msgs)


def test_max_count_retention(path):
    st = JsonlMessageStore(path, max_messages=3)
    events = []
    st.subscribe(events.append)
    st.append_many([human(str(i)) for i in range(5)])
    st.append(human("5"))
    assert texts(st.get_messages()) == ["3", "4", "5"]
    assert len(events) == 6  # every appended message is announced
    assert len(path.read_bytes().splitlines()) == 3


def test_retention_object_and_both_arguments(path):
    st = JsonlMessageStore(path, retention=MaxCountRetention(1))
    st.append_many([human("a"), human("b")])
    assert texts(st.get_messages()) == ["b"]
    with pytest.raises(ValueError):
        JsonlMessageStore(path, max_messages=2, retention=MaxCountRetention(2))
    with pytest.raises(ValueError):
        JsonlMessageStore(path, retention=MaxCountRetention(2), merge_fn=lambda a, b: a + b)
    # Jianmu's MaxCountRetention: None or a count <= 0 keeps everything
    assert len(MaxCountRetention(-1).apply([human("a")], [human("b")])) == 2
    assert MaxCountRetention().max_messages == 50
    zero = JsonlMessageStore(path.with_name("z.jsonl"), max_messages=0)
    zero.append(human("kept"))
    assert texts(zero.get_messages()) == ["kept"]


def test_merge_fn_then_retention(path):
    calls = []

    def merge(old, new):
        calls.append((texts(old), texts(new)))
        if len(old) + len(new) > 3:  # summarise everything older than the new messages
            summary = system(f"summary of {len(old)}")
            return [summary, *new]
        return [*old, *new]

    st = JsonlMessageStore(path, merge_fn=merge, max_messages=10)
    st.append_many([human("a"), human("b")])
    st.append_many([human("c"), human("d")])
    assert texts(st.get_messages()) == ["summary of 2", "c", "d"]
    assert calls[0] == ([], ["a", "b"])


def test_replace(path):
    st = JsonlMessageStore(path)
    st.append_many([human("a"), human("b")])
    events = []
    st.subscribe(events.append)
    keep = st.get_messages()[1]
    st.replace([keep, system("new"), keep])
    assert texts(st.get_messages()) == ["b", "new"]  # duplicate ids: first kept
    assert [(e.event_type, e.message.text) for e in events] == [("added", "new")]
    st.replace([])
    assert st.get_messages() == [] and path.exists()


def test_reopening_the_file(path):
    st = JsonlMessageStore(path)
    st.append_many([human("a"), ai("b"), tool("42", tool_call_id="c1", name="calc")])
    again = JsonlMessageStore(path)
    msgs = again.get_messages()
    assert [to_text(m) for m in msgs] == ["a", "b", "42"]
    assert msgs == st.get_messages()
    assert msgs[2].extra["blocks"][0] == {
        "type": "tool_result", "tool_use_id": "c1", "content": "42", "is_error": False,
    }  # fmt: skip
    again.append(human("c"))
    assert [to_text(m) for m in st.get_messages()] == ["a", "b", "42", "c"]


def test_coercer(path):
    st = JsonlMessageStore(path)
    st.append({"textChunks": ["from a dict"], "metadata": {"speaker": "Ann"}})
    st.append({"text_chunks": ["python spelling"], "metadata": {"speaker": "Ann"}})
    with pytest.raises(ValueError, match="Invalid message payload type: str"):
        st.append("a bare string")
    with pytest.raises(RecordError):
        st.append({"textChunks": "not a list"})

    class Wrap:
        def coerce(self, payload):
            return human(str(payload))

    custom = JsonlMessageStore(path, coercer=Wrap())
    custom.append("bare")
    assert texts(custom.get_messages()) == ["from a dict", "python spelling", "bare"]


def test_bad_lines_are_skipped_with_a_warning_and_kept_aside(path):
    st = JsonlMessageStore(path)
    st.append(human("a"))
    with open(path, "ab") as f:
        f.write(b"not json\n")
    with pytest.warns(RuntimeWarning, match="not a record"):
        assert texts(st.get_messages()) == ["a"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st.replace(st.get_messages())
    assert b"not json" in path.with_name("history.jsonl.torn").read_bytes()
    assert b"not json" not in path.read_bytes()


def test_torn_tail_is_repaired_on_append(path):
    st = JsonlMessageStore(path)
    st.append(human("a"))
    with open(path, "ab") as f:
        f.write(b'{"textChunks": ["ha')
    with pytest.warns(RuntimeWarning):
        st.append(human("b"))
    assert texts(st.get_messages()) == ["a", "b"]


def test_shares_the_cli_store(path, runner, tmp_path):
    chat = tmp_path / "in.jsonl"
    rec = {"textChunks": ["from the cli"], "metadata": {"speaker": "Eve", "listeners": []},
           "tags": [], "timestamp": "2024-01-01T00:00:00Z", "source_id": "in#1", "id": "cli-1",
           "format": "convo"}  # fmt: skip
    chat.write_bytes(orjson.dumps(rec) + b"\n")
    r = runner.invoke(app, ["--store", str(path), "ingest", "--save", str(chat)])
    assert r.exit_code == 0, r.output
    st = JsonlMessageStore(path)
    assert [m.id for m in st.get_messages()] == ["cli-1"]
    st.append(human("from the library", name="Bob"))
    r = runner.invoke(app, ["--store", str(path), "ingest", "--save", str(chat)])
    assert r.exit_code == 0
    assert len(st.get_messages()) == 2  # the CLI's dedup saw the id
    r = runner.invoke(app, ["--store", str(path), "query", "--speaker", "Bob"])
    assert r.exit_code == 0
    assert [orjson.loads(x)["textChunks"] for x in r.stdout.splitlines()] == [["from the library"]]
    assert Store(path).ids().__len__() == 2


def test_store_lock_follows_a_rewrite(path):
    """A CLI append waiting on the lock during replace() lands in the new file."""
    st = JsonlMessageStore(path)
    st.append(human("a"))
    store = Store(path)
    started = threading.Event()
    result = {}

    def cli_append():
        started.set()
        rec = human("from cli").serialize()
        rec["id"] = "cli-x"
        result["r"] = store.append([("cli-x", orjson.dumps(rec) + b"\n")])

    with store.locked():
        t = threading.Thread(target=cli_append)
        t.start()
        started.wait()
        time.sleep(0.2)  # let it block on the old file's lock
        st._rewrite([*st._read(), human("b", id="b1", timestamp="2024-01-01T00:00:00Z")])
    t.join()
    assert result["r"].added == 1
    assert texts(st.get_messages()) == ["a", "b", "from cli"]


def test_async_twin(path):
    async def main():
        st = AsyncJsonlMessageStore(path, max_messages=3)
        seen = []

        async def on_async(event):
            seen.append(("async", event.message.text))

        st.subscribe(on_async)
        sync_cb = st.subscribe(lambda e: seen.append(("sync", e.message.text)))
        assert await st.append(human("a"))
        assert await st.append_many([human(str(i)) for i in range(3)]) == 3
        await asyncio.gather(*(st.append(human(f"g{i}")) for i in range(10)))
        msgs = await st.get_messages()
        assert len(msgs) == 3
        assert texts(await st.get_messages(limit=1)) == [msgs[-1].text]
        st.unsubscribe(sync_cb)
        await st.replace([system("fresh")])
        assert texts(await st.get_messages()) == ["fresh"]
        return seen

    seen = asyncio.run(main())
    assert ("async", "a") in seen and ("sync", "a") in seen
    assert len(seen) == 2 * 14 + 1  # replace announces "fresh" (the sync one is gone)


def test_store_writes_only_what_validate_accepts(path, runner):
    """Issue 13: a +02:00 time is stored as UTC "Z", so `convo validate` accepts the store;
    a message with empty textChunks is refused with a clear RecordError, nothing written."""
    st = JsonlMessageStore(path)
    st.append(ConversationMessage(["hi"], ConversationMessageMeta("Ann"),
                                  timestamp="2024-03-06T12:00:00+02:00"))  # fmt: skip
    st.append(
        {"role": "user", "content": "dict", "metadata": {"timestamp": "2024-03-06T12:00:01+02:00"}}
    )
    st.append(human("from a constructor"))
    assert [m.timestamp for m in st.get_messages()][:1] == ["2024-03-06T10:00:00Z"]
    with pytest.raises(RecordError, match="textChunks is empty"):
        st.append(ConversationMessage([], ConversationMessageMeta("Ann")))
    with pytest.raises(RecordError, match="timestamp"):
        st.append(ConversationMessage(["x"], ConversationMessageMeta("Ann"), timestamp="soon"))
    assert len(st.get_messages()) == 3
    r = runner.invoke(app, ["validate", str(path)])
    assert r.exit_code == 0, r.output
