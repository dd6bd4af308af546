"""Chat-app export importers: golden files, detection by content (file and stdin), hostile input."""

from __future__ import annotations

import io
import shutil
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from chat_exports_helpers import MY_FORMATS, ingest, stdin_comparable

from conftest import ROOT, assert_golden, records
from convo.cli.app import app
from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps.common import fix_cp1252_mojibake, fix_latin1_mojibake
from convo.importers.apps.slack import render_mrkdwn
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

CHAT = Path("sample_data/chat")

GOLDEN = {
    "slack": "slack-export",
    "discord": "discord.json",
    "telegram": "telegram-result.json",
    "messenger": "messenger.json",
    "chatgpt": "chatgpt-conversations.json",
    "whatsapp": "whatsapp.txt",
    "mattermost": "mattermost.jsonl",
    "teams": "teams.json",
    "zoomchat": "zoom-chat.txt",
    "discord-text": "discord-text.txt",
}


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # relative paths keep source_id machine-independent


@pytest.mark.parametrize("fmt", sorted(GOLDEN))
def test_golden(fmt, in_root):
    recs, rejects, _ = ingest(CHAT / GOLDEN[fmt])
    assert not rejects
    assert recs and all(r["format"] == fmt for r in recs)
    assert_golden(f"chat/{fmt}.jsonl", recs)


@pytest.mark.parametrize("fmt", sorted(GOLDEN))
def test_detected_by_content(fmt, in_root, tmp_path):
    src = CHAT / GOLDEN[fmt]
    if src.is_dir():
        assert registry.detect(Source(src)).name == "slack"
        return
    renamed = tmp_path / "noname"
    shutil.copyfile(src, renamed)
    detected = registry.detect(Source(renamed)).name
    assert detected == ("slack-file" if fmt == "slack" else fmt)


@pytest.mark.parametrize("fmt", sorted(set(GOLDEN) - {"slack"}))
def test_stdin(fmt, in_root, runner):
    data = (CHAT / GOLDEN[fmt]).read_bytes()
    result = runner.invoke(app, ["ingest", "-", "-o", "-"], input=data)
    assert result.exit_code == 0, result.output
    recs = records(result.stdout)
    expected, _, _ = ingest(CHAT / GOLDEN[fmt])
    assert [r["textChunks"] for r in recs] == [r["textChunks"] for r in expected]
    got, want = stdin_comparable(recs), stdin_comparable(expected)
    assert [r["id"] for r in got] == [r["id"] for r in want]


def _zip_export(tmp_path: Path, prefix: str = "", extra: dict[str, bytes] | None = None) -> Path:
    out = tmp_path / "export.zip"
    root = ROOT / CHAT / "slack-export"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(root.rglob("*.json")):
            zf.write(p, prefix + p.relative_to(root).as_posix())
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return out


def test_slack_zip_same_as_folder(tmp_path, in_root, runner):
    folder, _, _ = ingest(CHAT / "slack-export")
    z = _zip_export(tmp_path, prefix="My Workspace Slack export/")
    zipped, rejects, _ = ingest(z)
    assert not rejects
    assert [r["id"] for r in zipped] == [r["id"] for r in folder]
    assert [r["textChunks"] for r in zipped] == [r["textChunks"] for r in folder]
    result = runner.invoke(app, ["ingest", "-", "-o", "-"], input=z.read_bytes())
    assert result.exit_code == 0, result.output
    assert len(records(result.stdout)) == len(folder)


def test_slack_zip_hostile_members(tmp_path):
    bomb = b"\0" * (4 << 20)  # compresses far beyond the ratio cap
    z = _zip_export(
        tmp_path,
        extra={
            "../evil/2024-01-01.json": b"[]",
            "/abs/2024-01-01.json": b"[]",
            "general/2024-03-07.json": bomb,
        },
    )
    recs, rejects, _ = ingest(z)
    assert len(recs) == 9
    reasons = " | ".join(r.reason for r in rejects)
    assert "parent-directory" in reasons and "absolute" in reasons and "compressed" in reasons


