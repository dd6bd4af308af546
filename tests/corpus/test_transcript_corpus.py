"""Every real WebVTT and SRT file in the shared corpus imports, or fails with a located message."""

from __future__ import annotations

import re

import pytest

from conftest import corpus_files
from convo.core.errors import ConvoError, StrictAbort
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest

FILES = corpus_files("vtt") + corpus_files("srt")

# Files with speakers, and exactly the names they must yield. Voice-tagged files first.
VOICES = {
    "teams-jmarshrossney-example.vtt": {"John Smith", "Jane Doe"},
    "webvttpy-teams_timeframe.vtt": {"Yuri Bakulin", "Adrian Petrescu"},
    "webvttjs-wpt-tags.vtt": {"a", "a b", "e"},  # <v a>, <v a b>, <v.d e>; bare <v>/<v.a> name none
}
PREFIXES = {
    "incharge-zoom-example.vtt": {"Christina", "Chris"},
    "zoom-aekupor-transcript.vtt": {"Ashlee Kupor (SL)", "Dora Demszky"},
    "zoom-aekupor-small-trailing-whitespace.vtt": {"Ashlee Kupor", "Dora Demszky"},
    "webvttpy-netflix_chicas_del_cable.vtt": {
        "Alba", "Beltrán", "Carlos", "Carlota", "Carmen", "Francisco", "Marga", "Miguel",
        "Pedro", "Ricardo", "Sara", "Victoria", "Ángeles",
    },
}  # fmt: skip
# Files known to hold malformed cues: how many are rejected.
REJECTED = {
    "webvttpy-invalid_timeframe.vtt": 1,
    "webvttpy-missing_timeframe.vtt": 1,
    "webvttpy-missing_timeframe.srt": 1,
    "wpt-arrows.vtt": 9,
}
_TEXT_DIFFERS = {
    "youtube-autocaption-simonw-demo.vtt",
    "webvttpy-youtube_dl.vtt",
    "webvttjs-wpt-entities.vtt",
    "webvttjs-wpt-tags.vtt",
}
_LOCATED = re.compile(r".+:\d+$")
_MARKUP = re.compile(r"</?(?:i|b|u|c|v|font|ruby|rt|lang)\b[^>]*>|&(?:amp|lt|gt|nbsp);")


def _ingest(path, **opts):
    rejects: list = []
    warnings: list = []
    ing = Ingest(ImportOptions(**opts), on_reject=rejects.append, on_warning=warnings.append)
    return list(ing.messages([path])), rejects, warnings


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_imports_or_fails_located(path):
    try:
        msgs, rejects, warnings = _ingest(path)
    except ConvoError as e:  # a whole-file failure must say where
        assert e.where and str(path.name) in e.where, str(e)
        return
    for r in rejects:
        assert _LOCATED.match(r.where), r.where
        assert "\n" not in r.reason
    assert len(rejects) == REJECTED.get(path.name, 0)
    if not msgs:
        assert warnings, "an empty import must say why"
    for m in msgs:
        assert m.text_chunks and m.text_chunks[0].strip()
        assert not _MARKUP.search(m.text_chunks[0]), m.text_chunks[0]
        assert m.source_id.startswith(str(path)) and "#cue-" in m.source_id
        assert m.listeners == []
        assert m.timestamp.startswith("1970-01-01T")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_speaker_names(path):
    msgs, _, _ = _ingest(path)
    names = {m.speaker for m in msgs if m.speaker}
    assert names == (VOICES.get(path.name) or PREFIXES.get(path.name) or set())
    voiced, _, _ = _ingest(path, speakers="voice")
    assert {m.speaker for m in voiced if m.speaker} == VOICES.get(path.name, set())


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_strict_aborts_exactly_on_bad_files(path):
    if path.name not in REJECTED:
        _ingest(path, strict=True)
        return
    with pytest.raises(StrictAbort) as e:
        _ingest(path, strict=True)
    assert e.value.where and _LOCATED.match(e.value.where)


@pytest.mark.parametrize("path", [p for p in FILES if p.suffix == ".vtt"], ids=lambda p: p.name)
def test_cue_times_agree_with_webvtt_py(path):
    """Each message starts at a cue webvtt-py also reads (where webvtt-py reads the file)."""
    import webvtt

    try:
        ref = webvtt.read(str(path))
    except Exception:  # webvtt-py rejects the whole file; ours reads what it can
        pytest.skip("webvtt-py cannot read this file")
    starts = {round(c.start_in_seconds + int(c.start[-3:]) / 1000, 3) for c in ref}
    msgs, rejects, _ = _ingest(path, merge=False, speakers="none")
    assert {m.extra["start"] for m in msgs} <= starts
    if not rejects:
        worded = {
            round(c.start_in_seconds + int(c.start[-3:]) / 1000, 3)
            for c in ref
            if re.search(r"\w", c.text)
        }
        ours = {m.extra["start"] for m in msgs}
        missing = worded - ours
        # Only rolling YouTube duplicates may vanish, and the WPT tag/entity soup, where
        # webvtt-py keeps what WebVTT drops ('<c.' is a tag, '&nbsp;' is a space, <rt> text
        # is an annotation).
        assert not missing or path.name in _TEXT_DIFFERS, sorted(missing)
