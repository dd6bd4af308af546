"""Reddit's data request export (``convo.importers.forums.reddit_export``, issue 36).

The fixture folder is named as Reddit names the zip (``export_<username>_<YYYYMMDD>``)
and holds the four CSVs with a conversation in them, with the headers Reddit writes
(as read by the export's parsers: RLEAPP, potluck, Epicenter): ``posts.csv`` with a
UTF-8 BOM, multi-line quoted bodies, a comment row without its id, CRLF line ends.
"""

from __future__ import annotations

import shutil

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.forums import reddit_export
from convo.importers.registry import registry

DIR = FIXTURES / "reddit_export" / "export_maple_owl_20240601"


def _all(folder=DIR):
    out, rejects, warnings = [], [], []
    for name in ("posts.csv", "comments.csv", "messages.csv", "chat_history.csv"):
        r, j, w = run(reddit_export.read, folder / name)
        out += r
        rejects += j
        warnings += w
    return out, rejects, warnings


def test_golden_and_mapping():
    recs, rejects, warnings = _all()
    assert_golden("formats/reddit_export/export.jsonl", recs)
    assert [j.where for j in rejects] == ["comments.csv:6"]  # the row without an id
    assert not warnings
    post, link_post, comment, top, pm1, pm2, _, *chat = recs
    assert post["id"] == "reddit:t3_1abcd2" and post["thread"] == post["id"]
    assert post["metadata"] == {"speaker": "maple_owl", "listeners": ["river_otter_77"]}
    assert post["subject"] == "Bike lanes that work"
    assert link_post["textChunks"] == [
        "New bridge opens Saturday\n\nhttps://example.org/news/bridge"
    ]
    assert comment["id"] == "reddit:t1_lq7a2b9" and comment["thread"] == "reddit:t3_1abcd2"
    assert comment["replyTo"] == "reddit:t1_lq79zz1"
    assert comment["textChunks"] == [
        "Agree with this, mostly.\n> the paint-only lanes\nThose never helped."
    ]
    assert top["replyTo"] == "reddit:t3_1ac001"  # a top-level comment answers the post
    assert pm1["metadata"] == {"speaker": "river_otter_77", "listeners": ["maple_owl"]}
    assert pm2["thread"] == pm1["id"] == "reddit:t4_2bq9x1"
    assert [c["metadata"]["listeners"] for c in chat] == [
        ["river_otter_77"], ["maple_owl"], ["quiet_heron"], ["maple_owl"]
    ]  # fmt: skip
    assert chat[1]["replyTo"] == chat[0]["id"]
    assert all("ip" not in (r.get("extra") or {}) for r in recs)
    assert post["timestamp"] == "2024-05-02T17:40:11Z"


def test_every_file_is_detected_by_its_header():
    for name in ("posts.csv", "comments.csv", "messages.csv", "chat_history.csv"):
        assert registry.detect(Source(DIR / name)).name == "reddit-export"


def test_the_account_from_messages_beside_when_the_folder_is_renamed(tmp_path):
    folder = tmp_path / "reddit"
    shutil.copytree(DIR, folder)
    recs, _, warnings = run(reddit_export.read, folder / "comments.csv")
    assert {r["metadata"]["speaker"] for r in recs} == {"maple_owl"} and not warnings
    (folder / "messages.csv").unlink()
    recs, _, warnings = run(reddit_export.read, folder / "comments.csv")
    assert {r["metadata"]["speaker"] for r in recs} == {None}
    assert len(warnings) == 1 and "does not name its account" in warnings[0]


def test_a_file_that_is_not_the_export_is_refused(tmp_path):
    path = tmp_path / "post_votes.csv"
    path.write_text("id,permalink,direction\n1abcd2,/r/x/comments/1abcd2/,up\n")
    assert reddit_export.sniff(Source(path)) == 0
    with pytest.raises(Exception, match="not a Reddit data export CSV"):
        list(run(reddit_export.read, path)[0])


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(max_size=8), st.text(max_size=25), st.text(max_size=30)),
        max_size=6,
    )
)
def test_any_rows_never_crash_and_every_row_is_counted(tmp_path_factory, rows):
    import csv

    path = tmp_path_factory.mktemp("r") / "comments.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "id",
                "permalink",
                "date",
                "ip",
                "subreddit",
                "gildings",
                "link",
                "parent",
                "body",
                "media",
            ]
        )
        for ident, date, body in rows:
            w.writerow([ident, "", date, "", "s", "0", "", "", body, ""])
    recs, rejects, _ = run(reddit_export.read, path)
    assert len(recs) + len(rejects) == len(rows)
