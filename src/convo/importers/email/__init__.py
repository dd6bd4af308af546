"""The email importers: ``mbox`` (mboxo/mboxrd, Thunderbird), ``eml``, ``maildir`` and
``msg`` (Outlook's OLE files, made into the message they stand for and read as ``eml``).

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
  warning. Each message then goes through a hand-written fast path (``fast``) when
  it is plainly well formed, else through ``email.parser`` (compat32); tests check that
  both give the same records on the whole corpus.
- CRLF line ends are read as LF (so text attachment sizes count LF line ends).
- mboxo or mboxrd is decided per file, before the first message (streaming allows no
  look at the whole file): a file is mboxrd when it is named ``*.mboxrd``, its first
  envelope is ``From mboxrd@...`` (public-inbox, b4) or a ``>>From `` line stands in
  its first 64 KiB (``mbox.is_mboxrd``). In an mboxrd file one
  ``>`` is removed from every ``>+From `` line; in any other file (mboxo: writers escape
  ``From `` but leave ``>From `` alone, so the escaping cannot be undone) every line stays
  as written, as ``mailbox.mbox`` reads it. ``>From:`` (a quoted header) is never touched.
- mboxcl2 (Solaris/SVR4 mail, Dovecot, mutt: a ``Content-Length`` header and body
  ``From `` lines left unescaped): a message's ``Content-Length`` is used only when it
  runs past a separator line and lands exactly where mutt's ``mbox_parse_mailbox``
  checks, on a separator line after the body and its blank line (or none) or on the
  end of the file; any other (a stale length, one past the end, one over 128 MiB) is
  ignored and the message ends at the next separator line. ``--jobs`` cuts a file at
  separator lines only when no trusted length runs over one (``mbox.spans_separators``,
  asked of every range by ``pipeline.split``); else the file is read whole.
- The mbox ``From `` line is kept in ``extra.envelope``. When no ``Date`` header is
  readable, the time comes from ``Resent-Date``, the topmost readable ``Received``,
  ``X-OriginalArrivalTime``, the ``From `` line, then a Maildir file name or an .msg's
  creation time (a draft), with a warning
  and ``extra.time_source`` saying which (``dates``); the unreadable value is kept in
  ``extra.date``. No time at all: epoch + a warning. A date without a year is unreadable
  (never the current year). Dates without a zone are read in ``--tz``; ``-0000`` is UTC.
- No usable ``From``: the speaker is ``Sender``, else ``Reply-To``, else the ``From ``
  line's address, with a warning and ``extra.speaker_source``; none of them: a warning.
- thread = Gmail's conversation, ``gmail:<hex>``, when the message carries Gmail
  Takeout's ``X-GM-THRID`` (the conversation the Gmail user saw: Gmail also joins a
  reply whose client wrote no References, and parts a new subject from its old
  conversation; the hex is the Gmail API's ``threadId`` and the id in the
  conversation's web address); else the first id of References (the root), else
  In-Reply-To, else the message's own id; replyTo = In-Reply-To, else the last id of References. Only ``<...>`` tokens
  count, so an In-Reply-To holding a bare address or text gives no replyTo.
- The body is one text chunk: all non-blank inline text/plain parts (in order; a named
  one without a Content-Disposition is inline, RFC 2183's default), else the
  HTML ones through ``convo.core.text.html``; format=flowed is unflowed. Of a
  multipart/alternative the first readable part counts (text/plain, then HTML, then the
  rest), so a blank text/plain beside real HTML gives the HTML's text. A multipart
  whose body never uses its declared boundary is split at the delimiter lines the body
  has (``mime._split_at_found_boundary``); one without any is read as text. Every part with a file name or
  ``Content-Disposition: attachment`` goes to ``extra.attachments`` as
  ``{name, type, size}`` (size decoded); multipart containers never do. A
  ``message/rfc822`` part is listed there too and its text follows the body as a
  "Forwarded message" block. An opaque-signed S/MIME part (``smime.p7m`` holding a CMS
  ``SignedData``) is listed and the entity it signs read in its place (``smime``; the
  signature is not checked). A TNEF part (``winmail.dat``, ``tnef``) lists the
  attachments it holds (``in``: its name) and gives the text of a message that has no
  other (Exchange's mail sent whole in TNEF). A message with no readable text says what it holds:
  ``[encrypted: application/pgp-encrypted]``, ``[signed: ...]`` or one
  ``[attachment NAME, TYPE]`` line per attachment.
- Charsets: valid UTF-8 wins over a declared legacy charset (mislabelled mail); unknown
  charsets fall back to UTF-8, then cp1252; bad bytes are replaced, never a crash.
  Raw 8-bit headers are read as UTF-8 (RFC 6532), else in the charset the message
  declares (its Content-Type, its text parts, its encoded words), else ``--encoding``,
  else in a guessed legacy charset (``convo.core.encoding``), named in a warning; a text
  part without a charset likewise. An encoded word beside raw 8-bit bytes decodes each
  on its own.
- Addresses spelled out against harvesters, in any header of any archive: Mailman/
  pipermail's ``andy at example.com (Andy Grunwald)`` is read as ``Andy Grunwald
  <andy@example.com>``; ``x AT y DOT org``, ``<x [at] y.org>``, ``x at host (Name)`` too
  (a one-label host only beside a comment or inside ``<>``: ``Meet at noon`` stays a
  name); so is an mbox ``From jane at example.org`` line. A comment may hold commas
  (``jane@x.org (Doe, Jane)``).
- Display names that hold address characters (an address, a decoded comma) are quoted:
  ``"Doe, John" <john@x.org>``; a name equal to the address is dropped.
- Tags: ``X-Gmail-Labels`` and ``Keywords`` (comma lists, quotes respected), Thunderbird's
  ``X-Mozilla-Keys`` (``$label1`` is "Important"... as Thunderbird shows it) and
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

from typing import TYPE_CHECKING

from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields

if TYPE_CHECKING:
    from convo.importers.registry import Registry

# What every format of the family makes of its source (importers.fields).
FIELDS = Fields(
    speaker="`From`, decoded, as `Name <address>` (else `Sender`, `Reply-To`, the envelope's "
    "address, with a warning)",
    listeners="`To`, then `Cc` (decoded, in order, duplicates dropped)",
    time="`Date` (else `Resent-Date`, `Received`, `X-OriginalArrivalTime`, the mbox `From ` "
    "line, a Maildir file name, an .msg's creation time, with a warning; none: the epoch "
    "sentinel)",
    zone="the date's own offset (`-0000` is UTC); " + NAIVE_IN_TZ,
    thread="Gmail's conversation `gmail:<hex>` (Gmail Takeout's `X-GM-THRID`), else the first "
    "id of `References` (the root), else `In-Reply-To`, else the "
    "message's own `Message-ID` (none without one)",
    id="the `Message-ID` (`<<id>>`); without one, " + CONTENT_HASH,
    scope="none: a Message-ID is unique everywhere; a content hash: the file's name "
    "(with its folder for `Inbox`/`mbox`)",
    reply_to="`In-Reply-To`, else the last id of `References`",
    subject="`Subject`, decoded",
    tags="`X-Gmail-Labels`, `Keywords`, Thunderbird's `X-Mozilla-Keys` and `#hashtags` in the "
    "subject and body; `deleted` for a message Thunderbird's `X-Mozilla-Status` says was deleted",
    extra="`to`/`cc` (the listeners split), `attachments` (`{name, type, size}`), "
    "`stored_apart`/`apple_content_length` (an Apple Mail `.partial.emlx`'s attachment), "
    "`envelope` (the mbox `From ` line), `deleted` (Thunderbird's expunged flag), `time_source`/`date` when the time came from "
    "elsewhere, `maildir` (folder and flags)",
)


def register(registry: Registry) -> None:
    """Declare mbox (a ``From `` line first, blank lines before it allowed), eml (a line that starts ``Name:`` with a
    capital, as every known mail header does), maildir and msg (an OLE file); the email modules load only
    when a gate admits a source (``importers.gates``)."""
    from convo.importers.gates import Gate
    from convo.importers.registry import Declared

    registry.declare(__package__, (
        ("mbox", "mbox", ("*.mbox", "*.mbx", "*.mbox.gz", "mbox", "Inbox", "*.mboxrd", "*.zip"), Gate(raw=rb"\A[\r\n\t ]*From "), Gate(magic=(b"PK\x03\x04",))),
        ("eml", "eml", ("*.eml", "*.emlx", "*.msg.txt"), Gate(raw=rb"(?m)^[A-Z][!-9;-~]*:")),
        Declared("maildir", f"{__package__}.maildir", ("Maildir", "*.maildir"), directory=True),
        ("msg", "msg", ("*.msg",), Gate(magic=(bytes.fromhex("D0CF11E0A1B11AE1"),))),
    ), family="email")  # fmt: skip
