"""What a WhatsApp message's text says about media: the placeholders both apps write
for an omitted or attached file, in the app's language, and the files an export's zip
holds beside its chat (``convo.importers.apps.whatsapp`` reads the messages).

- ``<Media omitted>``, ``image omitted``, ``<attached: f>`` (``< attached: f >``, after
  a document's name and pages: ``report.pdf • 3 pages <attached: f>``; after a caption,
  on its last line), ``f <attached>`` (older iOS), and Android's translated markers
  (``<Medien ausgeschlossen>``, ``FILE (Datei angehängt)``) set the kind and file.
- iOS writes U+200E before the header of every attachment, so such a message is media
  in any language (``ios_attachment``): its kind from the noun of the "KIND omitted"
  phrase (``Bild weggelassen``, ``imagen omitida``, ``afbeelding weggelaten``; else
  ``media``), its file from ``<Anhang: f>`` at the end, or the document's name before
  the phrase (``notes.pdf • \u200e5 pages \u200edocument omitted``); a caption before
  the phrase stays text and is no file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from convo.importers.apps.whatsapp_header import MARKS

_STRIP_MARKS = {ord(c): None for c in MARKS}

_MEDIA = re.compile(
    r"^(?:<Media omitted>|(image|video|audio|sticker|GIF|document|Contact card) omitted|"
    r"(?:[^<>]*\s)?<\s?attached:\s?(.+?)\s?>|(.+) (?:\(file attached\)|<attached>))$",
    re.I,
)
# Exports in other languages write their markers translated: Android's "<Media
# omitted>" (the strings WhatsApp writes, as chat-analytics' WhatsApp parser lists them)
# and "FILE (file attached)" (``(Datei angehängt)``, ``(archivo adjunto)``...), iOS's
# "<attached: FILE>" (``<Anhang: FILE>``, ``<adjunto: FILE>``...). A translated
# attachment is known by its file: WhatsApp's own media names (``IMG-20230815-WA0001.jpg``,
# ``00000003-PHOTO-2023-08-15-09-12-40.jpg``, older iOS's ``2015-08-04-PHOTO-00004762.jpg``,
# a forwarded file's hash name ``4f2680f1db95a8454775cc2eefc95bfc.jpg``), or a file of
# the export's zip.
_OMITTED = frozenset(
    s.casefold()
    for s in (
        "<Medien ausgeschlossen>", "<Medien weggelassen>", "<Multimedia omitido>",
        "<Archivo omitido>", "<Médias omis>", "<Fichier omis>", "<Media omessi>",
        "<Media omesso>", "<Mídia oculta>", "<Mídia omitida>", "<ficheiro não revelado>",
        "<Media weggelaten>", "<без медиафайлов>", "<Файл пропущен>", "<medya dahil edilmedi>",
        "<Medya atlanmış>", "<pominięto multimedia>", "<pliki pominięto>",
        "<media tidak disertakan>", "<Media disingkirkan>", "<media utelämnat>",
        "<Media har utelämnats>", "<medier udeladt>", "<media utelatt>", "<Uten vedlegg>",
        "<média vynechány>", "<медіа пропущено>", "<メディアなし>", "<미디어 파일 제외됨>",
        "<省略多媒体文件>", "<忽略多媒體檔>", "<تم استبعاد الوسائط>", "<मीडिया के बिना>",
        "<رسانه حذف شد>",
    )
)  # fmt: skip
_TRANSLATED_ANDROID = re.compile(r"^(\S(?:.*\S)?) \([^()<>]{2,40}\)$")
_TRANSLATED_IOS = re.compile(r"^<[^<>:]{2,30}:\s?(.+)>$")
_WA_FILE = re.compile(
    r"^(?:(?:IMG|VID|AUD|PTT|STK|DOC)-\d{8}-WA\d{4,}\.\w{2,5}"
    r"|\d{8}-[A-Z]+-\d{4}(?:-\d\d){5}\.\w{2,5}"
    r"|\d{4}-\d\d-\d\d-[A-Z]+-\d{8}\.\w{2,5}"  # older iOS: 2015-08-04-PHOTO-00004762.jpg
    r"|[0-9a-f]{16,64}\.(?i:jpe?g|png|gif|webp|heic|mp4|mov|3gp|opus|ogg|m4a|mp3|aac))$"
)
# iOS's attachment tag at the end of a message, after a caption (``This is Mila
# \u200e<attached: 00000034-PHOTO-2026-02-16-12-33-47.jpg>``), in the app's language.
_TAG_END = re.compile(r"(?:^|\s)<\s?([^\W\d_][^<>:\n]{1,29}):\s?([^<>\n]+?)\s?>$")
# The noun of iOS's "KIND omitted" phrase (``Bild weggelassen``, ``imagen omitida``,
# ``afbeelding weggelaten``, ``imagem ocultada``), as the phrases chat-analytics and
# whatsapp parsers list them; any other phrase of an attachment is kind ``media``.
_IOS_KINDS = {
    **dict.fromkeys(("image", "bild", "imagen", "imagem", "afbeelding", "immagine",
                     "foto", "photo", "obrázek", "obraz", "görüntü", "изображение",
                     "зображення", "billede", "bilde"), "image"),
    **dict.fromkeys(("video", "vídeo", "vidéo", "videonotiz", "видео", "відео"), "video"),
    **dict.fromkeys(("audio", "áudio", "аудио", "аудіо"), "audio"),
    **dict.fromkeys(("sticker", "figurinha", "autocollant", "стикер", "naklejka"), "sticker"),
    "gif": "gif",
    **dict.fromkeys(("document", "dokument", "documento", "документ", "dokumentti"),
                    "document"),
    **dict.fromkeys(("contact", "kontaktkarte", "tarjeta", "cartão", "contactkaart",
                     "scheda", "carte"), "contact card"),
}  # fmt: skip
_PAGES = re.compile(r"\s*•[^•]*$")
_FILE_NAME = re.compile(r"\S\.[A-Za-z0-9]{1,5}$")


@dataclass
class Media:
    """The files an export holds beside its chat .txt (name -> size), and those named."""

    sizes: dict[str, int]
    used: set[str] = field(default_factory=set)


def attachment_of(file: str | None, media: Media | None) -> dict[str, Any] | None:
    """The exported file a message attaches: its size, or ``missing`` when the export
    does not hold it (exported "without media"); None outside a .zip."""
    if not file or media is None:
        return None
    if file in media.sizes:
        media.used.add(file)
        return {"name": file, "size": media.sizes[file]}
    return {"name": file, "missing": True}


def media_of(clean: str, files: Media | None = None) -> tuple[str | None, str | None]:
    """The media kind and file name a media placeholder names (else None, None); a
    translated one (``_OMITTED``, ``_TRANSLATED_*``) too, when its file is WhatsApp's
    media name or one of the export's ``files``."""
    first = clean.strip().split("\n", 1)[0]  # a caption may follow
    media = _MEDIA.match(first)
    if media:
        kind = (media[1] or ("file" if (media[2] or media[3]) else "media")).lower()
        return kind, media[2] or media[3]
    if first.casefold() in _OMITTED:
        return "media", None
    named = _TRANSLATED_ANDROID.match(first) or _TRANSLATED_IOS.match(first)
    if named and (_WA_FILE.match(named[1]) or (files is not None and named[1] in files.sizes)):
        return "file", named[1]
    return _tag_at_end(clean, files)


