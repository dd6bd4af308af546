"""Speech-to-text JSON transcripts: Whisper (openai-whisper, WhisperX, the OpenAI audio
API), whisper.cpp, AssemblyAI and Deepgram (``convo.importers.transcripts``).

The fixtures (tests/fixtures/formats/asr/) reproduce the shapes the engines write, as
their writers and API references define them: openai-whisper's ``WriteJSON`` (the whole
``text`` first, then ``segments`` with ``seek``/``tokens``/``avg_logprob``), WhisperX's
``segments`` with ``speaker`` and ``word_segments``, the OpenAI API's ``verbose_json``
(segments, or ``words`` only) and ``diarized_json`` (``transcript.text.segment``
segments with ``speaker``), whisper.cpp's ``output_json`` (``transcription`` entries with
``timestamps``/``offsets``, ``speaker`` under ``-di``, ``tokens`` and
``speaker_turn_next`` under ``-ojf``/``-tdrz``), AssemblyAI's transcript object
(``utterances`` in milliseconds, multichannel ``channel``, ``utterances: null`` without
speaker labels, ``status: error``) and Deepgram's pre-recorded response (``metadata``,
``results.utterances``, or ``results.channels[].alternatives[].paragraphs``/``words``).
"""

from __future__ import annotations

import json
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.errors import InputError, StrictAbort
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import whisper
from convo.importers.transcripts.speech import Word, word_groups
from convo.pipeline.ingest import Ingest

ASR = ROOT / "tests" / "fixtures" / "formats" / "asr"
FORMAT_OF = {
    "whisper-cli": "whisper",
    "whisperx": "whisper",
    "openai-verbose": "whisper",
    "openai-words": "whisper",
    "openai-diarized": "whisper",
    "whisper-cpp": "whisper-cpp",
    "whisper-cpp-full": "whisper-cpp",
    "whisper-cpp-ml1": "whisper-cpp",
    "whisper-cpp-sow-tdrz": "whisper-cpp",
    "assemblyai": "assemblyai",
    "assemblyai-multichannel": "assemblyai",
    "assemblyai-words": "assemblyai",
    "assemblyai-error": "assemblyai",
    "deepgram-utterances": "deepgram",
    "deepgram-channels": "deepgram",
    "deepgram-diarized-paragraphs": "deepgram",
    "deepgram-channels-diarized": "deepgram",
    "aws-audio-segments": "aws-transcribe",
    "aws-items-speaker-segments": "aws-transcribe",
    "aws-items-plain": "aws-transcribe",
    "aws-channels": "aws-transcribe",
    "hf-insanely-fast-whisper": "whisper",
    "hf-word-chunks": "whisper",
    "revai": "revai",
    "aws-call-analytics": "aws-transcribe",
    "aws-contact-lens": "aws-transcribe",
}


# Fixtures whose transcript gives no message (an engine's error status).
IMPORTS_NOTHING = {"assemblyai-error"}


def run(path: Path | str, fmt: str | None = None, **opts):
    """Import one file (as ``fmt``, else detected); (records, rejections, warnings)."""
    rejects: list = []
    warnings: list = []
    ing = Ingest(
        ImportOptions(**opts), format_name=fmt, on_reject=rejects.append,
        on_warning=warnings.append,
    )  # fmt: skip
    recs = [m.serialize() for m in ing.messages([path])]
    return recs, rejects, warnings


