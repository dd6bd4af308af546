"""Google Hangouts in Google Takeout (``convo.importers.apps.hangouts``).

``Hangouts.json`` is the 2018+ layout: a one-to-one chat (segments with bold
formatting, a link, line breaks with and without their text, a photo, an SMS through
Google Voice, a call started and ended, an off-the-record switch, an event whose
timestamp does not read, a message of blanks) and a named group (a participant without
``fallback_name``, a join, a place, a rename, a leave), then an element that is not a
conversation. ``Hangouts-2014.json`` is the older ``conversation_state`` layout.
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, NAME, TEXT, assert_one_text_an_id, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import hangouts
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

NEW = FIXTURES / "hangouts" / "Hangouts.json"
OLD = FIXTURES / "hangouts" / "Hangouts-2014.json"


def test_goldens_and_detection():
    for path, golden in ((NEW, "hangouts"), (OLD, "hangouts-2014")):
        recs, _, _ = run(hangouts.read, path)
        assert_golden(f"formats/hangouts/{golden}.jsonl", recs)
        assert registry.detect(Source(path)).name == "hangouts"


def test_one_to_one_chat():
    recs, rejects, warnings = run(hangouts.read, NEW)
    dm = [r for r in recs if r["thread"] == "Ann Müller"]
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in dm] == [
        ("Ann Müller", ["Happy new year! 🎉\nSecond line"]),
        ("Maple Owl", ["see kew.org\ntomorrow?"]),
        ("Ann Müller", ["[photo] https://lh3.googleusercontent.com/original.jpg"]),
        ("Maple Owl", ["sent as a text"]),
        ("Ann Müller", ["[call started]"]),
        ("Ann Müller", ["[call ended, 120 s]"]),
    ]
    assert (
        dm[0]["timestamp"] == "2015-01-01T00:00:00Z"
        and dm[1]["timestamp"] == "2015-01-01T00:01:00Z"
    )
    assert dm[0]["metadata"]["listeners"] == ["Maple Owl"]
    assert dm[0]["id"] == "hangouts:UgwDmAnnMe4AaABAQ:7-H0Z7-aaa1"
    assert dm[0]["extra"]["formatting"] == ["🎉"]
    assert (
        dm[3]["extra"]["medium"] == "GOOGLE_VOICE_MEDIUM" and dm[3]["extra"]["event_type"] == "SMS"
    )
    assert dm[4]["tags"] == dm[5]["tags"] == ["system"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("Hangouts.json:3 event 8", "timestamp 'not-a-time' is not microseconds since the epoch"),
        ("Hangouts.json:712", "not a Hangouts conversation (not an object)"),
    ]
    assert warnings == [
        "Hangouts.json: skipped events with no message text: 1 OTR_MODIFICATION, "
        "1 REGULAR_CHAT_MESSAGE"
    ]


def test_named_group():
    recs, _, _ = run(hangouts.read, NEW)
    group = [r for r in recs if r["thread"] == "Tea party ☕"]
    ghost = "gaia:104000000000000000009"
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in group] == [
        ("Bob", f"[added Ann Müller, {ghost}]"),
        (ghost, "no name given for me"),
        ("Ann Müller", "meet here"),
        ("Maple Owl", "[renamed the conversation to Tea party ☕]"),
        ("Bob", "[left]"),
    ]
    assert group[2]["textChunks"][1] == "[place_v2] https://maps.google.com/maps?q=Kew"
    assert group[1]["metadata"]["listeners"] == ["Maple Owl", "Ann Müller", "Bob"]


def test_older_layout():
    recs, rejects, warnings = run(hangouts.read, OLD)
    assert (rejects, warnings) == ([], [])
    assert [(r["metadata"]["speaker"], r["thread"], r["textChunks"]) for r in recs] == [
        ("Bob", "Bob", ["from 2014\nünïcode ✓"]),
        ("Maple Owl", "Bob", ["reply"]),
    ]
    assert recs[0]["timestamp"] == "2014-10-04T00:00:00Z"


def test_no_other_file_is_read_as_hangouts():
    assert files_taken({"hangouts"}, {"hangouts"}) == {}


def test_an_event_id_repeated_on_other_text_is_not_shared(tmp_path):
    doc = json.loads(OLD.read_text(encoding="utf-8"))
    events = doc["conversation_state"][0]["conversation_state"]["event"]
    events[1]["event_id"] = events[0]["event_id"]
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps(doc))
    recs, _, warnings = ingest(path, "hangouts")
    assert recs[0]["id"] != recs[1]["id"]
    assert f"{path}: {clash_warning(1)}" in warnings


def test_a_voicemail_says_so(tmp_path):
    """A Google Voice voicemail is an event ``VOICEMAIL`` whose recording is a
    ``PLUS_AUDIO_V2`` item (a real Takeout): it read ``[plus_audio_v2] URL``."""
    doc = _doc([("Ann", [(0, "hi")])])
    event = doc["conversations"][0]["events"][0]
    event["event_type"] = "VOICEMAIL"
    event["chat_message"]["message_content"] = {"attachment": [{"embed_item": {
        "type": ["PLUS_AUDIO_V2"],
        "plus_audio_v2": {"url": "https://example.com/v.mp3", "duration": "4000"},
    }}]}  # fmt: skip
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps(doc))
    recs, _, _ = run(hangouts.read, path)
    assert recs[0]["textChunks"] == ["[voicemail, 4 s] https://example.com/v.mp3"]


@pytest.mark.parametrize("duration", ["\u00b2", "9" * 5000, "-4000", "4.5", None])
def test_a_voicemail_without_a_length_in_milliseconds_says_none(tmp_path, duration):
    """``str.isdigit`` passes ``"\u00b2"``, which ``int`` refuses, as it refuses 5,000
    digits: each was an internal error (a traceback) where the text says no length."""
    doc = _doc([("Ann", [(0, "hi")])])
    event = doc["conversations"][0]["events"][0]
    event["event_type"] = "VOICEMAIL"
    event["chat_message"]["message_content"] = {"attachment": [{"embed_item": {
        "type": ["PLUS_AUDIO_V2"],
        "plus_audio_v2": {"url": "https://example.com/v.mp3", "duration": duration},
    }}]}  # fmt: skip
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    recs, _, _ = run(hangouts.read, path)
    assert recs[0]["textChunks"] == ["[voicemail] https://example.com/v.mp3"]


def _doc(convs: list[tuple[str, list[tuple[int, str]]]]) -> dict:
    out = []
    for k, (name, events) in enumerate(convs):
        parts = [{"id": {"gaia_id": str(i)}, "fallback_name": f"{name} {i}"} for i in range(2)]
        out.append({
            "conversation": {"conversation_id": {"id": f"Ugx{k}"},
                             "conversation": {"id": {"id": f"Ugx{k}"}, "participant_data": parts}},
            "events": [
                {"sender_id": {"gaia_id": str(who % 2)}, "timestamp": str(1_500_000_000_000_000 + j),
                 "event_id": f"e{j}", "event_type": "REGULAR_CHAT_MESSAGE",
                 "chat_message": {"message_content": {"segment": [{"type": "TEXT", "text": text}]}}}
                for j, (who, text) in enumerate(events)
            ],
        })  # fmt: skip
    return {"conversations": out}


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(NAME, st.lists(st.tuples(st.integers(0, 1), TEXT), min_size=1, max_size=5)),
        min_size=1,
        max_size=4,
    )
)
def test_any_takeout_reads_back(tmp_path_factory, convs):
    path = tmp_path_factory.mktemp("hangouts") / "Hangouts.json"
    path.write_text(json.dumps(_doc(convs), ensure_ascii=False), encoding="utf-8")
    recs, rejects, warnings = run(hangouts.read, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        (f"{name} {who % 2}", text) for name, events in convs for who, text in events
    ]
    assert len({r["id"] for r in recs}) == len(recs)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 3000))
def test_hostile_input_never_crashes(tmp_path_factory, noise, cut):
    from convo.core.errors import ConvoError

    raw = NEW.read_bytes()
    path = tmp_path_factory.mktemp("hostile") / "Hangouts.json"
    path.write_bytes(raw[: max(len(raw) - cut, 60)] + noise)
    try:
        recs, _, _ = ingest(path, "hangouts")  # the pipeline holds an id to one message
    except ConvoError:
        return
    assert_one_text_an_id(recs)


@pytest.mark.parametrize("stamp", ["\u00b2", "9" * 400, "9" * 5000, "-5", "1_500", "--1"])
def test_a_timestamp_that_is_no_microseconds_is_a_rejection(tmp_path, stamp):
    """``str.isdigit`` passes ``"²"`` and a number too long for a float or for ``int`` of a
    string: each was an internal error (a traceback's one line), now the event's reject."""
    doc = _doc([("Ann", [(0, "hi"), (1, "hello")])])
    doc["conversations"][0]["events"][0]["timestamp"] = stamp
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    recs, rejects, _ = run(hangouts.read, path)
    assert [r["textChunks"] for r in recs] == [["hello"]]
    assert [r.reason for r in rejects] == [
        f"timestamp {stamp[:30]!r} is not microseconds since the epoch"
    ]
