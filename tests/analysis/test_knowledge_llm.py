"""The LLM extractor (``convo.analysis.knowledge.llm``) against a local stub of an
OpenAI-compatible chat endpoint (``http.server`` in a thread): what it sends, good
replies, malformed replies, errors and timeouts, and ``convo knowledge --extractor llm``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import records
from convo.analysis.knowledge.extract import plain_all
from convo.analysis.knowledge.llm import (
    SCHEMA,
    Failure,
    Refiner,
    Settings,
    ask,
    validate,
)
from convo.cli.app import app
from llm_stub import GOOD, Stub, completion

CHAT = str(Path(__file__).resolve().parents[1] / "fixtures" / "knowledge" / "chat.jsonl")


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.close()


def _settings(stub: Stub, **kw) -> Settings:
    return Settings(stub.url, "stub-model", kw.pop("api_key", None), kw.pop("timeout", 5.0))


def test_sends_typeagents_schema_and_the_text(stub):
    k = ask(_settings(stub, api_key="sk-test"), "Dave broke the deploy pipeline")
    headers, body = stub.requests[0]
    assert body["path"] == "/v1/chat/completions"
    assert body["model"] == "stub-model" and body["temperature"] == 0
    prompt = body["messages"][0]["content"]
    assert 'JSON objects of type "KnowledgeResponse"' in prompt
    assert SCHEMA.strip() in prompt and '"""\nDave broke the deploy pipeline\n"""' in prompt
    assert headers["Authorization"] == "Bearer sk-test"
    assert k["topics"] == ["deploy pipeline failure"]


def test_no_key_sends_no_authorization(stub):
    ask(_settings(stub), "hello")
    assert "Authorization" not in stub.requests[0][0]


def test_a_good_reply_is_validated_into_convos_shape(stub):
    k = ask(_settings(stub), "x")
    assert k["entities"][0] == {"name": "Dave", "type": ["person"], "facets": None}
    assert k["entities"][1]["facets"][1] == {
        "name": "weight",
        "value": {"amount": 4, "units": "kg"},
    }
    fix, broke = k["actions"]
    assert fix == {
        "verbs": ["fix"], "verbTense": "future", "subjectEntityName": "Dave",
        "objectEntityName": "deploy pipeline", "indirectObjectEntityName": "none",
        "params": None, "subjectEntityFacet": None,
    }  # fmt: skip
    assert broke["params"] == ["twice", {"name": "when", "value": "today"}]
    assert k["inverse_actions"] == []


def test_a_fenced_answer_is_read(stub):
    stub.reply = lambda body: (200, completion("```json\n" + json.dumps(GOOD) + "\n```"))
    assert ask(_settings(stub), "x")["topics"] == ["deploy pipeline failure"]


@pytest.mark.parametrize(
    ("status", "data", "reason"),
    [
        (500, b"{}", "HTTP 500"),
        (200, b"not json", "not a chat completion"),
        (200, json.dumps({"choices": []}).encode(), "not a chat completion"),
        (200, completion("I cannot help with that."), "not JSON"),
        (200, completion("[1, 2]"), "not a JSON object"),
        (200, completion(json.dumps({"entities": []})), "no actions list"),
        (200, completion(json.dumps(GOOD | {"topics": [1]})), "topics is not a list of strings"),
        (200, completion(json.dumps(GOOD | {"entities": [{"type": []}]})), "an entity has no name"),
        (200, completion(json.dumps(GOOD | {"actions": [{"verbs": ["x"], "verbTense": "soon"}]})),
         "tense is 'soon'"),
        (200, completion(json.dumps(GOOD | {"actions": [{"verbs": "x"}]})), "verbs"),
    ],
)  # fmt: skip
def test_malformed_replies_fail_with_a_reason(stub, status, data, reason):
    stub.reply = lambda body: (status, data)
    with pytest.raises(Failure, match=reason):
        ask(_settings(stub), "x")


def test_a_slow_answer_times_out(stub):
    stub.delay = 1.0
    with pytest.raises(Failure, match=r"no answer .* within 0\.2 s"):
        ask(_settings(stub, timeout=0.2), "x")


def test_an_unreachable_endpoint_fails():
    with pytest.raises(Failure, match="cannot reach"):
        ask(Settings("http://127.0.0.1:9/v1", "m", None, 2.0), "x")


def test_validate_reads_camel_and_snake_case_inverse_actions():
    data = GOOD | {"inverseActions": [{"verbs": ["fixed by"], "subjectEntityName": None}]}
    del data["inverse_actions"]
    assert validate(data)["inverse_actions"][0]["subjectEntityName"] == "none"


def _records() -> list[dict]:
    return [json.loads(x) for x in Path(CHAT).read_bytes().splitlines()]


def test_refiner_adds_the_models_knowledge_and_keeps_the_metadata(stub):
    refine = Refiner(_settings(stub))
    record, plain = next(iter(plain_all(_records())))
    people = [e["name"] for e in plain["entities"] if "person" in e["type"]]
    k = refine(record, json.loads(json.dumps(plain)))
    names = [e["name"] for e in k["entities"]]
    assert names[: len(people)] == people and "deploy pipeline" in names
    assert [a for a in plain["actions"] if a["verbs"][0] == "say"] == k["actions"][
        : len([a for a in plain["actions"] if a["verbs"][0] == "say"])
    ]
    assert k["topics"][0] == "deploy pipeline failure"
    assert (refine.asked, refine.failed, refine.warning()) == (1, 0, None)


def test_refiner_falls_back_per_message_and_counts(stub):
    answers = iter([(200, completion("oops")), (200, completion(json.dumps(GOOD)))])
    stub.reply = lambda body: next(answers, (500, b""))
    refine = Refiner(_settings(stub))
    pairs = list(plain_all(_records()))
    out = [refine(r, json.loads(json.dumps(p))) for r, p in pairs]
    assert out[0] == pairs[0][1]  # convo's own, unchanged
    assert "deploy pipeline failure" in out[1]["topics"]
    assert out[2] == pairs[2][1]
    assert refine.asked == len(pairs) and refine.failed == len(pairs) - 1
    assert refine.warning() == (
        f"llm extractor: {len(pairs) - 1} of {len(pairs)} messages kept convo's own knowledge "
        "(first: the model's answer is not JSON)"
    )


def test_a_message_without_text_is_not_sent(stub):
    refine = Refiner(_settings(stub))
    k = {"entities": [], "actions": [], "inverse_actions": [], "topics": []}
    assert refine({"textChunks": ["[tool_result x] 42"], "role": "tool"}, k) is k
    assert stub.requests == [] and refine.asked == 0


def test_cli_knowledge_with_the_llm_extractor(runner, stub):
    result = runner.invoke(app, ["knowledge", "-f", "jsonl", "--extractor", "llm",
                                 "--llm-url", stub.url, "--llm-model", "m", CHAT])  # fmt: skip
    assert result.exit_code == 0, result.output
    out = records(result.stdout)
    assert len(out) == len(stub.requests) == len(_records())
    assert all("deploy pipeline failure" in o["knowledge"]["topics"] for o in out)


def test_cli_summary_with_the_llm_extractor_from_the_environment(runner, stub, monkeypatch):
    monkeypatch.setenv("CONVO_LLM_URL", stub.url)
    monkeypatch.setenv("CONVO_LLM_MODEL", "m")
    monkeypatch.setenv("CONVO_LLM_KEY", "sk-env")
    result = runner.invoke(app, ["knowledge", "-f", "json", "--extractor", "llm", CHAT])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "deploy pipeline failure" in [t["topic"] for t in data["topics"]]
    assert stub.requests[0][0]["Authorization"] == "Bearer sk-env"


def test_cli_fallbacks_are_one_warning(runner, stub):
    stub.reply = lambda body: (200, completion("nope"))
    result = runner.invoke(app, ["knowledge", "-f", "jsonl", "--extractor", "llm",
                                 "--llm-url", stub.url, "--llm-model", "m", CHAT])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.count("llm extractor:") == 1
    assert "kept convo's own knowledge (first: the model's answer is not JSON)" in result.stderr
    plain = runner.invoke(app, ["knowledge", "-f", "jsonl", CHAT])
    assert result.stdout == plain.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--extractor", "llm"], "needs the chat endpoint"),
        (["--extractor", "llm", "--llm-url", "http://x/v1"], "needs a model"),
        (["--extractor", "llm", "--llm-url", "ftp://x", "--llm-model", "m"], "http(s) URL"),
        (["--extractor", "magic"], "no extractor 'magic'"),
        (["--extractor", "llm", "--llm-url", "http://x/v1", "--llm-model", "m",
          "--metadata-only"], "do not go together"),
    ],
)  # fmt: skip
def test_cli_bad_llm_options_are_one_line(runner, monkeypatch, args, says):
    for name in ("CONVO_LLM_URL", "CONVO_LLM_MODEL", "CONVO_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent")
    result = runner.invoke(app, ["knowledge", *args, CHAT])
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.stderr