def write(tmp_path: Path, doc: object, name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def turns(recs) -> list[tuple[str | None, str]]:
    return [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs]


# ---------------------------------------------------------------- golden files


@pytest.mark.parametrize("name", sorted(FORMAT_OF))
def test_golden(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    recs, rejects, _ = run(f"tests/fixtures/formats/asr/{name}.json")
    assert not rejects
    assert {r["format"] for r in recs} <= {FORMAT_OF[name]}
    if name in IMPORTS_NOTHING:
        assert recs == []  # no golden file: an empty one would be a byte copy of any empty file
    else:
        assert_golden(f"transcript/asr/{name}.jsonl", recs)


@pytest.mark.parametrize("name", sorted(FORMAT_OF))
def test_detected(name):
    assert registry.detect(Source(ASR / f"{name}.json")).name == FORMAT_OF[name]


# ---------------------------------------------------------------- what each engine gives


def test_whisperx_speakers_merge_and_a_segment_without_speaker_stands_alone():
    recs, _, warnings = run(ASR / "whisperx.json")
    assert turns(recs) == [
        ("SPEAKER_00", "Welcome to the design review. Today we look at the cache."),
        ("SPEAKER_01", "Does it evict by size?"),
        (None, "Mm-hmm."),
        ("SPEAKER_00", "By size and by age."),
    ]
    assert recs[0]["extra"] == {"start": 0.031, "end": 4.0, "segments": [1, 2]}
    assert not warnings


def test_no_merge_and_no_speakers():
    recs, _, _ = run(ASR / "openai-diarized.json", merge=False)
    assert [s for s, _ in turns(recs)] == ["A", "B", "B", "A"]
    recs, _, _ = run(ASR / "openai-diarized.json", speakers="none")
    assert [s for s, _ in turns(recs)] == [None] * 4  # unnamed segments never merge
    assert recs[0]["extra"]["segment_ids"] == ["seg_001"]


def test_empty_segment_is_counted_once_and_keeps_its_number():
    recs, rejects, warnings = run(ASR / "whisper-cli.json")
    assert not rejects
    assert warnings == [f"{ASR / 'whisper-cli.json'}: skipped segments without text: 1"]
    assert [r["extra"]["segments"] for r in recs] == [[1], [2], [4]]
    assert recs[2]["source_id"].endswith("whisper-cli.json#segment-4")


def test_start_date_anchors_offsets_and_ids_stay():
    plain, _, _ = run(ASR / "assemblyai.json")
    start = datetime(2024, 5, 2, 9, 0, tzinfo=UTC)
    dated, _, _ = run(ASR / "assemblyai.json", start_date=start)
    assert [r["timestamp"] for r in plain] == [
        "1970-01-01T00:00:00Z",
        "1970-01-01T00:00:01Z",
        "1970-01-01T00:00:04Z",
    ]
    assert [r["timestamp"] for r in dated] == [
        "2024-05-02T09:00:00Z",
        "2024-05-02T09:00:01Z",
        "2024-05-02T09:00:04Z",
    ]
    assert [r["id"] for r in plain] == [r["id"] for r in dated]


def test_words_only_are_grouped_by_sentence_and_pause():
    recs, _, _ = run(ASR / "openai-words.json")
    assert turns(recs) == [(None, "Hi there."), (None, "This is a test"), (None, "of words only")]
    assert [r["source_id"].rsplit("#", 1)[1] for r in recs] == ["word-1", "word-3", "word-7"]
    assert recs[2]["extra"] == {"start": 5.0, "end": 9.5, "words": [7]}


def test_whisper_cpp_unknown_speaker_and_timestamps_without_offsets():
    recs, _, _ = run(ASR / "whisper-cpp.json")
    assert turns(recs)[1:] == [("1", "Agreed."), (None, "[inaudible]")]
    recs, _, _ = run(ASR / "whisper-cpp-full.json")
    assert [(r["extra"]["start"], r["extra"]["end"]) for r in recs] == [(0.0, 2.0), (2.0, 3.5)]


def test_whisper_cpp_max_len_pieces_are_grouped_into_sentences():
    """``-ml 1`` (one token a segment: sub-word pieces, punctuation) gives sentences, cut
    at a pause of 2 s too; each group is numbered by its first piece."""
    recs, rejects, warnings = run(ASR / "whisper-cpp-ml1.json")
    assert turns(recs) == [
        (None, "The cache evicts old entries."),
        (None, "We ship on Friday"),
        (None, "if tests pass."),
        (None, "Questions?"),
    ]
    assert [r["extra"]["segments"] for r in recs] == [[1], [8], [13], [17]]
    assert not rejects and not warnings


def test_whisper_cpp_tinydiarize_turn_ends_a_group_and_is_kept():
    """``-tdrz`` writes ``speaker_turn_next`` (the console's ``[SPEAKER_TURN]``): a turn
    ends a group even mid-sentence and is kept in ``extra``; it names nobody."""
    recs, _, _ = run(ASR / "whisper-cpp-sow-tdrz.json")
    assert turns(recs) == [
        (None, "Are we ready?"),
        (None, "Almost, give me five minutes"),
        (None, "Sure."),
    ]
    assert [r["extra"].get("speaker_turn_next") for r in recs] == [True, True, None]


def test_whisper_cpp_pieces_with_speakers_merge_into_turns(tmp_path):
    """``-ml 1 -di``: each piece has the stereo estimate; a speaker's sentences in a row
    are one turn, another speaker (or ``?``) starts the next; a piece that is not an
    object is rejected and keeps its number."""
    pieces = [(" Hello", "0"), (" there.", "0"), (" How", "0"), (" are", "0"), (" you?", "0"),
              (" Fine,", "1"), (" thanks.", "1"), (" Hm", "?")]  # fmt: skip
    entries: list = [
        {"offsets": {"from": i * 300, "to": i * 300 + 300}, "text": t, "speaker": s}
        for i, (t, s) in enumerate(pieces)
    ]
    entries.insert(3, "oops")
    p = write(tmp_path, {"systeminfo": "AVX = 1", "transcription": entries})
    recs, rejects, _ = run(p)
    assert turns(recs) == [
        ("0", "Hello there. How are you?"),
        ("1", "Fine, thanks."),
        (None, "Hm"),
    ]
    assert [r["extra"]["segments"] for r in recs] == [[1, 3], [7], [9]]
    assert [r.where.rsplit("#", 1)[1] for r in rejects] == ["segment-4"]


def test_whisper_cpp_whole_segments_are_not_grouped():
    """Segments as whisper.cpp writes them without ``-ml`` stay one message each (no
    speaker: never merged), as before."""
    recs, _, _ = run(ASR / "whisper-cpp-full.json")
    assert turns(recs) == [(None, "Guten Morgen."), (None, "Hallo zusammen.")]


def test_assemblyai_channels_never_merge_across_and_are_kept():
    recs, _, _ = run(ASR / "assemblyai-multichannel.json")
    assert turns(recs) == [
        ("1", "Support, how can I help?"),
        ("2", "My order is late. It was due Monday."),
    ]
    assert [r["extra"]["channel"] for r in recs] == ["1", "2"]


def test_assemblyai_error_status_is_said():
    recs, _, warnings = run(ASR / "assemblyai-error.json")
    assert recs == []
    assert "transcript status 'error': Download error" in warnings[0]
    assert warnings[1].endswith("no words with text; nothing imported")


def test_deepgram_channels_paragraphs_then_words():
    recs, _, _ = run(ASR / "deepgram-channels.json")
    assert turns(recs) == [
        (None, "Thanks for calling. How can I help?"),
        (None, "My card was charged twice."),
    ]
    assert [r["extra"]["channel"] for r in recs] == ["0", "1"]
    recs, _, _ = run(ASR / "deepgram-diarized-paragraphs.json")
    assert turns(recs) == [("0", "We need a decision. Let's vote tomorrow."), ("1", "Fine by me.")]


def test_deepgram_utterances_one_channel_carry_no_channel():
    recs, _, _ = run(ASR / "deepgram-utterances.json")
    assert all("channel" not in r["extra"] for r in recs)
    assert recs[1]["extra"]["segment_ids"] == ["c3d3e7f4-ae83-4df8-9a69-dd2e7c3a4b23"]


def test_aws_audio_segments_merge_by_speaker_and_keep_their_ids():
    recs, _, _ = run(ASR / "aws-audio-segments.json")
    assert turns(recs) == [
        ("spk_0", "I have been waiting all morning."),
        ("spk_1", "Sorry about that. Let me check."),
    ]
    assert recs[1]["extra"]["segment_ids"] == ["1", "2"]


def test_aws_items_take_punctuation_and_the_speaker_of_their_time():
    recs, _, _ = run(ASR / "aws-items-speaker-segments.json")
    assert turns(recs) == [("spk_0", "Morning all."), ("spk_1", "Hi, ready.")]
    recs, _, _ = run(ASR / "aws-items-plain.json")
    assert turns(recs) == [(None, "Buy milk and"), (None, "call the plumber")]


def test_aws_channels_are_kept_and_its_channel_labels_are_not_deepgram():
    recs, _, _ = run(ASR / "aws-channels.json")
    assert [r["extra"]["channel"] for r in recs] == ["ch_0", "ch_1"]
    assert {r["format"] for r in recs} == {"aws-transcribe"}


def test_aws_job_not_completed_is_said(tmp_path):
    p = write(
        tmp_path,
        {"jobName": "j", "accountId": "1", "status": "FAILED", "results": {"transcripts": []}},
    )
    recs, _, warnings = run(p)
    assert recs == [] and warnings[0].endswith("transcription job status 'FAILED'")


# ---------------------------------------------------------------- bad input


def test_untimed_and_wrong_typed_segments_are_rejected_with_their_json(tmp_path):
    doc = {"segments": [
        {"id": 0, "seek": 0, "start": 0.0, "end": 1.0, "text": " ok"},
        {"id": 1, "seek": 0, "start": "soon", "end": 2.0, "text": " when?"},
        "not a segment",
        {"id": 3, "seek": 0, "start": -1, "end": 2.0, "text": " negative"},
        {"id": 4, "seek": 0, "start": 3.0, "end": 2.0, "text": " backwards"},
    ]}  # fmt: skip
    p = write(tmp_path, doc)
    recs, rejects, _ = run(p)
    assert turns(recs) == [(None, "ok"), (None, "backwards")]
    assert recs[1]["extra"]["end"] == 3.0  # an end before the start is the start
    assert [r.where for r in rejects] == [f"{p}#segment-2", f"{p}#segment-3", f"{p}#segment-4"]
    assert rejects[0].raw["text"] == " when?"
    assert [r.reason for r in rejects] == [
        "segment without a readable start time",
        "not a segment (not a JSON object)",
        "segment without a readable start time",
    ]
    with pytest.raises(StrictAbort):
        run(p, strict=True)


def _cpp_entry(start: int, text: bytes) -> bytes:
    return (
        b'{"timestamps": {"from": "00:00:00,000", "to": "00:00:01,000"}, "offsets": {"from": '
        + str(start).encode() + b', "to": ' + str(start + 1000).encode() + b'}, "text": "'
        + text + b'", "tokens": [{"text": "' + text + b'", "p": 0.5}]}'
    )  # fmt: skip


def test_whisper_cpp_bytes_that_are_not_utf8_are_replaced_not_fatal(tmp_path):
    """whisper.cpp writes a token's bytes as they are: a character cut between two
    segments (CJK, large-v3-turbo's lone lead bytes: whisper.cpp issues 1798, 3760) makes
    the file invalid UTF-8. The file is read, those bytes as U+FFFD, and said once."""
    entries = [
        _cpp_entry(0, "\u4f60".encode() + b"\xe5\xa5"),  # 你 + half of 好
        _cpp_entry(1000, b"\xbd" + "\u3002".encode()),  # the rest of 好, then 。
        _cpp_entry(2000, b"\xc3"),  # a lone lead byte, the whole segment
        _cpp_entry(3000, b" fine"),
    ]
    p = tmp_path / "zh.json"
    p.write_bytes(
        b'{"systeminfo": "AVX = 1", "transcription": [\n' + b",\n".join(entries) + b"\n]}\n"
    )
    assert registry.detect(Source(p)).name == "whisper-cpp"
    recs, rejects, warnings = run(p)
    # Pieces this short are -ml pieces: grouped into sentences, joined as written.
    assert [r["textChunks"][0] for r in recs] == ["\u4f60\ufffd\ufffd\u3002", "\ufffd fine"]
    assert not rejects
    said = [w for w in warnings if "UTF-8" in str(w)]
    assert len(said) == 1 and "3 segments" in str(said[0])


def test_whisper_words_not_utf8_are_replaced_not_fatal(tmp_path):
    """whisper.cpp's server writes the OpenAI API's verbose_json, its words a token each
    (whisper.cpp issue 3821): half a character is half a word."""
    head = b'{"task": "transcribe", "language": "zh", "duration": 2.0, "text": "x", "words": ['
    words = [
        b'{"word": "\xe4\xbd", "start": 0.0, "end": 0.2}',
        b'{"word": "\xa0.", "start": 0.2, "end": 0.4}',
    ]
    p = tmp_path / "server.json"
    p.write_bytes(head + b", ".join(words) + b"]}")
    recs, rejects, warnings = run(p, "whisper")
    assert not rejects
    assert [r["textChunks"][0] for r in recs] == ["\ufffd \ufffd."]
    assert any("2 words" in str(w) and "UTF-8" in str(w) for w in warnings)


def test_json_that_is_broken_otherwise_is_still_an_error(tmp_path):
    from convo.core.errors import InputError

    p = tmp_path / "bad.json"
    entry = _cpp_entry(0, b"\xc3").replace(b'"p": 0.5', b'"p": 0.5 "q": 1')  # no comma
    p.write_bytes(b'{"systeminfo": "x", "transcription": [' + entry + b"]}")
    with pytest.raises(InputError, match="not valid JSON"):
        run(p, "whisper-cpp")


def test_hugging_face_pipeline_chunks_and_speakers():
    """insanely-fast-whisper's ``output.json`` (Vaibhavs10/insanely-fast-whisper
    ``utils/result.py``: ``speakers``, ``chunks``, ``text``; a diarized turn is
    ``{speaker, text, timestamp: [start, end]}``, the last end ``null``) and the Hugging
    Face ASR pipeline's ``return_timestamps="word"`` chunks were "format not recognised"."""
    recs, rejects, _ = run(ASR / "hf-insanely-fast-whisper.json")
    assert not rejects
    assert turns(recs) == [
        ("SPEAKER_01", "Morning, all. Shall we go through the seed order first?"),
        ("SPEAKER_00", "Yes. The tomato packets came in yesterday. Two of them were damp."),
        ("SPEAKER_01", "Then we send those back."),
    ]
    assert [r["source_id"].rpartition("#")[2] for r in recs] == ["chunk-1", "chunk-2", "chunk-4"]
    assert recs[-1]["extra"]["start"] == recs[-1]["extra"]["end"] == 8.9  # end null
    recs, rejects, _ = run(ASR / "hf-word-chunks.json")
    assert not rejects
    assert turns(recs) == [(None, "Seeds go in after the frost."), (None, "Not before.")]


def test_rev_ai_monologues():
    """Rev.ai's transcript JSON (``monologues`` of ``elements``: ``text`` words with
    ``ts``/``end_ts``, ``punct`` spaces and marks, ``unknown`` tags; a speaker number, or
    ``speaker_info.display_name`` when named) was "format not recognised"."""
    recs, rejects, warnings = run(ASR / "revai.json")
    assert not rejects
    assert any("skipped monologues without text: 1" in w for w in warnings)  # a tag alone
    assert turns(recs) == [
        ("0", "Morning, all. Seeds first?"),
        ("Bea Ross", "<inaudible> Yes. The packets are dry."),
    ]
    assert (recs[0]["extra"]["start"], recs[0]["extra"]["end"]) == (0.42, 2.3)
    assert recs[1]["extra"]["monologues"] == [2, 3]


def test_call_analytics_and_contact_lens_turns():
    """Amazon Transcribe Call Analytics and Amazon Connect Contact Lens write their own
    JSON (``JobStatus``, ``Participants``, ``Transcript`` of turns: ``Content``,
    ``BeginOffsetMillis``, ``ParticipantRole`` or ``ParticipantId``, ``Sentiment``; AWS's
    API references): it was "format not recognised"."""
    recs, rejects, _ = run(ASR / "aws-call-analytics.json")
    assert not rejects
    assert turns(recs) == [
        ("AGENT", "Thank you for calling the seed line, this is Ann."),
        ("CUSTOMER", "Hi Ann, my beans never came up."),
        ("AGENT", "I'm sorry to hear that."),
    ]
    assert recs[1]["extra"] == {
        "start": 3.4,
        "end": 5.9,
        "turns": [2],
        "turn_ids": ["c1"],
        "sentiment": "NEGATIVE",
    }
    recs, rejects, _ = run(ASR / "aws-contact-lens.json")
    assert not rejects
    assert turns(recs) == [
        ("AGENT", "Garden centre, Bea speaking."),
        ("CUSTOMER", "Hello, the seed trays arrived cracked. Both of them."),
        ("AGENT", "I will refund them today."),
    ]


def test_empty_speakers_read_the_chunks(tmp_path):
    chunks = [{"timestamp": [0.0, 2.0], "text": " The frost came early."}]
    p = write(tmp_path, {"speakers": [], "chunks": chunks, "text": " The frost came early."})
    assert registry.detect(Source(p)).name == "whisper"
    recs, _, _ = run(p)
    assert turns(recs) == [(None, "The frost came early.")]


def test_not_whisper_is_one_clear_error(tmp_path):
    from convo.core.errors import InputError

    p = write(tmp_path, {"text": "only text"})
    with pytest.raises(InputError, match="not a Whisper transcript"):
        run(p, "whisper")


def test_text_first_head_longer_than_the_head_is_still_whisper(tmp_path):
    long = " word" * 20000  # 100 kB of text before the segments
    p = write(
        tmp_path, {"text": long, "segments": [{"id": 0, "start": 0, "end": 1, "text": " hi"}]}
    )
    assert registry.detect(Source(p)).name == "whisper"
    assert whisper.sniff_whisper(Source(p)) == 30
    recs, _, _ = run(p)
    assert turns(recs) == [(None, "hi")]


@pytest.mark.parametrize("pad", range(6))
def test_text_first_head_cut_after_an_escape_backslash_is_still_whisper(tmp_path, pad):
    """openai-whisper writes JSON with ASCII escapes (``json.dump``): a transcript in
    another script is ``\\uXXXX`` after ``\\uXXXX``, and the 64 KiB head may end just
    after one's backslash (one cut in six)."""
    from convo.core.io import HEAD_BYTES

    text = "a" * pad + "\u00e9" * 20000
    doc = {"text": text, "segments": [{"id": 0, "start": 0, "end": 1, "text": " hi"}]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))  # ensure_ascii, as Whisper's writer
    ends = {p.read_bytes()[HEAD_BYTES - 1 : HEAD_BYTES]}
    assert whisper.sniff_whisper(Source(p)) == 30, ends
    assert registry.detect(Source(p)).name == "whisper"


@pytest.mark.parametrize("member", ["segments", "words"])
def test_openai_api_response_whose_text_outruns_the_head_is_still_whisper(tmp_path, member):
    """The OpenAI API writes ``task``, ``language``, ``duration`` and the whole ``text``
    before ``segments`` or ``words``: past an hour of speech the head ends inside the
    text (a ``verbose_json`` or ``diarized_json``, which has no ``language``)."""
    long = " word" * 20000  # 100 kB of text before the segments or words
    if member == "segments":
        items = [{"id": 0, "seek": 0, "start": 0, "end": 1, "text": " hi", "avg_logprob": -0.1}]
    else:
        items = [{"word": "hi", "start": 0.0, "end": 0.5}]
    p = write(tmp_path, {"task": "transcribe", "duration": 3600.0, "text": long, member: items})
    assert registry.detect(Source(p)).name == "whisper"
    recs, _, _ = run(p)
    assert turns(recs) == [(None, "hi")]


def test_a_task_object_without_a_long_text_is_not_whisper(tmp_path):
    p = write(tmp_path, {"task": "summarise", "duration": 3.0, "text": "hello"})
    assert whisper.sniff_whisper(Source(p)) == 0


def test_a_small_text_object_is_not_whisper(tmp_path):
    p = write(tmp_path, {"text": "hello"})
    assert whisper.sniff_whisper(Source(p)) == 0


# ---------------------------------------------------------------- memory


def _peak(path: Path) -> int:
    source = Source(path, name=path.name)
    ctx = ImportContext(source, ImportOptions())
    tracemalloc.start()
    n = sum(1 for _ in whisper.read_whisper(source, ctx))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == 2000
    return peak


def test_the_whole_text_and_the_words_are_not_held(tmp_path):
    """The same segments with 24 MB, then 48 MB, of ``text`` and ``word_segments`` beside
    them are read in the same memory: those members are passed over, not kept (the text
    alone would be 8 MB and the words ~80 MB). What passing over costs is bounded by the
    scanner's blocks, not by the file: a skipped array of objects is checked a run at a
    time by ``orjson.loads`` (``core.jsonstream.JsonArray._skip_array``), whose objects live
    until the next run (measured: +16 MB for these small word objects, the same at both
    sizes)."""
    segs = [
        {"id": i, "seek": 0, "start": i, "end": i + 1, "text": f" sentence {i}", "tokens": [1, 2]}
        for i in range(2000)
    ]
    small = write(tmp_path, {"segments": segs, "language": "en"}, "small.json")
    word = {"word": "w" * 40, "start": 1.0, "end": 2.0, "score": 0.5}

    def beside(n: int, name: str):
        doc = {"text": "x" * (40 * n), "segments": segs, "word_segments": [word] * n}
        return write(tmp_path, doc, name)

    big, bigger = beside(200_000, "big.json"), beside(400_000, "bigger.json")
    assert big.stat().st_size > 20_000_000
    assert _peak(big) < _peak(small) + 24_000_000
    assert _peak(bigger) < _peak(big) + 4_000_000


# ---------------------------------------------------------------- property: the plain twin


_SEG = st.fixed_dictionaries({
    "start": st.one_of(st.integers(0, 10_000), st.floats(0, 1e4, allow_nan=False)),
    "end": st.integers(0, 10_000),
    "text": st.one_of(st.just(""), st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)),
    "speaker": st.one_of(st.none(), st.sampled_from(["SPEAKER_00", "SPEAKER_01"])),
})  # fmt: skip


