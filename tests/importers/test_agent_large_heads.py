"""A message list larger than the sniffing head, under a name that says nothing, is
detected as the same format as its small self (``agents.samples.leading_elements``).

The sniffers parse the head whole; an array the head cut parsed to nothing, so a
long Vercel AI chat was read as OpenAI messages, a long Gemini CLI ``logs.json`` or a
long renamed Cline task (then read as Anthropic messages, its ``ts`` lost) was not
recognised, and a long LangMem thread list was taken for AgentScope.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES

from conftest import SAMPLE_DATA
from convo.core.io import Source
from convo.importers.agents.samples import leading_elements, sample_values
from convo.importers.registry import registry

SMALL = (
    FIXTURES / "vercel_ai" / "v4-messages.json",
    FIXTURES / "gemini_cli" / "logs.json",
    FIXTURES / "cline" / "tasks" / "1717405200000" / "api_conversation_history.json",
    SAMPLE_DATA / "chat" / "langmem.json",
)


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.parent.name + "/" + p.name)
def test_long_list_renamed_keeps_its_format(path, tmp_path):
    items = json.loads(path.read_text())
    assert isinstance(items, list) and items
    k = 1
    while len(json.dumps(items * k)) < 150_000:
        k *= 2
    big = tmp_path / "export.json"
    big.write_text(json.dumps(items * k))
    assert registry.detect(Source(big)).name == registry.detect(Source(path)).name


def test_leading_elements_of_a_cut_array():
    text = json.dumps([{"a": 1}, [2, "x]"], "s", {"b": {"c": [3]}}])
    whole = json.loads(text)
    for cut in range(len(text) + 1):
        got = leading_elements(text[:cut])
        assert got == whole[: len(got)]
    assert leading_elements(text) == whole
    assert leading_elements('{"a": [1, 2') == [] and leading_elements("") == []
    assert sample_values(text[:-5]) == whole[:3]
