"""The record: TypeAgent's ``ConversationMessage`` plus convo's provenance keys.

The TypeAgent core (``textChunks``, ``metadata.speaker``/``listeners``, ``tags``,
``timestamp``, ``source_id``) is byte-compatible with TypeAgent 0.5.0's
``ConversationMessage.serialize()``; convo adds ``id``, ``format`` and the optional
``thread``, ``replyTo``, ``role``, ``subject`` and ``extra`` (omitted when empty).
TypeAgent's ``deserialize`` ignores the extra keys, so it loads convo's output unchanged.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import TYPE_CHECKING, Any

import orjson

try:  # hashlib's own blake2b, without hashlib's OpenSSL (its import is a few ms of start-up)
    from _blake2 import blake2b
except ImportError:  # another Python than CPython
    from hashlib import blake2b

from convo.core.errors import RecordError
from convo.core.knowledge_schema import Action, ConcreteEntity, KnowledgeResponse
from convo.core.timestamps import EPOCH_STR, UNIX_EPOCH, format_timestamp_utc, normalize_timestamp

__all__ = [
    "UNIX_EPOCH",
    "ConversationMessage",
    "ConversationMessageMeta",
    "TranscriptMessage",
    "TranscriptMessageMeta",
    "content_id",
    "format_timestamp_utc",
]


def _validated_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """Both classes' constructor: pydantic's validation, as a pydantic dataclass's."""
    (_MODEL or _model()).validate_init(self, args, kwargs)


_MODEL: Any = None  # convo.core.record_model, once a record was validated


def _model() -> Any:
    """``record_model`` imported (with pydantic) and kept in ``_MODEL`` for the next."""
    global _MODEL
    from convo.core import record_model

    _MODEL = record_model
    return record_model


# Plain dataclasses, validated by pydantic in their constructor and ``parse_record``:
# pydantic is imported by the first validation (``record_model``), so an ingest, which
# validates none (``unchecked_message``, ``check_message``), never imports it (docs/startup.md).


@dataclasses.dataclass(init=False)
class ConversationMessageMeta:
    """Who spoke and to whom. ``recipients`` is written as ``listeners``."""

    speaker: str | None = None
    recipients: list[str] = dataclasses.field(default_factory=list)

    if TYPE_CHECKING:

        def __init__(
            self, speaker: str | None = None, recipients: list[str] | None = None, **aliases: Any
        ) -> None: ...

    else:
        __init__ = _validated_init

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """The class as a field of a pydantic model (validated as a record's metadata)."""
        from convo.core.record_model import core_schema

        return core_schema(cls)

    @property
    def source(self) -> str | None:
        return self.speaker

    @property
    def dest(self) -> list[str] | None:
        return self.recipients if self.recipients else None

    def get_knowledge(self) -> KnowledgeResponse:
        """TypeAgent's metadata knowledge, exactly (see ``universal_message.py``)."""
        if not self.speaker:
            return KnowledgeResponse()
        entities = [ConcreteEntity(name=self.speaker, type=["person"])]
        entities.extend(ConcreteEntity(name=r, type=["person"]) for r in self.recipients)
        if self.recipients:
            actions = [
                Action(
                    verbs=["say"],
                    verb_tense="past",
                    subject_entity_name=self.speaker,
                    object_entity_name=r,
                    indirect_object_entity_name="none",
                )
                for r in self.recipients
            ]
        else:
            actions = [
                Action(
                    verbs=["say", "speak"],
                    verb_tense="past",
                    subject_entity_name=self.speaker,
                    object_entity_name="none",
                    indirect_object_entity_name="none",
                )
            ]
        return KnowledgeResponse(entities=entities, actions=actions)

    def serialize(self) -> dict[str, Any]:
        return {"speaker": self.speaker, "listeners": list(self.recipients)}


