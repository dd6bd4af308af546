"""The common chat and mail message spooled as the few values its line needs, tested in
the first pass (``convo knowledge -f jsonl`` on one core).

A chat message's line (``lines.Lines._chat_line``) is its people's entities and ``say``
actions and its topics when it has a speaker, is not mail, its text names nothing (no
mention, address, URL or entity), asks no listener, replies to nothing, and its people
are distinct and none named by a chat role. Each of these tests reads only the record
and its analysis, which the first pass has: a person's key, the case fold of its
canonical name, is the case fold of the name as written (``Conversation.canonical``
gives a spelling of the same case fold). So the first pass makes them (``pack``) and
spools such a message (with no subject and no hashtag) as a tuple: the line's head (its
ids as JSON), the speaker, the listeners, the tags, its id and format (for
``Conversation.note_speaker``), with its candidates for its analysis. The common mail
message (``Lines._mail_line``: a speaker, the text adds nothing, no reply target, its
entities would not merge: the keys of its addresses are the case folds of their display
names and addresses) is spooled the same way with its address values, its number of To
recipients, subject, tags and hashtags. The second pass only names the people and ranks
the candidates (``Lines.packed_line``, ``Lines.packed_mail_line``); any other message is
spooled whole and written by ``Lines.line``. The bytes are the same either way
(tests/analysis/test_knowledge_packed.py).

Measured with cachegrind (the first 20,000 records of benchmarks/bench_query.py's store,
a one-record run's start-up subtracted, the output the same bytes): 326.7k instructions
a message before, 315.9k with the chat messages packed (-3.3%), 314.5k with mail too
(-3.7%). What the first pass's tests and tuples cost (about 21k a message, the text's
drop included) is less than what the second pass no longer does: a whole record
marshalled and read back, its ``Analysis`` made, ``fields.people``, ``is_email`` and the
line's tests again.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.email import email_fields, mail_parts
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.lines import LINE_ENTITIES, LINE_ID, LINE_SOURCE, Lines
from convo.analysis.knowledge.mailpeople import MESSAGE, unmerged
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
        item = None
        if (
            speaker and not (a.mentions or a.emails or a.urls or a.entities)
            and not (a.questions and listeners)
        ):  # fmt: skip
            if is_email(record):
                item = _mail_item(record, speaker, a.hashtags)
            elif not a.hashtags and record.get("subject") is None:
                item = _chat_item(record, speaker, listeners)
        if item is None:
            add(record)
            dump(a.dump())
        else:
            add(item)
            dump(a.candidates)
    return items, dumps


def _head(record: dict[str, Any]) -> bytes:
    """A line's start up to its entities: its ids as JSON (``Lines._join``'s)."""
    rid, sid = record.get("id"), record.get("source_id")
    return b"".join((
        LINE_ID, orjson.dumps(rid if isinstance(rid, str) and rid else None),
        LINE_SOURCE, orjson.dumps(sid if isinstance(sid, str) and sid else None),
        LINE_ENTITIES,
    ))  # fmt: skip


class _MailKeys(dict[str, tuple[str, ...]]):
    """An address value -> the keys of its entities (``mailpeople.mail_person``'s: the
    case folds of its display name and address). At most ``_FOLDS_MAX`` kept."""

    def __missing__(self, value: str) -> tuple[str, ...]:
        if len(self) >= _FOLDS_MAX:
            self.clear()
        keys = self[value] = tuple(x.casefold() for x in mail_parts(value) if x)
        return keys


_MAIL_KEYS = _MailKeys()
_MESSAGE_KEY = MESSAGE.casefold()


def _mail_item(record: dict[str, Any], speaker: str, hashtags: list[str]) -> tuple[Any, ...] | None:
    """The tuple of a mail message that replies to nothing and whose entities would not
    merge (``mailpeople.unmerged``); else None."""
    if record.get("replyTo", record.get("reply_to")):
        return None
    sender, to, cc, bcc = email_fields(record)
    values = [sender, *to, *cc, *bcc]
    keys = [key for value in values for key in _MAIL_KEYS[value]]
    keys.append(_MESSAGE_KEY)
    if not unmerged(keys):
        return None
    return (_head(record), speaker, values, len(to), record.get("subject"),
            record.get("tags"), hashtags, record.get("id"), record.get("format"))  # fmt: skip


def _chat_item(
    record: dict[str, Any], speaker: str, listeners: list[str]
) -> tuple[Any, ...] | None:
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
    return (_head(record), speaker, listeners, record.get("tags"), record.get("id"),
            record.get("format"))  # fmt: skip


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
