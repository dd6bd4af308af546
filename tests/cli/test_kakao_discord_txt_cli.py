"""KakaoTalk exports, DiscordChatExporter's plain text and HTML, and WeChatMsg's exports through the
command line."""

from __future__ import annotations

import shutil

from conftest import ROOT, records
from convo.cli.app import app

FIX = ROOT / "tests" / "fixtures" / "formats"
KAKAO = FIX / "kakaotalk"
DCE = FIX / "discord_txt"
WECHAT = FIX / "wechat"


def test_a_folder_of_exports_goes_format_by_format(runner, tmp_path):
    html = FIX / "discord_html"
    for path in [
        *KAKAO.glob("*.txt"),
        *DCE.glob("*.txt"),
        WECHAT / "种子交换群.txt",
        *html.glob("*.html"),
    ]:
        shutil.copy(path, tmp_path / f"{path.parent.name}-{path.name}")
    shutil.copy(ROOT / "sample_data" / "chat" / "whatsapp.txt", tmp_path)
    r = runner.invoke(app, ["ingest", str(tmp_path)])
    assert r.exit_code == 1, r.output  # the HTML page's container without a snowflake
    assert "is not a Discord snowflake" in r.stderr
    formats = {m["format"] for m in records(r.stdout)}
    assert formats == {"kakaotalk", "discord", "wechat", "whatsapp"}


def test_tz_and_from(runner):
    r = runner.invoke(app, ["ingest", str(KAKAO / "pc_ko.txt"), "--tz", "Asia/Seoul"])
    assert r.exit_code == 0, r.output
    assert records(r.stdout)[0]["timestamp"] == "2024-12-09T00:05:00Z"
    r = runner.invoke(
        app,
        ["list", str(DCE / "dm-de.txt"), "--from", "discord-txt", "-f", "jsonl", "--tz", "+01:00"],
    )
    assert r.exit_code == 0, r.output
    assert [m["timestamp"] for m in records(r.stdout)] == [
        "2024-03-01T08:15:00Z",
        "2024-03-01T20:05:00Z",
    ]


def test_a_rejected_row_exits_1_and_is_kept(runner, tmp_path):
    rejects = tmp_path / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(KAKAO / "mac.csv"), "--rejects", str(rejects)])
    assert r.exit_code == 1
    assert "mac.csv:5" in r.stderr
    assert len(records(r.stdout)) == 2
    assert [k["raw"] for k in records(rejects.read_bytes())] == ["not a date,Ben,bad row"]


def test_warnings_reach_stderr(runner):
    path = DCE / "Garden club - Text Channels - general [1012224565567721552].txt"
    r = runner.invoke(app, ["ingest", str(path)])
    assert r.exit_code == 0, r.output
    assert "the export says 7 messages; 6 headers read" in r.stderr
    assert len(records(r.stdout)) == 5


def test_wechat_csv_keeps_its_instants_and_rejects(runner, tmp_path):
    rejects = tmp_path / "rejects.jsonl"
    args = [
        "ingest",
        str(WECHAT / "张三_utf8.csv"),
        "--tz",
        "Asia/Shanghai",
        "--rejects",
        str(rejects),
    ]
    r = runner.invoke(app, args)
    assert r.exit_code == 1
    recs = records(r.stdout)
    assert recs[0]["timestamp"] == "2024-03-01T01:15:00Z" and len(recs) == 5
    assert "张三_utf8.csv:8" in r.stderr
