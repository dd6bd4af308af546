"""The email importers: ``mbox`` (mboxo/mboxrd, Thunderbird), ``eml`` and ``maildir``.

Each message becomes one record: speaker = the decoded ``From`` as ``Name <address>``,
listeners = To then Cc (decoded, in order, duplicates dropped; the split is kept in
``extra.to``/``extra.cc``), ``timestamp`` = ``Date`` in UTC, ``id`` = Message-ID,
``subject`` decoded, ``source_id`` = ``file#msg-N``. Parsing is the standard library's
with the ``compat32`` policy (``email.policy.default`` is ~20x slower); each
format's module (``mbox``, ``eml``, ``maildir``) holds its sniffer beside its reader.

Decisions where the spec is silent:

- mbox splitting streams the file line by line and splits on ``From `` lines itself. The
  first ``From `` line of the file always starts a message; later ones only when they
  look like an envelope (``From sender ... Mon DD HH:MM ...``, ``From addr@host``,
  ``From -`` or a bare ``From ``). A body line such as ``From time to time`` that an
  mboxo writer failed to escape therefore stays in its message, where ``mailbox.mbox``
  would start a new (header-less) message: the only case where counts differ.
- The splitter reads 1 MiB blocks and only looks at ``\nFrom `` candidates (memory: one
  message plus a block). Bytes before the first ``From `` line are skipped with a
  warning. Each message then goes through a hand-written fast path (``email_fast``) when
  it is plainly well formed, else through ``email.parser`` (compat32); tests check that
  both give the same records on the whole corpus.
- CRLF line ends are read as LF (so text attachment sizes count LF line ends).
- ``>From `` lines are unescaped by the mboxrd rule (one ``>`` removed from any
  ``>+From `` line); for mboxo files this undoes the single level of escaping too.
  ``>From:`` (a quoted header, no space) is left alone.
- The mbox ``From `` line is kept in ``extra.envelope``; its date is the timestamp when
  the Date header is missing or unreadable (with a warning). No date at all: epoch + a
  warning. Dates without a zone are read in ``--tz``; ``-0000`` is UTC.
- thread = the first id of References (the root), else In-Reply-To, else the message's
  own id; replyTo = In-Reply-To, else the last id of References. Only ``<...>`` tokens
  count, so an In-Reply-To holding a bare address or text gives no replyTo.
- The body is one text chunk: all inline text/plain parts (in order; the text/plain
  alternative of a multipart/alternative); HTML-only mail through ``convo.htmltext``;
  format=flowed is unflowed. Other parts go to ``extra.attachments`` as
  ``{name, type, size}`` (size decoded). A ``message/rfc822`` part is listed there too and
  its text follows the body as a "Forwarded message" block.
- Charsets: valid UTF-8 wins over a declared legacy charset (mislabelled mail); unknown
  charsets fall back to UTF-8, then cp1252; bad bytes are replaced, never a crash.
  Raw 8-bit headers (RFC 6532) are read as UTF-8 (else cp1252).
- Display names that hold address characters (an address, a decoded comma) are quoted:
  ``"Doe, John" <john@x.org>``; a name equal to the address is dropped.
- Tags: ``X-Gmail-Labels`` and ``Keywords`` (comma lists, quotes respected) and
  ``#hashtags`` in the subject and unquoted body (not ``#include``-like or hex colours).
- ``--strip-quotes`` drops ``>`` lines, the "On ... wrote:" line, everything from an
  Outlook "-----Original Message-----" and a signature from a ``-- `` line on.
- A broken message is rejected (located ``file:LINE`` for mbox) and the rest goes on;
  a message without any header is rejected as not being mail.
- Maildir: ``new/`` then ``cur/`` (file names sorted), hidden files skipped; Maildir++
  subfolders are not descended into. ``source_id`` is ``Maildir/cur/NAME#msg-1``;
  the folder and flags go to ``extra.maildir``.
"""

from __future__ import annotations

from typing import Any


def register(registry: Any) -> None:
    """Register mbox, eml and maildir (their modules load only when a registry does)."""
    from convo.importers.email import eml, maildir, mbox

    registry.register(mbox.FORMAT)
    registry.register(eml.FORMAT)
    registry.register(maildir.FORMAT)


__all__ = ["register"]
