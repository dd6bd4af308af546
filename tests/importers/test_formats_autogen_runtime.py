"""AutoGen 0.2 runtime logs (``convo.importers.agents.autogen_runtime``, issue 36).

The fixture is what ``autogen.runtime_logging.start(logger_type="file")`` writes (AutoGen
0.2's ``autogen/logger/file_logger.py``): session lines, ``json.dumps`` lines for
wrappers, clients, agents, events (``json_state`` a JSON string) and chat completions
whose ``response`` is ``str(ChatCompletion)``, a function use and one of the logger's
own error lines. Session 1 is a two-agent chat with a tool call; session 2 a group chat
(the manager relays each message to the other members) ending with a reflection
summary, a completion no message follows.
"""

from __future__ import annotations

import orjson
import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.agents import autogen_runtime
from convo.importers.registry import registry

PATH = FIXTURES / "autogen_runtime" / "runtime.log"
S1 = "autogen-runtime:0b6a2f6e-5d3c-4e63-9a1f-2f4f6b7c8d90"
S2 = "autogen-runtime:7d1e9c44-1b2a-4f3e-8c5d-6e7f8091a2b3"


def test_golden_and_mapping():
    recs, rejects, warnings = run(autogen_runtime.read, PATH)
    assert not rejects
    assert_golden("formats/autogen_runtime/runtime.jsonl", recs)
    who = [(r["metadata"]["speaker"], r["metadata"]["listeners"]) for r in recs]
    assert who == [
        ("user_proxy", ["assistant"]),
        ("assistant", ["user_proxy"]),
        ("user_proxy", ["assistant"]),
        ("assistant", ["user_proxy"]),
        ("admin", ["chat_manager", "planner", "critic"]),  # the manager's relays: one record
        ("planner", ["chat_manager", "critic", "admin"]),
        ("critic", ["chat_manager", "planner", "admin"]),
        ("admin", ["chat_manager"]),
        ("user", ["planner"]),  # the summary prompt, only in the completion's request
        ("planner", ["user"]),
    ]
    assert [r["thread"] for r in recs] == [S1] * 4 + [S2] * 6
    assert recs[1]["textChunks"] == ['[tool_use calculator] {"expr":"17 * 23"}']
    assert recs[2]["role"] == "tool" and recs[2]["textChunks"] == ["[tool_result calculator] 391"]
    assert recs[3]["textChunks"] == ["17 × 23 = 391. That's all — TERMINATE"]
    assert recs[0]["timestamp"] == "2024-06-03T09:15:02Z"
    call = recs[1]["extra"]["completions"][0]
    assert call["invocation_id"] == "5c0b2d1e-8f3a-4b6c-9d7e-0a1b2c3d4e5f"
    assert call["model"] == "gpt-4o-2024-05-13" and call["request_messages"] == 2
    assert call["usage"] == {"completion_tokens": 17, "prompt_tokens": 71, "total_tokens": 88}
    assert "tools" in call["request"] and "messages" not in call["request"]
    agents = recs[0]["extra"]["conversation"]["agents"]
    assert agents == [
        {"name": "assistant", "class": "AssistantAgent"},
        {"name": "user_proxy", "class": "UserProxyAgent"},
    ]
    summary = recs[-1]
    assert summary["id"] == "d9e8f7a6-b5c4-4d3e-9f2a-1b0c9d8e7f6a"
    assert summary["role"] == "assistant" and summary["timestamp"] == "2024-06-04T14:00:05Z"
    assert "sk-" not in PATH.read_text().split("\n", 1)[0]  # keys are in setup lines only
    assert all("sk-REDACTED" not in str(r) for r in recs)
    assert warnings == [
        "runtime.log: not messages, skipped: function uses 1, lines that are not JSON "
        "(the logger's errors) 1, reply_func_executed events 2, setup lines (wrappers, clients) 2"
    ]


def test_detected_and_the_agentchat_format_keeps_its_files():
    assert registry.detect(Source(PATH)).name == "autogen-runtime"
    assert registry.detect(Source(ROOT / "sample_data/chat/autogen.json")).name == "autogen"


def test_a_log_cut_before_its_session_line(tmp_path):
    lines = PATH.read_text().splitlines()
    path = tmp_path / "cut.log"
    path.write_text("\n".join(lines[5:16]) + "\n")  # from the first event of session 1
    assert registry.detect(Source(path)).name == "autogen-runtime"
    recs, _, _ = run(autogen_runtime.read, path)
    assert {r["thread"] for r in recs} == {"autogen-runtime:cut.log"}
    assert [r["metadata"]["speaker"] for r in recs][:2] == ["user_proxy", "assistant"]


