"""WhatsApp chat exports: the chat .txt, and the "Export chat" .zip that holds it.

Decisions:
- The .zip (format ``whatsapp-zip``; records say ``whatsapp``, and ``--from whatsapp``
  reads either) is read in place with ``convo.importers.archives``' caps: its chat is
  ``_chat.txt`` (iOS), ``WhatsApp Chat with X.txt`` (Android in English), else the
  top-level .txt whose first line is a message header (other languages). The other
  members are the media: a message naming one (``<attached: f>``, ``f (file attached)``)
  gets ``extra.attachment`` with its size, or ``missing: true`` when the export was made
  without media; files no message names are counted in a warning.
- thread = the chat the file is named after (``WhatsApp Chat with Ann.txt``,
  ``WhatsApp Chat - Ann.zip``), else none.
- Both layouts: iOS ``[8/15/23, 9:12:33 AM] Name: text`` and Android
  ``15/08/2023, 21:12 - Name: text``, in the phone's language: the header's date, time,
  day period (``PM``, ``下午``, ``오후``, ``م``) and Arabic-Indic digits are read by
  ``convo.importers.apps.whatsapp_header``, which decides the day/month order per file
  (a warning when it is a guess). Exports in other languages: the chat file's translated
  name (``WhatsApp Chat mit Ann.txt``, ``Chat de WhatsApp con Ann.txt``) names the
  thread, and translated media markers (``<Medien ausgeschlossen>``, ``FILE (Datei
  angehängt)``, ``<Anhang: FILE>``) set ``extra.media`` when the file is WhatsApp's
  media name or a file of the zip.
- Times are naive and read in ``--tz``. The file is read twice (dates first; stdin is
  spooled to a temporary file), so memory stays flat.
- Lines without a header continue the previous message, except a line that starts
  like a header but does not parse (``1/23/23, 3:22_AM - Ann: hi``): that is its own
  message (time unknown, ``extra.damaged_header``) with a warning, never glued to the
  previous speaker's text. A header whose rest has no
  ``Name: `` (Android system lines) and the encryption notice (four languages by its
  words; in any language as an iOS export's first line, U+200E before a text longer
  than a call or a deleted message) are kept with speaker null and the tag ``system``; so are iOS's group events (``[..] Tea Party: \u200eAnn
  added Ben``), written under the chat's name, which is known as the one the encryption
  notice is written under whose every other line starts with U+200E and is no media.
- ``<Media omitted>``, ``image omitted``, ``<attached: f>`` (``< attached: f >``, after a
  document's name and pages: ``report.pdf • 3 pages <attached: f>``; after a caption, on
  its last line), ``f <attached>`` (older iOS) set ``extra.media``. iOS writes U+200E
  before the header of every attachment (``\u200e[1/6/22, 12:12:19] Ann: \u200eaudio
  omitido``), so such a message in any language is media: its kind from the phrase's
  noun (``Bild weggelassen``, ``imagen omitida``, ``afbeelding weggelaten``; else
  ``media``), its file from ``<Anhang: f>`` at the end or the document's name before
  the phrase (``notes.pdf • 5 pages \u200edocument omitted``).
- iOS writes a group event under the member it is about (``[..] Ali: \u200eLeon added
  Ali``, ``[..] Leon: \u200eLeon left``, the security-code notice): a text that starts
  with U+200E, is no media and names the header's member is such an event, speaker
  null and tagged ``system``, as Android writes the same event without a name. The note an edited message ends with (``<This message
  was edited>``) is taken off the text: ``extra.edited``.
- A member not in the exporter's contacts is ``~\u202fName`` in iOS headers and
  ``@~Name`` in mentions: the speaker is ``~Name``, apart from a contact ``Name``.
- Two speakers in the file: each is the other's listener; else ``@Name`` mentions of known
  speakers are the listeners. No ids in the source (content hash).

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the chat the file or zip is named after; ``_chat.txt`` (iOS) is a name every export has,
so its folder is hashed with it.
"""

from __future__ import annotations