def _expected(segments: list[dict], merge: bool) -> list[tuple[str | None, str]]:
    """What the reader should make, from ``json.loads`` of the whole file: the plain twin."""
    out: list[list] = []
    for seg in segments:
        text = seg["text"].strip()
        if not text:
            continue
        if out and merge and seg["speaker"] is not None and out[-1][0] == seg["speaker"]:
            out[-1][1] += " " + text
        else:
            out.append([seg["speaker"], text])
    return [(s, t) for s, t in out]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(segments=st.lists(_SEG, max_size=12), merge=st.booleans())
def test_streamed_reader_matches_the_whole_document(tmp_path, segments, merge):
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"text": "", "segments": segments, "language": "en"}))
    recs, rejects, warnings = run(p, "whisper", merge=merge)
    assert not rejects
    assert turns(recs) == _expected(json.loads(p.read_text())["segments"], merge)
    assert len({r["id"] for r in recs}) == len(recs)  # ids never shared
    empty = sum(1 for s in segments if not s["text"].strip())
    assert (f"{p}: skipped segments without text: {empty}" in warnings) == bool(empty)


_WORD = st.builds(
    Word,
    st.text(st.characters(whitelist_categories=("L", "P")), min_size=1, max_size=6),
    st.integers(0, 20_000),
    st.integers(0, 20_000),
    st.sampled_from([None, "A", "B"]),
)


