"""Fixes on known formats (issue 15) and stable ids under options (issue 18, trap 8).

Each test writes the small input it needs; shapes follow the exporters (DiscordChatExporter
JSON with ``--markdown false``, Slack export folders, ChatGPT mappings, Telegram Desktop).
"""

from __future__ import annotations

import orjson
import pytest
from chat_exports_helpers import ingest

from conftest import records
from convo.cli.app import app
from convo.core.record import ConversationMessage
from convo.importers.build import ContentIds, message


def _write(path, data) -> str:
    path.write_bytes(orjson.dumps(data))
    return str(path)


# -- Discord


def _discord(messages):
    return {
        "guild": {"id": "1", "name": "G"},
        "channel": {"id": "10", "type": "GuildTextChat", "name": "general",
                    "categoryId": "9", "category": "Text"},
        "messages": messages,
    }  # fmt: skip


def test_discord_raw_mention_tokens_become_names_and_listeners(tmp_path):
    raw = "hi <@200> and <@!300>, see <#10> and <#9>, <@&7> <a:blob:555> at <t:1709719200:R>"
    m = {
        "id": "100", "type": "Default", "timestamp": "2024-03-06T10:00:00+00:00",
        "content": raw,
        "author": {"id": "100", "name": "alice", "nickname": "Alice",
                   "roles": [{"id": "7", "name": "Mods"}]},
        "mentions": [{"id": "200", "name": "bob", "nickname": "Bob Jones"},
                     {"id": "300", "name": "carol"}],
    }  # fmt: skip
    (rec,), rejects, _ = ingest(_write(tmp_path / "d.json", _discord([m])))
    assert rec["textChunks"] == [
        "hi @Bob Jones and @carol, see #general and #Text, @Mods :blob: at 2024-03-06T10:00:00Z"
    ]
    assert rec["metadata"]["listeners"] == ["Bob Jones", "carol"]
    assert rec["extra"]["raw_content"] == raw
    assert not rejects


def test_discord_exporter_rendered_content_is_left_alone(tmp_path):
    m = {"id": "1", "timestamp": "2024-03-06T10:00:00Z", "content": "@Bob Jones <not a token>",
         "author": {"name": "alice"}, "mentions": [{"id": "2", "name": "Bob Jones"}]}  # fmt: skip
    (rec,), _, _ = ingest(_write(tmp_path / "d.json", _discord([m])))
    assert rec["textChunks"] == ["@Bob Jones <not a token>"]
    assert "raw_content" not in rec.get("extra", {})


def test_discord_message_without_id_gets_a_content_id(tmp_path):
    msgs = [
        {"id": "1", "timestamp": "2024-03-06T10:00:00Z", "content": "a", "author": {"name": "x"}},
        {"timestamp": "2024-03-06T10:01:00Z", "content": "b", "author": {"name": "y"}},
        "not an object",
    ]
    recs, rejects, _ = ingest(_write(tmp_path / "d.json", _discord(msgs)))
    assert [r["id"][:2] for r in recs] == ["di", "h:"]
    assert len(rejects) == 1 and "#msg-3" in rejects[0].where


# -- Telegram


def test_telegram_message_without_id_gets_a_content_id(tmp_path):
    chat = {"name": "Bob", "type": "personal_chat", "id": 5, "messages": [
        {"id": 1, "type": "message", "date_unixtime": "1709719200", "from": "Bob", "text": "a"},
        {"type": "message", "date_unixtime": "1709719260", "from": "Ann", "text": "b"},
    ]}  # fmt: skip
    recs, rejects, _ = ingest(_write(tmp_path / "result.json", chat))
    assert not rejects
    assert recs[0]["id"] == "telegram:5:1"
    assert recs[1]["id"].startswith("h:") and recs[1]["textChunks"] == ["b"]


# -- content ids


def _prompt(thread=None) -> ConversationMessage:
    return message("You are a helpful assistant.", speaker="system",
                   timestamp="2024-03-06T10:00:00Z", format="x", thread=thread)  # fmt: skip


def test_content_ids_include_the_conversation():
    assert ContentIds("a.jsonl").assign(_prompt()) != ContentIds("b.jsonl").assign(_prompt())
    # the thread, when there is one, is the conversation (whatever the file)
    one, two = ContentIds("a.jsonl"), ContentIds("b.jsonl")
    assert one.assign(_prompt("t1")) == two.assign(_prompt("t1"))
    assert one.assign(_prompt("t1")) != two.assign(_prompt("t2"))
    # the folder is not part of it, so a moved file keeps its ids
    assert ContentIds("x/a.jsonl").assign(_prompt()) == ContentIds("y/a.jsonl").assign(_prompt())