import contextlib
import re
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from convo.core.encoding import LineDecoder
from convo.core.errors import InputError
from convo.core.io import Source, decode_text, strip_bom
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.importers.apps.common import SYSTEM_TAG, mentioned_or_other, numbered_lines
from convo.importers.apps.whatsapp_header import MARKS, DateOrder, damaged, header, rest, when
from convo.importers.apps.whatsapp_media import (
    Media,
    attachment_of,
    ios_attachment,
    media_of,
)
from convo.importers.archives import ZIP_MAGIC, open_zip, safe_members, spool_member
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.registry import Format, head_lines

_MARKS = MARKS
_STRIP_MARKS = {ord(c): None for c in _MARKS}
_ZIP_CHAT_NAME = re.compile(rb"(?:^|[\x00-\x1f/])(?:_chat|WhatsApp Chat with [^\x00/]{1,200})\.txt")
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError)
# The chat's export file name in the app's languages (as chat-analytics lists them), with
# spaces or underscores: "WhatsApp Chat with Ann.txt", "WhatsApp-Chat mit Ann.txt",
# "Chat de WhatsApp con Ann.txt", "Conversa do WhatsApp com Ann.zip"...
_CHAT_FILE = re.compile(
    r"^(?:WhatsApp[ _-]Chat(?:[ _](?:with|mit)|[ _]-)|Chat[ _]de[ _]WhatsApp[ _]con"
    r"|Chat[ _]WhatsApp[ _]con|Conversa[ _]d[oa][ _]WhatsApp[ _]com|Conversa[ _]no[ _]WhatsApp"
    r"[ _]com|Discussion[ _]WhatsApp[ _]avec|Чат[ _]WhatsApp[ _]с)[ _]*(.*?)\.(?:txt|zip)$",
    re.I,
)
# Since 2023 an edited message ends with this note (iOS and Android, in the app's language).
_EDITED = re.compile(
    r"\s*<(?:This message was edited|Diese Nachricht wurde bearbeitet\.?|Se editó este mensaje\.?"
    r"|Mensagem editada|Dit bericht is bewerkt)>$"
)
# The encryption notice, in English and as German, Spanish and Portuguese exports write it
# (iOS's in any language: ``_notice``).
_SYSTEM_TEXT = (
    "Messages and calls are end-to-end encrypted",
    "Messages to this chat and calls are",
    "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt",
    "Los mensajes y las llamadas están cifrados de extremo a extremo",
    "As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta",
)


def sniff_whatsapp(source: Source) -> int:
    lines = head_lines(source, 8)
    if not lines or not header(lines[0]):
        return 0
    hits = sum(1 for x in lines if header(x))
    return 85 if hits >= 2 or len(lines) == 1 else 70


# A member who is not in the exporter's contacts: iOS writes ``~`` and a narrow no-break
# space before the name they chose (``[..] ~\u202fAnn: hi``) and mentions them as
# ``@~Ann``: the speaker is ``~Ann``, as mentioned, and stays apart from a contact
# ``Ann`` (another person: a real class chat had both).
_NOT_A_CONTACT = re.compile(r"^~[\u202f\u00a0 ]+(?=\S)")


def _split(rest: str) -> tuple[str | None, str]:
    name, sep, text = rest.partition(": ")
    if not sep or len(name) > 100 or '"' in name or "\u201c" in name:
        return None, rest  # a system line ('X changed the subject to "a: b"')
    return _NOT_A_CONTACT.sub("~", name.strip(_MARKS + " "), count=1), text


def _scan(source: Source, decode: LineDecoder) -> tuple[str, bool, list[str], set[str]]:
    """One pass: the date order ('DM', 'MD' or 'YMD'), whether it is a guess, the
    speakers, and the chat's name when iOS writes group events under it."""
    order = DateOrder()
    speakers: list[str] = []  # in order of first line, events about them too
    talks: set[str] = set()  # who writes a line that is no event about them
    notice: set[str] = set()  # who the encryption notice is written under
    plain: set[str] = set()  # who writes a line no group event could be
    first = True
    for _, line in numbered_lines(source, decode):
        m = header(line)
        if not m:
            continue
        order.see(m)
        name, text = _split(rest(m, line))
        was_first, first = first, False
        if not name:
            continue
        if text.strip(_MARKS).startswith(_SYSTEM_TEXT) or (was_first and _notice(line, text)):
            notice.add(name)
            continue
        if name not in speakers:
            speakers.append(name)
        if _member_event(line, name, text):
            continue  # no speaker (``_wa_message``)
        talks.add(name)
        if name not in plain and (not text.startswith("\u200e") or media_of(text.strip(_MARKS))[0]):
            plain.add(name)
    chat = notice - plain
    return *order.verdict(), [s for s in speakers if s in talks and s not in chat], chat


