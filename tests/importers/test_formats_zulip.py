"""Zulip messages (``convo.importers.apps.zulip``).

The fixtures follow the REST API's ``GET /messages`` answer (zulip.com/api/get-messages:
``sender_full_name``, ``sender_realm_str``, ``display_recipient`` as a channel name or a
direct message's user list, ``subject``, HTML ``content``, ``reactions``,
``last_edit_timestamp``) and an organization export (``zerver/lib/export.py``:
``messages-000001.json`` with ``zerver_message`` rows of ``sender``/``recipient`` ids,
Markdown ``content`` and HTML ``rendered_content``, ``date_sent``; ``realm.json`` beside
it with ``zerver_userprofile``, ``zerver_recipient``, ``zerver_stream``, ``zerver_realm``).
Both hold the same three messages, so they must give the same ids and threads.
"""

from __future__ import annotations

import shutil

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import zulip
from convo.importers.registry import registry

API = FIXTURES / "zulip" / "api-messages.json"
EXPORT = FIXTURES / "zulip" / "export" / "messages-000001.json"


def test_api_golden_and_reject():
    recs, rejects, _ = run(zulip.read, API)
    assert_golden("formats/zulip/api-messages.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("api-messages.json:74", "not a Zulip message (no id or sender)")
    ]


def test_export_golden_and_reject():
    recs, rejects, warnings = run(zulip.read, EXPORT)
    assert_golden("formats/zulip/export-messages.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages-000001.json:48", "not a Zulip message (no id or sender)")
    ]
    assert warnings == []


def test_mapping():
    recs, _, _ = run(zulip.read, API)
    ask, answer, dm = recs
    assert ask["thread"] == "outings > rock pools" and ask["subject"] == "rock pools"
    assert ask["extra"]["reactions"] == [{"emoji": "+1", "by": ["Bob Kowalski", "user 11"]}]
    assert answer["metadata"] == {"speaker": "Bob Kowalski", "listeners": ["Ann Lee"]}
    assert "> Low tide is at 07:10" in answer["textChunks"][0]
    assert dm["thread"] == "Ann Lee, Bob Kowalski"
    assert dm["metadata"] == {"speaker": "Ann Lee", "listeners": ["Bob Kowalski"]}


def test_the_api_and_the_export_give_one_id_and_thread():
    api, _, _ = run(zulip.read, API)
    export, _, _ = run(zulip.read, EXPORT)
    assert [(r["id"], r["thread"], r["timestamp"]) for r in api] == [
        (r["id"], r["thread"], r["timestamp"]) for r in export
    ]
    assert export[0]["id"] == "zulip:tide:1844"


def test_export_without_realm_json(tmp_path):
    """Without realm.json: user and recipient numbers, the folder as the scope, warned."""
    alone = tmp_path / "club" / "messages-000001.json"
    alone.parent.mkdir()
    shutil.copy(EXPORT, alone)
    recs, _, warnings = run(zulip.read, alone)
    assert recs[0]["metadata"]["speaker"] == "user 8"
    assert recs[0]["thread"] == "recipient 20 > rock pools"
    assert recs[0]["id"] == "zulip:club:1844"
    assert warnings == [
        "messages-000001.json: no realm.json beside it: senders are user numbers, "
        "channels recipient numbers"
    ]


def test_detect_among_builtins():
    for path in (API, EXPORT):
        assert zulip.sniff(Source(path)) >= 90
        assert detect_name(fresh_registry(zulip), path) == "zulip"


def test_global_registry_detects():
    assert registry.detect(Source(API)).name == "zulip"
    assert registry.detect(Source(EXPORT)).name == "zulip"


def test_an_unreadable_time_is_a_reject_not_an_error(tmp_path):
    """``parse_any``'s ValueError escaped the reader (an internal error): an unreadable
    send time rejects its message, an unreadable edit time is no edit time."""
    import json

    doc = json.loads(API.read_text(encoding="utf-8"))
    first, second = doc["messages"][0], doc["messages"][1]
    first["timestamp"] = "\u00b2"
    second["last_edit_timestamp"] = "2024-13-45T99:99:99Z"
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    recs, rejects, _ = run(zulip.read, path)
    plain, plain_rejects, _ = run(zulip.read, API)
    assert len(recs) == len(plain) - 1 and len(rejects) == len(plain_rejects) + 1
    assert any("unreadable time" in r.reason for r in rejects)
    assert "edited" not in (recs[0].get("extra") or {})

    export = tmp_path / "export"
    shutil.copytree(EXPORT.parent, export)
    page = export / EXPORT.name
    data = json.loads(page.read_text(encoding="utf-8"))
    data["zerver_message"][0]["date_sent"] = True
    page.write_text(json.dumps(data), encoding="utf-8")
    recs, rejects, _ = run(zulip.read, page)
    assert any("unreadable time" in r.reason for r in rejects)


