"""Whisper's console transcript saved as text (``whisper-txt``): the lines
``[00:00:00.000 --> 00:00:02.500]   Hello.`` that whisper.cpp prints to stdout (its
``whisper-cli > out.txt``) and openai-whisper prints with ``--verbose`` (``[00:00.000 -->
00:02.500]  Hello.``, hours only past the first).

The shape, as whisper.cpp's ``examples/cli`` prints a segment: the times in brackets,
two spaces, with ``-di`` the stereo estimate ``(speaker 0)``, ``(speaker 1)`` or
``(speaker ?)`` before the text, with ``-tdrz`` `` [SPEAKER_TURN]`` after it, with ``-pc``
ANSI colour codes around the tokens.

Decisions:

- One segment a line, merged into turns as whisper.cpp's JSON is (``speech``); the
  speaker the estimate's number (``?``: none); ``[SPEAKER_TURN]`` leaves the text for
  ``extra.speaker_turn_next``; colour codes are dropped.
- Ids: ``FILE#segment-N``, N counting the segment lines from 1; a non-blank line that
  is no segment (a log line saved with them) is rejected with its text.
- Detection: the first non-blank line is a segment line, 85. Streamed line by line.

Ids and their scope (docs/ids.md): no ids in the file: the content hash of each turn,
hashing its offset, its conversation the file's name (the recording).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts import SPEECH_FIELDS
from convo.importers.transcripts.cues import text_lines
from convo.importers.transcripts.speech import Spoken, SpokenReader

NAME = "whisper-txt"
PATTERNS = ("*.txt", "*.log")
_TIME = r"(?:(\d{1,3}):)?([0-5]?\d):([0-5]\d)[.,](\d{3})"
LINE = re.compile(
    rf"\[{_TIME}\s*-->\s*{_TIME}\][ \t]*(?:\(speaker ([^()\s]{{1,8}})\)[ \t]*)?(.*?)"
    r"(?P<turn>[ \t]*\[SPEAKER_TURN\])?[ \t]*"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _ms(h: str | None, m: str, s: str, ms: str) -> int:
    return ((int(h or 0) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms)


def sniff_whisper_txt(source: Source) -> int:
    lines = head_lines(source, 3)
    return 85 if lines and LINE.fullmatch(_ANSI.sub("", lines[0]).strip()) else 0


def _spoken(n: int, line: str) -> Spoken:
    m = LINE.fullmatch(_ANSI.sub("", line).strip())
    if m is None:
        return Spoken(n, "", None, None, raw=line, problem="a line that is no Whisper segment")
    speaker = m[9] if m[9] and m[9] != "?" else None
    extra = {"speaker_turn_next": True} if m["turn"] else None
    return Spoken(n, m[10], _ms(*m.group(1, 2, 3, 4)), _ms(*m.group(5, 6, 7, 8)),
                  speaker=speaker, extra=extra)  # fmt: skip


def _segments(source: Source) -> Iterator[Spoken]:
    n = 0
    for _, line in text_lines(source):
        if line.strip():
            n += 1
            yield _spoken(n, line)


def read_whisper_txt(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = SpokenReader(source, ctx, NAME)
    yield from reader.read(_segments(source))
    yield from reader.finish()


DESCRIPTION = "Whisper's console transcript saved as text (`[00:00:00.000 --> 00:00:02.500]  text`: whisper.cpp, whisper --verbose)"
EXAMPLE = "[00:00:00.000 --> 00:00:02.500]   Hello, everyone.\n[00:00:02.500 --> 00:00:05.000]   Welcome back."
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_whisper_txt, read_whisper_txt,
           EXAMPLE, fields=SPEECH_FIELDS),
)  # fmt: skip