_NOTICE_LENGTH = 60  # the shortest notice (Dutch) has 117 characters


def _notice(line: str, text: str) -> bool:
    """An iOS export's first line, U+200E before its text and none before the header:
    the encryption notice, in whatever language (``[..] Familiedag: \u200eBerichten en
    oproepen worden end-to-end versleuteld. Alleen mensen in deze chat...``); its two
    sentences are longer than a call or a deleted message an export cut short may
    begin with (``\u200eVoice call, \u200eNo answer``)."""
    if not text.startswith("\u200e") or line.startswith("\u200e"):
        return False
    clean = text.translate(_STRIP_MARKS).strip()
    return len(clean) >= _NOTICE_LENGTH and media_of(clean)[0] is None


def read_whatsapp(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """A chat .txt, or (``--from whatsapp`` on one) an "Export chat" .zip."""
    if source.head.startswith(ZIP_MAGIC):
        yield from read_zip(source, ctx)
        return
    yield from read_chat(source, ctx, _chat_name(source.match_name))


def _chat_name(name: str) -> str | None:
    """The chat a file is named after (``WhatsApp Chat with Ann.txt``, ``WhatsApp Chat -
    Ann.zip``), else None."""
    m = _CHAT_FILE.match(PurePosixPath(name).name)
    return m[1].replace("_", " ").strip() or None if m else None


def read_chat(
    source: Source,
    ctx: ImportContext,
    thread: str | None = None,
    media: Media | None = None,
) -> Iterator[ConversationMessage]:
    """The messages of a chat .txt; ``media`` lists the files the export holds beside it
    (the .zip's), so each attachment says whether it is there."""
    decode = ctx.text_decoder(source)  # one for both passes: a guessed encoding is told once
    order, guessed, speakers, chat = _scan(source, decode)
    if guessed:
        ctx.warn(
            source.name,
            f"day/month order is ambiguous; read as {'D/M' if order == 'DM' else 'M/D'}",
        )
    zone = ctx.options.tz
    cur: dict[str, Any] | None = None
    seen = False  # a message header yet
    for n, line in numbered_lines(source, decode):
        m = header(line)
        broken = None if m else damaged(line)
        if not m and broken is None:
            if cur is not None:
                cur["text"].append(line)
            elif line.strip():
                ctx.reject(ctx.loc(n), "text before the first WhatsApp message header", line)
            continue
        if cur is not None:
            yield _wa_message(cur, speakers, ctx, thread, media)
        if broken is not None:  # never glued to the previous speaker's text
            ctx.warn(ctx.loc(n), "damaged message header; read as its own message, time unknown")
            name, text = _split(broken)
            cur = {"line": n, "name": name, "text": [text], "ts": None, "damaged": True}
            continue
        assert m is not None
        cur = _started(n, line, m, when(m, order, zone), chat, first=not seen)
        seen = True
    if cur is not None:
        yield _wa_message(cur, speakers, ctx, thread, media)


def _started(
    n: int, line: str, m: re.Match[str], ts: str | None, chat: set[str], first: bool
) -> dict[str, Any]:
    """The message a header line starts: a group event when written under the chat's
    name, or when it is the first line and the encryption notice in any language; an
    attachment when iOS writes U+200E before the header."""
    name, text = _split(rest(m, line))
    event = name in chat or bool(first and name and _notice(line, text))
    cur = {"line": n, "name": name, "text": [text], "ts": ts, "event": event}
    if line.startswith("\u200e"):
        cur["attachment"] = True
    return cur


def _names_member(name: str, text: str) -> bool:
    """Whether an iOS event's text names the member it is written under."""
    if not any(c.isalnum() for c in name):
        return False
    bare = name.removeprefix("~")  # the text writes a non-contact ``~\u202fAnn``
    return re.search(rf"(?<!\w){re.escape(bare)}(?!\w)", text) is not None


def _member_event(line: str, name: str, text: str) -> bool:
    """An iOS group event written under the member it is about (a one-line look, for
    ``_scan``): U+200E before the text, not before the header, no media, the name in it."""
    if not text.startswith("\u200e") or line.startswith("\u200e"):
        return False
    clean = text.translate(_STRIP_MARKS).strip()
    return media_of(clean)[0] is None and _names_member(name, clean)


def _is_system(cur: dict[str, Any], text: str) -> bool:
    """A line with no ``Name: ``, a group event, or the encryption notice."""
    return cur["name"] is None or bool(cur.get("event")) or text.startswith(_SYSTEM_TEXT)


def _kind(
    cur: dict[str, Any], text: str, clean: str, system: bool, media: Media | None
) -> tuple[str | None, str | None]:
    """The media kind and file of a message: its placeholder, else, when iOS marks it
    as an attachment, the attachment in whatever language."""
    kind, file = media_of(clean, media)
    if kind is None and cur.get("attachment") and not system:
        return ios_attachment(text, media)
    return kind, file


def _about_member(cur: dict[str, Any], clean: str) -> bool:
    """An iOS group event written under the member it is about: no attachment, U+200E
    before the text, the header's name in it."""
    name = cur["name"]
    return (
        not cur.get("attachment")
        and name is not None
        and cur["text"][0].startswith("\u200e")
        and _names_member(name, clean)
    )


def _wa_message(
    cur: dict[str, Any],
    speakers: list[str],
    ctx: ImportContext,
    thread: str | None,
    media: Media | None,
) -> ConversationMessage:
    loc = ctx.loc(cur["line"])
    text = "\n".join(cur["text"]).strip(_MARKS + " \n")
    name = cur["name"]
    system = _is_system(cur, text)
    clean = text.translate(_STRIP_MARKS) if not text.isascii() else text
    edited = _EDITED.search(clean) if clean.endswith(">") else None
    if edited:
        clean = clean[: edited.start()]
    kind, file = _kind(cur, text, clean, system, media)
    member_event = kind is None and not system and _about_member(cur, clean)
    if member_event:  # an iOS group event written under the member it is about
        system = True
    if cur["ts"] is None and not cur.get("damaged"):
        ctx.warn(loc, "impossible date; time left unknown")
    speaker, tags = (None, [SYSTEM_TAG]) if system else (name, [])
    return message(
        clean or text,
        speaker=speaker,
        listeners=mentioned_or_other(speakers, speaker, clean) if speaker else [],
        timestamp=cur["ts"],
        source_id=loc,
        format="whatsapp",
        thread=thread,
        tags=tags,
        extra={
            "media": kind,
            "file": file,
            "attachment": attachment_of(file, media),
            "chat_name": name if system and not member_event else None,
            "damaged_header": cur.get("damaged"),
            "edited": True if edited else None,
        },
    )


def _chat_member(zf: zipfile.ZipFile, names: list[str]) -> str | None:
    """The chat .txt of an export: ``_chat.txt`` (iOS), a ``WhatsApp Chat ....txt``
    (Android, in English), else a top-level .txt whose first line is a message header
    (Android in other languages: ``WhatsApp-Chat mit ...``, ``Chat de WhatsApp con ...``)."""
    top = [n for n in names if "/" not in n.strip("/") and n.lower().endswith(".txt")]
    for n in top:
        if n == "_chat.txt" or _CHAT_FILE.match(n):
            return n
    for n in top[:20]:
        with contextlib.suppress(*_ZIP_ERRORS), zf.open(n) as f:
            head = decode_text(strip_bom(f.read(4096)), "replace")
            first = next((x for x in head.splitlines() if x.strip()), "")
            if header(first):
                return n
    return None


def sniff_zip(source: Source) -> int:
    """A zip whose chat .txt is named in the head (its first local header), or, for a
    zip on disk, found among its members."""
    head = source.head
    if not head.startswith(ZIP_MAGIC):
        return 0
    if _ZIP_CHAT_NAME.search(head):
        return 85
    if source.path is None or source.is_stdin or source.gzipped:
        return 0
    try:
        with zipfile.ZipFile(source.path) as zf:
            return 80 if _chat_member(zf, zf.namelist()) else 0
    except _ZIP_ERRORS:
        return 0


def read_zip(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """The chat .txt of an "Export chat" .zip, read in place (``convo.importers.archives``);
    the other members are its media."""
    with contextlib.closing(open_zip(source.real_path(), source.name)) as zf:
        members = safe_members(zf, source.name, ctx, "the archive is not a WhatsApp export")
        chat = _chat_member(zf, sorted(members))
        if chat is None:
            refused = _chat_member(zf, sorted(set(zf.namelist()) - set(members)))
            raise InputError(
                f"its chat {refused} was not read (see the rejection above)"
                if refused
                else "no WhatsApp chat .txt in this zip",
                where=source.name,
                hint="export the chat again (Export chat), or ingest its .txt",
            )
        where = f"{source.name}#{chat}"
        media = Media({PurePosixPath(n).name: i.file_size for n, i in members.items() if n != chat})
        tmp = spool_member(zf, members[chat], where, ".txt")
    inner = Source(tmp, name=where)
    outer, ctx.source = ctx.source, inner  # lines are located inside the zip
    try:
        thread = _chat_name(chat) or _chat_name(source.match_name)
        yield from read_chat(inner, ctx, thread, media)
    finally:
        ctx.source = outer
        inner.close()
        tmp.unlink(missing_ok=True)
    unused = len(media.sizes) - len(media.used)
    if unused:
        ctx.warn(
            source.name,
            f"{counted(unused, 'file')} in the zip {plural(unused, 'is', 'are')} not named by any message",
        )


TXT_DESCRIPTION = "WhatsApp chat .txt export (iOS [date, time] or Android date, time - )"
TXT_EXAMPLE = "[8/15/23, 9:12:33 AM] Alice: Hello"
ZIP_DESCRIPTION = (
    'WhatsApp "Export chat" .zip (_chat.txt or WhatsApp Chat with X.txt, and its media)'
)
ZIP_EXAMPLE = "WhatsApp Chat - Ann.zip: _chat.txt, 00000012-PHOTO-2023-08-15-09-12-33.jpg"
TXT_FIELDS = Fields(
    speaker="the name in the message header (system lines: none)",
    listeners="the `@Name` mentions of known speakers, else the other one of two speakers",
    time="the header's date and time (day/month order decided per file)",
    zone=NAIVE_IN_TZ,
    thread="the chat the file is named after (`WhatsApp Chat with Ann.txt`), else none",
    id="no message ids: " + CONTENT_HASH,
    scope="the chat the file is named after; `_chat.txt`: its folder too",
    tags="`system` on lines without a `Name: `, iOS group events and the encryption notice",
    extra="`media` (omitted or attached media), `file`, `chat_name` (a system line "
    "naming the chat), `damaged_header`, `edited`",
)
ZIP_FIELDS = replace(
    TXT_FIELDS,
    thread="the chat the zip is named after (`WhatsApp Chat - Ann.zip`)",
    scope="the chat the zip is named after",
    extra=TXT_FIELDS.extra + ", `attachment` (each attached file's size, or `missing`)",
)

FORMATS = (
    Format(
        "whatsapp",
        "chat",
        TXT_DESCRIPTION,
        ("*.txt",),
        sniff_whatsapp,
        read_whatsapp,
        TXT_EXAMPLE,
        fields=TXT_FIELDS,
    ),
    Format(
        "whatsapp-zip",
        "chat",
        ZIP_DESCRIPTION,
        ("*.zip",),
        sniff_zip,
        read_zip,
        ZIP_EXAMPLE,
        fields=ZIP_FIELDS,
    ),
)