@dataclasses.dataclass(init=False)
class ConversationMessage:
    """One message from any conversation.

    ``ConversationMessage(text_chunks, metadata, tags=[], timestamp=None)`` as in TypeAgent;
    the remaining keyword fields are convo's. ``id`` and ``format`` are filled in on
    ``serialize()`` when left empty (a content hash, and ``"convo"``).
    """

    text_chunks: list[str]
    metadata: ConversationMessageMeta = dataclasses.field(default_factory=lambda: empty_meta())
    tags: list[str] = dataclasses.field(default_factory=list)
    timestamp: str | None = None
    source_id: str | None = None
    id: str | None = None
    format: str | None = None
    thread: str | None = None
    reply_to: str | None = None
    role: str | None = None
    subject: str | None = None
    extra: dict[str, Any] | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            text_chunks: list[str] | None = None,
            metadata: ConversationMessageMeta | None = None,
            tags: list[str] | None = None,
            timestamp: str | None = None,
            source_id: str | None = None,
            id: str | None = None,
            format: str | None = None,
            thread: str | None = None,
            reply_to: str | None = None,
            role: str | None = None,
            subject: str | None = None,
            extra: dict[str, Any] | None = None,
            **aliases: Any,
        ) -> None: ...

    else:
        __init__ = _validated_init

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """The class as a field of a pydantic model (or in a ``TypeAdapter``): the
        record's schema, with its aliases (``convo.core.record_model``)."""
        from convo.core.record_model import core_schema

        return core_schema(cls)

    # TypeAgent's IMessage surface
    def get_knowledge(self) -> KnowledgeResponse:
        return self.metadata.get_knowledge()

    def add_timestamp(self, timestamp: str) -> None:
        self.timestamp = timestamp

    def add_content(self, content: str) -> None:
        self.text_chunks[0] += content

    @property
    def speaker(self) -> str | None:
        return self.metadata.speaker

    @property
    def listeners(self) -> list[str]:
        return self.metadata.recipients

    @property
    def text(self) -> str:
        """The chunks joined as TypeAgent joins them for display (one per line)."""
        return "\n".join(self.text_chunks)

    def serialize(self) -> dict[str, Any]:
        """The JSONL record: TypeAgent's keys first, convo's after, empties omitted."""
        meta = self.metadata  # [*x]: a copy without a call
        return self._record([*self.text_chunks], [*meta.recipients], [*self.tags])

    def jsonl(self) -> bytes:
        """``serialize()`` as its JSONL line (with the newline), the lists not copied:
        orjson only reads them and nothing keeps the dict. What the ingest sinks write
        (``pipeline.sinks.write_lines``, ``store.lines.jsonl_line``): on 200k one-document
        OpenAI messages, in-process, 6 alternating pairs on a loaded machine, the whole
        ingest took 0.95x the CPU of serialize() with its copies (12.61 s against
        13.23 s). tests/core/test_record_jsonl.py holds it equal to the copying twin."""
        meta = self.metadata
        try:
            return _dumps(
                self._record(self.text_chunks, meta.recipients, self.tags), option=_NEWLINE
            )
        except TypeError:  # a lone surrogate (a file name's undecodable bytes)
            from convo.core.jsonl import dumps

            return dumps(self.serialize())

    def _record(
        self, text_chunks: list[str], listeners: list[str], tags: list[str]
    ) -> dict[str, Any]:
        meta = self.metadata
        record: dict[str, Any] = {
            "textChunks": text_chunks,
            "metadata": {"speaker": meta.speaker, "listeners": listeners},
            "tags": tags,
            "timestamp": self.timestamp or EPOCH_STR,
            "source_id": self.source_id,
            "id": self.id or content_id(self),
            "format": self.format or "convo",
        }
        if self.thread:
            record["thread"] = self.thread
        if self.reply_to:
            record["replyTo"] = self.reply_to
        if self.role:
            record["role"] = self.role
        if self.subject:
            record["subject"] = self.subject
        if self.extra:
            record["extra"] = self.extra
        return record

    @staticmethod
    def deserialize(data: dict[str, Any]) -> ConversationMessage:
        """Load a convo or TypeAgent record (either key spelling)."""
        return _validate(data)


_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE


def _validate(data: dict[str, Any]) -> ConversationMessage:
    return (_MODEL or _model()).validate(data)


def empty_meta() -> ConversationMessageMeta:
    """``ConversationMessageMeta()`` without its validation (no speaker, no listeners)."""
    meta = _new(ConversationMessageMeta)
    meta.__dict__ = {"speaker": None, "recipients": []}
    return meta


