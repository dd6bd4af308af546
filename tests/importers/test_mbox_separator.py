"""The mbox envelope-line pattern: the fast form answers exactly as the plain one."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.importers.email.mbox import _MONTHS, _SEPARATOR, is_separator

# The pattern as first written, without atomic, possessive or lazy parts: the reference.
PLAIN = re.compile(
    rb"From (?:[ \t]*|(?:\S*@\S*|-|MAILER-DAEMON)[ \t]*|\S+[ \t]+.*\b"
    + _MONTHS
    + rb"\b.*\d{1,2}:\d\d.*)\r?\n?\Z"
)

PIECES = st.sampled_from(
    [b" ", b"\t", b"  ", b"@", b"-", b"MAILER-DAEMON", b"Mar", b"Dec", b"Mon", b"xMar",
     b"Marx", b"1", b"10", b":", b"00", b"a", b"alice", b"example.org", b"\r", b"\n",
     b"\xc3\xa9", b"\x0b", b"\x0c", b"2024", b"_"]
)  # fmt: skip


@settings(max_examples=3000)
@given(st.lists(PIECES, max_size=14))
def test_fast_pattern_matches_as_the_plain_one(pieces: list[bytes]) -> None:
    line = b"From " + b"".join(pieces)
    assert bool(_SEPARATOR.match(line)) == bool(PLAIN.match(line))
    assert is_separator(line) == bool(PLAIN.match(line))


def test_envelope_lines() -> None:
    for line in (
        b"From alice@example.org Mon Mar  1 10:00:00 2024\n",
        b"From 1234@xxx Mon Mar 01 10:00:00 +0000 2024\r\n",
        b"From MAILER-DAEMON Fri Jul  8 12:08:34 2011\n",
        b"From bob@example.org\n",
        b"From \n",
        b"From -\n",
    ):
        assert is_separator(line), line
    for line in (b"From here to there\n", b"From the Mar report 10 o'clock\n", b"Fromage\n"):
        assert not is_separator(line), line
