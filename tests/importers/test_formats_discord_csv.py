"""DiscordChatExporter's CSV export (``convo.importers.apps.discord_csv``).

The fixture is written here in the shape Tyrrrz/DiscordChatExporter's
``Exporting/CsvMessageWriter.cs`` writes (header, every cell quoted, CRLF rows, a cell
with a line break, the round-trip ``o`` date with an offset, attachments' URLs and
``emoji (count)`` reactions joined by commas, a system notification's fallback
sentence), named as the exporter names its files, plus an empty row and a bad date.
"""

from __future__ import annotations

import csv
import io

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.apps import discord_csv
from convo.importers.context import ImportContext
from convo.importers.registry import registry

PATH = (
    FIXTURES
    / "discord_csv"
    / "Example guild - Text Channels - chill talk [1012224565567875236].csv"
)


def test_golden():
    assert registry.detect(Source(PATH)).name == "discord-csv"
    recs, rejects, warnings = run(discord_csv.read, PATH)
    assert [r.where.rsplit(":", 1)[1] for r in rejects] == ["8"]
    assert warnings == [
        f"{PATH.name}: skipped empty messages (no text, no media): 1 (at {PATH.name}:7)"
    ]
    assert_golden("formats/discord/csv-chill-talk.jsonl", recs)


def test_fields():
    recs, _, _ = run(discord_csv.read, PATH)
    assert [r["timestamp"] for r in recs][:2] == ["2023-01-06T16:11:26Z", "2023-01-06T16:11:32Z"]
    assert recs[0]["extra"]["reactions"] == [
        {"emoji": "🥶", "count": 2},
        {"emoji": "👍", "count": 1},
    ]
    assert recs[1]["textChunks"][1].startswith("[attachment] https://cdn.discordapp.com/")
    assert recs[2]["textChunks"] == ['@patrick see "this":\ntwo lines']
    assert recs[2]["source_id"].endswith(":4") and recs[3]["source_id"].endswith(":6")
    assert recs[3]["tags"] == ["system"] and recs[3]["metadata"]["listeners"] == []
    assert {r["thread"] for r in recs} == {"chill talk"}


def test_only_the_exporters_header_is_claimed(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("Author,Date,Content\nann,2023-01-01,hi\n", encoding="utf-8")
    assert discord_csv.sniff(Source(p)) == 0
    with pytest.raises(InputError, match="not a DiscordChatExporter CSV"):
        list(discord_csv.read(Source(p), ImportContext(Source(p))))


def test_a_cell_past_the_csv_limit_is_one_clear_error(tmp_path):
    p = tmp_path / "x [1].csv"
    p.write_text(
        discord_csv.HEADER + '\n"1","a","2023-01-01T00:00:00+00:00","' + "x" * 200_000 + '"\n'
    )
    with pytest.raises(InputError, match=r"x \[1\]\.csv:2"):
        list(discord_csv.read(Source(p), ImportContext(Source(p))))


_CELL = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.lists(_CELL, min_size=0, max_size=7), max_size=6))
def test_hostile_rows(rows, tmp_path_factory):
    """Any cells: no crash; every non-blank row is imported, rejected or counted empty."""
    buf = io.StringIO()
    buf.write(discord_csv.HEADER + "\r\n")  # the exporter writes its header unquoted
    csv.writer(buf, quoting=csv.QUOTE_ALL).writerows(rows)
    p = tmp_path_factory.mktemp("dce") / "x [1].csv"
    p.write_text(buf.getvalue(), encoding="utf-8")
    recs, rejects, warnings = run(discord_csv.read, p)
    empty = sum(int(w.rsplit("skipped ", 1)[1].split()[0]) for w in warnings if "skipped" in w)
    assert len(recs) + len(rejects) + empty <= len(rows)
    assert all(r["textChunks"] and r["format"] == "discord" for r in recs)
