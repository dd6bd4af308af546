"""A read command's arguments: which are inputs (files) and which make the query.

One rule for every command (``convo query --help``, docs/cli.md): ``-``, an existing path
and a word that looks like one (``PATHLIKE``: a ``/`` or a known file extension) are
inputs; the other words are the query. The traps a person falls into get a hint rather
than a silent empty answer: an option after ``--`` (read as a query word), and
``-tag:spam`` written before ``--`` (click reads it as ``-t ag:spam``).
"""

from __future__ import annotations

from convo.core.filetypes import COMPRESSED, INPUT_SUFFIXES
from convo.core.lazy import pattern

_IGNORECASE = 2  # re.IGNORECASE (``re`` itself is imported when the pattern is used)

# A word with no query syntax that reads as a path: a missing file is then an error
# ("no such file"), not a search for its name. To search such a word, quote it: '"x.json"'.
_EXTENSIONS = tuple(sorted(s[1:] for s in INPUT_SUFFIXES))  # the files convo reads
_COMPRESSED = tuple(s[1:] for s in COMPRESSED)
PATHLIKE = pattern(
    r"[^\s:\"()]*/[^\s:\"()]*"
    r"|[^\s:\"()/]+\.(" + "|".join(_EXTENSIONS) + r")(\.(" + "|".join(_COMPRESSED) + r"))?",
    _IGNORECASE,
)
# The ASCII characters the pattern's classes leave out: \s (str.isspace) and :"()
_NOT_IN_A_PATH = frozenset([*(chr(i) for i in range(128) if chr(i).isspace()), *':"()'])


def pathlike(word: str) -> bool:
    """``PATHLIKE.fullmatch(word)``, without ``re`` for an ASCII word (an indexed read
    imports no ``re``: docs/startup.md, "Third pass"); ``tests/cli/test_words.py`` holds
    both equal. A word outside ASCII goes to the pattern (its case-insensitive match
    knows letters such as U+017F that ``str.lower`` does not fold)."""
    if not word.isascii():
        return PATHLIKE.fullmatch(word) is not None
    if any(c in _NOT_IN_A_PATH for c in word):
        return False
    if "/" in word:
        return True
    # an extension after a non-empty stem, then .gz, .zst or not (neither is one itself)
    lower = word.lower()
    for suffix in COMPRESSED:
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
            break
    stem, dot, ext = lower.rpartition(".")
    return bool(dot and stem and ext in _EXTENSIONS)


def split_query(words: list[str]) -> tuple[list[str], str]:
    """A read command's arguments as (inputs, query text), by one rule: ``-``, an existing
    path and a path-like word (``PATHLIKE``) are inputs, the other words the query."""
    import os

    from convo.core.errors import UsageError

    inputs, query = [], []
    for w in words:
        if w.startswith("--") and len(w) > 2 and w[2:3].isalpha():
            raise UsageError(
                f"{w} after -- would be read as a query word",
                hint="options go before --: convo query --count -- '-tag:spam'",
            )
        if w == "-" or os.path.exists(w) or pathlike(w):
            inputs.append(w)
        else:
            query.append(w)
    return inputs, " ".join(query)


_GLUED = (("-s", "--speaker", "speakers"), ("-r", "--listener", "listeners"),
           ("-t", "--tag", "tags"))  # fmt: skip


def no_glued_query(values: dict[str, list[str]]) -> None:
    """``convo list -tag:spam`` reaches us as ``--tag 'ag:spam'`` (``-t`` and its value
    glued), ``-speaker:bob`` as ``--speaker 'peaker:bob'``, ``-role:tool`` as
    ``--listener 'ole:tool'``: a short option whose letter and value spell a field of
    the query language is that field negated; say so rather than match nothing."""
    for short, long, key in _GLUED:
        for value in values.get(key) or ():
            said = glued_field(short[1], value, long)
            if said:
                from convo.core.errors import UsageError

                what, _, hint = said.partition("; ")
                raise UsageError(what, hint=hint)


def glued_field(letter: str, value: str, option: str = "") -> str | None:
    """What to say when option ``-LETTER``'s ``value`` and its letter spell a field of
    the query language (``-from:alice`` read as ``-f 'rom:alice'``), else None."""
    field, colon, _ = (letter + value).partition(":")
    if not colon:
        return None
    from convo.query.field_table import LANGUAGE

    if field.lower() not in LANGUAGE:
        return None
    word = f"-{letter}{value}"
    reads = f"{option or '-' + letter} {value!r}"
    return f"{word} reads as {reads}; a query that starts with - goes after --: convo query -- '{word}'"


def tag_names(values: list[str]) -> list[str]:
    """Tag names as typed (``core.tagnames``: ``+foo`` is ``foo``), each change said on
    stderr: ``ingest --tag`` and ``convo tag``."""
    from convo.cli.runtime import err
    from convo.core.errors import check_decoded
    from convo.core.tagnames import tag_name

    names = []
    for value in values:
        name, note = tag_name(check_decoded(value))
        if note:
            err(f"note: {note}")
        names.append(name)
    return names
