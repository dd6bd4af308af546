"""A chat app's data export read as the zip it was downloaded as
(``convo.importers.apps.export_zip``): ChatGPT's (``conversations.json`` beside
``chat.html``, the account's side files and the uploaded images), claude.ai's
(``conversations.json``, ``users.json``, ``projects.json``) and DeepSeek's."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, run

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.plural import counted
from convo.importers.apps import chatgpt, claude_ai, deepseek
from convo.importers.registry import registry

KEEP = ("id", "textChunks", "metadata", "timestamp", "thread", "tags", "replyTo")


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _same(got: list[dict], want: list[dict]) -> None:
    assert got and [{k: r.get(k) for k in KEEP} for r in got] == [
        {k: r.get(k) for k in KEEP} for r in want
    ]


CASES = [
    ("chatgpt", chatgpt.read, FIXTURES / "chatgpt" / "conversations.json",
     {"chat.html": b"<html><script>var jsonData = [];</script></html>",
      "user.json": b'{"id": "user-1", "chatgpt_plus_user": true}',
      "file-abc-diagram.png": b"\x89PNG\r\n"}),
    ("claude-ai", claude_ai.read, FIXTURES / "claude_ai" / "conversations.json",
     {"users.json": b'[{"uuid": "u", "full_name": "Ann"}]', "projects.json": b"[]"}),
    ("deepseek", deepseek.read, FIXTURES / "deepseek" / "conversations.json",
     {"user.json": b'{"user_id": "1"}'}),
]  # fmt: skip


@pytest.mark.parametrize("name, read, conversations, others", CASES, ids=[c[0] for c in CASES])
def test_the_zip_reads_as_its_conversations_json(tmp_path, name, read, conversations, others):
    data = conversations.read_bytes()
    archive = _zip(tmp_path / "export.zip", {"conversations.json": data, **others})
    assert registry.detect(Source(archive)).name == name
    got, rejects, warnings = run(read, archive)
    want, _, _ = run(read, conversations)
    assert not rejects
    _same(got, want)
    assert all(r["source_id"].startswith("export.zip#conversations.json#") for r in got)
    shown = ", ".join(sorted(others)[:3])
    assert f"export.zip: {counted(len(others), 'zip member')} " in warnings[0]
    assert "no conversation of" in warnings[0]
    assert shown in warnings[0]


def test_chatgpt_s_split_conversations_are_each_read(tmp_path):
    one = FIXTURES / "chatgpt" / "conversations.json"
    archive = _zip(tmp_path / "export.zip", {
        "conversations-000.json": one.read_bytes(),
        "conversations-001.json": (FIXTURES.parent.parent.parent / "sample_data" / "chat" / "chatgpt-conversations.json").read_bytes(),
    })  # fmt: skip
    got, _, warnings = run(chatgpt.read, archive)
    members = {r["source_id"].split("#")[1] for r in got}
    assert members == {"conversations-000.json", "conversations-001.json"}
    assert not warnings or "hold no conversation" not in warnings[0]


def test_a_zip_without_conversations_is_none_of_these(tmp_path):
    archive = _zip(tmp_path / "photos.zip", {"a.png": b"\x89PNG\r\n"})
    for fmt in (chatgpt, claude_ai, deepseek):
        assert fmt.sniff(Source(archive)) == 0


def test_an_unsafe_member_is_rejected_and_the_rest_read(tmp_path):
    data = (FIXTURES / "chatgpt" / "conversations.json").read_bytes()
    archive = _zip(tmp_path / "export.zip", {"conversations.json": data, "../evil.txt": b"x"})
    got, rejects, _ = run(chatgpt.read, archive)
    assert got and [r.where for r in rejects] == ["export.zip#../evil.txt"]


def test_a_damaged_member_is_one_error_with_its_place(tmp_path):
    data = (FIXTURES / "chatgpt" / "conversations.json").read_bytes()
    archive = _zip(tmp_path / "export.zip", {"conversations.json": data[: len(data) // 2]})
    with pytest.raises(InputError) as e:
        run(chatgpt.read, archive)
    assert "export.zip#conversations.json" in str(e.value.where)
