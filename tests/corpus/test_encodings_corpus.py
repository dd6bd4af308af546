"""Real files that declare no encoding and are not UTF-8 (issue 36 §2): every one is read
in a guessed encoding named in a warning, and the real Windows-1252 subtitle file
(pysrt's fixture) reads as French, not mojibake."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_dir, corpus_files
from convo.core.errors import ConvoError
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest

_TEXT_FAMILIES = ("srt", "vtt", "chat")
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def _undeclared_legacy(path: Path) -> bool:
    data = path.read_bytes()
    if data.startswith(_BOMS) or data.lstrip()[:1] in (b"{", b"["):
        return False  # a BOM declares; JSON is UTF-8 by its RFC
    if b"\0" in data or data.startswith((b"PK\x03\x04", b"\x1f\x8b")):
        return False  # not text (a zip, a gzip stream)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


LEGACY = [p for fam in _TEXT_FAMILIES for p in corpus_files(fam) if _undeclared_legacy(p)]


def _ingest(path: Path, **opts):
    warnings: list[str] = []
    ing = Ingest(ImportOptions(**opts), on_reject=lambda r: None, on_warning=warnings.append)
    return [m.serialize() for m in ing.messages([path])], warnings


@pytest.mark.parametrize("path", LEGACY, ids=lambda p: p.name)
def test_every_undeclared_legacy_file_names_its_encoding(path):
    try:
        _, warnings = _ingest(path)
    except ConvoError:
        pytest.skip("not a readable text format")
    assert any("read as " in w and "(guessed, " in w for w in warnings), warnings


def test_windows_1252_subtitles_read_as_french():
    path = corpus_dir() / "srt" / "pysrt-windows-1252.srt"
    if not path.is_file():
        pytest.skip("corpus not found")
    recs, warnings = _ingest(path)
    assert "CE FILM RELATE DES ÉVÉNEMENTS\nQUI ONT EXISTÉ." in [r["textChunks"][0] for r in recs]
    assert [w for w in warnings if "read as" in w] == [
        f"{path}: text that is not UTF-8 read as windows-1252 (guessed, 100%); "
        "use --encoding to override"
    ]
    recs2, warnings2 = _ingest(path, encoding="cp1252")
    assert recs2 == recs and not any("read as" in w for w in warnings2)