def content_id(
    msg: ConversationMessage,
    occurrence: int = 0,
    *,
    conversation: str | None = None,
    timestamp: str | None = None,
) -> str:
    """A stable id for a message without one: a hash of (format, conversation, speaker,
    timestamp, text).

    The conversation is ``msg.thread``, else ``conversation`` (the importers pass the
    source file's name, see ``convo.importers.build.ContentIds``), so one system prompt
    sent at one time in two conversations is two messages. ``timestamp`` replaces the
    message's time in the hash (transcripts hash the cue offset, not ``--start-date``).
    ``occurrence`` separates identical messages in one source (the second "ok" from Bob
    in the same second), so re-ingesting adds nothing but repeats are kept.
    """
    # The hashed bytes: each field followed by \x1f, each chunk by \x1e, encoded and
    # hashed at once (one call each instead of one a part: the same digest).
    # One f-string, one chunk without a join: content_id is part of every ingested
    # message's finishing.
    chunks = msg.text_chunks
    one = len(chunks) == 1 and type(chunks[0]) is str  # else join: a TypeError as before
    data = (
        f"{msg.format or ''}\x1f{msg.thread or conversation or ''}\x1f"
        f"{msg.metadata.speaker or ''}\x1f{timestamp or msg.timestamp or EPOCH_STR}\x1f"
        f"{chunks[0] if one else _SEP.join(chunks)}{_SEP if chunks else ''}"
    ).encode("utf-8", "surrogatepass")
    # A copy of a made hash, not a new one (its keyword parsed): the hashing of 200k
    # chat messages took 0.066 s of CPU, not 0.101 s (in-process, medians of 7 runs).
    h = _SEEDED.copy()
    h.update(data)
    digest = h.hexdigest()
    return f"h:{digest}-{occurrence}" if occurrence else f"h:{digest}"


_SEP = "\x1e"
_SEEDED = blake2b(digest_size=12)  # copied, never updated itself


_NONE_FIELDS = dict.fromkeys(ConversationMessage.__dataclass_fields__)

# TypeAgent's transcript aliases
TranscriptMessage = ConversationMessage
TranscriptMessageMeta = ConversationMessageMeta


def json_schema() -> dict[str, Any]:
    """JSON Schema of the record as written (``convo.core.record_model.json_schema``)."""
    from convo.core.record_model import json_schema as schema

    return schema()


def parse_record(data: dict[str, Any], where: str = "") -> ConversationMessage:
    """Validate one record dict (either spelling) into a message, or raise a located RecordError.

    The one validator: importers of records, the store, the memory API and the exporters
    all accept records through it, so nothing is stored that ``convo validate`` rejects.
    """
    try:
        msg = ConversationMessage.deserialize(data)
    except Exception as e:
        from pydantic import ValidationError  # loaded by the validation that raised

        if not isinstance(e, ValidationError):
            raise
        err = e.errors()[0]
        path = ".".join(str(p) for p in err["loc"]) or "record"
        raise RecordError(
            f"not a ConversationMessage ({path}: {err['msg'].lower()})",
            where=where,
            hint="a record needs textChunks (list of strings) and metadata",
        ) from None
    return check_message(msg, where)


_OPTIONAL_STR = ("timestamp", "source_id", "id", "format", "thread", "reply_to", "role", "subject")
_new = object.__new__


class _LastTyped:
    """The message ``chat_message`` last made ``typed``: every field of an exact type,
    checked as it was made (``convo.importers.agents.finish.plain_message``). The ingest
    pipeline's ``Finisher`` asks ``take_typed`` of each message it finishes and passes
    ``typed=True`` to ``check_message`` for that one.

    Kept here, not in the message (a ``__dict__`` key was seen by a library user who
    called an importer directly, in ``vars(msg)`` and ``dataclasses.asdict``): the
    Finisher takes each message as its reader yields it, right after making it, so the
    last one marked is the one it finishes. The test is identity, and the slot holds the
    message alive, so another message is never taken for it; a message made typed
    before another (a reader holding two) is only checked as any other is.
    """

    __slots__ = ("msg",)

    def __init__(self) -> None:
        self.msg: ConversationMessage | None = None


TYPED = _LastTyped()


def take_typed(msg: ConversationMessage) -> bool:
    """Whether ``msg`` is the message last made typed (``TYPED``); it is forgotten then."""
    if TYPED.msg is msg:
        TYPED.msg = None
        return True
    return False


def unchecked_message(
    text_chunks: list[str], speaker: str | None, recipients: list[str], fields: dict[str, Any]
) -> ConversationMessage:
    """A message made without pydantic's validation, for a builder whose values are
    already of the right types (``convo.importers.build.message``): the ingest pipeline
    passes each one through ``check_message`` (which checks the types too) exactly once,
    instead of validating twice (the metadata, then the message). ``fields`` are the
    other dataclass fields by name; those left out are None."""
    meta = _new(ConversationMessageMeta)
    meta.__dict__ = {"speaker": speaker, "recipients": recipients}
    msg = _new(ConversationMessage)
    # One dict made and set, not filled by update() calls (the same keys, in order).
    msg.__dict__ = {**_NONE_FIELDS, **fields, "text_chunks": text_chunks, "metadata": meta}
    return msg


