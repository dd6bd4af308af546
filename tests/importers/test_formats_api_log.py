"""Logs of chat API calls (``convo.importers.agents.api_log``): ``{"timestamp", "request":
{"model", "messages"}, "response": {...}}`` a line, as applications write them
(``log_openai_call`` appending ``openai_calls.jsonl`` with the request and
``response.to_dict()``; AI gateways' request logs holding the request and response
objects as-is, found with the code search). Such a log was "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import api_log
from convo.importers.registry import registry

LOG = FIXTURES / "api_log" / "openai_calls.jsonl"


def test_detected():
    assert registry.detect(Source(LOG)).name == "api-log"


def test_each_call_adds_only_its_new_messages_and_its_answer():
    recs, rejects, warnings = run(api_log.read, LOG)
    assert not rejects and not warnings
    got = [(r["format"], r["metadata"]["speaker"], r["textChunks"][0]) for r in recs]
    assert got == [
        ("openai", "system", "Be brief."),
        ("openai", "user", "Why is the sky blue?"),
        ("openai", "assistant", "Rayleigh scattering."),
        ("openai", "user", "And sunsets red?"),  # the history sent again is not read again
        ("openai", "assistant", '[tool_use lookup] {"q":"sunset"}'),
        ("openai", "tool", "[tool_result lookup] Longer path through air."),
        ("openai", "assistant", "The light travels a longer path, blue scatters out."),
        ("anthropic", "system", "You are terse."),
        ("anthropic", "user", "Name a prime."),
        ("anthropic", "assistant", "7"),
    ]
    assert len({r["thread"] for r in recs[:7]}) == 1 and recs[7]["thread"] != recs[0]["thread"]
    assert recs[2]["id"] == "openai:chatcmpl-B1" and recs[2]["timestamp"] == "2025-05-01T10:00:01Z"
    assert recs[1]["timestamp"] == "2025-05-01T10:00:00Z"  # the line's time
    assert recs[2]["extra"]["call"]["usage"]["total_tokens"] == 24
    assert recs[9]["id"] == "anthropic:msg_01XFDUDYJgAACzvnptvVoYEL"
    assert len({r["id"] for r in recs}) == len(recs)


def test_an_edited_history_is_read_from_where_it_changes(tmp_path):
    lines = LOG.read_text().splitlines()
    edited = lines[1].replace("And sunsets red?", "And sunsets orange?")
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join([lines[0], lines[1], edited]) + "\n")
    recs, _, _ = run(api_log.read, path)
    said = [r["textChunks"][0] for r in recs]
    assert said.count("Why is the sky blue?") == 1 and "And sunsets orange?" in said


def test_a_line_that_is_no_call_is_rejected(tmp_path):
    path = tmp_path / "calls.jsonl"
    path.write_text(LOG.read_text().splitlines()[0] + '\n{"request": {"model": "x"}}\n')
    recs, rejects, _ = run(api_log.read, path)
    assert len(recs) == 3 and [r.where for r in rejects] == ["calls.jsonl:2"]


def test_responses_api_calls():
    """A Responses API log: ``input`` as a string with ``instructions``, a call going on
    from ``previous_response_id`` (only the new input sent), reasoning in the output, and
    a function call whose next request sends the whole history again."""
    recs, rejects, warnings = run(api_log.read, FIXTURES / "api_log" / "responses_calls.jsonl")
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs]
    assert got == [
        ("system", "Answer in one line."),
        ("user", "What is the capital of France?"),
        ("assistant", "Paris."),
        ("user", "And of Italy?"),
        ("assistant", "Rome."),
        ("user", "Weather in Oslo?"),
        ("assistant", '[tool_use get_weather] {"city":"Oslo"}'),
        ("tool", "[tool_result get_weather] 4 C, rain"),
        ("assistant", "4 C and raining in Oslo."),
    ]
    assert {r["format"] for r in recs} == {"openai-responses"}
    assert recs[3]["thread"] == recs[0]["thread"] != recs[5]["thread"]  # previous_response_id
    assert recs[4]["extra"]["thinking"] == [{"id": "rs_1", "summary": ["Simple geography."]}]
    assert recs[7]["replyTo"] == "openai:fc_1" and recs[2]["timestamp"] == "2025-06-01T09:00:01Z"


def test_every_choice_is_read_and_the_one_gone_on_with_not_twice(tmp_path):
    """A call asking ``n`` = 2: both choices are the assistant's (the second at
    ``#response.choice-1``, id ``<id>:1``); the next call sends the second back, which
    is not read again; a choice without a message beside them is rejected."""
    import orjson

    first, second = (FIXTURES / "api_log" / "chat_calls.jsonl").read_text().splitlines()
    call = orjson.loads(first)
    choice = call["response"]["choices"][0]
    other = {**choice, "message": {**choice["message"], "content": "Zebrafinch scattering."}}
    call["response"]["choices"] = [other, {**choice, "index": 1}, {"index": 2}]
    path = tmp_path / "calls.jsonl"
    path.write_text(orjson.dumps(call).decode() + "\n" + second + "\n")
    recs, rejects, warnings = run(api_log.read, path)
    got = [(r["source_id"].split("#", 1)[1], r["textChunks"][0]) for r in recs]
    assert got == [
        ("msg-1", "Be brief."),
        ("msg-2", "Why is the sky blue?"),
        ("response", "Zebrafinch scattering."),
        ("response.choice-1", "Rayleigh scattering."),
        ("msg-4", "And sunsets red?"),
        ("response", "The light travels a longer path, so blue scatters out."),
    ]
    assert recs[3]["id"] == recs[2]["id"] + ":1"
    assert [r.where for r in rejects] == ["calls.jsonl:1#response.choice-2"]
    assert not warnings
