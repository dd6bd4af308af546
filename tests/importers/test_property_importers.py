"""Hostile input for every registered format: random and mutated bytes give messages, a
rejection or a ConvoError, never another exception (issue 9).

Runs 60 examples per format in `make test`; `make fuzz` (CONVO_FUZZ=1) runs thousands.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA
from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry

FILE_FORMATS = sorted(f.name for f in registry.formats() if not f.directory)


# Shapes the sample data does not hold (X archive posts, S/MIME and TNEF mail, Webex
# and Apple TTML cues, the agents' headless outputs): their fixtures are seeds too.
SHAPES = (
    "formats/twitter/tweets.js",
    "formats/twitter/tweet-2019/tweet.js",
    "email/smime-opaque-signed.eml",
    "email/smime-opaque-signed-ber.eml",
    "email/tnef-whole-message.eml",
    "email/lore-mboxrd.mbox",
    "transcripts/webex.vtt",
    "formats/codex/exec-json.jsonl",
    "formats/gemini_cli/stream-json.jsonl",
    "agents/claude-sdk/stream-json.jsonl",
    "formats/asr/revai.json",
)


def _seeds() -> list[bytes]:
    """Real bytes to mutate: every sample file (small), so mutations hit deep parser paths."""
    seeds = [b""]
    if SAMPLE_DATA.is_dir():
        for p in sorted(SAMPLE_DATA.rglob("*")):
            if p.is_file() and p.stat().st_size < 200_000:
                seeds.append(p.read_bytes())
    seeds += [(SAMPLE_DATA.parent / "tests" / "fixtures" / name).read_bytes() for name in SHAPES]
    return seeds


SEEDS = _seeds()


@st.composite
def mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 8))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
        if not data and op != "insert":
            op = "insert"
        if op == "flip":
            i = draw(st.integers(0, len(data) - 1))
            data[i] = draw(st.integers(0, 255))
        elif op == "cut":
            i = draw(st.integers(0, len(data)))
            j = draw(st.integers(i, min(len(data), i + 200)))
            del data[i:j]
        elif op == "insert":
            i = draw(st.integers(0, len(data)))
            data[i:i] = draw(st.binary(max_size=40))
        else:
            i = draw(st.integers(0, len(data)))
            j = draw(st.integers(i, min(len(data), i + 300)))
            data[j:j] = data[i:j]
    return bytes(data)


def _exercise(fmt_name: str, data: bytes, **opts) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input"
        path.write_bytes(data)
        try:
            source = Source(path)
            fmt = registry.get(fmt_name)
            fmt.sniff(source)  # sniffing never raises
            ctx = ImportContext(source, ImportOptions(**opts))
            for msg in fmt.read(source, ctx):
                assert msg.text_chunks is not None
        except ConvoError:
            pass


@pytest.mark.parametrize("fmt_name", FILE_FORMATS)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.one_of(mutated(), st.binary(max_size=2000)))
def test_property_reader_never_crashes(fmt_name, data):
    _exercise(fmt_name, data)


@pytest.mark.parametrize("fmt_name", FILE_FORMATS)
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], max_examples=20)
@given(data=mutated())
def test_property_strict_and_lenient_never_crash(fmt_name, data):
    _exercise(fmt_name, data, strict=True)
    _exercise(fmt_name, data, lenient=True)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.one_of(mutated(), st.binary(max_size=3000)))
def test_property_detection_never_crashes(data):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "input"
        path.write_bytes(data)
        with contextlib.suppress(ConvoError):
            registry.detect(Source(path))


def test_huge_single_line_and_deep_nesting(tmp_path):
    """Bounded: a 50 MB line and 100k-deep JSON are rejected or read, not a crash or a hang."""
    big = tmp_path / "big.jsonl"
    big.write_bytes(
        b'{"textChunks": ["' + b"a" * 50_000_000 + b'"], "metadata": {}}\n' + b"[" * 100_000 + b"\n"
    )
    for name in FILE_FORMATS:
        _exercise_path(name, big)


def _exercise_path(fmt_name: str, path: Path) -> None:
    with contextlib.suppress(ConvoError):
        source = Source(path)
        fmt = registry.get(fmt_name)
        fmt.sniff(source)
        for _ in fmt.read(source, ImportContext(source, ImportOptions())):
            pass