@settings(max_examples=80, deadline=None)
@given(words=st.lists(_WORD, max_size=250))
def test_word_groups_keep_every_word_in_order(words):
    groups = list(word_groups(iter(words)))
    assert " ".join(g.text for g in groups).split() == " ".join(w.text for w in words).split()
    firsts = [g.n for g in groups]
    assert firsts == sorted(set(firsts)) and (not groups or firsts[0] == 1)
    sizes = [b - a for a, b in zip(firsts, [*firsts[1:], len(words) + 1], strict=False)]
    assert all(0 < s <= 100 for s in sizes)
    for g, a in zip(groups, firsts, strict=True):  # a group is one speaker's
        assert g.speaker == words[a - 1].speaker


_PIECE = st.fixed_dictionaries({
    "offsets": st.fixed_dictionaries({"from": st.integers(0, 9000), "to": st.integers(0, 9000)}),
    "text": st.sampled_from([" so", "ing", ",", ".", " we", "?", " ok", "\u4f60"]),
    "speaker_turn_next": st.booleans(),
})  # fmt: skip


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pieces=st.lists(_PIECE, min_size=2, max_size=60))
def test_whisper_cpp_pieces_keep_every_character_in_order(tmp_path, pieces):
    """``-ml`` pieces grouped (``whisper._grouped``): every piece's text in order, nothing
    rejected, no id shared; a group never runs past a tinydiarize turn."""
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"systeminfo": "x", "transcription": pieces}))
    recs, rejects, _ = run(p, "whisper-cpp")
    assert not rejects
    got = "".join(r["textChunks"][0] for r in recs).replace(" ", "")
    assert got == "".join(x["text"] for x in pieces).replace(" ", "")
    assert len({r["id"] for r in recs}) == len(recs)
    firsts = [r["extra"]["segments"][0] for r in recs]
    for a, b in zip(firsts, [*firsts[1:], len(pieces) + 1], strict=False):
        assert not any(x["speaker_turn_next"] for x in pieces[a - 1 : b - 2])