def _tag_at_end(clean: str, files: Media | None) -> tuple[str | None, str | None]:
    """``<attached: f>`` after a caption (its last line), or a translated tag whose file
    is WhatsApp's media name or one of the export's."""
    tag = _TAG_END.search(clean.rstrip())
    if tag and (
        tag[1].casefold() == "attached"
        or _WA_FILE.match(tag[2])
        or (files is not None and tag[2] in files.sizes)
    ):
        return "file", tag[2]
    return None, None


def ios_attachment(text: str, files: Media | None) -> tuple[str, str | None]:
    """The kind and file of a message iOS marks as an attachment (U+200E before its
    header) whose text ``media_of`` does not know: ``<Anhang: f>`` at its end, else the
    "KIND omitted" phrase in the app's language, after a document's name and pages
    (``notes.pdf • \u200e5 pages \u200edocument omitted``)."""
    clean = text.translate(_STRIP_MARKS)
    tag = _TAG_END.search(clean.rstrip())
    if tag:
        return "file", tag[2]
    last = text.rsplit("\n", 1)[-1]  # a caption comes first
    before, _, phrase = last.rpartition("\u200e")
    phrase = phrase.translate(_STRIP_MARKS).strip()
    words = phrase.split()
    if not words or len(words) > 5 or "<" in phrase or "://" in phrase:
        return "media", None
    kind = _IOS_KINDS.get(words[0].casefold(), "media")
    before = before.translate(_STRIP_MARKS).strip()
    doc = _PAGES.sub("", before).strip()
    named = kind == "document" or (kind == "media" and (doc != before or _FILE_NAME.search(doc)))
    if not named:
        doc = ""  # a caption, not the document's name
    return kind, doc or None