def test_slack_bad_zip_is_one_clean_error(tmp_path, runner):
    bad = tmp_path / "x.zip"
    bad.write_bytes(b"PK\x03\x04" + b"channels.json" + b"\0" * 50)
    result = runner.invoke(app, ["ingest", str(bad), "-o", "-"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_slack_threads_mentions_and_dm(in_root):
    recs, _, _ = ingest(CHAT / "slack-export")
    by_ts = {r["extra"]["ts"]: r for r in recs}
    reply = by_ts["1709719400.000400"]
    assert reply["replyTo"] == "slack:C0GENERAL:1709719350.000300"
    assert reply["thread"] == "general"
    broadcast = by_ts["1709719500.000500"]
    assert broadcast["extra"]["subtype"] == "thread_broadcast" and "system" not in broadcast["tags"]
    alice = by_ts["1709719200.000200"]
    assert alice["metadata"] == {"speaker": "Alice Smith", "listeners": ["Bob Jones"]}
    assert alice["textChunks"][0].startswith(
        "Morning @Bob Jones! The plan is in the auth doc (https://"
    )
    assert by_ts["1709715700.000100"]["tags"] == ["system"]
    assert by_ts["1709722800.000600"]["metadata"]["speaker"] == "deploybot"
    dm = by_ts["1709730120.000200"]
    assert dm["metadata"] == {"speaker": "Bob Jones", "listeners": ["Alice Smith"]}
    assert dm["timestamp"] == "2024-03-06T13:02:00Z"


def test_slack_day_file_alone_uses_its_export(in_root):
    alone, _, _ = ingest(CHAT / "slack-export/general/2024-03-06.json")
    folder, _, _ = ingest(CHAT / "slack-export")
    assert [r["id"] for r in alone] == [r["id"] for r in folder if r["thread"] == "general"]


def test_render_mrkdwn():
    text, who = render_mrkdwn(
        "hi <@U1>, <@U9|zed> see <#C1|dev> <https://x.org|X> <https://y.org> <!channel> "
        "<!subteam^S1|@ops> <mailto:a@b.c|a@b.c> &lt;tag&gt; &amp;",
        {"U1": "Alice Smith"},
        {},
    )
    assert (
        text
        == "hi @Alice Smith, @zed see #dev X (https://x.org) https://y.org @channel @ops a@b.c <tag> &"
    )
    assert who == ["Alice Smith", "zed"]


def test_mojibake_repairs():
    assert fix_cp1252_mojibake("Grace ðŸ§¤") == "Grace 🧤"
    assert fix_cp1252_mojibake("Zoë") == "Zoë"  # not mojibake: left alone
    assert fix_latin1_mojibake("Caf\u00c3\u00a9") == "Café"
    assert fix_latin1_mojibake("Café ☕") == "Café ☕"


def test_telegram_naive_date_uses_tz(in_root):
    recs, _, _ = ingest(CHAT / "telegram-result.json", options=ImportOptions(tz=get_zone("+02:00")))
    by_id = {r["id"]: r for r in recs}
    assert (
        by_id["telegram:4400000001:3"]["timestamp"] == "2024-03-06T08:02:30Z"
    )  # naive, read in +02:00
    assert (
        by_id["telegram:4400000001:2"]["timestamp"] == "2024-03-06T10:01:00Z"
    )  # date_unixtime wins
    assert by_id["telegram:4400000001:3"]["replyTo"] == "telegram:4400000001:2"


def test_telegram_full_export(tmp_path, in_root):
    chat = orjson.loads((CHAT / "telegram-result.json").read_bytes())
    full = {
        "about": "Here is the data you requested.",
        "personal_information": {},
        "chats": {"about": "", "list": [chat]},
    }
    p = tmp_path / "result.json"
    p.write_bytes(orjson.dumps(full))
    recs, _, _ = ingest(p)
    assert len(recs) == 4 and recs[0]["thread"] == "Auth Team"


def test_telegram_group_reply_speaks_to_the_replied_sender(tmp_path):
    msgs = [
        {"id": 1, "type": "message", "date": "2024-01-01T10:00:00", "from": "Ann", "from_id": "user1",
         "text": ["ask ", {"type": "mention", "text": "@cy"}]},
        {"id": 2, "type": "message", "date": "2024-01-01T10:01:00", "from": "Bob", "from_id": "user2",
         "text": "me too", "reply_to_message_id": 1},
        {"id": 3, "type": "message", "date": "2024-01-01T10:02:00", "from": "Cy", "from_id": "user3",
         "text": "hello all"},
    ]  # fmt: skip
    p = tmp_path / "result.json"
    p.write_bytes(
        orjson.dumps({"name": "G", "type": "private_supergroup", "id": 5, "messages": msgs})
    )
    recs, _, _ = ingest(p)
    assert [r["metadata"]["listeners"] for r in recs] == [["cy"], ["Ann"], []]


def test_telegram_polls_contacts_places_games_are_text(tmp_path):
    """Messages that share a poll, a contact, a place or a game have no text and no file:
    they were dropped as empty; Telegram Desktop writes each as its own keys."""
    base = {
        "type": "message",
        "date": "2024-01-01T10:00:00",
        "from": "Ann",
        "from_id": "user1",
        "text": "",
    }
    shared = [
        {"poll": {"question": "Lunch?", "closed": False, "total_voters": 2,
                  "answers": [{"text": "Yes", "voters": 1, "chosen": True}, {"text": "No", "voters": 1, "chosen": False}]}},
        {"contact_information": {"first_name": "Cy", "last_name": "Dee", "phone_number": "+1 555"}},
        {"place_name": "Cafe", "address": "Main St 1", "location_information": {"latitude": 52.5, "longitude": 13.4}},
        {"location_information": {"latitude": 1.5, "longitude": 2.5}, "live_location_period_seconds": 900},
        {"game_title": "Lumber", "game_description": "chop", "game_link": "https://t.me/b?game=l"},
        {"invoice_information": {"title": "Tea", "description": "", "amount": 300, "currency": "EUR"}},
    ]  # fmt: skip
    msgs = [{**base, "id": i, **extra} for i, extra in enumerate(shared, 1)]
    msgs.append({"id": 9, "type": "service", "date": "2024-01-01T10:01:00", "actor": "Bob",
                 "actor_id": "user2", "action": "phone_call", "duration_seconds": 42, "text": ""})  # fmt: skip
    p = tmp_path / "result.json"
    p.write_bytes(
        orjson.dumps({"name": "G", "type": "private_supergroup", "id": 5, "messages": msgs})
    )
    recs, _, warnings = ingest(p)
    assert [r["textChunks"] for r in recs] == [
        ["[poll] Lunch?: Yes (1), No (1)"],
        ["[contact] Cy Dee +1 555"],
        ["[location] Cafe, Main St 1 (52.5, 13.4)"],
        ["[location] (1.5, 2.5)"],
        ["[game] Lumber: chop"],
        ["[invoice] Tea: 300 EUR"],
        ["[phone_call] 42 s"],
    ]
    assert not any("empty" in w for w in warnings)
    assert recs[0]["extra"]["media"]["poll"]["total_voters"] == 2
    assert "media" not in recs[-1]["extra"]


def _dce(mid, author, kind="Default", content="", **more):
    user = {"id": author, "name": author, "discriminator": "0000", "nickname": author.title(),
            "isBot": author.endswith("bot")}  # fmt: skip
    return {"id": mid, "type": kind, "timestamp": "2024-01-01T10:00:00+00:00", "content": content,
            "author": user, "attachments": [], "embeds": [], "stickers": [], "reactions": [],
            "mentions": [], **more}  # fmt: skip


def test_discord_app_commands_embeds_and_reply_listeners(tmp_path):
    """DiscordChatExporter writes kinds it has no name for as numbers (an app command's
    answer is "20"); such a bot answer is often embeds only."""
    embed = {
        "title": "Berlin",
        "description": "Sunny",
        "fields": [{"name": "Wind", "value": "5 km/h"}],
    }
    ann = {"id": "ann", "name": "ann", "nickname": "Ann"}
    msgs = [
        _dce("1", "weatherbot", "20", embeds=[embed], interaction={"id": "9", "name": "weather", "user": ann}),
        _dce("2", "ann", "Reply", "thanks", reference={"type": "Default", "messageId": "1"}),
        _dce("3", "cy", "ChannelPinnedMessage", "Pinned a message."),
        _dce("4", "cy", "7", "Joined the server."),
    ]  # fmt: skip
    doc = {
        "guild": {"name": "G"},
        "channel": {"id": "5", "type": "GuildTextChat", "name": "general"},
        "messages": msgs,
    }
    p = tmp_path / "g.json"
    p.write_bytes(orjson.dumps(doc))
    recs, _, _ = ingest(p)
    bot, reply, pin, join = recs
    assert bot["textChunks"] == ["[embed] Berlin\nSunny\nWind: 5 km/h"] and bot["tags"] == []
    assert bot["metadata"]["listeners"] == ["Ann"]
    assert bot["extra"]["interaction"] == {"name": "weather", "user": "Ann"}
    assert reply["metadata"]["listeners"] == ["Weatherbot"]
    assert pin["tags"] == ["system"] and join["tags"] == ["system"]


def test_slackdump_dump_names_its_channel_and_keeps_nested_replies(tmp_path):
    """``slackdump dump`` writes {"channel_id", "name", "messages"}, each thread's replies
    nested in the parent: the channel was lost (thread "slack") and the replies dropped."""
    reply = {"type": "message", "user": "U2", "text": "on it", "ts": "1736554746.482349",
             "thread_ts": "1736478630.905399", "parent_user_id": "U1"}  # fmt: skip
    dump = {"channel_id": "C0TEAM", "name": "team", "messages": [
        {"type": "message", "user": "U1", "text": "who takes this?", "ts": "1736478630.905399",
         "thread_ts": "1736478630.905399", "reply_count": 1, "slackdump_thread_replies": [reply]},
        {"type": "message", "user": "U1", "text": "thanks", "ts": "1736560955.039969"},
    ]}  # fmt: skip
    p = tmp_path / "C0TEAM.json"
    p.write_bytes(orjson.dumps(dump))
    recs, _, _ = ingest(p)
    assert [r["textChunks"] for r in recs] == [["who takes this?"], ["on it"], ["thanks"]]
    assert {r["thread"] for r in recs} == {"team"}
    assert recs[0]["id"] == "slack:C0TEAM:1736478630.905399"
    assert recs[1]["replyTo"] == "slack:C0TEAM:1736478630.905399"
    assert "slackdump_thread_replies" not in str(recs[0].get("extra"))


def test_slack_bot_named_by_its_bot_add_and_attachment_pretext(tmp_path):
    """Old exports' integration messages carry only a ``bot_id``; the channel's
    ``bot_add`` message names the integration. The pretext is shown above the text."""
    export = tmp_path / "export"
    (export / "dev").mkdir(parents=True)
    (export / "users.json").write_bytes(orjson.dumps([{"id": "U1", "name": "hamza"}]))
    (export / "channels.json").write_bytes(
        orjson.dumps([{"id": "C1", "name": "dev", "members": ["U1"]}])
    )
    day = [
        {"type": "message", "subtype": "bot_add", "user": "U1", "bot_id": "B0HOOK", "ts": "1452988746.000017",
         "text": "added an integration to this channel: <https://team.slack.com/services/B0HOOK|github>"},
        {"type": "message", "subtype": "bot_message", "bot_id": "B0HOOK", "text": "", "ts": "1458980525.000012",
         "attachments": [{"pretext": "[app:main] 1 new commit by Hamza:", "text": "<https://x.example/c/ea65|ea65>: Fix deps",
                          "fallback": "[app:main] 1 new commit"}]},
    ]  # fmt: skip
    (export / "dev" / "2016-03-26.json").write_bytes(orjson.dumps(day))
    recs, _, _ = ingest(export)
    bot = recs[1]
    assert bot["metadata"]["speaker"] == "github"
    assert bot["textChunks"] == [
        "[app:main] 1 new commit by Hamza:\nhttps://x.example/c/ea65: Fix deps"
    ]


def test_chatgpt_export_folder_side_files_read_nothing(tmp_path, in_root, runner):
    """A ChatGPT export holds user.json, message_feedback.json, model_comparisons.json,
    shared_conversations.json (newer ones export_manifest.json, library_files.json...)
    beside the conversations: ingesting the folder counted each as unreadable (exit 1)."""
    export = tmp_path / "chatgpt-export"
    export.mkdir()
    shutil.copy(CHAT / "chatgpt-conversations.json", export / "conversations-000.json")
    sides = {
        "user.json": {"id": "user-Ab12", "email": "ann@example.com", "chatgpt_plus_user": True, "phone_number": None},
        "message_feedback.json": [{"id": "f1", "conversation_id": "c1", "rating": "thumbsDown", "content": "{}"}],
        "model_comparisons.json": [{"id": "m1", "input": {"messages": []}, "output": {}}],
        "shared_conversations.json": [{"id": "s1", "conversation_id": "c1", "title": "t", "is_anonymous": True}],
        "export_manifest.json": {"export_files": []},
        "library_files.json": [],
    }  # fmt: skip
    for name, data in sides.items():
        (export / name).write_bytes(orjson.dumps(data))
        assert registry.detect(Source(export / name)).name == "chatgpt", name
    result = runner.invoke(app, ["ingest", str(export), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    assert "not recognised" not in result.output
    assert "message_feedback.json holds 1 rating" in result.output
    assert "taken as a ChatGPT export's export_manifest.json" in result.output  # never unsaid
    assert len(records((tmp_path / "out.jsonl").read_text())) == 4  # the off-branch answer too
    other = tmp_path / "user.json"  # another app's user.json is not ChatGPT's
    other.write_bytes(orjson.dumps({"id": 1, "name": "x"}))
    with pytest.raises(InputError):
        registry.detect(Source(other))


PATH_N1 = "sample_data/chat/chatgpt-conversations.json#conv-1-n1"


def test_chatgpt_branch_and_fallback(tmp_path, in_root):
    recs, _, warnings = ingest(CHAT / "chatgpt-conversations.json")
    # the branch shown, then m3 (an earlier answer, off it), tagged, replying to its parent
    assert [r["id"] for r in recs] == ["chatgpt:m2", "chatgpt:m4", "chatgpt:m5", "chatgpt:m3"]
    assert recs[2]["replyTo"] == "chatgpt:m4" and recs[0]["subject"] == "JWT vs sessions"
    assert recs[3]["tags"] == ["off-branch"] and recs[3]["replyTo"] == "chatgpt:m2"
    assert not any("off-branch" in r["tags"] for r in recs[:3])
    assert any(
        w.endswith("skipped empty or hidden messages: 1 (at " + PATH_N1 + ")") for w in warnings
    )
    data = orjson.loads((CHAT / "chatgpt-conversations.json").read_bytes())
    del data[0]["current_node"]
    data[0]["mapping"]["n0"]["parent"] = "n5"  # a cycle must not hang
    p = tmp_path / "c.json"
    p.write_bytes(orjson.dumps(data))
    recs2, _, _ = ingest(p, fmt="chatgpt")
    assert len(recs2) <= 4


WHATSAPP_CASES = [
    ("[8/15/23, 9:12:33 AM] Ann: hi\n[8/15/23, 9:13:00 PM] Ben: yo\n", ["2023-08-15T09:12:33Z", "2023-08-15T21:13:00Z"]),
    ("15/08/2023, 21:12 - Ann: hi\n16/08/2023, 07:00 - Ben: yo\n", ["2023-08-15T21:12:00Z", "2023-08-16T07:00:00Z"]),
    ("[15.08.23, 21:12:05] Ann: hi\n[16.08.23, 07:00:00] Ben: yo\n", ["2023-08-15T21:12:05Z", "2023-08-16T07:00:00Z"]),
    ("2023-08-15, 21:12 - Ann: hi\n", ["2023-08-15T21:12:00Z"]),
    ("\u200e[1/2/24, 12:05:00\u202fAM] Ann: \u200eimage omitted\n", ["2024-01-02T00:05:00Z"]),
    # Ambiguous values: the order in which dates run forward wins (3 Feb then 4 Feb: D/M).
    ("3/2/24, 10:00 - Ann: a\n4/2/24, 10:00 - Ben: b\n5/2/24, 10:00 - Ann: c\n1/3/24, 10:00 - Ben: d\n",
     ["2024-02-03T10:00:00Z", "2024-02-04T10:00:00Z", "2024-02-05T10:00:00Z", "2024-03-01T10:00:00Z"]),
    # Localised and older layouts (as whatsapp-chat-parser's tests list them): Finnish
    # "klo", "13. 6. 2018." with spaces and no dash, the time followed by a colon.
    ("13.6.2018 klo 21.25.15 - Ann: hi\n14.6.2018 klo 7.00.00 - Ben: yo\n",
     ["2018-06-13T21:25:15Z", "2018-06-14T07:00:00Z"]),
    ("13. 6. 2018. 21:25:15 Ann: hi\n14. 6. 2018. 07:00:00 Ben: yo\n",
     ["2018-06-13T21:25:15Z", "2018-06-14T07:00:00Z"]),
    ("13.06.18 21.25.15: Ann: hi\n14.06.18 07.00.00: Ben: a: b\n",
     ["2018-06-13T21:25:15Z", "2018-06-14T07:00:00Z"]),
    ("[13.06.18 21:25:15] Ann: hi\n", ["2018-06-13T21:25:15Z"]),
    ("[3/6/18 1:55:00 p.\u00a0m.] Ann: hi\n[3/7/18 1:56:00 a. m.] Ben: yo\n",
     ["2018-03-06T13:55:00Z", "2018-03-07T01:56:00Z"]),
    # The exports of 2012-2014 (nmoya/whatsapp-parser's list): slashes, the seconds, a
    # colon after the time; and a dot after the time of year-first exports (chat-miner
    # pull request 54).
    ("3/24/14, 1:59:59 PM: Ann: hi\n3/25/14, 9:00:00 AM: Ben: a: b\n",
     ["2014-03-24T13:59:59Z", "2014-03-25T09:00:00Z"]),
    ("09/12/2012 17:03:48: Ann: hi\n13/12/2012 17:04:00: Ben: yo\n",
     ["2012-12-09T17:03:48Z", "2012-12-13T17:04:00Z"]),
    ("24/3/14, 13:59:59: Ann: hi\n", ["2014-03-24T13:59:59Z"]),
    ("2022/12/14, 13:34. - Ann: hi\n2022/12/24, 11:33. - Ben: yo\n",
     ["2022-12-14T13:34:00Z", "2022-12-24T11:33:00Z"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "stamps"), WHATSAPP_CASES)
def test_whatsapp_dates(text, stamps, tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text(text, encoding="utf-8")
    recs, rejects, _ = ingest(p)
    assert not rejects
    assert [r["timestamp"] for r in recs] == stamps
    assert all(r["format"] == "whatsapp" for r in recs)


def test_whatsapp_localised_layouts_keep_speakers(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text("13.06.18 21.25.15: Ann: hi\n14.06.18 07.00.00: Ben: a: b\nmore\n")
    recs, _, _ = ingest(p)
    assert [r["metadata"]["speaker"] for r in recs] == ["Ann", "Ben"]
    assert recs[1]["textChunks"] == ["a: b\nmore"]


def test_whatsapp_blank_lines_after_a_message_are_not_its_text(tmp_path):
    """A blank line before the next header (joweich/chat-miner's ``test_dateformat6``)
    ends no message with a newline; a blank line inside one stays."""
    p = tmp_path / "chat.txt"
    p.write_text("21/10/21, 15:21:45 - Ann: one\n\ntwo\n\n\n22/10/21, 15:21:46 - Ben: yo\n \n")
    recs, _, _ = ingest(p)
    assert [r["textChunks"] for r in recs] == [["one\n\ntwo"], ["yo"]]


def test_whatsapp_attachment_spellings(tmp_path):
    """Attachments as exports of several versions and languages write them."""
    p = tmp_path / "chat.txt"
    p.write_text(
        "3/6/18, 1:55 PM - Ann: < attached: 00000042-PHOTO-2020-06-07-15-13-20.jpg >\n"
        "3/6/18, 1:56 PM - Ben: 2015-08-04-PHOTO-00004762.jpg <\u200eattached>\n"
        "3/6/18, 1:57 PM - Ann: \u200e4f2680f1db95a8454775cc2eefc95bfc.jpg (Datei angehängt)\n"
        "Frohe Ostern.\n"
        "3/6/18, 1:58 PM - Ben: dinner (very good)\n",
        encoding="utf-8",
    )
    recs, _, _ = ingest(p)
    assert [r.get("extra", {}).get("file") for r in recs] == [
        "00000042-PHOTO-2020-06-07-15-13-20.jpg",
        "2015-08-04-PHOTO-00004762.jpg",
        "4f2680f1db95a8454775cc2eefc95bfc.jpg",
        None,
    ]
    assert recs[2]["textChunks"] == [
        "4f2680f1db95a8454775cc2eefc95bfc.jpg (Datei angehängt)\nFrohe Ostern."
    ]


def test_whatsapp_edited_note_and_document_attachment(tmp_path):
    """Since 2023 an edited message ends with "<This message was edited>"; iOS writes a
    shared document as its name (and pages) before the attached marker."""
    p = tmp_path / "_chat.txt"
    p.write_text(
        "[15/08/2023, 09:13:00] Ann: See you at 5 \u200e<This message was edited>\n"
        "[15/08/2023, 09:19:00] Ben: \u200ereport.pdf \u2022 3 pages \u200e<attached: 00000045-report.pdf>\n",
        encoding="utf-8",
    )
    recs, _, _ = ingest(p)
    assert recs[0]["textChunks"] == ["See you at 5"] and recs[0]["extra"] == {"edited": True}
    assert recs[1]["extra"]["file"] == "00000045-report.pdf"


def test_whatsapp_bare_layout_is_not_an_iso_log(tmp_path):
    p = tmp_path / "log.txt"
    p.write_text("2018-06-13 21:25:15 <ann> bob: hi\n2018-06-13 21:25:16 <bob> ann: yo\n")
    try:
        fmt = registry.detect(Source(p)).name
    except Exception:
        fmt = None
    assert fmt != "whatsapp"


def test_whatsapp_tz_media_and_system(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text(
        '12/31/23, 23:30 - Ann created group "x"\n12/31/23, 23:31 - Ann: <Media omitted>\n'
        "12/31/23, 23:32 - Ben: line one\nline two\n",
        encoding="utf-8",
    )
    recs, _, _ = ingest(p, options=ImportOptions(tz=get_zone("America/New_York")))
    assert recs[0]["tags"] == ["system"] and recs[0]["metadata"]["speaker"] is None
    assert recs[1]["extra"]["media"] == "media" and recs[1]["metadata"]["listeners"] == ["Ben"]
    assert recs[2]["textChunks"] == ["line one\nline two"]
    assert recs[2]["timestamp"] == "2024-01-01T04:32:00Z"


def test_zoom_start_date(in_root):
    opts = ImportOptions(start_date=datetime(2024, 3, 6, 9, 0, tzinfo=UTC))
    recs, _, _ = ingest(CHAT / "zoom-chat.txt", options=opts)
    assert recs[0]["timestamp"] == "2024-03-06T00:01:05Z"


def test_messenger_order_and_mojibake(in_root):
    recs, _, _ = ingest(CHAT / "messenger.json")
    assert [r["timestamp"] for r in recs] == sorted(r["timestamp"] for r in recs)
    assert recs[-1]["textChunks"] == ["Café at noon then 😊"]
    assert recs[-1]["extra"]["reactions"] == [{"reaction": "❤", "actor": "Alice Smith"}]


def test_not_mine_is_not_stolen(tmp_path):
    """Other families' typical files are not claimed by these formats."""
    samples = {
        "a.jsonl": b'{"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}}\n',
        "b.json": b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]',
        "c.vtt": b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>hi\n",
        "d.json": b'{"kind": "Listing", "data": {"children": []}}',
        "e.txt": b"just some notes\n10:30 Meeting: budget\n",
    }
    for name, data in samples.items():
        p = tmp_path / name
        p.write_bytes(data)
        try:
            fmt = registry.detect(Source(p)).name
        except Exception:
            continue
        assert fmt not in MY_FORMATS, name


def test_truncated_json_is_one_located_error(tmp_path, in_root, runner):
    """(A Telegram result.json cut short keeps the messages before the cut and rejects the
    cut with its place, exit 1: ``test_formats_telegram_export.py``.)"""
    for name in (
        "discord.json",
        "teams.json",
        "chatgpt-conversations.json",
    ):
        data = (CHAT / name).read_bytes()
        p = tmp_path / name
        p.write_bytes(data[: len(data) // 2])
        result = runner.invoke(app, ["ingest", str(p), "-o", "-"])
        assert result.exit_code == 2, name
        assert "Traceback" not in result.output and name in result.output


def test_bad_records_are_rejected_not_fatal(tmp_path):
    p = tmp_path / "d.json"
    doc = {
        "guild": {},
        "channel": {"name": "x"},
        "messages": [1, {"id": "5", "content": "ok", "author": {"name": "A"}}],
    }
    p.write_bytes(orjson.dumps(doc))
    recs, rejects, _ = ingest(p)
    assert len(recs) == 1 and len(rejects) == 1 and rejects[0].where.endswith("#msg-1")


def test_stdin_utf16_whatsapp(runner):
    data = "[8/15/23, 9:12:33 AM] Ann: hi\n".encode("utf-16")
    result = runner.invoke(app, ["ingest", "-", "-o", "-"], input=io.BytesIO(data).read())
    assert result.exit_code in (0, 2)
    assert "Traceback" not in result.output


def test_sample_folder_walk_matches_export_read(in_root):
    """`convo ingest sample_data/` walks file by file: Slack day files keep the export's ids."""
    walked, rejects, _ = ingest(CHAT)
    assert not rejects
    folder, _, _ = ingest(CHAT / "slack-export")
    walked_ids = {r["id"] for r in walked}
    assert {r["id"] for r in folder} <= walked_ids


def test_slack_sniff_dir_ignores_other_folders(in_root):
    from convo.importers.apps.slack import sniff_dir

    assert sniff_dir(Source(CHAT)) == 0
    assert sniff_dir(Source(CHAT / "slack-export" / "general")) == 0


def test_whatsapp_subject_change_is_system(tmp_path):
    p = tmp_path / "chat.txt"
    p.write_text('1/2/24, 10:00 - Ann changed the subject to "plan: v2"\n1/2/24, 10:01 - Ann: ok\n')
    recs, _, _ = ingest(p)
    assert recs[0]["metadata"]["speaker"] is None and recs[0]["tags"] == ["system"]
    assert recs[1]["metadata"]["speaker"] == "Ann"


def test_chatgpt_tool_and_thoughts(tmp_path):
    conv = {
        "title": "t",
        "id": "c1",
        "current_node": "b",
        "mapping": {
            "a": {"id": "a", "parent": None, "children": ["b"], "message": {
                "id": "ma", "author": {"role": "assistant"}, "recipient": "python",
                "content": {"content_type": "code", "text": "print(1)"}}},
            "b": {"id": "b", "parent": "a", "children": [], "message": {
                "id": "mb", "author": {"role": "tool", "name": "python"},
                "content": {"content_type": "thoughts", "thoughts": [{"summary": "s", "content": "hmm"}]}}},
        },
    }  # fmt: skip
    p = tmp_path / "c.json"
    p.write_bytes(orjson.dumps([conv]))
    recs, _, _ = ingest(p)
    assert recs[0]["textChunks"] == ["print(1)"] and recs[0]["extra"]["recipient"] == "python"
    assert recs[0]["metadata"]["listeners"] == ["python"]
    assert recs[1]["metadata"] == {"speaker": "python", "listeners": ["assistant"]}
    assert recs[1]["role"] == "tool" and recs[1]["thread"] == "c1"
    # Reasoning is private: in extra, never text, unless --include-thinking.
    assert "hmm" not in " ".join(recs[1]["textChunks"])
    assert recs[1]["extra"]["thinking"] == [{"summary": "s", "content": "hmm"}]
    shown, _, _ = ingest(p, options=ImportOptions(include_thinking=True))
    assert shown[1]["textChunks"] == ["[thinking] hmm"] and "thinking" not in shown[1]["extra"]


def _gpt_node(nid, parent, kids, content, **msg):
    return {"id": nid, "parent": parent, "children": kids, "message": {
        "id": "m" + nid, "author": {"role": msg.pop("role", "assistant")}, "content": content,
        "create_time": 1764090230.0, **msg}}  # fmt: skip


def test_chatgpt_canvas_calls_read_as_the_canvas_shows_them(tmp_path):
    doc = '{"name": "plan", "type": "document", "content": "# Plan\\n1. Tides"}'
    upd = '{"updates": [{"pattern": ".*", "multiple": true, "replacement": "# Plan\\n1. Tides\\n2. Moon"}]}'
    mapping = {
        "c": _gpt_node("c", None, ["u"], {"content_type": "code", "language": "json", "text": doc},
                       recipient="canmore.create_textdoc"),
        "u": _gpt_node("u", "c", ["x"], {"content_type": "code", "language": "json", "text": upd},
                       recipient="canmore.update_textdoc"),
        "x": _gpt_node("x", "u", [], {"content_type": "code", "text": "not json"}, recipient="canmore.create_textdoc"),
    }  # fmt: skip
    p = tmp_path / "conversations.json"
    p.write_bytes(
        orjson.dumps([{"id": "c", "title": "t", "current_node": "x", "mapping": mapping}])
    )
    recs, _, _ = ingest(p)
    assert recs[0]["textChunks"] == ["[canvas plan]\n# Plan\n1. Tides"]
    assert recs[0]["extra"]["raw_text"] == [doc] and recs[0]["metadata"]["listeners"] == [
        "canmore.create_textdoc"
    ]
    assert recs[1]["textChunks"] == ["[canvas update]\n# Plan\n1. Tides\n2. Moon"]
    assert recs[2]["textChunks"] == ["not json"] and "raw_text" not in recs[2]["extra"]


def test_chatgpt_reasoning_recap_and_citation_tokens(tmp_path):
    """A thinking model's turn as exports since 2025 write it: the thoughts, a
    "Thought for 15s" recap, and an answer whose web citations are private-use tokens."""
    token = "\ue200cite\ue202turn0search0\ue201"
    refs = [
        {"matched_text": token, "alt": "([Wiki](https://w.example/a))", "type": "grouped_webpages",
         "items": [{"title": "Annealing", "url": "https://w.example/a"}]},
    ]  # fmt: skip
    mapping = {
        "u": _gpt_node("u", None, ["r"], {"content_type": "text", "parts": ["anneal?"]}, role="user"),
        "r": _gpt_node("r", "u", ["a"], {"content_type": "reasoning_recap", "content": "Thought for 15s"}),
        "a": _gpt_node("a", "r", [], {"content_type": "text", "parts": [f"Heat, cool slowly {token}.\ue203x\ue204"]},
                       metadata={"content_references": refs}),
    }  # fmt: skip
    p = tmp_path / "conversations.json"
    p.write_bytes(
        orjson.dumps([{"id": "c", "title": "t", "current_node": "a", "mapping": mapping}])
    )
    recs, _, _ = ingest(p)
    recap, answer = recs[1], recs[2]
    assert not "".join(recap["textChunks"]).strip()
    assert recap["extra"]["thinking"] == [{"summary": "Thought for 15s"}]
    assert answer["textChunks"] == ["Heat, cool slowly ([Wiki](https://w.example/a)).x"]
    assert answer["extra"]["raw_text"] == [f"Heat, cool slowly {token}.\ue203x\ue204"]
    assert answer["extra"]["citations"] == [{"title": "Annealing", "url": "https://w.example/a"}]
    assert answer["replyTo"] == "chatgpt:mr"


def test_chatgpt_reasoning_recap_in_parts_is_thinking_not_text(tmp_path):
    """A recap written as ``parts`` (not ``content``) went into the text as well."""
    mapping = {
        "u": _gpt_node("u", None, ["r"], {"content_type": "text", "parts": ["anneal?"]}, role="user"),
        "r": _gpt_node("r", "u", ["a"], {"content_type": "reasoning_recap", "parts": ["Thought for 9s"]}),
        "a": _gpt_node("a", "r", [], {"content_type": "text", "parts": ["Heat, cool slowly."]}),
    }  # fmt: skip
    p = tmp_path / "conversations.json"
    p.write_bytes(
        orjson.dumps([{"id": "c", "title": "t", "current_node": "a", "mapping": mapping}])
    )
    recs, _, _ = ingest(p)
    assert all("Thought for" not in "".join(r["textChunks"]) for r in recs)
    assert any(r.get("extra", {}).get("thinking") == [{"summary": "Thought for 9s"}] for r in recs)


def test_from_slack_reads_folder_zip_and_day_file(tmp_path, in_root, runner):
    z = _zip_export(tmp_path)
    for fmt, path in (
        ("slack", CHAT / "slack-export"),
        ("slack", z),
        ("slack-file", CHAT / "slack-export"),
        ("slack", CHAT / "slack-export/general/2024-03-06.json"),
    ):
        result = runner.invoke(app, ["ingest", "--from", fmt, str(path), "-o", "-"])
        assert result.exit_code == 0, (fmt, path, result.output)
        recs = records(result.stdout)
        assert recs and all(r["format"] == "slack" for r in recs)


def test_formats_lists_chat_exports(runner):
    result = runner.invoke(app, ["formats", "-f", "jsonl"])
    assert result.exit_code == 0
    for name in MY_FORMATS:
        assert name in result.output


def test_discord_text_headers_of_the_2023_client(tmp_path):
    """Since 2023 the client writes a header's date as its locale's short date with a
    comma (``M/D/YY, h:mm AM``, ``Intl``'s short style) where it wrote ``MM/DD/YYYY
    h:mm AM``: such a copy was "format not recognised"."""
    p = tmp_path / "chat.txt"
    p.write_text(
        "alice \u2014 1/2/24, 2:38 PM\nhello there\n"
        "bob \u2014 12/30/23, 11:05 AM\nhi!\n[11:06 AM]\nsecond one\n"
        "alice \u2014 01/03/2024 9:00 AM\nold style\n",
        encoding="utf-8",
    )
    recs, rejects, warnings = ingest(p)
    assert not rejects and not warnings
    assert {r["format"] for r in recs} == {"discord-text"}
    assert [(r["metadata"]["speaker"], r["timestamp"], r["textChunks"]) for r in recs] == [
        ("alice", "2024-01-02T14:38:00Z", ["hello there"]),
        ("bob", "2023-12-30T11:05:00Z", ["hi!"]),
        ("bob", "2023-12-30T11:06:00Z", ["second one"]),
        ("alice", "2024-01-03T09:00:00Z", ["old style"]),
    ]