@pytest.mark.parametrize("runs", [False, True])
def test_mended_array_reads_bytes_that_are_not_utf8_as_replacement_and_counts(runs) -> None:
    """``MendedArray``: a value refused only for bytes that are not UTF-8 is read with
    U+FFFD for them (counted); a plain ``JsonArray``, or another fault, is an error."""
    import io

    from convo.core.jsonstream import JsonArray
    from convo.importers.jsoninput import MendedArray

    def read(kind, raw):
        arr = kind(io.BytesIO(raw), ("a",), where="f")
        return arr, (list(arr.values()) if runs else [v for v, _ in arr])

    raw = b'{"a": [{"t": "ok"}, {"t": "\xe4\xbd"}, {"t": "\xa0!"}, ["\xc3", 1], {"t": "fine"}]}'
    arr, got = read(MendedArray, raw)
    assert got == [{"t": "ok"}, {"t": "\ufffd"}, {"t": "\ufffd!"}, ["\ufffd", 1], {"t": "fine"}]
    assert arr.mended == 3
    with pytest.raises(InputError, match="not valid JSON"):
        read(JsonArray, raw)
    with pytest.raises(InputError, match="f:1: not valid JSON"):
        read(MendedArray, b'{"a": [{"t": "\xc3" "u": 1}]}')


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("name", ["assemblyai", "deepgram-utterances", "whisper-cli"])
def test_json_in_utf16_or_utf32_with_its_bom_reads_as_in_utf8(tmp_path, name, encoding):
    """A response saved by Windows PowerShell 5 (``> out.json``, ``Out-File``) is UTF-16
    with a BOM: detected by its head, it is read as the UTF-8 file is."""
    text = (ASR / f"{name}.json").read_text(encoding="utf-8")
    p = tmp_path / f"{name}.json"
    bom = "\ufeff" if encoding == "utf-16-be" else ""  # utf-16 and utf-32 write their own
    p.write_bytes((bom + text).encode(encoding))
    want, _, _ = run(ASR / f"{name}.json")
    recs, rejects, _ = run(p)
    assert not rejects
    assert [(r["textChunks"], r["id"]) for r in recs] == [(r["textChunks"], r["id"]) for r in want]