def test_content_ids_count_true_repeats():
    ids = ContentIds("a.txt")
    first, second = ids.assign(_prompt()), ids.assign(_prompt())
    assert second == first + "-1"


def test_same_prompt_in_two_conversation_files_is_two_messages(tmp_path, runner):
    line = '{"messages": [{"role": "system", "content": "You are helpful."}]}\n'
    for name in ("one.jsonl", "two.jsonl"):
        (tmp_path / name).write_text(line)
    store = str(tmp_path / "s.jsonl")
    for name in ("one.jsonl", "two.jsonl"):
        result = runner.invoke(app, ["--store", store, "ingest", "--save", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    assert len(records((tmp_path / "s.jsonl").read_bytes())) == 2


# -- Slack


@pytest.fixture
def slack_export(tmp_path):
    root = tmp_path / "export"
    (root / "general").mkdir(parents=True)
    users = [{"id": "U1", "name": "alice", "profile": {"real_name": "Alice Smith"}},
             {"id": "U2", "name": "bob", "profile": {"display_name": "Bob Jones"}}]  # fmt: skip
    _write(root / "users.json", users)
    _write(root / "channels.json", [{"id": "C1", "name": "general", "members": ["U1", "U2"]}])
    _write(root / "bots.json", [{"id": "B9", "name": "deploybot"}])
    day = [
        {"type": "message", "user": "U1", "ts": "1709719200.000100",
         "text": "hi <@U2> <@U3|carol> in <#C1|general> <!here> <!channel> <!subteam^S1|@devs>"},
        {"type": "message", "subtype": "bot_message", "bot_id": "B9", "text": "deployed",
         "ts": "1709719201.000100"},
        {"type": "message", "subtype": "bot_message", "bot_id": "B8", "text": "built",
         "bot_profile": {"name": "ci"}, "ts": "1709719201.000200"},
        {"type": "message", "subtype": "file_comment", "text": "<@U2> commented: nice",
         "comment": {"user": "U2", "comment": "nice"}, "ts": "1709719202.000100"},
        {"type": "message", "subtype": "message_changed", "ts": "1709719203.000100",
         "message": {"user": "U1", "text": "edited", "ts": "1709719200.000100"}},
        {"type": "message", "user": "U2", "text": "no ts"},
    ]  # fmt: skip
    _write(root / "general" / "2024-03-06.json", day)
    return root


def test_slack_mentions_bots_and_subtype_users(slack_export):
    recs, rejects, warnings = ingest(slack_export)
    assert not rejects
    first = recs[0]
    assert first["textChunks"] == ["hi @Bob Jones @carol in #general @here @channel @devs"]
    assert first["metadata"]["listeners"] == ["Bob Jones", "carol"]
    assert first["extra"]["raw_text"].startswith("hi <@U2>")
    assert [r["metadata"]["speaker"] for r in recs] == [
        "Alice Smith", "deploybot", "ci", "Bob Jones", "Alice Smith", "Bob Jones"
    ]  # fmt: skip
    assert recs[4]["textChunks"] == ["edited"]
    no_ts = recs[5]
    assert no_ts["id"].startswith("h:") and no_ts["timestamp"] == "1970-01-01T00:00:00Z"
    assert any("no ts; time left unknown" in w for w in warnings)


# -- ChatGPT


def test_chatgpt_mapping_without_links_is_read_in_create_time_order(tmp_path):
    def node(nid, role, t, text):
        return {"id": nid, "message": {"id": "m" + nid, "author": {"role": role},
                "create_time": t, "content": {"content_type": "text", "parts": [text]}}}  # fmt: skip

    conv = {"title": "T", "create_time": 1700000000, "mapping": {
        "b": node("b", "assistant", 1700000010, "answer"),
        "a": node("a", "user", 1700000005, "question"),
        "c": node("c", "user", 1700000020, "thanks"),
    }}  # fmt: skip
    path = _write(tmp_path / "conversations.json", [conv])
    recs, rejects, _ = ingest(path)  # detected by content
    assert [r["textChunks"] for r in recs] == [["question"], ["answer"], ["thanks"]]
    assert [r.get("replyTo") for r in recs] == [None, "chatgpt:ma", "chatgpt:mb"]
    assert not rejects


def test_chatgpt_other_branches_are_counted(tmp_path):
    def node(nid, parent, kids, text):
        return {"id": nid, "parent": parent, "children": kids, "message": {
            "id": "m" + nid, "author": {"role": "user"}, "create_time": 1700000000,
            "content": {"content_type": "text", "parts": [text]}}}  # fmt: skip

    conv = {"title": "T", "current_node": "b2", "mapping": {
        "a": node("a", None, ["b1", "b2"], "q"), "b1": node("b1", "a", [], "first try"),
        "b2": node("b2", "a", [], "second try"),
    }}  # fmt: skip
    recs, _, warnings = ingest(_write(tmp_path / "conversations.json", [conv]))
    assert [r["textChunks"] for r in recs] == [["q"], ["second try"]]
    assert any("1 message on other branches" in w for w in warnings)


# -- trap 8: ids do not depend on --start-date; a re-ingest with --tag says what happened

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>hello</v>\n\n00:00:03.000 --> 00:00:04.000\n<v Bob>hi</v>\n"
ZOOM = "00:00:05\tAnn:\thello\n00:01:10\tBob:\thi\n"
# Discord copied text: "Today"/"Yesterday" are days counted from --start-date.
DISCORD = "Ann — Today at 3:20 PM\nhello\n[3:21 PM]\nmore\nBob — Yesterday at 9:00 AM\nhi\n"


@pytest.mark.parametrize(
    ("name", "text"), [("call.vtt", VTT), ("chat.txt", ZOOM), ("discord.txt", DISCORD)]
)
def test_reingest_with_start_date_adds_nothing(tmp_path, runner, name, text):
    src = tmp_path / name
    src.write_text(text)
    store = str(tmp_path / "s.jsonl")
    runs = [[], ["--start-date", "2024-03-06T09:00:00Z"], ["--start-date", "2025-01-01"]]
    for extra in runs:
        result = runner.invoke(app, ["--store", store, "ingest", "--save", *extra, str(src)])
        assert result.exit_code == 0, result.output
    expected = 3 if name == "discord.txt" else 2
    assert len(records((tmp_path / "s.jsonl").read_bytes())) == expected
    assert f"new 0, duplicates {expected}" in result.stderr


def test_reingest_with_a_new_tag_says_how_to_tag(tmp_path, runner):
    src = tmp_path / "call.vtt"
    src.write_text(VTT)
    store = str(tmp_path / "s.jsonl")
    runner.invoke(app, ["--store", store, "ingest", "--save", str(src)])
    result = runner.invoke(app, ["--store", store, "ingest", "--save", "--tag", "q1", str(src)])
    assert result.exit_code == 0, result.output
    notes = [x for x in result.stderr.splitlines() if "kept their tags" in x]
    assert len(notes) == 1 and "convo tag add q1" in notes[0]


def test_reingest_with_a_start_date_says_how_to_redate(tmp_path, runner):
    """A cue's id is its offset's: --start-date cannot re-date stored cues, and says how;
    after `rm source:`, the same file saves again with the index kept whole (an emptied
    store's index kept its names, and adding them again was a UNIQUE failure)."""
    src = tmp_path / "call.vtt"
    src.write_text(VTT)
    store = str(tmp_path / "s.jsonl")
    runner.invoke(app, ["--store", store, "ingest", "--save", str(src)])
    assert runner.invoke(app, ["--store", store, "index"]).exit_code == 0
    again = ["--store", store, "ingest", "--save", "--start-date", "2024-05-01T09:00Z", str(src)]
    result = runner.invoke(app, again)
    notes = [x for x in result.stderr.splitlines() if "kept their times" in x]
    assert len(notes) == 1 and "convo rm source:FILE" in notes[0]
    removed = runner.invoke(app, ["--store", store, "rm", "-y", "source:call.vtt"])
    assert removed.exit_code == 0, removed.output
    result = runner.invoke(app, again)
    assert result.exit_code == 0 and "cannot update the index" not in result.stderr
    assert "kept their times" not in result.stderr
    stamps = {r["timestamp"] for r in records((tmp_path / "s.jsonl").read_bytes())}
    assert all(t.startswith("2024-05-01T09:00") for t in stamps)
    check = runner.invoke(app, ["--store", store, "index", "--check"])
    assert check.exit_code == 0 and "index matches the store" in check.stderr


# -- the streamed array's one-match fast path (chat ingest speed) reads what orjson reads

DOCS = [
    b'{"messages": [{"a": [1, {"b": "x}\\"]"}]}, {"c": {"d": {"e": {"f": {"g": [1]}}}}}, 2, "s"]}',
    b'{"messages": [ {} , [] ,{"k":[[[[[[1]]]]]]} ,\n{"z": null}\n]}',
    b'{"messages": ['
    + b",".join(b'{"i": %d, "t": "%s"}' % (i, b"w" * i) for i in range(60))
    + b"]}",
]


@pytest.mark.parametrize("doc", DOCS)
@pytest.mark.parametrize("block", [5, 64, 1 << 20])
def test_streamed_elements_match_orjson(doc, block):
    import io

    from convo.core.jsonstream import JsonArray

    got = [e for e, _ in JsonArray(io.BytesIO(doc), ("messages",), block=block)]
    assert got == orjson.loads(doc)["messages"]


@pytest.mark.parametrize(
    "doc",
    [
        b'{"messages": [{"a": 1},]}',
        b'{"messages": [{"a": [1}]}',
        b'{"messages": [{"a": 1} {"b": 2}]}',
    ],
)
def test_streamed_elements_refuse_bad_json(doc):
    import io

    from convo.core.errors import InputError
    from convo.core.jsonstream import JsonArray

    with pytest.raises(InputError):
        list(JsonArray(io.BytesIO(doc), ("messages",)))


# -- forum quotes keep their boundary; avatars, emoji images and tables read as text

DISCOURSE_QUOTE = (
    '<p>I agree with</p><aside class="quote no-group" data-username="bob" data-post="2">'
    '<div class="title"><img alt="" width="24" height="24" src="/user_avatar/bob.png" '
    'class="avatar"> bob:</div><blockquote><p>line one<br>line two</p>'
    "<blockquote><p>deeper</p></blockquote><p>three</p></blockquote></aside>"
    '<p>thanks <img src="/images/emoji/smile.png" title=":smile:" class="emoji" alt=":smile:"></p>'
)


def test_quotes_are_prefixed_on_every_line():
    from convo.core.text.html import html_to_text

    assert html_to_text(DISCOURSE_QUOTE) == (
        "I agree with\n\nbob:\n\n> line one\n> line two\n>\n> > deeper\n>\n> three\n\n"
        "thanks :smile:"
    )


def test_tables_become_rows():
    from convo.core.text.html import html_to_text

    table = (
        "<p>x</p><table><thead><tr><th>name</th><th>votes</th></tr></thead>"
        "<tbody><tr><td>Ann</td><td><b>3</b></td></tr><tr><td>Bob</td><td>5</td></tr></tbody>"
        "</table><p>after</p>"
    )
    assert html_to_text(table) == "x\n\nname | votes\nAnn | 3\nBob | 5\n\nafter"


def test_hostile_quote_nesting_is_bounded():
    from convo.core.text.html import MAX_QUOTE_DEPTH, html_to_text

    for doc in ("<blockquote>x" * 5000, "<blockquote><p>x</p>" * 5000 + "</blockquote>" * 5000):
        lines = html_to_text(doc).split("\n")
        assert len(lines) >= 5000
        assert max(line.count(">") for line in lines) == MAX_QUOTE_DEPTH


# -- records are built without pydantic and validated once, in the pipeline


def test_a_reader_record_of_wrong_types_is_rejected_with_its_place():
    from convo.core.errors import RecordError
    from convo.core.record import check_message

    bad = message("ok", speaker="ann", source_id="f#3")
    bad.metadata.speaker = 7  # type: ignore[assignment]
    with pytest.raises(RecordError) as e:
        check_message(bad, "f#3")
    assert "metadata.speaker" in e.value.what and e.value.where == "f#3"
    good = message(["a", ""], speaker="ann", listeners=["bob", "ann", "bob"], tags=["x", "x"],
                   timestamp="2024-03-06T10:00:00+02:00", extra={"n": 0, "e": "", "f": False})  # fmt: skip
    assert check_message(good).serialize()["timestamp"] == "2024-03-06T08:00:00Z"
    assert (good.text_chunks, good.listeners, good.tags) == (["a"], ["bob"], ["x"])
    assert good.extra == {"n": 0, "f": False}
    # the same record pydantic would have made
    from convo.core.record import ConversationMessageMeta

    assert good == ConversationMessage(
        ["a"], ConversationMessageMeta("ann", ["bob"]), tags=["x"],
        timestamp="2024-03-06T08:00:00Z", extra={"n": 0, "f": False},
    )  # fmt: skip
