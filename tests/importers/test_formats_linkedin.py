"""LinkedIn's messages.csv (``convo.importers.apps.linkedin``).

``Basic_LinkedInDataExport_06-01-2024/messages.csv`` has the newest columns
(``RECIPIENT PROFILE URLS``, ``IS MESSAGE DRAFT``, ``IS CONVERSATION DRAFT``,
``ATTACHMENTS``): a chat with a sender whose name holds a comma, a line break in a cell,
an attachment, a named group with two recipients, a draft, an InMail with a subject and
HTML, LinkedIn's notice, an empty row, a date that does not read. ``LinkedIn-2020``
has the older nine columns, a UTF-8 BOM, CRLF rows and a reply whose subject says RE:.
"""

from __future__ import annotations

import csv
import io

from formats_helpers import FIXTURES, NAME, TEXT, assert_one_text_an_id, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import linkedin
from convo.importers.registry import registry

NEW = FIXTURES / "linkedin" / "Basic_LinkedInDataExport_06-01-2024" / "messages.csv"
OLD = FIXTURES / "linkedin" / "LinkedIn-2020" / "messages.csv"


def test_goldens_and_detection():
    for path, golden in ((NEW, "2024"), (OLD, "2020")):
        recs, _, _ = run(linkedin.read, path)
        assert_golden(f"formats/linkedin/{golden}.jsonl", recs)
        assert registry.detect(Source(path)).name == "linkedin"


def test_newest_columns():
    recs, rejects, warnings = run(linkedin.read, NEW)
    chat = recs[:2]
    assert [r["metadata"] for r in chat] == [
        {"speaker": "Jane Doe, MBA", "listeners": ["Maple Owl"]},
        {"speaker": "Maple Owl", "listeners": ["Jane Doe, MBA"]},  # one profile: one name
    ]
    assert {r["thread"] for r in chat} == {"Jane Doe, MBA, Maple Owl"}
    assert chat[0]["textChunks"] == ["Hi Maple,\nthanks for connecting — café on Friday?"]
    assert (
        chat[1]["textChunks"][1]
        == "[attachment] https://www.linkedin.com/dms/prv/vid/C4D06AQ/cv.pdf"
    )
    assert chat[1]["extra"]["folder"] == "SENT"
    group = [r for r in recs if r["thread"] == "Seed swap group"]
    assert [r["metadata"]["listeners"] for r in group] == [
        ["Maple Owl", "Bob Ray"],
        ["Ann Müller", "Bob Ray"],
    ]
    assert group[1]["tags"] == ["draft"]
    inmail, notice = recs[4:6]
    assert (
        inmail["subject"] == "Opportunity at Kew" and inmail["thread"] == "Maple Owl, Recruiter Ré"
    )
    assert notice["tags"] == ["system"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.csv:10", "DATE 'last Tuesday' is not a time")
    ]
    assert warnings == [
        "messages.csv: skipped empty messages (no text, no media): 1 (at messages.csv:9)"
    ]


def test_older_columns_one_thread_for_a_reply():
    recs, rejects, warnings = run(linkedin.read, OLD)
    assert (rejects, warnings) == ([], [])
    assert [r["thread"] for r in recs[:2]] == ["Bob Ray, Maple Owl"] * 2
    assert [r["subject"] for r in recs[:2]] == ["Hello", "RE: Hello"]
    assert recs[1]["textChunks"] == ["Likewise, Bob.\nSee you."]
    assert recs[2]["tags"] == ["system"]


def test_no_other_file_is_read_as_linkedin():
    assert files_taken({"linkedin"}, {"linkedin"}) == {}


def test_other_csv_files_of_the_export_are_not_taken(tmp_path):
    for name, header in (
        ("Connections.csv", "First Name,Last Name,URL,Email Address,Company,Position,Connected On"),
        ("Comments.csv", "Date,Link,Message"),
    ):
        path = tmp_path / name
        path.write_text(header + "\nx,y,z\n")
        assert linkedin.sniff(Source(path)) == 0


_HEADERS = (
    "CONVERSATION ID,CONVERSATION TITLE,FROM,SENDER PROFILE URL,TO,DATE,SUBJECT,CONTENT,FOLDER",
    "CONVERSATION ID,CONVERSATION TITLE,FROM,SENDER PROFILE URL,TO,RECIPIENT PROFILE URLS,DATE,"
    "SUBJECT,CONTENT,FOLDER,IS MESSAGE DRAFT",
)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(NAME, NAME, TEXT), min_size=1, max_size=8), st.sampled_from(_HEADERS))
def test_any_export_reads_back(tmp_path_factory, rows, header):
    columns = header.split(",")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    for k, (sender, to, text) in enumerate(rows):
        cells = {"CONVERSATION ID": "2-x", "FROM": sender, "TO": to, "CONTENT": text,
                 "DATE": f"2024-01-01 00:00:{k:02d} UTC", "FOLDER": "INBOX"}  # fmt: skip
        w.writerow([cells.get(c, "") for c in columns])
    path = tmp_path_factory.mktemp("li") / "messages.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    recs, rejects, warnings = run(linkedin.read, path)
    assert not rejects and not warnings
    assert [
        (r["metadata"]["speaker"], r["metadata"]["listeners"], r["textChunks"]) for r in recs
    ] == [(s, [t] if t != s else [], [x]) for s, t, x in rows]
    assert len({r["id"] for r in recs}) == len(recs)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 1500))
def test_hostile_input_never_crashes(tmp_path_factory, noise, cut):
    from convo.core.errors import ConvoError

    raw = NEW.read_bytes()
    path = tmp_path_factory.mktemp("hostile") / "messages.csv"
    path.write_bytes(raw[: max(len(raw) - cut, 200)] + noise)
    try:
        recs, _, _ = run(linkedin.read, path)
    except ConvoError:
        return
    assert_one_text_an_id(recs)


def test_an_inmail_or_sponsored_html_body_is_read_as_text(tmp_path):
    """Sponsored messages and InMails hold HTML (``<p class="spinmail-quill-editor__spin-
    break">``, ``&nbsp;``, links): the markup was the record's text. Now its text, the HTML
    kept in ``extra.html``."""
    path = tmp_path / "messages.csv"
    path.write_text(
        "CONVERSATION ID,CONVERSATION TITLE,FROM,SENDER PROFILE URL,TO,RECIPIENT PROFILE URLS,"
        "DATE,SUBJECT,CONTENT,FOLDER\n"
        "2-sp,Sponsored Conversation,Kew Gardens,,Maple Owl,https://www.linkedin.com/in/maple,"
        '2024-05-01 08:00:00 UTC,,"<p class=""spinmail-quill-editor__spin-break"">Hi&nbsp;Maple!'
        '</p><p class=""spinmail-quill-editor__spin-break""><br></p><p>Seeds &amp; '
        '<a href=""https://example.org/s"">bulbs</a>.</p>",INBOX\n',
        encoding="utf-8",
    )
    recs, rejects, _ = run(linkedin.read, path)
    assert not rejects
    text = recs[0]["textChunks"][0]
    assert "<" not in text and "&" not in text.replace("Seeds & ", "")
    assert text.startswith("Hi Maple!") and "Seeds & bulbs" in text
    assert recs[0]["extra"]["html"].startswith('<p class="spinmail-quill-editor__spin-break">')
