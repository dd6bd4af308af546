"""Cursor's Export Chat Markdown (``convo.importers.agents.cursor_md``), as users commit
``cursor_<title>.md`` files to their repositories (Cursor 1.0-1.7: ``_Exported on
7/8/2025 at 11:55:38 PDT from Cursor (1.2.2)_``, ``**User**`` / ``**Cursor**`` turns after
``---``, ``---`` rules inside answers, ``[N tools called]``; a Korean locale's date). They
were "format not recognised"."""

from __future__ import annotations

from datetime import UTC

import pytest
from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import cursor_md, locale_time
from convo.importers.registry import registry

DIR = FIXTURES / "cursor_md"


def test_turns_rules_and_tools():
    path = DIR / "cursor_fixing_the_kettle_cutoff.md"
    assert registry.detect(Source(path)).name == "cursor-md"
    recs, rejects, warnings = run(cursor_md.read, path)
    assert not rejects
    assert warnings == ["cursor_fixing_the_kettle_cutoff.md: skipped 1 empty turn"]
    assert [(r["metadata"]["speaker"], r["metadata"]["listeners"]) for r in recs] == [
        ("user", ["assistant"]),
        ("assistant", ["user"]),
        ("user", ["assistant"]),
        ("assistant", ["user"]),
        ("assistant", ["user"]),
    ]
    answer = recs[1]["textChunks"][0]
    assert answer.startswith("Short answer: the cutoff is 90 C.\n\n---\n\n## Details")
    assert answer.endswith("```python\nCUTOFF = 90\n---\n**User**\n```")  # a fence's lines
    assert recs[2]["textChunks"] == ["raise it to 100"]
    assert recs[3]["extra"]["tools_called"] == 4
    assert {r["timestamp"] for r in recs} == {"2025-07-08T18:55:38Z"}  # PDT
    assert recs[0]["subject"] == "Fixing the kettle cutoff"
    assert recs[0]["extra"] == {"cursor_version": "1.2.2"}
    assert {r["thread"] for r in recs} == {"cursor-md:cursor_fixing_the_kettle_cutoff.md"}


def test_korean_locale():
    recs, rejects, _ = run(cursor_md.read, DIR / "cursor_korean.md")
    assert not rejects
    assert [(r["role"], r["textChunks"], r["timestamp"]) for r in recs] == [
        ("user", ["다음 내용 수정해줘"], "2025-06-27T05:17:35Z"),
        ("assistant", ["수정했습니다."], "2025-06-27T05:17:35Z"),
    ]


@pytest.mark.parametrize(
    ("date", "time", "want"),
    [
        ("8/21/2025", "18:13:28 GMT+2", "2025-08-21T16:13:28Z"),
        ("19/10/2025", "12:29:42 GMT+8", "2025-10-19T04:29:42Z"),
        ("21.8.2025", "18:13:28 GMT+2", "2025-08-21T16:13:28Z"),
        ("2025/8/21", "18:13:28 GMT+9", "2025-08-21T09:13:28Z"),
        ("7/29/2025", "6:51:14 PM EDT", "2025-07-29T22:51:14Z"),
        ("1/2/2025", "12:05:00 AM GMT", "2025-01-02T00:05:00Z"),
        ("3/4/2025", "10:00:00 GMT+5:30", "2025-03-04T04:30:00Z"),
    ],
)
def test_export_times(date, time, want):
    assert locale_time.local_time(date, time, UTC) == (want, False)


def test_a_zone_convo_does_not_know_is_read_in_tz():
    assert locale_time.local_time("8/21/2025", "18:13:28 Mitteleuropa", UTC) == (
        "2025-08-21T18:13:28Z",
        True,
    )
