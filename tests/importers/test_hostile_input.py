"""Regressions for hostile values in forum, transcript and XML input (issue 20) and the
transcript timing fixes of issue 15: each bad record is rejected (counted, located) or
warned about, the rest of the file imports, and nothing raises but convo's own errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers import xmlstream
from convo.importers.context import ImportContext, ImportOptions, Rejection
from convo.importers.registry import registry


class Run:
    def __init__(self, fmt: str, path: Path, **options: Any):
        self.rejections: list[Rejection] = []
        self.warnings: list[str] = []
        source = Source(path)
        ctx = ImportContext(
            source,
            ImportOptions(**options),
            on_reject=self.rejections.append,
            on_warning=self.warnings.append,
        )
        self.messages: list[ConversationMessage] = list(registry.get(fmt).read(source, ctx))


def _write(tmp_path: Path, name: str, data: bytes | str | Any) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif not isinstance(data, bytes):
        data = json.dumps(data).encode("utf-8")
    path.write_bytes(data)
    return path


def _discourse(*posts: dict) -> dict:
    return {"id": 7, "title": "T", "post_stream": {"posts": list(posts)}}


def _post(ident: Any, number: int, **extra: Any) -> dict:
    return {"id": ident, "post_number": number, "username": f"u{number}", "raw": f"post {number}",
            "created_at": "2024-01-02T03:04:05Z", **extra}  # fmt: skip


def test_discourse_actions_summary_not_a_list_is_ignored(tmp_path):
    doc = _discourse(_post(1, 1, actions_summary=True), _post(2, 2, actions_summary={"id": 2}))
    run = Run("discourse", _write(tmp_path, "t.json", doc))
    assert [m.text_chunks for m in run.messages] == [["post 1"], ["post 2"]]
    assert not run.rejections


def test_discourse_superscript_id_is_rejected_and_the_rest_imports(tmp_path):
    doc = _discourse(_post("²", 1), _post(2, 2), _post("3", 3))
    run = Run("discourse", _write(tmp_path, "t.json", doc))
    scope = tmp_path.name.lower()  # no avatar host in the file: its folder names the instance
    assert [m.id for m in run.messages] == [
        f"discourse:{scope}:post:2",
        f"discourse:{scope}:post:3",
    ]
    assert len(run.rejections) == 1
    assert run.rejections[0].where.endswith("t.json#post-1")
    assert "id" in run.rejections[0].reason


def test_github_labels_and_assignees_not_lists_are_ignored(tmp_path):
    issue = {"number": 4, "title": "Crash", "body": "it crashes", "user": {"login": "al"},
             "url": "https://api.github.com/repos/o/r/issues/4", "labels": True,
             "assignees": 5}  # fmt: skip
    run = Run(
        "github",
        _write(tmp_path, "i.json", [issue, {**issue, "number": 5, "labels": [{"name": "bug"}]}]),
    )
    assert [m.tags for m in run.messages] == [[], ["bug"]]


@pytest.mark.parametrize(
    "encoding, codec",
    [("Shift_JIS", "shift_jis"), ("EUC-JP", "euc_jp"), ("GBK", "gbk"), ("Big5", "big5"),
     ("UTF-7", "utf_7")],
)  # fmt: skip
def test_xml_declared_in_asian_encodings_and_utf7_is_read(tmp_path, encoding, codec):
    text = (
        f'<?xml version="1.0" encoding="{encoding}"?>\n<posts>\n'
        '<row Id="1" PostTypeId="1" CreationDate="2020-01-01T00:00:00" OwnerDisplayName="李" '
        'Title="題" Body="&lt;p&gt;中文 本&lt;/p&gt;" />\n</posts>\n'
    )
    run = Run("stackexchange", _write(tmp_path, "Posts.xml", text.encode(codec)))
    assert [m.text_chunks for m in run.messages] == [["中文 本"]]
    assert run.messages[0].metadata.speaker == "李"


def test_xml_with_an_unknown_declared_encoding_is_one_located_error(tmp_path):
    path = _write(tmp_path, "Posts.xml", b'<?xml version="1.0" encoding="x-klingon"?>\n<posts/>')
    with pytest.raises(InputError) as e:
        Run("stackexchange", path)
    assert e.value.where == f"{path}:1"
    assert "encoding" in e.value.what


def test_xml_token_over_the_cap_is_refused_with_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(xmlstream, "MAX_TOKEN_BYTES", 200_000)
    monkeypatch.setattr(xmlstream, "CHUNK", 4096)
    body = "x" * 300_000
    path = _write(
        tmp_path, "Posts.xml", f'<posts>\n<row Id="1" PostTypeId="1" Body="{body}" />\n</posts>'
    )
    with pytest.raises(InputError) as e:
        Run("stackexchange", path)
    assert e.value.where == f"{path}:2"
    assert "longer than" in e.value.what


def test_xml_large_token_under_the_cap_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(xmlstream, "CHUNK", 4096)  # many feeds: the pending token grows reads
    body = "word " * 100_000
    text = f'<posts>\n<row Id="1" PostTypeId="1" OwnerDisplayName="a" Body="{body}" />\n</posts>'
    run = Run("stackexchange", _write(tmp_path, "Posts.xml", text))
    assert run.messages[0].text_chunks[0].startswith("word word")


def test_vtt_huge_hours_are_rejected_and_the_rest_imports(tmp_path):
    text = (
        "WEBVTT\n\n"
        "99999999999999999999:00:00.000 --> 99999999999999999999:00:01.000\nlost\n\n"
        "00:00:01.000 --> 00:00:02.000\nkept\n"
    )
    run = Run("vtt", _write(tmp_path, "x.vtt", text))
    assert [m.text_chunks for m in run.messages] == [["kept"]]
    assert [r.where for r in run.rejections] == [f"{tmp_path / 'x.vtt'}:3"]


def test_vtt_start_date_near_year_9999_leaves_time_unknown(tmp_path):
    from datetime import UTC, datetime

    text = "WEBVTT\n\n9999:00:00.000 --> 9999:00:01.000\nlate\n"
    run = Run("vtt", _write(tmp_path, "x.vtt", text), start_date=datetime(9999, 12, 1, tzinfo=UTC))
    assert [m.timestamp for m in run.messages] == [None]
    assert any("9999" in w for w in run.warnings)


def test_teams_unpadded_timings_read_as_milliseconds(tmp_path):
    # Teams writes 0:4:6.80 for 4 min 6.080 s (fields without leading zeros)
    text = (
        "WEBVTT\n\n0:4:6.80 --> 0:4:6.530\n<v Ann>one</v>\n\n"
        "0:4:7.5 --> 0:4:8.0\n<v Bob>two</v>\n\n"
        "00:04:09.50 --> 00:04:10.000\n<v Ann>three</v>\n"
    )
    run = Run("vtt", _write(tmp_path, "teams.vtt", text))
    got = [(m.extra["start"], m.extra["end"]) for m in run.messages]
    # padded fields keep the usual decimal reading (.50 = 500 ms)
    assert got == [(246.08, 246.53), (247.005, 248.0), (249.5, 250.0)]


def test_cue_ending_before_it_starts_is_warned(tmp_path):
    text = "1\n00:00:05,000 --> 00:00:04,000\nbackwards\n\n2\n00:00:06,000 --> 00:00:07,000\nfine\n"
    run = Run("srt", _write(tmp_path, "x.srt", text))
    assert len(run.messages) == 2
    assert [w for w in run.warnings if "ends before it starts" in w] == [
        f"{tmp_path / 'x.srt'}:1: cue 1 ends before it starts; kept as timed"
    ]


def test_whatsapp_damaged_header_is_its_own_message_not_glued(tmp_path):
    text = (
        "1/23/23, 3:21 AM - User 2: hello\nsecond line\n"
        "1/23/23, 3:22_AM - User 1: damaged one\n"
        "1/23/23, 3:23 AM - User 2: ok\n"
    )
    path = _write(tmp_path, "chat.txt", text)
    run = Run("whatsapp", path)
    got = [(m.metadata.speaker, m.text_chunks, m.timestamp) for m in run.messages]
    assert got == [
        ("User 2", ["hello\nsecond line"], "2023-01-23T03:21:00Z"),
        ("User 1", ["damaged one"], None),
        ("User 2", ["ok"], "2023-01-23T03:23:00Z"),
    ]
    assert run.messages[1].extra == {"damaged_header": True}
    assert run.warnings == [
        f"{path}:3: damaged message header; read as its own message, time unknown"
    ]


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be"])
@pytest.mark.parametrize(
    "fmt, name, text",
    [
        ("vtt", "x.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>héllo</v>\n"),
        ("srt", "x.srt", "1\n00:00:01,000 --> 00:00:02,000\nAnn: héllo\n"),
        ("whatsapp", "chat.txt", "1/23/23, 3:21 AM - Ann: héllo\n"),
        ("zoomchat", "zoom.txt", "00:00:01\tAnn:\théllo\n"),
    ],
)
def test_utf32_with_bom_is_read(tmp_path, codec, fmt, name, text):
    # Read with --from: detecting UTF-32 also needs core.io.decode_text to know its BOM.
    bom = b"\xff\xfe\x00\x00" if codec.endswith("le") else b"\x00\x00\xfe\xff"
    run = Run(fmt, _write(tmp_path, name, bom + text.encode(codec)))
    assert [(m.metadata.speaker, m.text_chunks) for m in run.messages] == [("Ann", ["héllo"])]


@pytest.mark.parametrize("pad", range(4))
@pytest.mark.parametrize("char", ["\u00e9", "\u4f1a", "\U0001f4ac"])
def test_a_head_cut_inside_a_character_decodes_as_utf8(pad, char):
    """The sniffing head ends where ``HEAD_BYTES`` cut it, inside a 2-, 3- or 4-byte
    character as often as not: the text before the cut is still read as UTF-8 (not as
    cp1252 mojibake, which sniffers of names and words would not match)."""
    from convo.core.io import HEAD_BYTES, decode_text

    data = ("a" * pad + char * HEAD_BYTES).encode()[:HEAD_BYTES]
    text = decode_text(data, errors="replace")
    assert text.startswith("a" * pad + char * 10)
    assert set(text[pad:]) == {char}
