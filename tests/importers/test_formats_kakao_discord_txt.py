"""KakaoTalk chat exports and DiscordChatExporter's plain text
(``convo.importers.apps.kakaotalk``, ``convo.importers.apps.discord_txt``).

The KakaoTalk fixtures reproduce the layouts the exports show and their parsers read
(see the module's docstring): the PC app's dashed date lines and ``[Name] [오후 2:30]``
lines (Korean with BOM and CRLF, English), Android's and iOS's dated lines (Korean
오전/오후 and 24-hour clocks, English with ``at`` and U+202F), their events, and the Mac
CSV. The DiscordChatExporter fixtures reproduce ``PlainTextMessageWriter.cs``: the
preamble, pinned and old ``#discriminator`` authors, a blank line inside content, every
section, a system notification, an empty message, a postamble whose count differs; an
en-US ``g`` date with U+202F, a German dotted one and the 2018 ``dd-MMM-yy`` default.
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
from convo.importers.apps import discord_txt, kakaotalk
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

KAKAO = FIXTURES / "kakaotalk"
DCE = FIXTURES / "discord_txt"
DCE_EN = DCE / "Garden club - Text Channels - general [1012224565567721552].txt"


@pytest.mark.parametrize(
    ("read", "path", "golden", "name"),
    [
        (kakaotalk.read, KAKAO / "pc_ko.txt", "kakaotalk/pc_ko", "kakaotalk"),
        (kakaotalk.read, KAKAO / "KakaoTalk Chats with Ann.txt", "kakaotalk/pc_en", "kakaotalk"),
        (kakaotalk.read, KAKAO / "android_ko.txt", "kakaotalk/android_ko", "kakaotalk"),
        (kakaotalk.read, KAKAO / "ios_ko.txt", "kakaotalk/ios_ko", "kakaotalk"),
        (kakaotalk.read, KAKAO / "ios_en.txt", "kakaotalk/ios_en", "kakaotalk"),
        (kakaotalk.read, KAKAO / "android_en_2014.txt", "kakaotalk/android_en_2014", "kakaotalk"),
        (kakaotalk.read, KAKAO / "mac.csv", "kakaotalk/mac", "kakaotalk"),
        (discord_txt.read, DCE_EN, "discord_txt/garden-general", "discord-txt"),
        (discord_txt.read, DCE / "dm-de.txt", "discord_txt/dm-de", "discord-txt"),
        (discord_txt.read, DCE / "old-2018.txt", "discord_txt/old-2018", "discord-txt"),
    ],
)
def test_golden_and_detection(read, path, golden, name):
    recs, _, _ = run(read, path)
    assert_golden(f"formats/{golden}.jsonl", recs)
    assert registry.detect(Source(path)).name == name


def _said(recs):
    return [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs]


def test_kakaotalk_english_2014_time_before_date():
    """2014's English export writes the time first (``9:46AM, February 20, 2014, Ben :
    hi``, under the date line ``9:46AM, February 20, 2014``): every line was rejected."""
    recs, rejects, warnings = run(kakaotalk.read, KAKAO / "android_en_2014.txt")
    assert not rejects and not warnings
    assert _said(recs) == [
        ("Ben", "Are you there?", "2014-02-20T09:46:00Z"),
        ("Ann", "Yes, on the train\nback at six", "2014-02-20T09:47:00Z"),
        ("Ben", "(emoticon)", "2014-02-21T13:05:00Z"),
    ]
    assert recs[0]["thread"] == "Ben" and recs[0]["metadata"]["listeners"] == ["Ann"]


def test_kakaotalk_pc_korean():
    recs, rejects, warnings = run(kakaotalk.read, KAKAO / "pc_ko.txt")
    assert not rejects and not warnings
    assert _said(recs) == [
        ("홍길동", "안녕하세요", "2024-12-09T09:05:00Z"),
        ("김철수", "네 안녕하세요!\n오늘 몇 시에 만나요?", "2024-12-09T09:07:00Z"),
        ("홍길동", "사진", "2024-12-09T12:30:00Z"),
        ("홍길동", "이모티콘", "2024-12-09T14:31:00Z"),
        (None, "박영희님이 들어왔습니다.", "2024-12-09T14:31:00Z"),  # the time before it
        ("김철수", "삭제된 메시지입니다.", "2024-12-09T14:40:00Z"),
        ("홍길동", "파일: 회의록.pdf", "2024-12-10T00:15:00Z"),  # 오전 12:15 is 00:15
    ]
    assert {r["thread"] for r in recs} == {"홍길동"}
    assert recs[0]["metadata"]["listeners"] == ["김철수"]
    assert recs[4]["tags"] == ["system"] and recs[4]["metadata"]["listeners"] == []
    assert [r.get("extra") for r in recs[2:]] == [
        {"media": "photo"}, {"media": "emoticon"}, None, {"deleted": True}, {"media": "file"}
    ]  # fmt: skip
    assert len({r["id"] for r in recs}) == len(recs)


def test_kakaotalk_mobile_layouts():
    recs, rejects, _ = run(kakaotalk.read, KAKAO / "android_ko.txt")
    assert not rejects
    assert [(r["metadata"]["speaker"], r["tags"]) for r in recs] == [
        ("홍길동", []), ("김철수", []), (None, ["system"]), ("박영희", [])
    ]  # fmt: skip
    assert recs[1]["textChunks"] == ["아직요\n여러 줄로 보내요"]
    assert recs[0]["thread"] == "여름 캠핑"
    recs, _, _ = run(kakaotalk.read, KAKAO / "ios_ko.txt")
    assert [r["timestamp"] for r in recs] == [
        "2024-12-09T23:59:00Z", "2024-12-09T23:59:00Z", "2024-12-10T00:01:00Z"
    ]  # fmt: skip
    assert recs[1]["tags"] == ["system"]
    recs, _, _ = run(kakaotalk.read, KAKAO / "ios_en.txt")
    assert _said(recs) == [
        ("Ben", "Are you there?", "2024-12-09T14:30:00Z"),
        ("Ann", "Yes", "2024-12-09T14:31:00Z"),
        ("Ben", "Older phones write this", "2024-12-09T14:32:00Z"),
    ]


def test_kakaotalk_times_that_do_not_read_are_rejected(tmp_path):
    """A message whose time does not read was dated 1970-01-01 with no warning: it is
    rejected with its line, and the lines continuing it as such."""
    pc = tmp_path / "pc.txt"
    pc.write_text(
        "--------------- 2024년 12월 9일 월요일 ---------------\n"
        "[Ann] [오후 13:30] 깨진 시간\n둘째 줄\n[Bob] [오후 2:31] 네\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(kakaotalk.read, pc)
    assert [(r["textChunks"][0], r["timestamp"]) for r in recs] == [("네", "2024-12-09T14:31:00Z")]
    assert [(r.where, r.reason) for r in rejects] == [
        ("pc.txt:2", "KakaoTalk message time is not a time of day"),
        ("pc.txt:3", "continues a rejected KakaoTalk message"),
    ]
    mobile = tmp_path / "m.txt"
    mobile.write_text(
        "2024년 12월 9일 월요일\n2024년 12월 9일 25:30, Ann : 안녕\n2024년 12월 9일 14:31, Bob : 네\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(kakaotalk.read, mobile)
    assert [r["textChunks"][0] for r in recs] == ["네"]
    assert [r.where for r in rejects] == ["m.txt:2"]


def test_kakaotalk_english_pc_and_mac_csv():
    recs, _, _ = run(kakaotalk.read, KAKAO / "KakaoTalk Chats with Ann.txt")
    assert recs[1]["textChunks"] == ["Morning. Two lines:\n\nthe second after a blank one"]
    assert (recs[3]["metadata"]["speaker"], recs[3]["tags"]) == (None, ["system"])
    assert recs[0]["metadata"]["listeners"] == []  # three senders: a group
    recs, rejects, _ = run(kakaotalk.read, KAKAO / "mac.csv")
    assert _said(recs) == [
        ("Ann", "Hello, world", "2024-12-09T14:30:05Z"),
        ("Ben", "Two\nlines", "2024-12-09T14:31:00Z"),
    ]
    assert [(r.where, r.reason) for r in rejects] == [
        ("mac.csv:5", "not a KakaoTalk CSV row (Date,User,Message)")
    ]


def test_kakaotalk_times_are_read_in_tz():
    opts = ImportOptions(tz=get_zone("Asia/Seoul"))
    recs, _, _ = run(kakaotalk.read, KAKAO / "pc_ko.txt", opts)
    assert recs[0]["timestamp"] == "2024-12-09T00:05:00Z"


@pytest.mark.parametrize(
    ("first", "thread"),
    [
        ("\ufeff동네 텃밭 (12명) 카카오톡 대화", "동네 텃밭"),
        ("텃밭 모임방 31 카카오톡 대화", "텃밭 모임방 31"),
    ],
)
def test_kakaotalk_group_room_header(tmp_path, first, thread):
    """A group room's export names the room without 님과 (2013-2017 Android exports):
    both header lines were rejected as text before the first message."""
    path = tmp_path / "KakaoTalkChats.txt"
    path.write_text(
        f"{first}\n저장한 날짜 : 2017년 1월 6일 오후 7:55\n\n\n"
        "2016년 11월 11일 오후 10:07\n"
        "2016년 11월 11일 오후 10:07, 하늘님이 들어왔습니다.\n"
        "2016년 11월 11일 오후 10:08, 하늘 : 상추 모종 남았나요?\n",
        encoding="utf-8",
    )
    recs, rejects, _ = run(kakaotalk.read, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        (None, "하늘님이 들어왔습니다."),
        ("하늘", "상추 모종 남았나요?"),
    ]
    assert {r["thread"] for r in recs} == {thread}
    assert registry.detect(Source(path)).name == "kakaotalk"


def test_kakaotalk_message_before_a_date_is_rejected(tmp_path):
    path = tmp_path / "k.txt"
    path.write_text(
        "[Ann] [9:05 AM] hi\n--------------- Monday, December 9, 2024 ---------------\n"
        "[Ann] [9:06 AM] there\n"
    )
    recs, rejects, _ = run(kakaotalk.read, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("k.txt:1", "KakaoTalk message before any date line")
    ]
    assert [r["textChunks"][0] for r in recs] == ["there"]


@pytest.mark.parametrize(
    ("text", "day"),
    [("--------------- 2024년 12월 9일 월요일 ---------------", (2024, 12, 9)),
     ("--------------- Monday, December 9, 2024 ---------------", (2024, 12, 9)),
     ("2024. 12. 9. 월요일", (2024, 12, 9)), ("2025년 10월 10일 오전 10:09", (2025, 10, 10)),
     ("Monday, December 9, 2024", (2024, 12, 9)), ("2024년 13월 9일 월요일", None),
     ("[Ann] [9:05 AM] hi", None)],
)  # fmt: skip
def test_kakaotalk_day_line(text, day):
    got = kakaotalk.day_line(text)
    assert (got and (got.year, got.month, got.day)) == day or got is day


def test_discord_txt_messages_and_sections():
    recs, rejects, warnings = run(discord_txt.read, DCE_EN)
    assert not rejects
    assert _said(recs) == [
        ("ann", "Morning @bob, seeds arrived?", "2024-03-01T09:15:00Z"),
        ("bob", "Yes, all of them.\n\nA second paragraph.", "2024-03-01T09:16:00Z"),
        ("carl#0420", "Joined the server.", "2024-03-01T13:05:00Z"),
        ("ann", "GitHub\nhttps://github.com/example/garden\nexample/garden\nA planner for plots",
         "2024-03-13T18:40:00Z"),
        ("bob", "Look at this", "2024-03-13T18:41:00Z"),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"general"}
    assert recs[0]["metadata"]["listeners"] == ["bob"]
    assert recs[0]["extra"] == {
        "reactions": [{"emoji": "👍", "count": 2}, {"emoji": "🌱", "count": 1}]
    }
    assert recs[1]["extra"]["pinned"] is True
    assert recs[1]["textChunks"][1:] == [
        "[attachment] https://cdn.discordapp.com/attachments/1/2/seeds.jpg",
        "[attachment] https://cdn.discordapp.com/attachments/1/3/list.pdf",
    ]
    assert recs[2]["tags"] == ["system"]
    assert recs[4]["textChunks"][1] == "[forwarded] the original words"
    assert recs[4]["extra"] == {"stickers": ["https://media.discordapp.net/stickers/123.png"]}
    assert {r["format"] for r in recs} == {"discord"}
    assert warnings == [
        f"{DCE_EN.name}: skipped empty messages (no text, no media): 1 (at {DCE_EN.name}:47)",
        f"{DCE_EN.name}: the export says 7 messages; 6 headers read",
    ]


def test_discord_txt_day_first_and_old_dates():
    recs, _, warnings = run(discord_txt.read, DCE / "dm-de.txt")
    assert not warnings
    assert [r["timestamp"] for r in recs] == ["2024-03-01T09:15:00Z", "2024-03-01T21:05:00Z"]
    assert recs[1]["textChunks"][0].endswith("is not a header: no blank line before it")
    assert recs[0]["metadata"]["listeners"] == ["jonas"] and recs[0]["thread"] == "mia"
    recs, _, _ = run(discord_txt.read, DCE / "old-2018.txt")
    assert [r["timestamp"] for r in recs] == ["2018-03-01T09:15:00Z", "2018-03-02T23:30:00Z"]
    opts = ImportOptions(tz=get_zone("Europe/Berlin"))
    recs, _, _ = run(discord_txt.read, DCE / "dm-de.txt", opts)
    assert recs[0]["timestamp"] == "2024-03-01T08:15:00Z"


def test_discord_txt_ambiguous_order_warns_and_bad_dates_are_rejected(tmp_path):
    rule = discord_txt.RULE
    path = tmp_path / "c.txt"
    path.write_text(
        f"{rule}\nGuild: G\nChannel: c\n{rule}\n\nstray\n\n[02/03/2024 10:00] a\nhi\n\n\n"
        f"[00/00/2024 10:01] b\nno such day\n\n\n[02/04/2024 10:02] a\nlater\n\n\n"
    )
    recs, rejects, warnings = run(discord_txt.read, path)
    assert [(r["textChunks"][0], r["timestamp"]) for r in recs] == [
        ("hi", "2024-03-02T10:00:00Z"),
        ("later", "2024-04-02T10:02:00Z"),
    ]
    assert [(r.where, r.reason) for r in rejects] == [
        ("c.txt:6", "text before the first DiscordChatExporter message header"),
        ("c.txt:12", "date '00/00/2024 10:01' is not a day and time"),
    ]
    assert warnings == ["c.txt: day/month order is ambiguous; read as D/M"]


MINE = {"kakaotalk", "discord-txt"}


def test_no_other_file_is_read_as_these_chats():
    assert files_taken(MINE, {"kakaotalk", "discord_txt"}) == {}


_MSGS = st.lists(
    st.tuples(NAME, st.integers(0, 1439), st.lists(TEXT, min_size=1, max_size=3)),
    min_size=1, max_size=8,
)  # fmt: skip


def _h12(mins: int) -> str:
    h, m = divmod(mins, 60)
    return f"{'오후' if h >= 12 else '오전'} {h % 12 or 12}:{m:02d}"


@settings(max_examples=40, deadline=None)
@given(_MSGS, st.booleans())
def test_any_kakaotalk_export_reads_back(tmp_path_factory, msgs, mobile):
    path = tmp_path_factory.mktemp("kakao") / "k.txt"
    out = ["모임 님과 카카오톡 대화\n저장한 날짜 : 2024-12-09 21:05:11\n\n"]
    out.append(
        "2024년 12월 9일 월요일\n"
        if mobile
        else "--------------- 2024년 12월 9일 월요일 ---------------\n"
    )
    for name, mins, lines in msgs:
        head = f"2024. 12. 9. {_h12(mins)}, {name} : " if mobile else f"[{name}] [{_h12(mins)}] "
        out.append(head + "\n".join(lines) + "\n")
    path.write_text("".join(out))
    recs, rejects, warnings = run(kakaotalk.read, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:16]) for r in recs
    ] == [(name, "\n".join(lines), f"{m // 60:02d}:{m % 60:02d}") for name, m, lines in msgs]


@settings(max_examples=40, deadline=None)
@given(_MSGS)
def test_any_discord_txt_export_reads_back(tmp_path_factory, msgs):
    path = tmp_path_factory.mktemp("dce") / "d.txt"
    rule = discord_txt.RULE
    out = [f"{rule}\nGuild: G\nChannel: Text Channels / c\n{rule}\n\n"]
    for name, mins, lines in msgs:
        h, m = divmod(mins, 60)
        stamp = f"3/13/2024 {h % 12 or 12}:{m:02d} {'PM' if h >= 12 else 'AM'}"
        out.append(f"[{stamp}] {name}\n" + "\n".join(lines) + "\n\n\n")
    out.append(f"{rule}\nExported {len(msgs)} message(s)\n{rule}\n")
    path.write_text("".join(out))
    recs, rejects, warnings = run(discord_txt.read, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"][11:16]) for r in recs
    ] == [(name, "\n".join(lines), f"{m // 60:02d}:{m % 60:02d}") for name, m, lines in msgs]


@settings(max_examples=60, deadline=None)
@given(
    st.binary(max_size=400),
    st.sampled_from([
        "KakaoTalk Chats with A\nDate Saved : x\n\n--------------- Monday, December 9, 2024 -----\n",
        "2024. 12. 9. 오후 2:30, A : hi\n",
        "Date,User,Message\n",
        "=" * 62 + "\nGuild: G\nChannel: c\n" + "=" * 62 + "\n\n[3/1/2024 9:15 AM] a\n",
    ]),
)  # fmt: skip
def test_hostile_input_never_crashes(tmp_path_factory, noise, head):
    base = tmp_path_factory.mktemp("hostile")
    for read in (kakaotalk.read, discord_txt.read):
        path = base / "h.txt"
        path.write_bytes(head.encode() + noise)
        try:
            recs, _, _ = run(read, path)
        except InputError as e:  # one clear line (a CSV the csv module cannot read)
            assert "not CSV as" in str(e)
            continue
        assert len({r["id"] for r in recs}) == len(recs)


def test_discord_txt_counts_too_long_to_be_counts_are_no_error(tmp_path):
    """The postamble's count and a reaction's as digits ``int`` refuses (4,300 or more):
    a ValueError escaped as an internal error; now no count is claimed (a reaction: 1)."""
    text = DCE_EN.read_text(encoding="utf-8").replace(
        "Exported 7 message(s)", f"Exported {'9' * 5000} message(s)"
    )
    text = text.replace("👍 (2) 🌱", f"👍 ({'9' * 5000}) 🌱")
    path = tmp_path / "x - general [1].txt"
    path.write_text(text, encoding="utf-8")
    recs, rejects, warnings = run(discord_txt.read, path)
    assert len(recs) == len(run(discord_txt.read, DCE_EN)[0]) and not rejects
    assert not [w for w in warnings if "the export says" in w]
    assert recs[0]["extra"]["reactions"] == [
        {"emoji": "👍", "count": 1},
        {"emoji": "🌱", "count": 1},
    ]


def test_discord_txt_reads_on_after_a_postamble(tmp_path):
    """A second export joined after the first's postamble (a hand-joined file; the
    mutated-export property found it): its messages were dropped unsaid, the reader
    stopping at the first postamble. Now they are read, and the postambles' counts add
    up (the fixture's own says 7 for its 6 headers: 7 + 1 against 6 + 1)."""
    text = DCE_EN.read_text(encoding="utf-8")
    path = tmp_path / "x - general [1].txt"
    rule = "=" * 62
    tail = (
        f"[3/1/2024 9:15 PM] mia\nis read, not dropped\n\n\n{rule}\nExported 1 message(s)\n{rule}\n"
    )
    path.write_text(text + tail, encoding="utf-8")
    one, _, _ = run(discord_txt.read, DCE_EN)
    recs, rejects, warnings = run(discord_txt.read, path)
    assert len(recs) == len(one) + 1 and not rejects
    assert recs[-1]["metadata"]["speaker"] == "mia"
    assert recs[-1]["textChunks"] == ["is read, not dropped"]
    said = [w.split(": ", 1)[1] for w in warnings if "the export says" in w]
    assert said == ["the export says 8 messages; 7 headers read"]
