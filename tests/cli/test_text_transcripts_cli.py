"""The text transcripts (Otter, Teams .docx, Google Meet) through the command line."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from conftest import ROOT, records
from convo.cli.app import app

FIX = ROOT / "tests" / "fixtures" / "formats"
FILES = {
    "otter": FIX / "otter" / "garden-club.txt",
    "teams-docx": FIX / "teams_docx" / "garden-club.docx",
    "google-meet": FIX / "google_meet" / "seed-swap-2024.txt",
}


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_ingest_detects_each_format(runner, fmt, tmp_path):
    out = tmp_path / "o.jsonl"
    r = runner.invoke(app, ["ingest", str(FILES[fmt]), "-o", str(out)])
    assert r.exit_code == 0, r.output
    recs = records(out.read_bytes())
    assert recs and {m["format"] for m in recs} == {fmt}


def test_a_folder_of_meeting_exports_goes_format_by_format(runner, tmp_path):
    for path in FILES.values():
        shutil.copy(path, tmp_path / path.name.replace("garden-club", f"gc-{path.parent.name}"))
    shutil.copy(ROOT / "sample_data" / "chat" / "zoom-chat.txt", tmp_path)
    shutil.copy(ROOT / "sample_data" / "chat" / "whatsapp.txt", tmp_path)
    r = runner.invoke(app, ["ingest", str(tmp_path)])
    assert r.exit_code == 0, r.output
    formats = {m["format"] for m in records(r.stdout)}
    assert formats == {"otter", "teams-docx", "google-meet", "zoomchat", "whatsapp"}


def test_start_date_and_tz(runner):
    r = runner.invoke(
        app, ["ingest", str(FILES["otter"]), "--start-date", "2024-05-01 10:00", "--tz", "+02:00"]
    )
    assert r.exit_code == 0, r.output
    assert records(r.stdout)[0]["timestamp"] == "2024-05-01T08:00:02Z"
    r = runner.invoke(app, ["ingest", str(FILES["teams-docx"]), "--tz", "America/New_York"])
    assert records(r.stdout)[1]["timestamp"] == "2024-05-14T22:02:03Z"


def test_a_rejected_line_exits_1_and_is_kept(runner, tmp_path):
    rejects = tmp_path / "rejects.jsonl"
    path = FIX / "google_meet" / "compost-workshop-2025.txt"
    r = runner.invoke(app, ["ingest", str(path), "--rejects", str(rejects)])
    assert r.exit_code == 1
    assert "compost-workshop-2025.txt:13" in r.stderr
    kept = records(rejects.read_bytes())
    assert [k["raw"] for k in kept] == ["[music]"]


def test_a_damaged_docx_is_one_line_without_a_traceback(runner, tmp_path):
    path = tmp_path / "meeting.docx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("word/document.xml", "<w:document><w:body><w:p>")
    r = runner.invoke(app, ["ingest", "--from", "teams-docx", str(path)])
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("convo: error: ")
    assert "Traceback" not in r.output


def test_formats_lists_them(runner):
    r = runner.invoke(app, ["formats", "-f", "jsonl"])
    assert r.exit_code == 0
    assert {"otter", "teams-docx", "google-meet"} <= {m["name"] for m in records(r.stdout)}