def test_a_wrapper_used_alone_gives_its_prompts_and_replies(tmp_path):
    """No agents: every completion is a record, after its request's new messages."""
    resp = (
        "ChatCompletion(id='c1', choices=[Choice(finish_reason='stop', index=0, "
        "message=ChatCompletionMessage(content='Paris.', role='assistant'))], model='gpt-4o')"
    )
    line = (
        '{"invocation_id": "%s", "client_id": 1, "wrapper_id": 2, "request": {"messages": '
        '[{"role": "user", "content": "%s"}], "model": "gpt-4o", "api_key": "sk-x"}, '
        '"response": "%s", "is_cached": 0, "cost": 0.1, "start_time": "2024-01-01 10:00:00.5", '
        '"end_time": "2024-01-01 10:00:01.5", "thread_id": 3, "source_name": "OpenAIWrapper"}'
    )
    path = tmp_path / "runtime.log"
    path.write_text(
        "Started new session with Session ID: s-1\n"
        + line % ("11111111-2222-3333-4444-555555555555", "Capital of France?", resp)
        + "\n"
        + line % ("11111111-2222-3333-4444-666666666666", "Capital of France?", resp)
        + "\n"
    )
    recs, rejects, _ = run(autogen_runtime.read, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("user", ["Capital of France?"]),
        ("OpenAIWrapper", ["Paris."]),
        ("OpenAIWrapper", ["Paris."]),  # asked again: the same prompt is not repeated
    ]
    assert all("api_key" not in str(r.get("extra")) for r in recs)


def test_parse_response_reads_the_repr_and_the_json():
    repr_ = (
        "ChatCompletion(id='x', choices=[Choice(message=ChatCompletionMessage("
        "content=\"it's \\\\n ok\", role='assistant'))], model='m', "
        "usage=CompletionUsage(completion_tokens=1, prompt_tokens=2, total_tokens=3))"
    )
    got = autogen_runtime.parse_response(repr_)
    assert got["texts"] == ["it's \\n ok"] and got["model"] == "m"
    js = {"choices": [{"message": {"content": "hi", "role": "assistant"}}], "model": "m2"}
    assert autogen_runtime.parse_response(js)["texts"] == ["hi"]
    assert autogen_runtime.parse_response({"response": "boom"})["texts"] == ["boom"]
    assert autogen_runtime.parse_response("Error: timeout")["texts"] == ["Error: timeout"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=8))