def test_deepgram_multichannel_diarized_speakers_are_per_channel(tmp_path):
    """Deepgram numbers speakers from 0 in each channel: speaker 0 of channel 0 and of
    channel 1 are two people, so their names carry the channel (utterances and words)."""
    recs, _, _ = run(ASR / "deepgram-channels-diarized.json")
    assert turns(recs) == [
        ("0 (channel 0)", "Support, this is Dana."),
        ("0 (channel 1)", "Hi, my order is late."),
        ("1 (channel 1)", "It was due Monday."),
        ("0 (channel 0)", "Let me check."),
    ]
    doc = json.loads((ASR / "deepgram-channels-diarized.json").read_text())
    del doc["results"]["utterances"]
    words_only = tmp_path / "words.json"
    words_only.write_text(json.dumps(doc))
    recs, _, _ = run(words_only)
    assert [r["metadata"]["speaker"] for r in recs] == ["0 (channel 0)", "0 (channel 1)"]
    assert len({r["id"] for r in recs}) == 2


def test_whisperx_unaligned_numerals_stay_in_their_sentence(tmp_path):
    """WhisperX gives numerals and symbols no start, end or speaker (its aligner has no
    phonemes for them): such a word stays with the words around it, not a group of its
    own without a time (which would be rejected) nor a change of speaker."""

    def w(text, start=None, speaker=None):
        word = {"word": text}
        if start is not None:
            word |= {"start": start, "end": start + 0.3, "score": 0.9}
        if speaker is not None:
            word["speaker"] = speaker
        return word

    words = [
        w("I", 0.0, "SPEAKER_00"),
        w("paid", 0.4, "SPEAKER_00"),
        w("100"),
        w("dollars.", 1.2, "SPEAKER_00"),
        w("2024"),
        w("was", 2.0, "SPEAKER_01"),
        w("fine.", 2.4, "SPEAKER_01"),
        w("%"),
    ]
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"segments": [], "word_segments": words}))
    recs, rejects, _ = run(path, "whisper")
    assert turns(recs) == [
        ("SPEAKER_00", "I paid 100 dollars."),
        ("SPEAKER_01", "2024 was fine. %"),
    ]
    assert rejects == []  # the trailing "%" joins the sentence before it
