"""Conformance with AgentScope's ``Msg`` documentation (fields and content blocks).

Each test names the passage it checks. A ``Msg`` is read from its ``to_dict()`` form
(``id``, ``name``, ``role``, ``content``, ``metadata``, ``timestamp``) by the agentscope
importer and written back by the agentscope exporter.
"""

from __future__ import annotations

import orjson
import pytest

from convo.output import exporters as ex
from convo.output.exporters.common import blocks
from convo.pipeline.ingest import read_messages

BLOCKS = {
    "text": {"type": "text", "text": "Hello AgentScope!"},
    "thinking": {"type": "thinking", "thinking": "Hmm, let me think..."},
    "image": {"type": "image", "source": {"type": "url", "url": "https://xxx/image.jpg"}},
    "video": {"type": "video", "source": {"type": "url", "url": "https://xxx/video.mp4"}},
    "audio": {"type": "audio", "source": {"type": "url", "url": "https://xxx/audio.mp3"}},
    "audio-base64": {
        "type": "audio",
        "source": {"type": "base64", "media_type": "audio/wav", "data": "UklGRg=="},
    },
    "tool_use": {"type": "tool_use", "id": "xxxx", "name": "search", "input": {"query": "..."}},
    "tool_result": {"type": "tool_result", "id": "xxxx", "name": "search", "output": "..."},
}


def msg(content, name="Friday", role="assistant", i=1, **kw):
    """A ``Msg.to_dict()``: every field of the table, with AgentScope's time format."""
    return {"id": f"msg-{i:020d}", "name": name, "role": role, "content": content,
            "metadata": kw.pop("metadata", {}), "timestamp": f"2024-05-02 14:30:0{i}.000",
            **kw}  # fmt: skip


def ingest(tmp_path, msgs):
    path = tmp_path / "agentscope.json"
    path.write_bytes(orjson.dumps(msgs))
    return list(read_messages(path, format="agentscope"))


def test_quick_examples(tmp_path):
    """Quick examples: a simple text message, a multimodal message, a tool call message."""
    simple = msg("Hello, I'm your assistant!", i=1)
    multimodal = msg([
        {"type": "text", "text": "How about this image?"},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/image.jpg"}},
    ], name="Bob", role="user", i=2)  # fmt: skip
    call = msg([{"type": "tool_use", "id": "xxxx", "name": "search",
                 "input": {"query": "What's the weather today?"}}], name="Alice", role="user",
               i=3)  # fmt: skip
    got = ingest(tmp_path, [simple, multimodal, call])
    assert [(m.speaker, m.role) for m in got] == [
        ("Friday", "assistant"), ("Bob", "user"), ("Alice", "user")
    ]  # fmt: skip
    assert got[0].text_chunks == ["Hello, I'm your assistant!"]
    assert got[1].extra["blocks"][1] == {"type": "image", "url": "https://example.com/image.jpg"}
    assert got[2].extra["blocks"][0]["input"] == {"query": "What's the weather today?"}
    assert ex.to_agentscope(got) == [simple, multimodal, call]


def test_fields(tmp_path):
    """Basic fields: id, name (the sender), role (user/assistant/system), content,
    timestamp (creation time), metadata (tool calls, reasoning traces...)."""
    m = msg("hi", name="Alice", role="user", metadata={"trace": ["step 1"]})
    (got,) = ingest(tmp_path, [m])
    assert got.id == m["id"] and got.speaker == "Alice" and got.role == "user"
    assert got.timestamp == "2024-05-02T14:30:01Z"
    assert got.extra["metadata"] == {"trace": ["step 1"]}
    # metadata survives export to another framework too
    assert ex.to_jianmu([got])[0]["metadata"]["trace"] == ["step 1"]


@pytest.mark.parametrize("kind", list(BLOCKS))
def test_every_content_block_type(tmp_path, kind):
    """Supported content block types: text, thinking, image, video, audio (url and base64
    sources), tool_use, tool_result; ingest → export is lossless."""
    m = msg([BLOCKS[kind]])
    (got,) = ingest(tmp_path, [m])
    block = blocks(got.serialize())[0]  # a text block is not stored: the chunk is it
    assert block["type"] == BLOCKS[kind]["type"]
    assert got.text_chunks and all(isinstance(c, str) for c in got.text_chunks)
    assert ex.to_agentscope([got]) == [m]


def test_blocks_rebuilt_for_agentscope_from_another_format(tmp_path):
    """content blocks: a message from another framework gets AgentScope blocks (source
    dicts for media, tool_use/tool_result with id and name)."""
    path = tmp_path / "anthropic.json"
    path.write_bytes(orjson.dumps({"messages": [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "x"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "found"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBO"}}]},
    ]}))  # fmt: skip
    out = ex.to_agentscope(list(read_messages(path, format="anthropic")))
    assert out[0]["content"][0] == {"type": "tool_use", "id": "t1", "name": "search",
                                    "input": {"q": "x"}}  # fmt: skip
    result, image = out[1]["content"]
    assert result == {"type": "tool_result", "id": "t1", "name": "search", "output": "found"}
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": "iVBO"}}  # fmt: skip


def test_redacted_thinking_is_a_thinking_block(tmp_path):
    """Supported content block types: ``thinking`` is the model's reasoning; Anthropic's
    redacted thinking is written as one (nothing readable in it), not as a text block
    that would become the message's text on import."""
    path = tmp_path / "anthropic.json"
    path.write_bytes(orjson.dumps({"messages": [{"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "text", "text": "Done."}]}]}))  # fmt: skip
    got = list(read_messages(path, format="anthropic"))
    (out,) = ex.to_agentscope(got)
    assert out["content"] == [
        {"type": "thinking", "thinking": ""},
        {"type": "text", "text": "Done."},
    ]
    back = ingest(tmp_path, [out])
    assert [m.text_chunks for m in back] == [m.text_chunks for m in got]
