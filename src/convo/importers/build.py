"""The one message builder of the importers: every reader's record is made here.

Readers pass what they know; the builder applies the shared rules: empty text chunks
dropped (one empty chunk kept so the record is well-formed), listeners without the
speaker and without repeats in first-seen order, tags without repeats, a reply to the
message itself dropped, and empty ``extra`` values (None, "", [], {}) left out.

It is also the one home of content-hash ids: ``ContentIds`` gives every message of one
source that has no id of its own ``h:`` + a hash of (format, conversation, speaker,
time, text) (``convo.core.record.content_id``), the conversation being the message's
``thread``, else the source file's name (without its folder or a ``.gz`` suffix, so the
same file ingested from another folder, or compressed, keeps its ids), with an occurrence
counter for true repeats (exact, in bounded memory: ``convo.core.counts``). The
pipeline finishes every message through it; readers that need an id before the
pipeline (a reply's target) or that hash another time (a transcript's cue offset, so
``--start-date`` does not change ids) call it themselves.

It is also the one home of scoped ids (docs/ids.md): a source's own id that is unique
only within a site, an instance, a chat or a workspace is written ``scoped_id(prefix,
scope, local)`` = ``prefix:scope:local`` (``se:cooking:12``), so two sources never share
an id unless they hold the same message. A reader takes the scope from what the source
says (a host in the document, a chat id); ``folder_scope`` is the last resort, the name
of the folder the file sits in. With no scope at all (standard input, nothing in the
document) the id stays ``prefix:local``, and the reader says so once with a warning.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from convo.core.compression import strip_compressed
from convo.core.counts import Counts
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage, content_id, unchecked_message
from convo.core.timestamps import EPOCH_STR

if TYPE_CHECKING:
    from convo.core.io import Source
    from convo.importers.context import ImportContext


def message(
    text: str | list[str],
    *,
    speaker: str | None,
    listeners: list[str] | None = None,
    timestamp: str | None = None,
    id: str | None = None,
    source_id: str | None = None,
    format: str | None = None,
    thread: str | None = None,
    reply_to: str | None = None,
    subject: str | None = None,
    role: str | None = None,
    tags: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> ConversationMessage:
    """Build a record (see the module docstring for the rules).

    The record is made without pydantic's validation (``core.record.unchecked_message``):
    the pipeline validates every message once, with ``core.record.check_message``.
    """
    return unchecked_message(
        [text] if type(text) is str else _chunks(text),
        speaker or None,
        _listeners(listeners, speaker) if listeners else [],
        {
            "tags": list(dict.fromkeys(tags)) if tags else [],
            "timestamp": timestamp,
            "id": id,
            "source_id": source_id,
            "format": format,
            "thread": thread or None,
            "reply_to": reply_to if reply_to and reply_to != id else None,
            "subject": subject or None,
            "role": role,
            "extra": _extra(extra) if extra else None,
        },
    )


def _chunks(text: str | list[str]) -> list[str]:
    if isinstance(text, str):
        return [text]
    if type(text) is list and text and all(text):  # nothing to drop: a copy, made in C
        return text.copy()
    return [c for c in text if c] or [""]


def _listeners(listeners: list[str], speaker: str | None) -> list[str]:
    return [x for x in dict.fromkeys(listeners) if x and x != speaker]


def _extra(extra: dict[str, Any]) -> dict[str, Any] | None:
    # Empty values are None, "", [] and {}; 0 and False are kept (``False == 0``, and
    # ``0 in ("", [])`` is False, so test the type, not the value).
    if all(extra.values()):  # nothing to leave out (the common case): a copy, made in C
        return dict(extra)
    kept = {k: v for k, v in extra.items() if v is not None and (v or type(v) not in _EMPTYABLE)}
    return kept or None


_EMPTYABLE = (str, list, dict)


class ContentIds:
    """Content-hash ids for the messages of one source (see the module docstring).

    The occurrence counters are exact and their memory bounded whatever the source's
    size (``convo.core.counts.Counts``, given the time each hash hashes as its stamp:
    while the times rise, past 4,096 distinct messages the older ones go to a temporary
    file; else past 262,144 to a temporary table on disk)."""

    def __init__(self, source_name: str):
        self.file = file_scope(source_name)
        self._seen = Counts()

    def assign(self, msg: ConversationMessage, timestamp: str | None = None) -> str:
        """The message's id; one without gets its content hash (``timestamp`` replaces the
        message's time in the hash)."""
        if not msg.id:  # ``occurrence(base(...))`` written out: once a message ingested
            base = content_id(msg, conversation=self.file, timestamp=timestamp)
            k = self._seen.next(base, timestamp or msg.timestamp or EPOCH_STR)
            msg.id = f"{base}-{k}" if k else base
        return msg.id

    def base(self, msg: ConversationMessage, timestamp: str | None = None) -> str:
        """The content hash of ``msg`` in this source, before its occurrence counter."""
        return content_id(msg, conversation=self.file, timestamp=timestamp)

    def assign_local(self, msg: ConversationMessage) -> str | None:
        """``assign`` for a message whose thread is a made-up conversation id, unique only
        in its file (a data set's ``conv-1``, a session ``s1``): a short one is hashed
        as ``FILE:ID`` (``file_local``), so two files' ``conv-1`` are two conversations;
        the thread itself stays as the source has it. Other messages are left to the
        pipeline (their ids are what it gives them)."""
        thread = msg.thread
        if msg.id or not thread or file_local(thread, self.file) == thread:
            return msg.id
        msg.thread = file_local(thread, self.file)
        try:
            base = self.base(msg)
        finally:
            msg.thread = thread
        msg.id = self.occurrence(base, msg.timestamp or EPOCH_STR)
        return msg.id

    def occurrence(self, base: str, stamp: str | None = None) -> str:
        """``base`` with the counter of its repeats so far (``content_id(msg, k)``'s suffix):
        identical messages in one source stay apart, and a re-ingest finds the same ids.
        ``stamp``: the time ``base`` hashed, when the caller knows it (memory, see
        ``convo.core.counts``)."""
        k = self._seen.next(base, stamp)
        return f"{base}-{k}" if k else base


