"""Batch API files: OpenAI's input (``{"custom_id", "method", "url", "body"}``) and
Anthropic's Message Batches requests (``{"custom_id", "params"}``) and results
(``{"custom_id", "result": {"type", "message"}}``). The requests and Anthropic's
results were "format not recognised"; now each request is the conversation it sends,
in the thread of its ``custom_id``, where its answer in the output is too."""

from __future__ import annotations

from conftest import ROOT
from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

DIR = ROOT / "tests/fixtures/agents/batch"


def _read(*names):
    rejects: list = []
    ing = Ingest(on_reject=rejects.append, on_warning=lambda w: None)
    recs = [m.serialize() for m in ing.messages([str(DIR / n) for n in names])]
    return recs, rejects


def test_openai_batch_input_and_output_share_threads():
    assert registry.detect(Source(DIR / "openai-batch-input.jsonl")).name == "openai"
    recs, rejects = _read("openai-batch-input.jsonl", "openai-batch-output.jsonl")
    assert not rejects
    got = [(r["thread"], r["format"], r["metadata"]["speaker"], r["textChunks"]) for r in recs]
    assert got == [
        ("kettle-1", "openai", "system", ["Answer in one line."]),
        ("kettle-1", "openai", "user", ["Why does my kettle click off early?"]),
        ("kettle-2", "openai", "user", ["How often should I descale it?"]),
        ("kettle-2", "openai-completion", "assistant", ["Every one to three months, more in hard water."]),
    ]  # fmt: skip
    conv = recs[0]["extra"]["conversation"]
    assert conv["model"] == "gpt-4o-mini"
    assert conv["batch"] == {"method": "POST", "url": "/v1/chat/completions"}


def test_anthropic_batch_requests_and_results():
    for name in ("anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl"):
        assert registry.detect(Source(DIR / name)).name == "anthropic"
    recs, rejects = _read("anthropic-batch-requests.jsonl", "anthropic-batch-results.jsonl")
    got = [(r["thread"], r["metadata"]["speaker"], r["textChunks"]) for r in recs]
    assert got == [
        ("kettle-1", "system", ["Answer in one line."]),
        ("kettle-1", "user", ["Why does my kettle click off early?"]),
        ("kettle-2", "user", ["How often should I descale it?"]),
        ("kettle-2", "assistant", ["Every one to three months, more in hard water."]),
    ]
    assert recs[3]["id"] == "msg_01KettleDescaleAnswer"
    # the failed requests are said, with their line and why
    assert [(r.where.rsplit("/", 1)[-1], r.reason) for r in rejects] == [
        ("anthropic-batch-results.jsonl:1", "batch request errored (max_tokens: must be at least 1)"),
        ("anthropic-batch-results.jsonl:3", "batch request expired"),
    ]  # fmt: skip