def chat_message(
    text: str,
    role: str,
    recipients: list[str],
    fmt: str | None,
    thread: str | None,
    *,
    typed: bool = False,
) -> ConversationMessage:
    """``unchecked_message`` of the commonest chat message: one chunk, spoken by its
    ``role``, no time, id, reply or subject, ``extra`` empty; its dict made at once,
    not merged (the message a chat import makes most). ``typed``: the caller checked
    every value's type (``TYPED``)."""
    meta = _new(ConversationMessageMeta)
    meta.__dict__ = {"speaker": role, "recipients": recipients}
    msg = _new(ConversationMessage)
    msg.__dict__ = {
        "text_chunks": [text], "metadata": meta, "tags": [], "timestamp": None,
        "source_id": None, "id": None, "format": fmt, "thread": thread, "reply_to": None,
        "role": role, "subject": None, "extra": {},
    }  # fmt: skip
    if typed:
        TYPED.msg = msg
    return msg


def _type_error(where: str, what: str) -> RecordError:
    return RecordError(f"not a ConversationMessage ({what})", where=where,
                       hint="a record needs textChunks (list of strings) and metadata")  # fmt: skip


_optional_values = operator.itemgetter(*_OPTIONAL_STR)
_STR_OR_NONE = frozenset((str, type(None)))
_DICT_OR_NONE = (dict, type(None))


def _check_types(msg: ConversationMessage, where: str) -> None:
    """The field types pydantic would check, for messages made by ``unchecked_message``."""
    meta = msg.metadata
    # Every message ingested passes here: the common case (exact types) in few calls;
    # anything else is checked field by field, which names the first wrong one.
    if (
        type(meta) is ConversationMessageMeta
        and type(meta.speaker) in _STR_OR_NONE
        and type(msg.extra) in _DICT_OR_NONE
        and _STR_OR_NONE.issuperset(map(type, _optional_values(msg.__dict__)))
        and type(msg.text_chunks) is type(meta.recipients) is type(msg.tags) is list
    ):
        try:
            "".join(msg.text_chunks), "".join(meta.recipients), "".join(msg.tags)
        except TypeError:
            pass
        else:
            return
    _check_each_type(msg, where)


def _check_each_type(msg: ConversationMessage, where: str) -> None:
    meta = msg.metadata
    if not isinstance(meta, ConversationMessageMeta):
        raise _type_error(where, "metadata: not an object")
    for name, value in (
        ("textChunks", msg.text_chunks), ("listeners", meta.recipients), ("tags", msg.tags)
    ):  # fmt: skip
        try:
            "".join(value)  # in C: a TypeError for anything but strings
        except TypeError:
            raise _type_error(where, f"{name}: not a list of strings") from None
        if not isinstance(value, list | tuple):  # "".join takes a string too
            raise _type_error(where, f"{name}: not a list of strings")
    d = msg.__dict__
    for name in _OPTIONAL_STR:
        if d[name] is not None and not isinstance(d[name], str):
            raise _type_error(where, f"{name}: not a string")
    if meta.speaker is not None and not isinstance(meta.speaker, str):
        raise _type_error(where, "metadata.speaker: not a string")
    if msg.extra is not None and not isinstance(msg.extra, dict):
        raise _type_error(where, "extra: not an object")


def check_message(
    msg: ConversationMessage, where: str = "", *, typed: bool = False
) -> ConversationMessage:
    """The rules a message must meet to be stored: the field types, some text, a
    canonical UTC time.

    Normalises the timestamp in place (``+02:00`` becomes ``Z``) and returns the message.
    ``typed``: the types are known to be right (a ``TYPED`` message, see there): not
    checked again (on 200k plain OpenAI messages, in-process, 3 paired runs on a loaded
    machine: the check took 0.25-0.43 s of 2.08-2.48 s of CPU).
    """
    if not typed:
        _check_types(msg, where)
    if not msg.text_chunks:
        raise RecordError(
            "textChunks is empty", where=where, hint="a record needs at least one chunk"
        )
    try:
        msg.timestamp = normalize_timestamp(msg.timestamp)
    except (ValueError, OverflowError):
        raise RecordError(
            f"unreadable timestamp {msg.timestamp!r}",
            where=where,
            hint="use ISO 8601, e.g. 2024-03-06T10:02:30Z",
        ) from None
    return msg