WIDGETS = FIXTURES / "zulip" / "api-widgets.json"


def test_me_poll_previews_and_formulas():
    """Shapes of real API answers (a 2017-2020 organization's channels): a ``/me``
    message is an action; a poll reads its question and the votes its submessages leave
    (a vote of -1 withdraws one, options added later count); the server's image and link
    previews are not text, except an image the message does not link otherwise; a KaTeX
    formula reads as its TeX once."""
    recs, rejects, _ = run(zulip.read, WIDGETS)
    assert rejects == []
    me, poll, image, previews, formula, mention = recs
    assert me["textChunks"] == ["is packing the nets"] and me["tags"] == ["action"]
    assert poll["textChunks"] == [
        "[poll] Which beach on Saturday?: North cove (1), South cove (0), Either (1)"
    ]
    assert poll["extra"]["poll"]["question"] == "Which beach on Saturday?"
    assert image["textChunks"] == ["[image] https://pics.example.org/crab.jpg"]
    assert previews["textChunks"] == [
        "The tide table: https://tides.example.org/week and our map (/user_uploads/4/ab/map.png)"
    ]
    assert formula["textChunks"] == ["Height is $$h^2$$ metres."]
    assert all(r["tags"] == [] for r in (poll, image, previews, formula))
    # rendered with the name Ann had when it was sent: named as she speaks in the file
    assert mention["metadata"]["listeners"] == ["Ann Lee"]


def test_export_me_message(tmp_path):
    """The export has no ``is_me_message``: Zulip's rule (Markdown ``/me `` rendered as
    ``<p>/me ``) tells it."""
    import json

    export = tmp_path / "export"
    shutil.copytree(EXPORT.parent, export)
    page = export / EXPORT.name
    data = json.loads(page.read_text(encoding="utf-8"))
    row = data["zerver_message"][0]
    row["content"], row["rendered_content"] = "/me waves", "<p>/me waves</p>"
    page.write_text(json.dumps(data), encoding="utf-8")
    recs, _, _ = run(zulip.read, page)
    assert recs[0]["textChunks"] == ["waves"] and recs[0]["tags"] == ["action"]


def test_an_export_folder_reads_without_rejections(tmp_path):
    """An organization export holds, beside ``messages-*.json``, ``realm.json``,
    ``attachment.json``, ``analytics.json``, ``migration_status.json`` (zulip's
    ``import_fixtures/migration_status.json``: ``migrations_by_app``) and the
    ``records.json`` of ``avatars/``, ``uploads/``: each was "format not recognised" and
    counted as rejected (JSON files), even realm.json. They are the export's files now:
    no messages, silent beside the messages, said once alone."""
    folder = tmp_path / "zulip-export-x1"
    shutil.copytree(EXPORT.parent, folder)
    (folder / "attachment.json").write_text(
        '{"zerver_attachment": [], "zerver_attachment_messages": []}'
    )
    (folder / "analytics.json").write_text(
        '{"analytics_realmcount": [], "analytics_usercount": []}'
    )
    (folder / "migration_status.json").write_text(
        '{"migrations_by_app": {"analytics": ["[X] 0001_initial"]}, "zulip_version": "9.0"}'
    )
    (folder / "avatars").mkdir()
    (folder / "avatars" / "records.json").write_text(
        '[{"path": "2/ab.png", "s3_path": "2/ab.png", "realm_id": 2, "user_profile_id": 8, '
        '"content_type": "image/png"}]'
    )
    quiet = ["realm.json", "attachment.json", "analytics.json", "migration_status.json",
             "avatars/records.json"]  # fmt: skip
    for name in quiet:
        assert registry.detect(Source(folder / name)).name == "zulip", name
        recs, rejects, warnings = run(zulip.read, folder / name)
        assert (recs, rejects, warnings) == ([], [], []), name
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(folder / "realm.json", alone / "realm.json")
    _, _, warnings = run(zulip.read, alone / "realm.json")
    assert len(warnings) == 1 and "without messages" in warnings[0]


def test_a_message_without_its_time_is_rejected(tmp_path):
    """A message without ``timestamp`` was dated 1970-01-01 with no word (one whose time
    did not read was rejected): it is rejected too."""
    path = tmp_path / "m.json"
    path.write_text(
        '{"result": "success", "messages": [{"id": 1, "sender_full_name": "Ann", '
        '"sender_email": "a@x.org", "content": "no time", "type": "stream", '
        '"display_recipient": "general", "subject": "t"}, {"id": 2, "sender_full_name": '
        '"Ann", "sender_email": "a@x.org", "content": "ok", "type": "stream", '
        '"display_recipient": "general", "subject": "t", "timestamp": 1709719200}]}',
        encoding="utf-8",
    )
    recs, rejects, _ = run(zulip.read, path)
    assert [r["textChunks"][0] for r in recs] == ["ok"]
    assert [r.reason for r in rejects] == ["Zulip message without a timestamp"]
