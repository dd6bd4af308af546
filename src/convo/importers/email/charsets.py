"""Mail text to ``str``: MIME charsets, RFC 2047 encoded words, raw 8-bit header bytes."""

from __future__ import annotations

import codecs
import functools
import re
from email.header import decode_header

from convo.core.encoding import Guess, guess_encoding

FOLD = re.compile(r"\r?\n[ \t]*")
# Charsets that mail programs mislabel: read them as their common supersets.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "us-ascii": "cp1252",
    "ascii": "cp1252", "iso-8859-9": "cp1254", "gb2312": "gb18030", "gbk": "gb18030",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "ks_c_5601": "cp949", "x-sjis": "shift_jis",
    "shift-jis": "shift_jis", "windows-874": "cp874", "iso-8859-11": "cp874",
    "x-mac-roman": "mac_roman", "unicode-1-1-utf-7": "utf-7", "utf8": "utf-8",
}  # fmt: skip
_WIDE = ("utf-16", "utf_16", "utf-32", "utf_32", "utf16", "utf32")

_SEVEN_BIT = ("utf-7", "iso2022_jp", "iso2022_jp_2", "iso2022_kr", "hz")
# One well-formed multi-byte UTF-8 sequence: text labelled UTF-8 that holds one is UTF-8
# with a damaged byte or two, not text in another charset.
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)