class OwnIds:
    """The ids a source gives its messages, held to one message each: an id seen before
    on a message of other text is not used again (that message gets its content hash,
    and ``clashes`` counts it), so two different messages never share an id however a
    source repeats one (a local model server's constant response id, a damaged file).
    The same text again is the same message stored again: the same id. Memory stays
    bounded (``core.spillmap``: the id's hash -> the hash of the text; a key a few bytes
    long whatever the id's length: two ids whose 64-bit hashes meet would cost the later
    one its id, not a loss). The one home of the rule: the readers' checks, the
    pipeline's ``Finisher`` and a split file's ``pipeline.split.FileNumbers`` use it."""

    def __init__(self) -> None:
        from convo.core.spillmap import SpillMap

        self._seen: SpillMap[int, int] = SpillMap()
        self.clashes = 0

    def checked(self, own: str | None, chunks: list[str], *more: object) -> str | None:
        """``own`` when it names this message (or is new), else None. ``more``: what
        else tells two messages apart (the pipeline's check: the speaker and the time)."""
        if not own:
            return None
        # the text's hash in this process (a source is read by one process; no hashlib
        # import on the ingest path: tests/cli/test_startup.py)
        digest = hash((tuple(chunks), *more)) if more else hash(tuple(chunks))
        return own if self.claim(own, digest) else None

    def claim(self, own: str, digest: int) -> bool:
        """Whether ``own`` may name the message ``digest`` stands for: the first message
        to give it, or the same message again; else False and ``clashes`` counts it."""
        key = hash(own)
        seen = self._seen.get(key)
        if seen is None:
            self._seen.set(key, digest)
            return True
        if seen == digest:
            return True
        self.clashes += 1
        return False

    def warning(self, what: str = "message", key: str = "id") -> str:
        """The source's one warning of its clashes: ``2 messages repeat another's id:
        given their content hash`` (``what`` the source's records, ``key`` its id's name)."""
        n = self.clashes
        return (
            f"{counted(n, what)} {plural(n, 'repeats', 'repeat')} another's {key}: given "
            f"{plural(n, 'its', 'their')} content hash"
        )

    def close(self) -> None:
        self._seen.close()


def file_scope(source_name: str) -> str:
    """A source's file name without its folder or a ``.gz``/``.zst`` suffix: the scope of
    what is unique only within one file (the same file from another folder, or compressed, keeps
    its ids). A name an app gives every export (``_chat.txt``, ``meeting_saved_chat.txt``,
    ``result.json``: ``GENERIC_NAMES``) says nothing of the conversation, so there the
    folder it sits in is kept too (``WhatsApp Chat - Ann/_chat.txt``), the folder
    name as the last resort of a scope (docs/ids.md)."""
    name = strip_compressed(PurePath(source_name).name or source_name)
    if GENERIC_NAMES.match(name):
        folder = Path(source_name).absolute().parent.name
        return f"{folder}/{name}" if folder else name
    return name


