"""Microsoft Teams chatMessage JSON (``convo.importers.apps.teams``), both spellings.

The fixture ``teams/graph-chat-messages.json`` follows the Graph REST API's own shape
(``GET /chats/{id}/messages``, Graph Explorer, ``m365 teams chat message list``, as
documented for the ``chatMessage`` resource): a page ``{"@odata.context", "@odata.count",
"@odata.nextLink", "value": [...]}`` of camelCase messages, a ``systemEventMessage`` with
``from: null`` and an ``eventDetail`` typed by ``@odata.type``, a deleted message (empty
body, ``deletedDateTime``), a bot (``from.application``), mentions, a reference file.
"""

from __future__ import annotations

import json
from datetime import timedelta, timezone
from pathlib import Path

from formats_helpers import FIXTURES, run

from conftest import SAMPLE_DATA
from convo.core.io import Source
from convo.importers.apps import teams
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

GRAPH = FIXTURES / "teams" / "graph-chat-messages.json"
CHAT = "19:a1b2c3d4e5f60718293a4b5c6d7e8f90@thread.v2"


def test_graph_api_page_is_detected_and_read():
    assert registry.detect(Source(GRAPH)).name == "teams"
    recs, rejects, warnings = run(teams.read_teams, GRAPH)
    assert not rejects
    assert len(recs) == 4  # the deleted message (no body) is counted in one warning
    assert len(warnings) == 1 and "1 " in warnings[0]
    draft, joined, signed, bot = recs
    assert draft["metadata"] == {"speaker": "Rosa Diaz", "listeners": ["Kenji Mori"]}
    assert draft["textChunks"] == [
        "Draft is up, Kenji Mori can you check & sign off?",
        "[attachment] draft.docx",
    ]
    assert draft["id"] == f"teams:{CHAT}:1730812003118" and draft["thread"] == CHAT
    assert draft["timestamp"] == "2024-11-05T13:06:43Z"
    assert draft["extra"]["edited"] == "2024-11-05T13:07:10Z"
    assert joined["tags"] == ["system"]
    # the event's type in words; the member its detail names by id alone, by the name
    # their own messages give that id; the initiator likewise
    assert joined["textChunks"] == ["[system event] members added: Kenji Mori"]
    assert joined["metadata"]["speaker"] == "Rosa Diaz"
    assert signed["textChunks"] == ["Signed off. Two typos on p. 3 <fixed>"]  # text body: as is
    assert signed["timestamp"] == "2024-11-05T13:08:25Z"
    assert bot["metadata"]["speaker"] == "Build Bot" and bot["textChunks"] == ["Build #412 passed"]


