"""Google Chat in Google Takeout (``convo.importers.apps.google_chat``).

Fixtures follow Takeout's ``Google Chat/Groups/<Space or DM>/messages.json`` and
``group_info.json`` as users' converters read them (``creator`` name/email/user_type,
``created_date`` like ``Tuesday, March 1, 2022 at 10:00:00 AM UTC`` with the narrow
no-break space newer exports put before AM/PM, ``topic_id``, ``message_id``,
``attached_files``, ``reactions``, ``quoted_message_metadata``, deleted messages).
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import google_chat
from convo.importers.registry import registry

GROUPS = FIXTURES / "google_chat" / "Groups"
SPACE = GROUPS / "Space AAAAtea" / "messages.json"
DM = GROUPS / "DM xyz" / "messages.json"


def test_space_golden_reject_and_deleted():
    recs, rejects, warnings = run(google_chat.read, SPACE)
    assert_golden("formats/google_chat/space.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.json:36", "not a Google Chat message (no creator)")
    ]
    assert warnings == ["messages.json: skipped deleted or empty messages: 1 (at messages.json:21)"]


def test_mapping():
    recs, _, _ = run(google_chat.read, SPACE)
    ask, answer, bot = recs
    assert ask["metadata"] == {"speaker": "Alice Liddell", "listeners": ["The Hatter", "Dormouse"]}
    assert ask["thread"] == "Tea Party" and ask["id"] == "gchat:AAAAtea/3q1vRmDd0eE/3q1vRmDd0eE"
    assert answer["timestamp"] == "2022-03-01T10:01:30Z"  # narrow no-break space before AM
    assert answer["textChunks"] == ["Only wine. See the menu.", "[file menu.pdf]"]
    assert answer["extra"]["quoted"] == "Is there any tea?"
    assert bot["tags"] == ["bot"] and bot["timestamp"] == "2022-03-01T18:00:00Z"


def test_dm_without_group_info_uses_folder_name():
    recs, _, _ = run(google_chat.read, DM)
    assert {r["thread"] for r in recs} == {"DM xyz"}
    assert recs[1]["metadata"] == {"speaker": "The Cat", "listeners": ["Alice Liddell"]}


def test_detect_among_builtins():
    reg = fresh_registry(google_chat)
    assert detect_name(reg, SPACE) == "google-chat"
    assert detect_name(reg, DM) == "google-chat"


def test_global_registry_detects():
    assert registry.detect(Source(SPACE)).name == "google-chat"


TAKEOUT = FIXTURES / "google_chat"
REAL_DM = GROUPS / "DM k6oxQAAAAE" / "messages.json"


def test_real_dm_shape_attachment_only_and_annotations():
    """A DM as Takeout writes it: group_info.json without a name, a message with only
    ``attached_files`` (no ``text`` key; ``?account_id\\u003d3`` in its names) and
    ``youtube_metadata`` / ``url_metadata`` annotations."""
    recs, rejects, warnings = run(google_chat.read, REAL_DM)
    assert (rejects, warnings) == ([], [])
    assert [r["metadata"]["speaker"] for r in recs] == [
        "White Rabbit",
        "Alice Liddell",
        "White Rabbit",
    ]
    assert recs[0]["metadata"]["listeners"] == ["Alice Liddell"]
    assert recs[1]["textChunks"] == ["[file 4926929847130562072?account_id=3.png]"]
    assert recs[1]["timestamp"] == "2016-11-22T21:46:26Z"
    assert {r["thread"] for r in recs} == {"DM k6oxQAAAAE"}
    assert recs[2]["extra"]["annotations"][0]["url_metadata"]["url"] == {
        "private_do_not_access_or_else_safe_url_wrapped_value": "https://maps.example/q"
    }


def test_whole_takeout_folder_reads_every_group_and_rejects_no_sidecar():
    """``group_info.json`` and ``Users/*/user_info.json`` are the export's own files: a
    folder ingest reads them as google-chat (no messages) instead of counting them as
    unrecognised conversation files (which made the run exit 1)."""
    from convo.pipeline.ingest import Ingest

    run_ = Ingest()
    recs = list(run_.messages([TAKEOUT]))
    assert run_.stats.unrecognised == []
    assert run_.stats.rejected == 1  # the Space fixture's one bad message, nothing else
    assert len(recs) == 8 and {r.format for r in recs} == {"google-chat"}


def test_sidecars_detected_and_yield_nothing(tmp_path):
    user_info = TAKEOUT / "Users" / "User 1098765" / "user_info.json"
    group_info = GROUPS / "DM k6oxQAAAAE" / "group_info.json"
    for path in (user_info, group_info):
        assert registry.detect(Source(path)).name == "google-chat"
    assert run(google_chat.read, user_info) == ([], [], [])
    assert run(google_chat.read, group_info) == ([], [], [])
    lone = tmp_path / "group_info.json"
    lone.write_bytes(group_info.read_bytes())
    recs, rejects, warnings = run(google_chat.read, lone)
    assert (recs, rejects) == ([], [])
    assert len(warnings) == 1 and "holds no messages" in warnings[0]


def test_other_group_info_and_user_info_files_are_not_taken(tmp_path):
    for name, body in (
        ("group_info.json", '{"name": "x", "members": [1, 2]}'),
        ("user_info.json", '{"user": "x", "age": 3}'),
    ):
        path = tmp_path / name
        path.write_text(body)
        assert google_chat.sniff(Source(path)) == 0


LOCALES = FIXTURES / "google_chat_locales" / "DM 7rTqAAAAE" / "messages.json"


def test_dates_in_the_accounts_language():
    """Takeout writes ``created_date`` in the account's language (a Hungarian export:
    ``2015. február 15., vasárnap 21:54:36 UTC``, mrwoof/google-chat-takeout-reader issue
    3): read, and a date that cannot be read is warned with its place (it was None,
    silently)."""
    recs, rejects, warnings = run(google_chat.read, LOCALES)
    assert not rejects
    stamps = [r["timestamp"] for r in recs]
    assert stamps == ["2015-02-15T21:54:36Z", "2015-02-16T08:05:09Z", "1970-01-01T00:00:00Z"]
    assert len(warnings) == 1 and "unreadable created_date" in warnings[0]


@pytest.mark.parametrize(
    ("text", "stamp"),
    [
        ("Saturday, July 9, 2022 at 2:03:54\u202fPM UTC", "2022-07-09T14:03:54Z"),
        ("Friday, 13 May 2022 at 17:13:43 UTC", "2022-05-13T17:13:43Z"),
        ("Dienstag, 1. März 2022 um 10:00:00 UTC", "2022-03-01T10:00:00Z"),
        ("mardi 5 avril 2022 à 10:00:00 UTC", "2022-04-05T10:00:00Z"),
        ("martes, 5 de abril de 2022, 10:00:00 UTC", "2022-04-05T10:00:00Z"),
        ("maandag 4 april 2022 om 10:00:00 UTC", "2022-04-04T10:00:00Z"),
        ("maanantai 4. huhtikuuta 2022 klo 10.00.00 UTC", "2022-04-04T10:00:00Z"),
        ("wtorek, 1 marca 2022 10:00:00 UTC", "2022-03-01T10:00:00Z"),
        ("1 марта 2022 г., 10:00:00 UTC", "2022-03-01T10:00:00Z"),
        ("середа, 4 травня 2022 р. о 10:00:00 UTC", "2022-05-04T10:00:00Z"),
        ("2022年3月1日星期二 下午2:03:54 UTC", "2022-03-01T14:03:54Z"),
        ("2022. 3. 1. 화요일 오후 2:03:54 UTC", "2022-03-01T14:03:54Z"),
        ("sexta-feira, 13 de maio de 2022 10:00:00 UTC+02:00", "2022-05-13T08:00:00Z"),
        ("2022 10:00:00 UTC", None),  # no month: never a guess
        ("5 mars avril 2022 10:00:00 UTC", None),  # two months
        ("Tuesday, March 1, 2022 at 10:00:00 AM UTC+24", None),  # no zone: was a ValueError
        # Greek writes 12-hour times (π.μ., μ.μ.): the afternoon was read as the morning
        ("Τρίτη, 1 Μαρτίου 2022 - 2:03:54 μ.μ. UTC", "2022-03-01T14:03:54Z"),
        ("Τρίτη, 1 Μαρτίου 2022 - 12:03:54 π.μ. UTC", "2022-03-01T00:03:54Z"),
        # Romanian Tuesday starts as March does: a date of another month was unreadable
        ("marți, 5 aprilie 2022, 10:00:00 UTC", "2022-04-05T10:00:00Z"),
        ("2015. február 15., vasárnap 21:54:36 GMT-99:99", None),
    ],
)
def test_localized_takeout_dates(text, stamp):
    assert google_chat.created(text) == stamp