@functools.lru_cache(maxsize=256)
def _codec(charset: str | None) -> str | None:
    """A Python codec name for a MIME charset, or None when unknown."""
    if not charset:
        return None
    cs = charset.strip().strip("\"'").lower()
    cs = _CHARSET_ALIASES.get(cs, cs)
    try:
        return codecs.lookup(cs).name
    except (LookupError, ValueError):
        return None


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset to text; never raises.

    Valid UTF-8 with non-ASCII bytes wins over a declared legacy charset (mail programs
    often label UTF-8 as iso-8859-1 or gb2312, and non-UTF-8 text is almost never valid
    UTF-8); the other way round, bytes labelled UTF-8 that hold not one UTF-8 sequence
    are cp1252 (pipermail's ``=?UTF-8?Q?Luc=eda?=``, a Latin-1 body sent as UTF-8);
    unknown charsets fall back to UTF-8, then cp1252; bad bytes are replaced.
    """
    name = _codec(charset)
    ascii_data = data.isascii()
    if ascii_data and name not in _SEVEN_BIT and not (name or "").startswith(_WIDE):
        return data.decode("ascii")
    if name and name != "utf-8" and not ascii_data and not name.startswith(_WIDE):
        try:
            return data.decode("utf-8")  # mislabelled UTF-8
        except UnicodeDecodeError:
            pass
    if name:
        text = _decode_declared(data, name)
        if text is not None:
            return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _decode_declared(data: bytes, name: str) -> str | None:
    """``data`` in its declared codec, bad bytes replaced; None when the codec breaks."""
    try:
        return data.decode(name)
    except UnicodeDecodeError:
        if name == "utf-8" and not _UTF8_SEQUENCE.search(data):
            return data.decode("cp1252", "replace")  # Latin-1 text labelled UTF-8
        return data.decode(name, "replace")
    except Exception:  # broken codec state (e.g. utf-7 on junk): fall through
        return None


def raw_header_text(value: str, charset: str | None = None) -> str:
    """A compat32 header value whose 8-bit bytes arrive as surrogates.

    UTF-8 (RFC 6532) first; else ``charset`` (what the message declares elsewhere, or the
    guess ``header_charset`` made for the message); else a guess for this value alone
    (``convo.core.encoding``: Big5, KOI8-R, Shift_JIS in a raw ``From:``).
    """
    try:
        raw = value.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        return value  # already real text
    if charset:
        return decode_bytes(raw, charset)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return decode_bytes(raw, guess_encoding(raw).encoding)


_UNDECLARED = ("", "us-ascii", "ascii")  # a part's charset that says nothing of 8-bit bytes
# An HTML part's own declaration (``<meta charset="windows-1250">``, or http-equiv's
# ``content="text/html; charset=..."``), for a part whose Content-Type names none
# (enmime's non-mime-missing-charset.raw: a cp1250 euro sign read as U+0080).
_META_CHARSET = re.compile(
    rb"""(?i)<meta\b[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})"""
)


def decode_part(
    data: bytes, charset: str | None, override: str | None, html: bool = False
) -> tuple[str, Guess | None]:
    """A text part's bytes: in its declared charset (``decode_bytes``); a part that declares
    none (or US-ASCII, which 8-bit bytes contradict) is UTF-8 when it is, else (``html``)
    in the charset its ``<meta charset>`` names, else read in ``override``
    (``--encoding``), else in a guessed encoding, returned to be told."""
    if (charset or "").strip("\"' ").lower() not in _UNDECLARED or data.isascii():
        return decode_bytes(data, charset), None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    meta = _META_CHARSET.search(data, 0, 4096) if html else None
    if meta and _codec(meta[1].decode("ascii")):
        return decode_bytes(data, meta[1].decode("ascii")), None
    if override:
        return data.decode(override, "replace"), None
    guess = guess_encoding(data)
    return data.decode(guess.encoding, "replace"), guess


_ENCODED_WORD = re.compile(r"=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=")


_RAW_BYTE = re.compile("[\udc80-\udcff]")


def _quoted_raw(word: str) -> str:
    """An encoded word with raw 8-bit bytes in its Q text (Netscape 4.7 wrote
    ``=?iso-8859-1?Q?Die_Fr\xf6sche?=``, the byte left unquoted): the bytes quoted, so
    they read in the word's charset as its quoted bytes do (the standard library
    handed them back as ``\udcf6``, a lone surrogate in the subject)."""
    if word.isascii() or word[word.index("?", 2) + 1] not in "qQ":
        return word
    return _RAW_BYTE.sub(lambda c: f"={ord(c.group()) - 0xDC00:02X}", word)


def _mixed_words(value: str, raw_charset: str | None) -> str:
    """Encoded words beside raw 8-bit bytes (``Mar\\xeda =?utf-8?q?Garc=C3=ADa?=``): each
    encoded word by ``decode_header``, the text between by ``raw_header_text`` (the
    standard library would hand the bytes back as ``\\udced`` escapes), the space
    between two encoded words dropped as RFC 2047 says."""
    out: list[str] = []
    pos = 0
    for m in _ENCODED_WORD.finditer(value):
        between = value[pos : m.start()]
        if not (pos and not between.strip()):
            out.append(raw_header_text(between, raw_charset))
        try:
            (data, charset), *_ = decode_header(_quoted_raw(m.group()))
        except Exception:  # bad base64: the word as written
            out.append(m.group())
        else:
            out.append(data if isinstance(data, str) else decode_bytes(data, charset or "utf-8"))
        pos = m.end()
    out.append(raw_header_text(value[pos:], raw_charset))
    return "".join(out).strip()


_CHARSET = re.compile(r"""charset\s*=\s*["']?([^"';\s]+)""", re.I)
_WORD_CHARSET = re.compile(r"=\?([^?*]+)(?:\*[^?]*)?\?[bBqQ]\?")


def _declared(h: dict[str, list[str]]) -> list[str | None]:
    """The charsets the message declares in its headers: its Content-Type's, then those
    of its encoded words (a raw Subject beside an encoded From is in the From's charset)."""
    m = _CHARSET.search((h.get("content-type") or [""])[0])
    out: list[str | None] = [m.group(1)] if m else []
    for key in ("from", "subject", "to", "cc"):
        for value in h.get(key, ()):
            if "=?" in value:
                out.extend(_WORD_CHARSET.findall(value))
    return out


_HEADERS_WITH_TEXT = ("from", "subject", "to", "cc", "sender", "reply-to")
_SAYS_NOTHING = ("", "us-ascii", "ascii", "utf-8", "utf8")


def header_charset(
    h: dict[str, list[str]], part_charsets: list[str | None], override: str | None = None
) -> tuple[str | None, Guess | None]:
    """The charset for a message's undeclared 8-bit header bytes, None when they are UTF-8
    (or absent): the first legacy charset the message declares (its headers, then
    ``part_charsets``, those of its text parts), else ``override`` (``--encoding``), else a
    guess, returned beside it to be told."""
    raw = b"\n".join(
        v.encode("ascii", "surrogateescape")
        for key in _HEADERS_WITH_TEXT
        for v in h.get(key, ())
        if not v.isascii()
    )
    if not raw:
        return None, None
    try:
        raw.decode("utf-8")
        return None, None
    except (UnicodeDecodeError, UnicodeEncodeError):
        pass
    for cs in [*_declared(h), *part_charsets]:
        if cs and cs.strip("\"' ").lower() not in _SAYS_NOTHING and _codec(cs):
            return cs, None
    if override:
        return override, None
    guess = guess_encoding(raw)
    return guess.encoding, guess


@functools.lru_cache(maxsize=8192)
def decode_words(value: str | None, raw_charset: str | None = None) -> str:
    """RFC 2047 encoded words to text (unknown charsets and bad base64 included); unfolded.

    ``raw_charset`` reads undeclared 8-bit bytes (see ``raw_header_text``)."""
    if not value:
        return ""
    if not isinstance(value, str):
        value = str(value)
    if "\n" in value:
        value = FOLD.sub(" ", value)
    if "=?" not in value:
        return value if value.isascii() else raw_header_text(value, raw_charset)
    if not value.isascii():
        return _mixed_words(value, raw_charset)
    try:
        parts = decode_header(value)
    except Exception:  # bad base64 in an encoded word: keep the raw text
        return raw_header_text(value, raw_charset)
    out = []
    for text, charset in parts:
        if isinstance(text, str):
            out.append(raw_header_text(text, raw_charset))
        else:
            if charset is None:
                out.append(decode_bytes(text, "utf-8"))
            else:
                out.append(decode_bytes(text, charset))
    return "".join(out).strip()
