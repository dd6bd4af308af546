"""WeChat chats as WeChatMsg / MemoTrace export them (``convo.importers.apps.wechat``).

The fixtures reproduce its writers (``exporter_csv.py``, ``exporter_txt.py``): the CSV's
twelve columns with a BOM (text over two lines, an image's XML, a recalled message's
CDATA and re-edit link, a file, a row whose times do not read) and the nine-cell rows of
the versions before 2024; the TXT's titled blocks, a system message in both of its
layouts, placeholders.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, NAME, TEXT, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import wechat
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

WX = FIXTURES / "wechat"
CSV = WX / "张三_utf8.csv"
TXT = WX / "种子交换群.txt"


@pytest.mark.parametrize(
    ("path", "golden"),
    [(CSV, "wechat/csv"), (WX / "Lena_utf8.csv", "wechat/csv-nine-cells"), (TXT, "wechat/txt")],
)
def test_golden_and_detection(path, golden):
    recs, _, _ = run(wechat.read, path)
    assert_golden(f"formats/{golden}.jsonl", recs)
    assert registry.detect(Source(path)).name == "wechat"


def _said(recs):
    return [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs]


def test_csv_rows_types_and_rejects():
    recs, rejects, _ = run(wechat.read, CSV)
    assert _said(recs) == [
        ("张三", "早上好，种子到了吗？", "2024-03-01T01:15:00Z"),
        ("Me", "到了！\n明天种。", "2024-03-01T01:16:00Z"),
        ("张三", "[图片]", "2024-03-01T01:17:00Z"),
        (None, "张三撤回了一条消息", "2024-03-01T01:18:00Z"),
        ("Me", "[文件]", "2024-03-01T01:19:00Z"),
    ]
    assert recs[2]["extra"] == {"local_id": "3", "type": "3", "subtype": "0"}
    assert recs[3]["tags"] == ["system"] and recs[3]["metadata"]["listeners"] == []
    assert recs[0]["metadata"]["listeners"] == ["Me"] and recs[0]["thread"] == "张三"
    assert [(r.where, r.reason) for r in rejects] == [
        ("张三_utf8.csv:8", "time 'bad' / 'not a time' does not read")
    ]
    # CreateTime is an instant: --tz does not move it
    recs2, _, _ = run(wechat.read, CSV, ImportOptions(tz=get_zone("Asia/Shanghai")))
    assert recs2[0]["timestamp"] == recs[0]["timestamp"]


def test_csv_nine_cell_rows_say_me_or_the_chat():
    recs, rejects, _ = run(wechat.read, WX / "Lena_utf8.csv")
    assert not rejects
    assert [(r["metadata"]["speaker"], r["metadata"]["listeners"]) for r in recs] == [
        ("me", ["Lena"]),
        ("Lena", ["me"]),
    ]


def test_txt_blocks_and_system_messages():
    recs, rejects, warnings = run(wechat.read, TXT)
    assert not rejects and not warnings
    assert _said(recs) == [
        ("张三", "早上好，种子到了吗？", "2024-03-01T09:15:00Z"),
        ("Me", "到了！\n明天种。", "2024-03-01T09:16:00Z"),
        ("张三", "[图片]", "2024-03-01T09:17:00Z"),
        (None, "张三撤回了一条消息", "2024-03-01T09:18:00Z"),
        (None, "你邀请李四加入了群聊", "2024-03-01T09:18:30Z"),
        ("Me", "[文件]", "2024-03-01T09:19:00Z"),
    ]
    assert [r["tags"] for r in recs[3:5]] == [["system"], ["system"]]
    recs, _, _ = run(wechat.read, TXT, ImportOptions(tz=get_zone("Asia/Shanghai")))
    assert recs[0]["timestamp"] == "2024-03-01T01:15:00Z"


def test_txt_replies_and_link_cards():
    """``exporter_txt.py``'s ``refermsg`` writes the quoted message after a reply's text
    (``引用:NAME:TEXT``, ``引用:未知``), its ``share_card`` a link's fields on lines
    indented as its source is: the quote was read as the reply's text, the card's
    indentation and its trailing blank-looking line kept."""
    recs, rejects, warnings = run(wechat.read, WX / "Lena.txt")
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r.get("extra")) for r in recs] == [
        ("Lena", "明天交换种子吗？", None),
        ("Me", "好啊\n几点？", {"quote": {"speaker": "Lena", "text": "明天交换种子吗？"}}),
        ("Lena", "七点", {"quote": {"text": "未知"}}),
        ("Lena", "[链接]:title:春季播种指南\ndescription:番茄与辣椒\n"
         "url:https://mp.weixin.qq.com/s/seedguide\nname:None",
         {"link": {"title": "春季播种指南", "description": "番茄与辣椒",
                   "url": "https://mp.weixin.qq.com/s/seedguide"}}),
    ]  # fmt: skip


def test_txt_stray_text_and_bad_times_are_rejected(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("stray\n\n2024-02-30 10:00:00 A\nno such day\n\n2024-03-01 10:00:00 A\nhi\n")
    recs, rejects, _ = run(wechat.read, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("w.txt:1", "text before the first WeChatMsg title line"),
        ("w.txt:3", "time '2024-02-30 10:00:00' is not a day and time"),
    ]
    assert [r["textChunks"][0] for r in recs] == ["hi"]


def test_no_other_file_is_read_as_wechat():
    assert files_taken({"wechat"}, {"wechat"}) == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAME, st.integers(0, 86399), st.lists(TEXT, min_size=1, max_size=3)),
                min_size=1, max_size=8))  # fmt: skip
def test_any_wechat_txt_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("wx") / "w.txt"
    blocks = []
    for name, secs, lines in msgs:
        h, rest = divmod(secs, 3600)
        blocks.append(
            f"2024-03-01 {h:02d}:{rest // 60:02d}:{rest % 60:02d} {name}\n" + "\n".join(lines)
        )
    path.write_text("\n\n".join(blocks))
    recs, rejects, warnings = run(wechat.read, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:19]) for r in recs
    ] == [
        (name, "\n".join(lines), f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}")
        for name, s, lines in msgs
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.binary(max_size=400), st.sampled_from([wechat.CSV_HEADER + "\n", "2024-03-01 09:15:00 A\n"])
)
def test_hostile_input_never_crashes(tmp_path_factory, noise, head):
    path = tmp_path_factory.mktemp("hostile") / "h.txt"
    path.write_bytes(head.encode() + noise)
    try:
        recs, _, _ = run(wechat.read, path)
    except InputError as e:  # one clear line (a CSV the csv module cannot read)
        assert "not CSV as" in str(e)
        return
    assert len({r["id"] for r in recs}) == len(recs)
