"""A Discourse user's "Download All" archive (``convo.importers.forums.discourse_archive``).

The fixture follows discourse/discourse ``app/jobs/regular/export_user_archive.rb``:
``user_archive.csv`` (``topic_title,categories,is_pm,post_raw,post_cooked,like_count,
reply_count,url,created_at``; categories joined by ``|``; ``is_pm`` ``Yes``/``No``; the
URL ``<base>/t/<slug>/<topic>/<post number>``; Ruby's ``... UTC`` times; multi-line
markdown) beside ``preferences.json``, in the ``user_archive-<username>-<date>-<time>-<id>``
folder the zip holds.
"""

from __future__ import annotations

import shutil

from formats_helpers import FIXTURES, files_taken, run

from convo.core.io import Source
from convo.importers.forums import discourse_archive
from convo.importers.registry import registry

DIR = FIXTURES / "discourse_archive" / "user_archive-tidewatcher-240601-101500-77"


def test_user_archive():
    recs, rejects, warnings = run(discourse_archive.read, DIR / "user_archive.csv")
    assert not warnings
    first, thanks, pm = recs
    assert (
        first["id"] == "discourse:sea.example:42/1"
        and first["thread"] == "discourse:sea.example:42"
    )
    assert first["textChunks"] == ["Spring tide tonight.\n\nBring a torch, @saltmarsh."]
    assert first["metadata"] == {"speaker": "tidewatcher", "listeners": ["saltmarsh"]}
    assert first["subject"] == "Spring tides" and first["timestamp"] == "2024-03-01T10:00:00Z"
    assert first["extra"]["categories"] == ["Coast", "Tides"]
    assert "subject" not in thanks and thanks["extra"]["topic_title"] == "Spring tides"
    assert pm["textChunks"] == ["See you at the pier & cafe"]  # no raw: the cooked HTML
    assert pm["tags"] == ["private-message"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("user_archive.csv:8", "Discourse archive row without a readable URL")
    ]


def test_the_folder_names_the_user_without_preferences(tmp_path):
    folder = tmp_path / "user_archive-saltmarsh-240601-101500"
    folder.mkdir()
    shutil.copy(DIR / "user_archive.csv", folder / "user_archive.csv")
    recs, _, _ = run(discourse_archive.read, folder / "user_archive.csv")
    assert {r["metadata"]["speaker"] for r in recs} == {"saltmarsh"}
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(DIR / "user_archive.csv", plain / "user_archive.csv")
    recs, _, warnings = run(discourse_archive.read, plain / "user_archive.csv")
    assert {r["metadata"]["speaker"] for r in recs} == {None}
    assert any("author is unknown" in w for w in warnings)


def test_preferences_json_is_the_archives_and_holds_no_message(tmp_path):
    recs, rejects, warnings = run(discourse_archive.read, DIR / "preferences.json")
    assert (recs, rejects, warnings) == ([], [], [])
    shutil.copy(DIR / "preferences.json", tmp_path / "preferences.json")
    _, _, warnings = run(discourse_archive.read, tmp_path / "preferences.json")
    assert len(warnings) == 1 and "holds no messages" in warnings[0]


def test_detection():
    for name in ("user_archive.csv", "preferences.json"):
        assert registry.detect(Source(DIR / name)).name == "discourse-archive"
    assert files_taken({"discourse-archive"}, {"discourse_archive"}) == {}
