"""Transcripts (family ``transcript``): WebVTT, SRT and SBV cues, and the JSON that
speech-to-text engines write, into messages, one per speaker turn. ``vtt``, ``srt`` and
``sbv`` hold each cue format's sniff, reader and ``FORMATS``; they share ``cues`` (lines ->
blocks -> timed cues), ``cuetext`` (cue text and speaker prefixes), ``turns`` (speakers
of cues) and ``sniffing`` (head checks). ``whisper`` (Whisper, WhisperX, the OpenAI
audio API; whisper.cpp), ``assemblyai``, ``deepgram``, ``aws`` (Amazon Transcribe) and
``revai`` (Rev.ai) read speech-to-text JSON through
``speech`` (segments, offsets, words). Every format merges turns with ``merging``.

The text transcripts, ``otter`` (Otter.ai's text export), ``rev`` (Rev.com's),
``markdown_turns`` (Rev's headers in bold in a Markdown note), ``teams_docx`` (a Teams transcript downloaded as .docx, read by
``convo.importers.docx``) and ``meet`` (a Google Meet transcript document as .txt or
.docx), are not cues: one message a speaker paragraph, timed by its offset; they share
``textturns`` and hold their own decisions in their docstrings. The rest of this
docstring is about the cue formats.

Reading is streamed a line at a time (see ``cues``); webvtt-py, which reads a
whole file into memory and drops malformed cues without saying where, serves as the
reference parser in the tests rather than as the reader. The cue block rules are its
(and WebVTT's) rules.

Decisions, where the formats and the brief are silent:

- Speakers (``--speakers auto``): a cue's ``<v Name>`` spans, every one of them, each its
  own segment; text outside any span in a voiced cue has no speaker. A WebVTT cue whose
  identifier is Webex's ``12 "Ann Lee" (3330436864)`` is spoken by that name, as a voice
  (``1 "" (0)``: no speaker). A cue without voice tags uses the file's name-prefix style, decided on its first 200 cues with text
  (``cuetext.choose_style``; memory stays bounded): ``Name: text`` (Zoom, first
  line of a cue), ``- Name: text``, ``>> NAME: text`` (broadcast; a bare ``>>`` is a new,
  unnamed speaker) or ``[Name] text`` (Netflix; only capitalised labels followed by text,
  so ``[ríe]`` and ``[music]`` are not speakers) or a ``(Name)`` line before the words
  (Google Meet's captions; capitalised, so ``(laughs)`` is none, nor a sound such as
  ``(Applause)``, and with words after it in its cue; the ``-`` line between two
  speakers of a cue goes). Cues without a prefix continue the
  previous speaker, except in the ``[Name]`` style, where labels are sparse and an
  unlabelled line has no known speaker. Names keep their spelling (``Ashlee Kupor (SL)``).
  ``voice`` uses only voice tags, ``prefix`` only prefixes (without the consistency
  thresholds), ``none`` neither (text is left as written).
- Text: tags dropped, ``<rt>`` ruby annotations with their content; SSA ``{\\an8}`` codes
  dropped in SRT; HTML entities decoded; spaces tidied; a cue's lines are joined with
  ``\\n`` and merged cues with a space, as TypeAgent's ``ingest_vtt_transcript`` does
  (one text chunk per message). Rolling YouTube captions (the file header has ``Kind:``,
  cues carry karaoke timestamps, or a cue of at most 50 ms shows again the previous
  cue's last line, the freeze YouTube writes between rolls, kept in SubRip conversions) drop leading lines that repeat the previous cue's
  last lines; a cue left empty by that is a duplicate and vanishes without a warning.
- Listeners: none, as TypeAgent's ``ingest_vtt_transcript`` writes them
  (``recipients=[]``), so a two-speaker interview does not name the other speaker as
  the listener (TypeAgent's podcast import, a different text format, names every other
  participant; convo follows the transcript importer, whose records TypeAgent loads).
- Merging: consecutive segments of one named speaker become one message, up to
  ``merging.MAX_MERGED_CHARS`` of text (a monologue is split there so that memory stays flat).
  Segments without a speaker are never merged (TypeAgent merges them; here a
  speakerless subtitle file would become one huge message).
- Time: ``timestamp`` = ``--start-date`` (or the epoch sentinel) + the first cue's start,
  truncated to the second. ``extra``: ``start`` (the first cue's start) and ``end`` (the
  latest end among its cues), in seconds from the start of the recording as millisecond
  floats; ``cues`` (the cue
  ordinals N of ``#cue-N``, counting every cue block in the file from 1, malformed ones
  too, so numbers match the file) and ``cue_ids`` (the cues' own identifiers, SRT index
  numbers included, aligned with ``cues``; only when a cue has one).
- Timing lines are read leniently where nothing is ambiguous: missing hours, unpadded
  Teams times (``0:0:0.570``), ``,`` or ``.`` before the milliseconds (in any format), no
  milliseconds (``00:00:01``); minutes or seconds over 59 are unreadable.
- Detection: ``WEBVTT`` at the start is WebVTT (95); a first cue with a ``,`` timing is
  SRT (90); ``H:MM:SS.mmm,H:MM:SS.mmm`` as the first line is SBV (90); header-less cues
  with ``.`` timings are WebVTT (40) unless numbered (SRT, 45). An empty file counts only
  when its name has the format's extension (so it warns "no cues" instead of failing).
- Speech-to-text JSON (``whisper``, ``whisper-cpp``, ``assemblyai``, ``deepgram``,
  ``aws-transcribe``, ``revai``): one segment is one Whisper segment, whisper.cpp
  ``transcription`` entry, AssemblyAI or Deepgram utterance, Deepgram paragraph (its
  sentences joined with a space; used when the response has no ``utterances``), Amazon
  Transcribe audio segment or Rev.ai monologue. The speaker is the engine's label as it wrote it (``SPEAKER_00``, ``A``,
  ``0``, ``spk_0``; Deepgram's integers as text); whisper.cpp's ``?`` (its stereo
  estimate could not tell) is no speaker; ``--speakers none`` leaves labels out.
  whisper.cpp's ``-ml`` pieces (the first 32 segments with text under 12 characters
  on average: ``-ml 1`` tokens, ``-sow`` words) are grouped as words are (below), their
  text joined as written; its ``-tdrz`` ``speaker_turn_next`` ends a group and is kept
  as ``extra.speaker_turn_next``.
  Consecutive segments of one speaker merge as cues do; a ``channel`` (AssemblyAI's,
  Amazon's ``channel_label``, or Deepgram's when the file has several channels) goes
  into ``extra``, and segments of different channels never merge. Text is the
  segment's, trimmed.
- Their time: offsets are seconds (milliseconds in AssemblyAI and whisper.cpp's
  ``offsets``; its ``timestamps`` strings when ``offsets`` is missing), kept as
  ``extra.start``/``end``; ``timestamp`` is ``--start-date`` (or the epoch sentinel) +
  the start, as for cues: none of these files says when the recording started
  (Deepgram's ``metadata.created`` is when the request was made, not when the audio was
  recorded, so it is not used).
- Their ids: ``FILE#segment-N`` (N counts the file's segments from 1, empty ones too),
  ``extra.segments`` and ``extra.segment_ids`` (the engine's ids: Whisper's ``id``,
  ``seg_001``, Deepgram's utterance ids, Amazon's segment ids).
- Words only: a file with words but no segments (the OpenAI API's
  ``timestamp_granularities=["word"]``, WhisperX ``word_segments``, AssemblyAI without
  speaker labels, a Deepgram channel without paragraphs, Amazon ``items`` without
  ``audio_segments``, each punctuation item joined to the word before, the speaker from
  ``speaker_label`` or else the ``speaker_labels`` segment holding the word's start) has
  its words grouped: a group ends after a word ending a sentence (``.?!…``), at a change
  of speaker or channel, at a pause of 2 s, or after 100 words. Groups are numbered
  ``FILE#word-N`` (N counts words, its first word's) and ``extra.words``, except
  Deepgram's: a channel's groups stand beside other channels' paragraphs, so they are
  numbered as those are, ``FILE#segment-N`` and ``extra.segments`` (N counting the
  paragraphs and groups of every channel in turn).
- Their bad input: a segment without text is skipped and counted in one warning per
  file; one without a readable start, or an element that is not an object, is rejected
  with its JSON. An AssemblyAI transcript whose ``status`` is not ``completed`` is
  warned about with its ``error``; an Amazon job not ``COMPLETED`` likewise. Whisper
  and whisper.cpp JSON whose segments or words hold bytes that are not UTF-8 (whisper.cpp
  writes a token's bytes as they are and may cut a character between two segments or
  words) is read with U+FFFD for those bytes, counted in one warning.
- Their streaming: the segment, utterance or word arrays are read one element at a time
  (``jsoninput.StreamedDoc``), the whole ``text`` and the word arrays passed over
  unkept; a Deepgram response without utterances holds one channel at a time.
- Their detection: Whisper's ``segments`` with ``seek``/``avg_logprob``/
  ``no_speech_prob`` (or ``transcript.text.segment``, ``word_segments``) 85; WhisperX
  ``word_segments`` alone, or the OpenAI API's ``task``, ``duration`` and ``words``, 80;
  ``segments`` whose head shows ``start``, ``end`` and ``text`` (and no ``results``) 60;
  ``task`` and ``duration`` with the head ending inside a ``text`` string (the API's
  response past an hour of speech: its whole text comes before the segments) 60;
  a ``.json`` file whose head is all one ``"text"`` string (Whisper writes the whole
  text first) 30; the Hugging Face pipeline's ``chunks`` (or insanely-fast-whisper's
  ``speakers``) whose head shows a ``"timestamp": [start, end]`` pair 75. whisper.cpp: ``transcription`` with ``offsets``/``timestamps``/
  ``systeminfo`` 90. AssemblyAI: ``audio_url`` with ``status``/``id`` and a transcript
  member 85. Deepgram: ``results`` with ``channels`` and ``alternatives`` 90, or
  ``metadata`` with ``request_id`` and ``model_info`` 85 (never with ``jobName``).
  Amazon Transcribe: ``jobName`` with ``results`` and ``transcripts`` or ``accountId``
  90; Call Analytics and Contact Lens: ``JobStatus`` and ``LanguageCode`` with a
  ``ParticipantRole``/``ParticipantId``/``BeginOffsetMillis`` 85. Rev.ai: ``monologues`` with ``elements`` and ``ts`` or ``speaker`` 85.
- Encodings: a BOM decides (UTF-8, UTF-16 LE/BE); otherwise UTF-8, line by line, and
  the lines that are not UTF-8 in the file's legacy encoding, guessed once and named in
  a warning (``convo.core.encoding``), or ``--encoding``.
- WebVTT blocks that carry no conversation are skipped as browsers skip them: NOTE,
  STYLE and REGION blocks, and before the first cue the rest of a style sheet that held
  a blank line (a blank line ends every block, STYLE too) and the 2013-2016 drafts'
  ``Region:`` header lines (``Kind:``, ``Language:``, ``X-TIMESTAMP-MAP=`` too) set
  apart by a blank line (``cues._header_block``). A NOTE block holding cue text (a
  voice span: a cue's text after a NOTE line without its blank line) is a comment all
  the same, as players read it, and the reader warns with its line (``cues.Comment``).
- Bad input: a block with text but no timing line, or with an unreadable timing line, is
  rejected with its line (in SRT, text after a blank line inside a cue, not an index
  number or a timing line, is that cue's text, as players read it); a cue without text is skipped with a warning; a WebVTT file
  without the ``WEBVTT`` header is read anyway with a warning; an empty or header-only
  file gives no messages and a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo.importers.fields import CONTENT_HASH, Fields

if TYPE_CHECKING:
    from convo.importers.registry import Registry

# What every format of the family makes of its source (importers.fields).
FIELDS = Fields(
    speaker="a cue's `<v Name>` voice (WebVTT; Webex's `N \"Name\" (id)` cue identifier), else the file's name-prefix style "
    "(`Name:`, `- Name:`, `>> NAME:`, `[Name]`), else none; `--speakers` chooses",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the first merged cue's start, to the second; without "
    "`--start-date` the epoch + the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); cue offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the cue offset",
    scope="the file's name (the recording)",
    extra="`start` and `end` (seconds from the start of the recording), `cues` (the cue "
    "numbers merged), `cue_ids` (the cues' own identifiers)",
)


# What the speech-to-text JSON formats make of their source.
SPEECH_FIELDS = Fields(
    speaker="the engine's speaker label as written (`SPEAKER_00`, `A`, `0`); none "
    "without diarization; `--speakers none` leaves it out",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the first merged segment's start, to the second; without "
    "`--start-date` the epoch + the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the segment offset",
    scope="the file's name (the recording)",
    extra="`start` and `end` (seconds from the start of the recording), `segments` (the "
    "segment numbers merged; `words` for a file of words, `chunks` for the Hugging Face "
    "pipeline's, `monologues` for Rev.ai's, `turns` for Call Analytics'), `segment_ids` "
    "(the engine's ids; `turn_ids`), `channel`, `sentiment` (Call Analytics), "
    "`speaker_turn_next` (whisper.cpp's `-tdrz`)",
)
# A head whose first character (after whitespace) is no JSON or markup opener, and that
# holds what the rest of the pattern says (the sniffs of ``otter`` and ``rev`` refuse a
# first line opening with one of ``{[<``).
_TEXT_WITH_OFFSET = r"\A\s*(?=[^\s{\[<])(?=[\s\S]*"


def register(registry: Registry) -> None:
    """Declare the transcript formats: a cue timing (``-->``), the WebVTT header or an SBV
    timing first, else an empty file so named; speech-to-text JSON objects holding their
    engine's member names (their modules load when a gate admits)."""
    from convo.importers.gates import Gate, json_with

    named = Gate(named=True)
    whisper = json_with(
        '"segments"', '"word_segments"', '"task"', '"chunks"', '"speakers"', opens="{"
    )
    text_first = Gate(pattern=r'\A[\s\ufeff]*\{\s*"text"\s*:')  # openai-whisper's order
    zipped = Gate(magic=(b"PK\x03\x04",))
    registry.declare(__package__, (
        ("vtt", "vtt", ("*.vtt", "*.webvtt"), Gate(words=("WEBVTT", "-->")), named),
        ("srt", "srt", ("*.srt",), Gate(words=("-->",)), named),
        ("sbv", "sbv", ("*.sbv",), Gate(opens="0123456789"), named),
        ("ass", "ass", ("*.ass", "*.ssa"), Gate(words=("[Script Info]", "[script info]",
                                                    "[Events]")), named),
        ("ttml", "ttml", ("*.ttml", "*.dfxp", "*.xml", "*.ttml2"), Gate(opens="<", words=("<tt",
                                                                                ":tt"))),
        ("youtube", "youtube", ("*.json3", "*.srv3", "*.srv2", "*.srv1", "*.json", "*.xml"),
         json_with('"wireMagic"', '"tStartMs"', opens="{"),
         Gate(opens="<", words=("<timedtext", "<transcript"))),
        ("whisper", "whisper", ("*.json",), whisper, text_first),
        ("whisper", "whisper-cpp", ("*.json",), json_with('"transcription"', opens="{")),
        ("assemblyai", "assemblyai", ("*.json",), json_with('"audio_url"', opens="{")),
        ("deepgram", "deepgram", ("*.json",), json_with('"results"', opens="{")),
        ("aws", "aws-transcribe", ("*.json",), json_with('"jobName"', '"JobStatus"', opens="{")),
        ("revai", "revai", ("*.json",), json_with('"monologues"', opens="{")),
        ("whisper_tsv", "whisper-tsv", ("*.tsv",), Gate(pattern=r"(?i)\A\ufeff?[a-z]+\t[a-z]+\t")),
        # The text transcripts: otter and rev need a head that opens with no JSON or
        # markup character and holds an offset (``M:SS``); google-meet its
        # `` - Transcript`` title or a zip, as teams-docx (a Word document).
        ("otter", "otter", ("*.txt",), Gate(pattern=_TEXT_WITH_OFFSET + r"\d:[0-5]\d)")),
        ("rev", "rev", ("*.txt",), Gate(pattern=_TEXT_WITH_OFFSET + r"\(\d{1,6}:[0-5]\d)")),
        ("markdown_turns", "md-transcript", ("*.md", "*.markdown", "*.txt"),
         Gate(pattern=r"\*\*[^*\n]{1,80}\(\d{1,6}:[0-5]\d(?::[0-5]\d)?\)")),
        ("whisper_txt", "whisper-txt", ("*.txt", "*.log"),
         Gate(pattern=r"\A[\s\ufeff]*(?:\x1b\[[0-9;]*m)*\[(?:\d{1,3}:)?\d{1,2}:\d\d[.,]\d{3}\s*-->")),
        ("bracket_turns", "txt-transcript", ("*.txt", "*.md"),
         Gate(pattern=r"\A[\s\ufeff]*(?:[^\n]{0,120}\n[\s]*){0,4}"
                      r"(?:\[\d{1,6}:[0-5]\d(?::[0-5]\d)?\][ \t]+[^<*\-\s]"
                      r"|(?:0{1,2}:){0,2}0?0:[0-5]\d[ \t]+[^\-\s])")),
        ("transcriptonic", "transcriptonic", ("*.txt",),
         Gate(pattern=r"\A[\s\ufeff]*[^\n]{1,200} \(\d{1,4}[/.\-]\d{1,2}[/.\-]\d{1,4},?\s+\d{1,2}[:.]\d\d")),
        ("fathom", "fathom", ("*.txt", "*.md"),
         Gate(pattern=r"(?m)^[ \t]*\d{1,6}:[0-5]\d(?::[0-5]\d)?[ \t]+-[ \t]+\S")),
        ("zoom_captions", "zoom-cc", ("meeting_saved_closed_caption.txt", "closed_caption.txt",
                                      "*.txt"),
         Gate(pattern=r"\A[\s\ufeff]*\[[^\[\]\n]{1,120}\][ \t]+\d{1,2}:[0-5]\d:[0-5]\d[ \t]*\r?\n")),
        ("meet", "google-meet", ("*.txt", "*.docx"), Gate(words=("- Transcript",)), zipped),
        ("teams_docx", "teams-docx", ("*.docx",), zipped),
    ), family="transcript")  # fmt: skip
