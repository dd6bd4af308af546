"""ChatGPT's ``chat.html`` (``convo.importers.apps.chatgpt_html``): the export's offline
viewer, whose script assigns the conversations (``var jsonData = [...];``, then
``var assetsJson``, then the viewer's code), as the export's readers find it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from formats_helpers import FIXTURES, run

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.apps import chatgpt
from convo.importers.registry import registry

EXPORT = FIXTURES / "chatgpt" / "conversations.json"


def _page(data: bytes) -> bytes:
    return (
        b'<html>\n<head><meta charset="UTF-8"><title>ChatGPT Data Export</title>'
        b'<style>body { margin: 0 }</style></head>\n<body>\n<div id="root"></div>\n<script>\n'
        b"var jsonData = " + data + b";\n"
        b'var assetsJson = {"file-abc": "file-abc-diagram.png"};\n'
        b"function buildConversation(c) { return [c.title]; }\n</script></body></html>\n"
    )


def _html(tmp_path: Path) -> Path:
    path = tmp_path / "alone" / "chat.html"
    path.parent.mkdir()
    path.write_bytes(_page(orjson.dumps(orjson.loads(EXPORT.read_bytes()))))
    return path


def test_detected_as_chatgpt():
    assert registry.detect(Source(EXPORT)).name == "chatgpt"


def test_alone_it_reads_as_conversations_json(tmp_path):
    page = _html(tmp_path)
    assert registry.detect(Source(page)).name == "chatgpt"
    got, rejects, _ = run(chatgpt.read, page)
    want, _, _ = run(chatgpt.read, EXPORT)
    assert not rejects and got
    keep = ("id", "textChunks", "metadata", "timestamp", "thread", "tags", "replyTo")
    assert [{k: r.get(k) for k in keep} for r in got] == [{k: r.get(k) for k in keep} for r in want]


def test_beside_conversations_json_it_is_not_read_twice(tmp_path):
    page = _html(tmp_path)
    (page.parent / "conversations.json").write_bytes(EXPORT.read_bytes())
    got, rejects, warnings = run(chatgpt.read, page)
    assert got == [] and not rejects
    assert any("the conversations of the conversations.json beside it" in w for w in warnings)


def test_a_page_cut_short_is_said_with_its_place(tmp_path):
    page = _html(tmp_path)
    data = page.read_bytes()
    page.write_bytes(data[: data.index(b"var assetsJson") - 200])
    with pytest.raises(InputError) as e:
        run(chatgpt.read, page)
    assert "chat.html" in str(e.value.where)