def test_any_lines_never_crash(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("a") / "runtime.log"
    path.write_text("Started new session with Session ID: x\n" + "\n".join(lines))
    recs, rejects, _ = run(autogen_runtime.read, path)
    assert isinstance(recs, list) and isinstance(rejects, list)


_SCHEMA = """
CREATE TABLE chat_completions(id INTEGER PRIMARY KEY, invocation_id TEXT, client_id INTEGER,
  wrapper_id INTEGER, session_id TEXT, source_name TEXT, request TEXT, response TEXT,
  is_cached INEGER, cost REAL, start_time DATETIME DEFAULT CURRENT_TIMESTAMP,
  end_time DATETIME DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agents(id INTEGER PRIMARY KEY, agent_id INTEGER, wrapper_id INTEGER,
  session_id TEXT, name TEXT, class TEXT, init_args TEXT,
  timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, UNIQUE(agent_id, session_id));
CREATE TABLE oai_wrappers(id INTEGER PRIMARY KEY, wrapper_id INTEGER, session_id TEXT,
  init_args TEXT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, UNIQUE(wrapper_id, session_id));
CREATE TABLE oai_clients(id INTEGER PRIMARY KEY, client_id INTEGER, wrapper_id INTEGER,
  session_id TEXT, class TEXT, init_args TEXT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
  UNIQUE(client_id, session_id));
CREATE TABLE version(id INTEGER PRIMARY KEY CHECK (id = 1), version_number INTEGER NOT NULL);
CREATE TABLE events(event_name TEXT, source_id INTEGER, source_name TEXT,
  agent_module TEXT DEFAULT NULL, agent_class_name TEXT DEFAULT NULL, id INTEGER PRIMARY KEY,
  json_state TEXT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP);
"""


def _as_json_response(repr_: str) -> str:
    """The SQLite logger's ``json.dumps(to_dict(response))`` of a logged completion."""
    got = autogen_runtime.parse_response(repr_)
    message = {"role": "assistant", "content": (got["texts"] or [None])[0]}
    if got["calls"]:
        message["tool_calls"] = [{**c, "type": "function"} for c in got["calls"]]
    return orjson.dumps(
        {"choices": [{"message": message}], "model": got["model"], "usage": got["usage"]}
    ).decode()


def _logs_db(path, source_name=True):
    """The fixture's sessions as ``SqliteLogger`` stores them (logs.db)."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(_SCHEMA)
    if not source_name:
        con.execute("ALTER TABLE chat_completions DROP COLUMN source_name")
    session = None
    for line in PATH.read_text().splitlines():
        if line.startswith("Started new session"):
            session = line.rsplit(" ", 1)[1]
            continue
        if not line.startswith("{"):
            continue
        o = orjson.loads(line)
        if "agent_name" in o:
            con.execute(
                "INSERT INTO agents (agent_id, wrapper_id, session_id, name, class, init_args, "
                "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (o["id"], o["wrapper_id"], session, o["agent_name"], o["agent_type"],
                 orjson.dumps(o["args"]).decode(), o["current_time"]),
            )  # fmt: skip
        elif "event_name" in o:
            con.execute(
                "INSERT INTO events (source_id, source_name, event_name, agent_module, "
                "agent_class_name, json_state, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (o["source_id"], o["source_name"], o["event_name"], o.get("agent_module"),
                 o.get("agent_class"), o["json_state"], o["timestamp"]),
            )  # fmt: skip
        elif "invocation_id" in o:
            cols = "invocation_id, client_id, wrapper_id, session_id, request, response, "
            cols += "is_cached, cost, start_time, end_time" + (", source_name" * source_name)
            values = [o["invocation_id"], o["client_id"], o["wrapper_id"], session,
                      orjson.dumps(o["request"]).decode(), _as_json_response(o["response"]),
                      o["is_cached"], o["cost"], o["start_time"], o["end_time"]]  # fmt: skip
            if source_name:
                values.append(o["source_name"])
            marks = ", ".join("?" * len(values))
            con.execute(f"INSERT INTO chat_completions ({cols}) VALUES ({marks})", values)
        elif "client_id" in o:
            con.execute(
                "INSERT INTO oai_clients (client_id, wrapper_id, session_id, class, init_args, "
                "timestamp) VALUES (?, ?, ?, ?, ?, ?)",
                (o["client_id"], o["wrapper_id"], session, o["class"], "{}", o["timestamp"]),
            )
        elif "wrapper_id" in o:
            con.execute(
                "INSERT INTO oai_wrappers (wrapper_id, session_id, init_args, timestamp) "
                "VALUES (?, ?, ?, ?)",
                (o["wrapper_id"], session, "{}", o["timestamp"]),
            )
    con.commit()
    con.close()


def _conversation(recs):
    return [
        (r["thread"], r["metadata"], r["textChunks"], r["timestamp"], r.get("role"), r["id"])
        for r in recs
    ]


@pytest.mark.parametrize("source_name", [True, False])
def test_the_sqlite_loggers_logs_db_gives_the_same_conversation(tmp_path, source_name):
    """logs.db (the default ``logger_type``): the same records as the file logger's, the
    completions matched to their agent by ``source_name``, or (older schema) by the
    agent's wrapper."""
    db = tmp_path / "logs.db"
    _logs_db(db, source_name)
    assert registry.detect(Source(db)).name == "autogen-runtime"
    recs, rejects, _ = run(autogen_runtime.read, db)
    assert not rejects
    want, _, _ = run(autogen_runtime.read, PATH)
    assert _conversation(recs) == _conversation(want)
    assert recs[0]["source_id"] == "logs.db#events-1"
    calls = recs[1]["extra"]["completions"]
    assert calls[0]["invocation_id"] == "5c0b2d1e-8f3a-4b6c-9d7e-0a1b2c3d4e5f"
    assert calls[0]["usage"]["total_tokens"] == 88


def test_a_database_that_is_not_the_log_is_refused(tmp_path):
    import sqlite3

    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    con.commit()
    con.close()
    assert autogen_runtime.sniff(Source(db)) == 0
    with pytest.raises(InputError, match="not an AutoGen SQLite log"):
        run(autogen_runtime.read, db)
