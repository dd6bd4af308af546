"""The common chat message spooled as the few values its line needs, tested in the first pass.

A chat message's line (``lines.Lines._chat_line``) is its people's entities and ``say``
actions and its topics when it has a speaker, is not mail, its text names nothing (no
mention, address, URL or entity), asks no listener, replies to nothing, and its people
are distinct and none named by a chat role. Every one of these tests reads only the
record and its analysis, which the first pass has (a person's key, the case fold of
its canonical name, is the case fold of the name as written: ``Conversation.canonical``
gives a spelling of the same case fold), so the first pass makes them (``pack``) and
spools such a message (with no subject and no hashtag: its topics are its tags' and its
key phrases) as a tuple: the line's head (its ids as JSON), the speaker, the listeners,
the tags, the id and format (for ``Conversation.note_speaker``), with the candidates as
its analysis. The second pass only names the people and ranks the candidates
(``Lines.packed_line``); any other message is spooled and written as before. The bytes
are the same either way (tests/analysis/test_knowledge_packed.py).

Measured with cachegrind (the first 20,000 records of benchmarks/bench_query.py's store,
a one-record run's start-up subtracted; ``convo knowledge -f jsonl --jobs 1``):
MEASUREMENT.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.lines import _ENTITIES, _ID, _SOURCE, Lines
from convo.analysis.knowledge.metadata import is_email
from convo.analysis.knowledge.spool import BATCH, SpoolWriter, batches, drop_text, read_blobs
from convo.core import fields
from convo.core.io import closed_quietly, spilling

_ROLES = frozenset(fields.ROLES)
_FOLDS_MAX = 1 << 14  # names whose case fold is kept (bounded memory)


class _Folds(dict[str, str]):
    """A name -> its case fold: a hit is a C subscript. At most ``_FOLDS_MAX`` kept."""

    def __missing__(self, name: str) -> str:
        if len(self) >= _FOLDS_MAX:
            self.clear()
        key = self[name] = name.casefold()
        return key


_FOLDS = _Folds()


def pack(
    records: list[dict[str, Any]],
    people: list[tuple[str | None, list[str]]],
    analyses: list[Analysis],
) -> tuple[list[Any], list[Any]]:
    """The spool's two lists of a batch: each record (its text dropped already) and its
    ``Analysis.dump``, or for a common chat message (the module docstring) its tuple and
    its candidates."""
    items: list[Any] = []
    dumps: list[Any] = []
    add, dump = items.append, dumps.append
    for record, (speaker, listeners), a in zip(records, people, analyses, strict=True):
        if (
            speaker and not (a.mentions or a.emails or a.urls or a.entities or a.hashtags)
            and not (a.questions and listeners) and record.get("subject") is None
            and not is_email(record)
        ):  # fmt: skip
            item = _chat_item(record, speaker, listeners)
            if item is not None:
                add(item)
                dump(a.candidates)
                continue
        add(record)
        dump(a.dump())
    return items, dumps


def _chat_item(record: dict[str, Any], speaker: str, listeners: list[str]) -> tuple[Any, ...] | None:
    """The tuple of a chat message that replies to nothing and whose people are distinct,
    none named by a role (their keys: ``_FOLDS``); else None."""
    reply_to = record.get("replyTo")
    if reply_to is None:
        reply_to = record.get("reply_to")
    if isinstance(reply_to, str) and reply_to:
        return None
    folds = _FOLDS
    keys = [folds[speaker], *map(folds.__getitem__, listeners)]
    unique = set(keys)
    if len(unique) != len(keys) or not _ROLES.isdisjoint(unique):
        return None
    rid, sid = record.get("id"), record.get("source_id")
    head = b"".join((  # ``Lines._join``'s
        _ID, orjson.dumps(rid if isinstance(rid, str) and rid else None),
        _SOURCE, orjson.dumps(sid if isinstance(sid, str) and sid else None),
        _ENTITIES,
    ))  # fmt: skip
    return (head, speaker, listeners, record.get("tags"), rid, record.get("format"))


def lines(records: Iterable[dict[str, Any]], conv: Conversation, memory: int) -> Iterator[bytes]:
    """``convo knowledge -f jsonl`` on one core: the lines of ``records`` (parsed for this
    call: their text is dropped in place) a spool batch at a time, both passes in
    ``conv`` (the spool in memory up to ``memory`` bytes, then on disk)."""
    with closed_quietly(tempfile.SpooledTemporaryFile(max_size=memory)) as file:
        spool = SpoolWriter(file)
        for batch in batches(records, BATCH):
            people = list(map(fields.people, batch))
            analyses = conv.observe_records(batch, people)
            with spilling():  # past ``memory`` the spool is a file in $TMPDIR
                spool.add_packed(*pack(drop_text(batch), people, analyses))
        with spilling():
            spool.close()
        file.seek(0)
        out = Lines(conv)
        for items, dumps in read_blobs(file):
            yield b"".join(map(out.item_line, items, dumps))
