"""Every agent-format file of the chat corpus imports, or fails with a located message."""

from __future__ import annotations

import pytest

from conftest import corpus_files, records
from convo.core.fields import original

AGENT_FILES = [
    p for p in corpus_files("chat") if p.name.startswith(("openai-", "claude-code-session-"))
]


@pytest.mark.parametrize("path", AGENT_FILES, ids=lambda p: p.name)
def test_agent_corpus_file(path, runner):
    from convo.cli.app import app

    result = runner.invoke(app, ["ingest", str(path), "-o", "-"])
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output
    recs = records(result.stdout)
    assert recs, result.output
    expected = "openai" if path.name.startswith("openai-") else "anthropic"
    assert {r["format"] for r in recs} == {expected}
    for r in recs:  # the source's message, stored or stood for by the record
        assert r["textChunks"] and original(r, expected)
    if result.exit_code == 1:  # rejections are located file:LINE
        for line in result.stderr.splitlines():
            if "rejected:" in line:
                assert f"{path}:" in line


def test_openai_finetune_tool_calls():
    from convo.pipeline.ingest import read_messages

    path = next((p for p in AGENT_FILES if p.name.startswith("openai-finetune")), None)
    if path is None:
        pytest.skip("corpus absent")
    msgs = list(read_messages(path))
    assert [m.role for m in msgs] == ["system", "user", "assistant"]
    call = msgs[2].extra["blocks"][0]
    assert call == {"type": "tool_use", "id": "call_id", "name": "takeoff_drone",
                    "input": {"altitude": 100}}  # fmt: skip
    assert "tools" in msgs[0].extra["conversation"]
    assert msgs[2].text_chunks == ['[tool_use takeoff_drone] {"altitude":100}']
