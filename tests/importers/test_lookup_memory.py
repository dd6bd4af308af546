"""Matrix, phpBB, Mastodon, LangChain and OpenAI Responses readers: memory flat with the
input, output the same.

What a later record of theirs looks up (Matrix: MXID -> display name, event -> speaker;
phpBB: user -> name, topic -> title and first post; Mastodon: status -> root of its
reply chain; LangChain and Responses: tool call -> the record that made it) is kept in
``convo.core.spillmap.SpillMap``s. As in ``test_forum_memory.py`` the bound is made
small (64 keys) so that every map spills at both sizes: the traced peak must not grow
with the number of records (untimed: memory only), and the records must be the ones of
a run that never spills.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from memory_helpers import peak_bytes, read_lines

from convo.core import spillmap

SMALL = 64


def _matrix(path: Path, n: int) -> Path:
    """An Element export: members joining with display names, messages replying to a
    random earlier event (its speaker the listener)."""
    rnd = random.Random(n)
    events, ids = [], []
    for i in range(n):
        base = {"sender": f"@u{i}:x.org", "origin_server_ts": 1_646_128_800_000 + i}
        base |= {"event_id": f"$e{i}", "room_id": "!room:x.org"}
        if i % 3 == 0:
            content = {"membership": "join", "displayname": f"User {i}"}
            events.append(base | {"type": "m.room.member", "state_key": base["sender"]})
            events[-1]["content"] = content
        else:
            base["sender"] = f"@u{rnd.randrange(0, i, 3)}:x.org"
            content = {"msgtype": "m.text", "body": f"message {i}"}
            if ids:
                content["m.relates_to"] = {"m.in_reply_to": {"event_id": rnd.choice(ids)}}
            events.append(base | {"type": "m.room.message", "content": content})
        ids.append(f"$e{i}")
    path.write_text(json.dumps({"room_name": "Tea", "messages": events}))
    return path


def _phpbb(path: Path, n: int) -> Path:
    """A DbUnit dataset: posts first (every topic's first post named by the topics table
    after them, or left to the first post met), then users and topics."""
    rnd = random.Random(n)
    cols = "".join(f"<column>{c}</column>" for c in ("post_id", "topic_id", "poster_id"))
    cols += "<column>post_time</column><column>post_text</column>"
    posts = [
        f"<row><value>{i}</value><value>{i // 3}</value><value>{rnd.randrange(n)}</value>"
        f"<value>{1_709_719_200 + i}</value><value>post {i}</value></row>"
        for i in range(1, n + 1)
    ]
    users = [f"<row><value>{i}</value><value>user {i}</value></row>" for i in range(n)]
    topics = [
        f"<row><value>{t}</value><value>Topic {t}</value><value>{t * 3 + 1}</value></row>"
        for t in range(0, n // 3 + 1, 2)  # odd topics: the first post met in the file
    ]
    path.write_text(
        '<?xml version="1.0"?>\n<dataset>\n'
        f'<table name="phpbb_posts">{cols}\n' + "\n".join(posts) + "\n</table>\n"
        '<table name="phpbb_users"><column>user_id</column><column>username</column>\n'
        + "\n".join(users)
        + "\n</table>\n"
        '<table name="phpbb_topics"><column>topic_id</column><column>topic_title</column>'
        "<column>topic_first_post_id</column>\n" + "\n".join(topics) + "\n</table>\n"
        '<table name="phpbb_config"><column>config_name</column><column>config_value</column>'
        "<row><value>server_name</value><value>board.example</value></row></table>\n"
        "</dataset>\n"
    )
    return path


def _mastodon(path: Path, n: int) -> Path:
    """An outbox of notes without ``conversation``, each replying to an earlier one half
    the time (its thread the root of the chain)."""
    rnd = random.Random(n)
    items = []
    for i in range(n):
        url = f"https://m.example/users/a/statuses/{i}"
        note = {"id": url, "type": "Note", "content": f"<p>note {i}</p>"}
        note |= {"published": "2023-04-01T12:00:00Z", "to": [], "cc": []}
        note["inReplyTo"] = (
            f"https://m.example/users/a/statuses/{rnd.randrange(i)}"
            if i and (rnd.random() < 0.5)
            else None
        )
        items.append({"id": f"{url}/activity", "type": "Create", "object": note})
    doc = {"@context": "https://www.w3.org/ns/activitystreams", "type": "OrderedCollection"}
    path.write_text(json.dumps(doc | {"orderedItems": items}))
    return path


def _langchain(path: Path, n: int) -> Path:
    """JSONL: an ai message making a tool call, then its result far later (random order
    of the pending results)."""
    rnd = random.Random(n)
    lines, pending = [], []
    for i in range(n):
        if pending and rnd.random() < 0.5:
            cid = pending.pop(rnd.randrange(len(pending)))
            data = {"content": f"result {cid}", "tool_call_id": cid, "id": f"t{i}"}
            lines.append({"type": "tool", "data": data})
        else:
            call = {"name": "f", "args": {"i": i}, "id": f"call{i}", "type": "tool_call"}
            data = {"content": f"asking {i}", "id": f"ai{i}", "tool_calls": [call]}
            lines.append({"type": "ai", "data": data})
            pending.append(f"call{i}")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _responses(path: Path, n: int) -> Path:
    """JSONL items: function calls and their outputs, an output far after its call."""
    rnd = random.Random(n)
    lines, pending = [], []
    for i in range(n):
        if pending and rnd.random() < 0.5:
            cid = pending.pop(rnd.randrange(len(pending)))
            lines.append({"type": "function_call_output", "call_id": cid, "output": f"r {cid}"})
        else:
            call = {"type": "function_call", "id": f"fc{i}", "call_id": f"c{i}", "name": "f"}
            lines.append(call | {"arguments": json.dumps({"i": i})})
            pending.append(f"c{i}")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


READERS = [_matrix, _phpbb, _mastodon, _langchain, _responses]
IDS = ["matrix", "phpbb", "mastodon", "langchain", "openai-responses"]
SUFFIX = {_phpbb: ".xml", _matrix: ".json", _mastodon: ".json"}


def _file(make, folder: Path, name: str, n: int) -> Path:
    folder = folder / name
    folder.mkdir()
    return make(folder / f"in{SUFFIX.get(make, '.jsonl')}", n)


@pytest.mark.parametrize("make", READERS, ids=IDS)
def test_records_are_the_same_when_the_maps_spill(tmp_path, monkeypatch, make):
    path = _file(make, tmp_path, "a", 3_000)
    whole = read_lines(path)
    monkeypatch.setattr(spillmap, "LIMIT", SMALL)
    spilled = read_lines(path)
    assert spilled == whole
    records = [json.loads(line) for line in spilled]
    if make is _matrix:  # every reply's listener, the names from the member events
        replies = [r for r in records if r.get("replyTo")]
        assert len(replies) > 1_900
        # (a reply to oneself has no listener)
        assert sum(bool(r["metadata"]["listeners"]) for r in replies) > len(replies) * 0.9
        assert all(r["metadata"]["speaker"].startswith("User ") for r in records)
    elif make is _phpbb:  # names, titles and first posts from the tables after the posts
        assert all(r["metadata"]["speaker"].startswith("user ") for r in records)
        # topics 0-999 have one first post each; topic 1000's (3001) is not in the file
        assert sum(bool(r.get("replyTo")) for r in records) == 3_000 - 1_000
        assert sum(r.get("subject") == "Topic 20" for r in records) == 1
    elif make is _mastodon:  # every reply's thread is the root of its chain
        roots = {r["id"] for r in records if not r.get("replyTo")}
        assert all(f"mastodon:{r['thread']}" in roots for r in records)
    else:  # every tool result replies to the call
        results = [r for r in records if r["metadata"]["speaker"] in ("tool",)]
        assert results and all(r.get("replyTo") for r in results)


@pytest.mark.parametrize("make", READERS, ids=IDS)
def test_memory_is_flat_with_the_number_of_records(tmp_path, monkeypatch, make):
    """Ten times the records, about the same traced peak (the maps bounded; the peak is
    mostly their Bloom filters of fixed size)."""
    monkeypatch.setattr(spillmap, "LIMIT", SMALL)
    peak_bytes(_file(make, tmp_path, "warm", SMALL * 2))  # imports and caches, not the maps
    small = peak_bytes(_file(make, tmp_path, "small", 500))
    big = peak_bytes(_file(make, tmp_path, "big", 5_000))
    assert big < small * 1.1 + 200_000, (small, big)
