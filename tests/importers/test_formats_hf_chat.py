"""Hugging Face chat datasets with ``{"type": "text", "value": ...}`` parts (``hf-chat``).

Fixtures follow TRL's conversational dataset formats (huggingface.co/docs/trl/
dataset_formats: ``messages``; ``prompt`` + ``completion``) and the multimodal parts of
HuggingFaceH4/llava-instruct-mix-vsft (``{"type": "image", "index": 0, "text": null}`` with
an ``images`` column); the ``value`` spelling of text parts is the one issue 15 reports
as read empty by the OpenAI reader.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import hf_chat
from convo.importers.registry import registry

DIR = FIXTURES / "hf_chat"


def test_golden_and_rejects():
    recs, rejects, warnings = run(hf_chat.read, DIR / "chat.jsonl")
    assert_golden("formats/hf_chat/chat.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("chat.jsonl#line-4", "not a chat sample (no messages list)"),
        ("chat.jsonl#line-5.msg-1", "not a chat message (expected an object)"),
    ]
    assert len(warnings) == 1


def test_value_parts_are_text_not_empty():
    recs, _, _ = run(hf_chat.read, DIR / "chat.jsonl")
    texts = [r["textChunks"] for r in recs]
    assert ["[image]", "Who wrote this book?"] in texts
    assert ["Capital of Peru?"] in texts and ["Lima."] in texts
    assert not any(c == "" for t in texts for c in t)


def test_prompt_completion_and_columns():
    recs, _, _ = run(hf_chat.read, DIR / "chat.jsonl")
    assert recs[0]["thread"] == "vqa-0"
    assert recs[0]["extra"]["conversation"]["images"] == ["covers/frankenstein.jpg"]
    assert recs[0]["extra"]["original"]["content"][1]["value"] == "Who wrote this book?"
    four = next(r for r in recs if r["textChunks"] == ["4"])
    assert four["extra"]["completion"] is True and four["role"] == "assistant"
    assert four["metadata"] == {"speaker": "assistant", "listeners": ["user"]}


def test_sniff_leaves_plain_openai_files_alone():
    assert hf_chat.sniff(Source(DIR / "chat.jsonl")) >= 85
    assert hf_chat.sniff(Source(DIR / "plain-openai.jsonl")) == 0
    reg = fresh_registry(hf_chat)
    assert detect_name(reg, DIR / "plain-openai.jsonl") == "openai"
    assert detect_name(reg, DIR / "chat.jsonl") == "hf-chat"


def test_normalise_keeps_text_when_both():
    msg = {"role": "user", "content": [{"type": "text", "text": "a", "value": "b"}]}
    assert hf_chat.normalise(msg)["content"] == [{"type": "text", "text": "a", "value": "b"}]


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "chat.jsonl")).name == "hf-chat"


def test_trl_dataset_formats():
    """TRL's other dataset formats (huggingface.co/docs/trl/dataset_formats) were
    "format not recognised": prompt-completion (conversational and standard),
    preference with an explicit or implicit prompt. The rejected answer is kept in the
    conversation's columns, not made a turn."""
    path = DIR / "trl-formats.jsonl"
    assert registry.detect(Source(path)).name == "hf-chat"
    recs, rejects, _ = run(hf_chat.read, path)
    got = [
        (
            r["thread"],
            r["metadata"]["speaker"],
            r["textChunks"],
            r.get("extra", {}).get("completion"),
        )
        for r in recs
    ]
    assert got == [
        ("pc-1", "user", ["What colour is the sky?"], None),
        ("pc-1", "assistant", ["Blue, on a clear day."], True),
        ("std-1", "user", ["The kettle boils at"], None),
        ("std-1", "assistant", [" 100 degrees Celsius."], True),
        ("pref-1", "user", ["Is the kettle safe?"], None),
        ("pref-1", "assistant", ["Yes, it switches off on its own."], True),
        ("pref-2", "user", ["Descale how often?"], None),
        ("pref-2", "assistant", ["Monthly."], None),
    ]  # fmt: skip
    assert recs[4]["extra"]["conversation"]["rejected"][0]["content"] == "Who knows."
    assert recs[6]["extra"]["conversation"] == {
        "id": "pref-2",
        "rejected": [
            {"role": "user", "content": "Descale how often?"},
            {"role": "assistant", "content": "Never."},
        ],
    }
    assert "original" not in recs[2].get("extra", {})  # a string column: no message object
    assert [r.where for r in rejects] == ["trl-formats.jsonl#line-5"]


def test_alpaca_format():
    """Alpaca (LLaMA-Factory's ``alpaca`` format: instruction, input, output, system,
    history) was "format not recognised"."""
    path = DIR / "alpaca.json"
    assert registry.detect(Source(path)).name == "hf-chat"
    recs, rejects, _ = run(hf_chat.read, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("user", ["Give two tips for descaling a kettle."]),
        ("assistant", ["1. Use citric acid.\n2. Rinse twice."]),
        ("system", ["You translate."]),
        ("user", ["Translate to French: hello"]),
        ("assistant", ["Bonjour"]),
        ("user", ["Translate to French.\nThe kettle is hot."]),
        ("assistant", ["La bouilloire est chaude."]),
    ]
    assert len({r["thread"] for r in recs}) == 2
    assert all("conversation" not in r.get("extra", {}) for r in recs)
