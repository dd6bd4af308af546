"""A file's ids and threads do not depend on how its path is typed (docs/ids.md).

A conversation the data names no id for is the file (``FILE``, ``FILE#line-N``), the
file as ``build.file_scope`` names it: ``ft.jsonl``, ``sub/../ft.jsonl`` and an
absolute path are one file, so ``ingest --save`` from another folder adds nothing and
no folder ends up in ``thread``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from convo.pipeline.ingest import Ingest

_MSG = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
_LC = [
    {"type": "human", "data": {"content": "2+2?", "type": "human"}},
    {"type": "ai", "data": {"content": "4", "type": "ai"}},
]
_GEMINI = {"contents": [{"role": "user", "parts": [{"text": "2+2?"}]}]}
_RESPONSES = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
_VERCEL = {
    "messages": [
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "2+2?"}]},
        {"id": "m2", "role": "assistant", "parts": [{"type": "text", "text": "4"}]},
    ]
}

# (format, file name, lines): JSONL files whose conversations have no id.
CASES = [
    ("openai", "ft.jsonl", [{"messages": _MSG}, {"messages": [_MSG[0]]}]),
    ("sharegpt", "sg.jsonl", [{"conversations": [{"from": "human", "value": "a"}]}] * 2),
    ("hf-chat", "hf.jsonl", [{"messages": _MSG}, {"messages": _MSG[:1]}]),
    ("langchain", "lc.jsonl", [_LC, _LC[:1]]),
    ("gemini", "gem.jsonl", [_GEMINI, _GEMINI]),
    ("openai-responses", "items.jsonl", [_RESPONSES, _RESPONSES]),
    ("vercel-ai", "ui.jsonl", [_VERCEL, _VERCEL]),
]


def _read(path: str, fmt: str) -> list[tuple[str | None, str | None]]:
    run = Ingest(format_name=fmt, on_warning=lambda *_: None)
    return [(m.id, m.thread) for m in run.messages([path])]


@pytest.mark.parametrize(("fmt", "name", "lines"), CASES, ids=[c[0] for c in CASES])
def test_three_spellings_of_one_path_give_one_set_of_ids(tmp_path, monkeypatch, fmt, name, lines):
    folder = tmp_path / "exports"
    (folder / "sub").mkdir(parents=True)
    (folder / name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    monkeypatch.chdir(folder)
    spellings = [name, str(folder / name), f"sub/../{name}"]
    seen = [_read(p, fmt) for p in spellings]
    assert seen[0], fmt
    assert seen[0] == seen[1] == seen[2]
    for _, thread in seen[0]:
        assert thread is None or not thread.startswith(("/", "sub")), thread
    assert all(t is None or t.startswith(name) for _, t in seen[0]), seen[0]


def test_a_generic_name_keeps_its_folder_in_the_thread(tmp_path, monkeypatch):
    """``data.json`` (a name every export has) is scoped by its folder, whichever way the
    path is typed."""
    folder = tmp_path / "Run A"
    folder.mkdir()
    (folder / "data.json").write_text("".join(json.dumps({"messages": _MSG}) + "\n" for _ in "ab"))
    monkeypatch.chdir(tmp_path)
    one = _read("Run A/data.json", "openai")
    monkeypatch.chdir(folder)
    assert _read("data.json", "openai") == one
    assert {t for _, t in one} == {"Run A/data.json#line-1", "Run A/data.json#line-2"}


def test_a_file_moved_to_another_folder_keeps_its_ids(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    text = json.dumps({"messages": _MSG}) + "\n" + json.dumps({"messages": _MSG[:1]}) + "\n"
    (a / "ft.jsonl").write_text(text)
    (b / "ft.jsonl").write_text(text)
    assert _read(str(a / "ft.jsonl"), "openai") == _read(str(b / "ft.jsonl"), "openai")


def test_two_recordings_saved_as_transcript_json_keep_their_identical_lines(tmp_path: Path):
    """A speech engine's output saved under one name in two folders (two recordings, both
    timed from the epoch without ``--start-date``): the same "Okay." by the same label at
    the same offset is two messages, not one id (``build.GENERIC_NAMES``)."""
    doc = {
        "text": " Okay.",
        "segments": [{"id": 0, "start": 5.0, "end": 5.6, "text": " Okay."}],
        "language": "en",
    }
    ids = []
    for folder in ("monday", "tuesday"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "transcript.json"
        path.write_text(json.dumps(doc))
        ids += [i for i, _ in _read(str(path), "whisper")]
    assert len(ids) == 2 and len(set(ids)) == 2, ids


def test_two_meetings_saved_as_transcript_vtt_keep_their_identical_lines(tmp_path: Path):
    """Zoom transcripts saved as ``transcript.vtt`` (as most real ones found in public
    repositories are) in two folders, both timed from the epoch: the host's same
    "Okay, we're recording." at the same offset is two messages, not one id."""
    vtt = "WEBVTT\n\n1\n00:00:04.800 --> 00:00:07.400\nAnn Lee: Okay, we're recording.\n"
    ids = []
    for folder in ("standup-0301", "standup-0308"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "transcript.vtt"
        path.write_text(vtt)
        ids += [i for i, _ in _read(str(path), "vtt")]
    assert len(ids) == 2 and len(set(ids)) == 2, ids
