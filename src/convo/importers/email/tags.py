"""Message ids and tags: ``<id>`` tokens, Gmail labels, Keywords, Thunderbird's tags
(``X-Mozilla-Keys``) and #hashtags."""

from __future__ import annotations

import re

from convo.importers.email.charsets import decode_words

_MSGID = re.compile(r"<([^<>]+)>")
_HASHTAG = re.compile(r"(?<![\w&/#])#([A-Za-z][\w-]{1,48}[\w])")
_NOT_HASHTAGS = {
    "include", "define", "ifdef", "ifndef", "endif", "else", "elif", "pragma", "undef",
    "import", "error", "warning", "line", "if",
}  # fmt: skip
_HEXCOLOUR = re.compile(r"[0-9a-fA-F]{3}|[0-9a-fA-F]{6}")


def message_ids(value: str | None) -> list[str]:
    """The ``<id>`` tokens of a Message-ID / In-Reply-To / References value (folding removed)."""
    if not value:
        return []
    return ["<" + "".join(m.split()) + ">" for m in _MSGID.findall(str(value)) if m.strip()]


def _split_labels(value: str, sep: str = ",") -> list[str]:
    """Split a label list on ``sep`` outside double quotes."""
    out: list[str] = []
    buf: list[str] = []
    quoted = False
    for ch in value:
        if ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    out.append("".join(buf))
    return [x.strip() for x in out if x.strip()]


def hashtags(text: str) -> list[str]:
    if "#" not in text:
        return []
    return [
        t
        for t in _HASHTAG.findall(text)
        if t.lower() not in _NOT_HASHTAGS and not _HEXCOLOUR.fullmatch(t)
    ]


# Thunderbird's tags (``X-Mozilla-Keys``, space-separated keywords): its five built-in
# ones by the names it shows; the IMAP/junk flags it may keep there are not tags.
_MOZILLA_LABELS = {"$label1": "Important", "$label2": "Work", "$label3": "Personal",
                   "$label4": "To Do", "$label5": "Later"}  # fmt: skip
_MOZILLA_FLAGS = {"$forwarded", "$mdnsent", "$replied", "junk", "nonjunk", "$junk", "$notjunk"}


def _mozilla_tags(value: str) -> list[str]:
    words = decode_words(value).split()
    return [_MOZILLA_LABELS.get(w.lower(), w) for w in words if w.lower() not in _MOZILLA_FLAGS]


_EXPUNGED = 0x0008  # nsMsgMessageFlags::Expunged: deleted, kept until the folder is compacted


def expunged(h: dict[str, list[str]]) -> bool:
    """Thunderbird's ``X-Mozilla-Status`` (four hex digits of flags) says the message was
    deleted: it stays in the mbox file, unseen in Thunderbird, until the folder is
    compacted (a moved message's old copy, an old draft)."""
    for value in h.get("x-mozilla-status", ()):
        try:
            return bool(int(value.strip()[:4], 16) & _EXPUNGED)
        except ValueError:
            return False
    return False


def tags_of(h: dict[str, list[str]], subject: str, body: str) -> list[str]:
    tags: list[str] = ["deleted"] if expunged(h) else []
    for value in h.get("x-gmail-labels", ()):
        tags.extend(_split_labels(decode_words(value)))
    for value in h.get("keywords", ()):
        tags.extend(_split_labels(decode_words(value)))
    for value in h.get("x-mozilla-keys", ()):
        tags.extend(_mozilla_tags(value))
    tags.extend(hashtags(subject))
    tags.extend(hashtags(_unquoted(body)))
    return list(dict.fromkeys(tags))


def _unquoted(body: str) -> str:
    if "#" not in body:
        return ""
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))