def _camel(value):
    if isinstance(value, dict):
        return {k[:1].lower() + k[1:]: _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def test_camel_case_reads_as_pascal_case(tmp_path: Path):
    """The same messages in the Graph API's spelling give the same records."""
    pascal = SAMPLE_DATA / "chat" / "teams.json"
    camel = tmp_path / "teams.json"
    camel.write_text(json.dumps({"value": _camel(json.loads(pascal.read_text()))}))
    assert registry.detect(Source(camel)).name == "teams"
    want, _, _ = run(teams.read_teams, pascal)
    got, _, _ = run(teams.read_teams, camel)
    assert [r | {"source_id": None} for r in got] == [r | {"source_id": None} for r in want]


def test_a_time_without_offset_is_read_in_tz(tmp_path: Path):
    """A time with no offset (an exporter writing a .NET DateTime of unspecified kind) is
    read in ``--tz``; one with an offset keeps it."""
    path = tmp_path / "t.json"
    msgs = [
        {"Id": "1", "ChatId": "19:x@thread.v2", "MessageType": "message",
         "CreatedDateTime": "2024-03-06T10:00:00", "From": {"User": {"DisplayName": "A"}},
         "Body": {"ContentType": "text", "Content": "naive"}},
        {"Id": "2", "ChatId": "19:x@thread.v2", "MessageType": "message",
         "CreatedDateTime": "2024-03-06T10:00:00Z", "From": {"User": {"DisplayName": "A"}},
         "Body": {"ContentType": "text", "Content": "utc"}},
    ]  # fmt: skip
    path.write_text(json.dumps(msgs))
    plus2 = ImportOptions(tz=timezone(timedelta(hours=2)))
    recs, _, _ = run(teams.read_teams, path, plus2)
    assert [r["timestamp"] for r in recs] == ["2024-03-06T08:00:00Z", "2024-03-06T10:00:00Z"]
    recs, _, _ = run(teams.read_teams, path)
    assert [r["timestamp"] for r in recs] == ["2024-03-06T10:00:00Z", "2024-03-06T10:00:00Z"]


def test_quotes_forwards_cards_and_files():
    """Graph's ``chatMessageAttachment`` kinds, as real answers hold them (a quoted reply
    ``messageReference`` whose body is only ``<attachment id>``; a forwarded message's
    ``originalMessageContent``; an adaptive card): each read "[attachment] None" (a
    forward's text lost); now a quote is the reply, heard by the quoted sender, a
    forward and a card are their text, a file its name."""
    recs, rejects, warnings = run(teams.read_teams, FIXTURES / "teams" / "graph-attachments.json")
    assert not rejects and not warnings
    assert [r["textChunks"] for r in recs] == [
        ["Budget draft is in the channel files.", "[attachment] budget-2025.xlsx"],
        ["Row 14 looks off to me"],
        ["[forwarded from Dana Kim] Finance review moved to Thursday"],
        ["[card] Approval needed / Budget 2025, 3 reviewers / Open"],
        ["Fixed, thanks Lee Park"],
    ]
    first = recs[0]["id"]
    assert recs[1]["replyTo"] == first and recs[1]["metadata"]["listeners"] == ["Noor Haddad"]
    assert recs[1]["extra"]["quoted"]["preview"] == "Budget draft is in the channel files."
    # quoting her own message while mentioning Lee: the mention is the listener
    assert recs[4]["replyTo"] == first and recs[4]["metadata"]["listeners"] == ["Lee Park"]


def test_a_card_nested_too_deep_keeps_the_file(tmp_path: Path):
    """A card's ``Content`` (a JSON string) nested 500 deep: its keys and texts were
    walked recursively, a RecursionError that stopped the whole import. Now the card is
    read as one without text; the other messages are read."""
    doc = json.loads((FIXTURES / "teams" / "graph-attachments.json").read_text())
    card = next(a for m in doc["value"] for a in m["attachments"] if ".card." in a["contentType"])
    card["content"] = '{"a":' * 500 + '{"text": "deep"}' + "}" * 500
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    recs, rejects, _ = run(teams.read_teams, path)
    assert not rejects and len(recs) == 5
    assert recs[3]["textChunks"] == ["[card]"]


def test_a_message_nested_too_deep_keeps_the_file(tmp_path: Path):
    """A message holding a value nested 600 deep: reading its keys as PascalCase walked
    it all, a RecursionError that stopped the whole import. Keys that deep are left as
    they are; every message is read."""
    doc = json.loads((FIXTURES / "teams" / "graph-attachments.json").read_text())
    doc["value"][0]["importance"] = json.loads('{"a":' * 600 + "1" + "}" * 600)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    recs, _, _ = run(teams.read_teams, path)
    assert len(recs) == 5


def test_graph_page_names_its_chat_and_events_say_what_happened():
    """A page of ``GET /chats/{id}/messages`` whose messages leave ``chatId`` out: the chat
    its ``@odata.context`` names; a call's length and a chat's new name in the event."""
    path = FIXTURES / "teams" / "graph-page-context.json"
    recs, rejects, _ = run(teams.read_teams, path)
    assert not rejects
    assert {r["thread"] for r in recs} == {"19:meeting_abc@thread.v2"}
    assert [r["textChunks"][0] for r in recs] == [
        "[system event] call ended: PT1M13S",
        "[system event] chat renamed: Seed swap planning",
        "Hello!",
    ]
    assert recs[0]["metadata"]["speaker"] == "Alice Smith"  # the initiator, by id
    assert recs[2]["id"] == "teams:19:meeting_abc@thread.v2:1705309200000"
