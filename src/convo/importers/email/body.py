"""The text of a message: which parts are read as text, how, and what is an attachment.

Both MIME walkers (``mime`` for compat32 messages, ``fast`` for hand-split ones) feed
leaf parts to ``add_leaf`` and read alternatives with ``collect_alternative``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from convo.core.encoding import Guess
from convo.core.text.html import html_to_text
from convo.importers.email.charsets import decode_part

# Body-like text types that are read as text; other text/* (calendar, vcard, csv) are listed
# as attachments.
_TEXTLIKE = ("text/plain", "text/enriched", "text/richtext", "text/markdown", "text/x-")
_NOT_TEXT = ("text/calendar", "text/vcard", "text/x-vcard", "text/csv", "text/rfc822-headers")


def payload_text(
    data: bytes, ctype: str, charset: str | None, fmt: str | None, delsp: str | None, body: Body
) -> str:
    """A decoded text part: charset (a guess for a part without one kept in ``body``), line
    ends, HTML to text, format=flowed."""
    text, guess = decode_part(data, charset, body.encoding, ctype == "text/html")
    if guess is not None:
        body.guesses.append(guess)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if ctype == "text/html":
        return html_to_text(text, div_lines=True)
    if ctype in ("text/enriched", "text/richtext"):
        from convo.importers.email.enriched import enriched_to_text, richtext_to_text

        return (enriched_to_text if ctype == "text/enriched" else richtext_to_text)(text)
    if fmt and fmt.lower() == "flowed":
        text = unflow(text, (delsp or "").lower() == "yes")
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 format=flowed: join soft-broken lines (ending in a space) into paragraphs."""
    out: list[str] = []
    buf = ""
    for line in text.split("\n"):
        if line.startswith(" "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


_BLANK_HEAD = re.compile(r"\A(?:[ \t\r\f\v]*\n)+")


def _trimmed(part: str) -> str:
    """A text part without its blank lines before and after, whitespace-only ones too
    (an Outlook body that opens with tab-only lines); the first line keeps its indent."""
    return _BLANK_HEAD.sub("", part).rstrip()


class Body:
    """The text of a message and what was left out of it (attachments)."""

    __slots__ = (
        "attachments",
        "charsets",
        "damaged",
        "enclosed",
        "encoding",
        "forwarded",
        "guesses",
        "html",
        "plain",
    )  # fmt: skip

    def __init__(self, encoding: str | None = None) -> None:
        self.encoding = encoding  # --encoding: parts without a charset are read in it
        self.guesses: list[Guess] = []  # the encodings guessed for parts without a charset
        self.plain: list[str] = []
        self.html: list[str] = []
        self.attachments: list[dict[str, Any]] = []
        self.forwarded: list[str] = []
        self.charsets: list[str | None] = []  # declared by the text parts, in order
        self.enclosed: list[str] = []  # the text of a TNEF part (``tnef``): when no other
        self.damaged: list[str] = []  # the TNEF parts read only up to their damage

    def has_text(self) -> bool:
        return any(p.strip() for p in (*self.plain, *self.html, *self.forwarded, *self.enclosed))

    def text(self) -> str:
        """Non-blank plain parts, else non-blank HTML ones, else the text a TNEF part
        holds, then forwarded messages; a message with no text at all says what it holds
        instead (see ``holdings``)."""
        parts = (
            [p for p in self.plain if p.strip()]
            or [p for p in self.html if p.strip()]
            or [p for p in self.enclosed if p.strip()]
        )
        text = "\n\n".join(_trimmed(p) for p in parts)
        if self.forwarded:
            text = "\n\n".join([text, *self.forwarded]) if text else "\n\n".join(self.forwarded)
        if not text and self.attachments:
            return holdings(self.attachments)
        return text

    def merge(self, other: Body) -> None:
        self.plain.extend(other.plain)
        self.html.extend(other.html)
        self.attachments.extend(other.attachments)
        self.forwarded.extend(other.forwarded)
        self.enclosed.extend(other.enclosed)
        self.damaged.extend(other.damaged)
        self.charsets.extend(other.charsets)
        self.guesses.extend(other.guesses)


_ENCRYPTED = ("application/pgp-encrypted", "application/pkcs7-mime", "application/x-pkcs7-mime")
_SIGNATURE = (
    "application/pgp-signature", "application/pkcs7-signature", "application/x-pkcs7-signature",
)  # fmt: skip


def holdings(attachments: list[dict[str, Any]]) -> str:
    """The text of a message without readable text: ``[encrypted: TYPE]`` for an encrypted
    body, ``[signed: TYPE]`` for a bare signature, else ``[attachment NAME, TYPE]`` lines."""
    types = [str(a.get("type")) for a in attachments]
    for kind, known in (("encrypted", _ENCRYPTED), ("signed", _SIGNATURE)):
        found = [t for t in types if t in known]
        if found and (kind == "encrypted" or len(types) == len(found)):
            return f"[{kind}: {found[0]}]"
    return "\n".join(
        f"[attachment {a.get('name') or 'unnamed'}, {a.get('type')}]" for a in attachments
    )


def alternative_order(ctypes: list[str]) -> list[int]:
    """The parts of a multipart/alternative in the order they are tried: text/plain ones
    (last first), then HTML ones, then the rest; nested multiparts come before HTML."""
    plain = [i for i, c in enumerate(ctypes) if c == "text/plain"]
    html = [i for i, c in enumerate(ctypes) if c == "text/html"]
    other = [i for i, c in enumerate(ctypes) if c not in ("text/plain", "text/html")]
    if any(c.startswith("multipart/") for c in ctypes):
        return plain[::-1] + other[::-1] + html[::-1]
    return plain[::-1] + html[::-1] + other[::-1]


def collect_alternative(
    ctypes: list[str], collect: Callable[[int, Body], None], body: Body
) -> None:
    """Read the first alternative (in ``alternative_order``) that has readable text, so that
    an empty text/plain beside a real text/html gives the HTML's text; ``collect(i, sub)``
    walks part ``i`` into ``sub``. No readable alternative: the first one tried."""
    tried: Body | None = None
    for i in alternative_order(ctypes):
        sub = Body(body.encoding)
        collect(i, sub)
        if sub.has_text():
            body.merge(sub)
            return
        tried = tried or sub
    if tried is not None:
        body.merge(tried)


def _text_list(body: Body, ctype: str, disp: str, name: str | None) -> list[str] | None:
    """Where an inline part's text goes: plain, HTML (named inline HTML too, as notmuch
    writes it), or None when the part is not read as text. A named text/plain part that
    says nothing of its disposition is inline (RFC 2183's default, as mail programs show
    it: VM's ``Content-Type: text/plain; name="msg.txt"`` parts, CPython's msg_44.txt)."""
    is_text = ctype.startswith(_TEXTLIKE) and not ctype.startswith(_NOT_TEXT)
    if (is_text and not name) or (ctype == "text/plain" and disp in ("inline", "")):
        return body.plain
    return body.html if ctype == "text/html" else None


def add_leaf(
    body: Body,
    ctype: str,
    disp: str,
    name: str | None,
    payload: Callable[[], bytes],
    params: Callable[[], tuple[str | None, str | None, str | None]],
    cid: str | None,
) -> None:
    """One non-multipart part: body text (plain or HTML) and/or an attachment entry.

    ``payload()`` gives the decoded bytes and ``params()`` (charset, format, delsp). Every
    part with a file name or ``Content-Disposition: attachment`` is listed; inline text is
    read as text (a named inline text part both)."""
    data = payload()
    if disp != "attachment":
        read_as = _text_list(body, ctype, disp, name)
        if read_as is not None:
            charset, fmt, delsp = params()
            body.charsets.append(charset)
            read_as.append(payload_text(data, ctype, charset, fmt, delsp, body))
            if not name:
                return
    info: dict[str, Any] = {"name": name, "type": ctype, "size": len(data)}
    if disp:
        info["disposition"] = disp
    if cid:
        info["content_id"] = cid
    body.attachments.append(info)
    if ctype in _TNEF:
        _enclosed(data, name, body)


_TNEF = ("application/ms-tnef", "application/vnd.ms-tnef")


def stored_apart(body: Body, apple_length: str | None) -> None:
    """Apple Mail's ``.partial.emlx``: an attachment's part keeps its headers, its content
    removed to the ``Attachments`` folder beside ``Messages``, and
    ``X-Apple-Content-Length`` says how long it was. Its entry (the last one) says so
    (``stored_apart``, ``apple_content_length``) rather than a size of 0."""
    if not apple_length or not body.attachments or body.attachments[-1].get("size"):
        return
    info = body.attachments[-1]
    info["size"] = None
    info["stored_apart"] = True
    length = apple_length.strip()
    info["apple_content_length"] = int(length) if length.isdecimal() else length


def _enclosed(data: bytes, name: str | None, body: Body) -> None:
    """A TNEF part's text (read when the message has no other) and attachments, each
    listed with ``in``: the TNEF part's name."""
    from convo.importers.email.tnef import read_tnef

    got = read_tnef(data)
    if got is None:
        return
    if got.plain and got.plain.strip():
        body.enclosed.append(got.plain.replace("\r\n", "\n"))
    elif got.html:
        body.enclosed.append(payload_text(got.html, "text/html", None, None, None, body))
    for attached in got.attachments:
        body.attachments.append({**attached, "in": name or "winmail.dat"})
    if got.damaged:
        body.damaged.append(name or "winmail.dat")