# The file names apps give every export of theirs (WhatsApp iOS, Zoom's meeting chat and
# saved captions,
# ChatGPT and claude.ai, Telegram, Google Chat, Messenger and Instagram, signal-export,
# Mastodon, Stack Exchange, Thunderbird's and mutt's mailboxes, aider's chat and input
# histories in every project's root), and the names speech engines' outputs are saved under (AWS
# Transcribe's ``asrOutput.json``, a script's ``transcript.json``, an API's
# ``response.json``): the folder names the conversation (or the account, or the
# recording), not the file; so do the Zoom, Teams and Whisper subtitles users save as
# ``transcript.vtt`` (four of five real Zoom transcripts found in public repositories,
# unseen round 10) or ``transcript.srt``. LlamaIndex's ``SimpleChatStore`` persists to
# ``chat_store.json`` by default. A transcript without ``--start-date`` is timed from the epoch,
# so two recordings' "Okay." at 0:05 differ only by their scope.
GENERIC_NAMES = re.compile(
    r"(?i)^(?:_chat\.txt|meeting_saved_(?:closed_caption|chat)\.txt|closed_caption\.txt"
    r"|conversations\.json|result\.json"
    r"|messages\.json|message_\d+\.json|chat\.md|data\.json|outbox\.json"
    r"|(?:posts|comments)\.xml|inbox|mbox|\.aider\.(?:chat\.history\.md|input\.history)"
    r"|transcripts?\.(?:json|vtt|srt)|transcription\.json|asroutput\.json|response\.json"
    r"|output\.json"
    r"|chat_store\.json)$"
)


GLOBAL_ID_LENGTH = 16  # a made-up id this long (a uuid, a nanoid, msg_...) is unique anywhere


def file_local_id(prefix: str, raw: str, source_name: str) -> str:
    """An id a source made up: ``prefix:raw`` when it is long enough to be unique
    anywhere (``GLOBAL_ID_LENGTH``), else (``1``, ``m1``, ``identity_0``: unique only in
    its file) ``prefix:<file>:raw``, the file as ``file_scope`` names it."""
    return f"{prefix}:{file_local(raw, file_scope(source_name))}"


def file_local(raw: str, file: str | None) -> str:
    """A made-up id or conversation id (a data set's ``conv-1``, a session ``s1``) as is
    when it is long enough to be unique anywhere, else ``<file>:raw`` (``file`` from
    ``file_scope``; None: no file known, ``raw``): the conversation of a content-hash
    id too, so two data sets' ``conv-1`` are two conversations."""
    if not raw or len(raw) >= GLOBAL_ID_LENGTH or not file or raw.startswith(f"{file}:"):
        return raw
    return f"{file}:{raw}"


def scoped_id(prefix: str, scope: str | None, local: str) -> str:
    """``prefix:scope:local``: an id the source gives within ``scope`` (a site, an
    instance, a chat); ``prefix:local`` when no scope is known (see the module docstring)."""
    return f"{prefix}:{scope}:{local}" if scope else f"{prefix}:{local}"


_SPACE_OR_COLON = re.compile(r"[\s:]+")


def clean_scope(text: str | None) -> str | None:
    """``text`` as an id's scope: lower case (host names and folder names that differ
    only in case name one place), runs of white space and colons as one ``-`` (so the
    scope is one field of the id), ``None`` when nothing is left."""
    if not text:
        return None
    scope = _SPACE_OR_COLON.sub("-", text.strip().lower()).strip("-")
    return scope or None


def folder_scope(source: Source) -> str | None:
    """The last-resort scope of a source: the name of the folder its file sits in
    (``cooking.stackexchange.com`` for ``cooking.stackexchange.com/Posts.xml``); None for
    standard input, or a file in the root folder."""
    if source.path is None or source.is_stdin:
        return None
    return clean_scope(source.path.absolute().parent.name)


def source_scope(
    source: Source, ctx: ImportContext, found: str | None, *, what: str, example: str
) -> str | None:
    """The scope of ``source``'s ids: ``found`` (what the document names: a host, a
    board), else the folder's name (``folder_scope``); None when neither is known, with
    a warning that the ids (``example``) are the ones other ``what``s' exports use too."""
    scope = clean_scope(found) or folder_scope(source)
    if scope is None:
        ctx.warn(
            source.name,
            f"no {what} known (the data does not name it, and standard input has no "
            f"folder): ids are {example}, which other {what}s' exports share",
        )
    return scope
