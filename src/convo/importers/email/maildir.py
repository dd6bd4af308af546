"""Maildir folders (``cur/``, ``new/``, ``tmp/``), one message a file: sniffer and reader.

A Maildir holds its other mailboxes as folders beside ``cur/``: Maildir++ (Courier,
Dovecot's default, offlineimap, mbsync) names them ``.Sent``, ``.Lists.dev`` (a dot
before each level), Dovecot's ``LAYOUT=fs`` nests plain folders (``Sent/cur``). Every
mailbox under the folder named is read, its name (``Sent``, ``Lists.dev``) in
``extra.maildir.mailbox``; ``tmp/`` holds deliveries not finished, never read. The
folder named is ``INBOX`` when it holds other mailboxes or is called ``Maildir`` (the
Maildir++ root); a lone Maildir keeps its folder's name, as offlineimap and mbsync write
an account: one Maildir a mailbox side by side (``mail/acct/INBOX``, ``mail/acct/Sent``,
``INBOX.Lists`` with offlineimap's ``sep = .``), so ingesting ``mail/acct`` names each
mailbox, not every one ``INBOX``. The info suffix's flags (``:2,RS``: Passed, Replied,
Seen, Trashed, Draft, Flagged; Dovecot's keywords as lowercase letters) are kept in
``extra.maildir.flags``; the suffix may follow ``!`` (offlineimap's
``maildir-windows-compatible``) or ``;`` (Windows Maildir writers) instead of ``:``,
since ``:`` is not allowed in a Windows file name.

Ids and their scope (docs/ids.md): the ``Message-ID``, unique everywhere (no scope);
without one, the content hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.maildates import maildir_date
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.email import FIELDS
from convo.importers.email.convert import EML_LIMIT, convert, strip_envelope
from convo.importers.email.record import Origin
from convo.importers.registry import Format

NAME = "maildir"
# The info suffix: "2," and the flags after ':' (or '!' / ';' where ':' cannot be used).
_INFO = re.compile(r"[:!;]2,([^:!;/]*)$")


def sniff(source: Source) -> int:
    if source.path is None or not source.is_dir:
        return 0
    if (source.path / "cur").is_dir() and (source.path / "new").is_dir():
        return 95
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """A Maildir: every message file in ``new/`` and ``cur/``."""
    assert source.path is not None
    if not source.is_dir or not any((source.path / d).is_dir() for d in ("new", "cur")):
        raise InputError(
            "not a Maildir (no cur/ or new/ folder)",
            where=source.name,
            hint="name the Maildir folder itself, or drop --from maildir",
        )
    boxes = list(_mailboxes(source.path))
    top = "INBOX" if len(boxes) > 1 or _root_named_inbox(source.path) else source.path.name
    for box, mailbox in boxes:
        yield from _mailbox(source, ctx, box, mailbox or top)


def _root_named_inbox(path: Path) -> bool:
    """The folder is the usual Maildir++ root (``~/Maildir``) or already says INBOX."""
    name = path.resolve().name if path.name in ("", ".", "..") else path.name
    return name.lower() in ("maildir", "inbox", ".maildir", "")


def flags(file_name: str) -> str:
    """The flags of a Maildir file name's info suffix (``:2,RS`` → ``RS``), "" without."""
    m = _INFO.search(file_name)
    return m.group(1) if m else ""


def _mailboxes(root: Path) -> Iterator[tuple[Path, str]]:
    """Each mailbox under ``root`` (itself first, named "") with its name: Maildir++
    ``.A.B`` folders as ``A.B``, nested folders as ``A/B``; symbolic links not followed."""
    stack = [(root, "")]
    while stack:
        path, name = stack.pop()
        if (path / "cur").is_dir() or (path / "new").is_dir():
            yield path, name
        subs = sorted(
            (p for p in path.iterdir() if p.is_dir() and not p.is_symlink()),
            reverse=True,
        )
        for sub in subs:
            if sub.name in ("cur", "new", "tmp"):
                continue
            child = sub.name[1:] if sub.name.startswith(".") and not name else sub.name
            if child:
                stack.append((sub, f"{name}/{child}" if name else child))


def _mailbox(
    source: Source, ctx: ImportContext, box: Path, mailbox: str
) -> Iterator[ConversationMessage]:
    for folder in ("new", "cur"):
        path = box / folder
        if not path.is_dir():
            continue
        for file in sorted(p for p in path.iterdir() if p.is_file() and p.name[:1] != "."):
            child = source.child(file)
            cctx = _ChildContext(child, ctx)
            try:
                data = child.read_bytes(EML_LIMIT)
            except InputError as e:
                ctx.reject(child.name, e.what, None, e.hint)
                continue
            data, envelope = strip_envelope(data)
            origin = Origin(NAME, "msg-1", cctx.loc("msg-1"), envelope, maildir_date(file.name))
            info = {"mailbox": mailbox, "folder": folder, "flags": flags(file.name)}
            rec = convert(data, cctx, origin, {"maildir": info})
            if rec is not None:
                yield rec


class _ChildContext(ImportContext):
    """The Maildir's context, naming one message file (counts go to the parent)."""

    def __init__(self, child: Source, parent: ImportContext):
        self.source = child
        self.options = parent.options
        self._parent = parent

    def reject(self, where, reason, raw=None, hint=None) -> None:
        self._parent.reject(where, reason, raw, hint)

    def warn(self, where: str, message: str) -> None:
        self._parent.warn(where, message)


DESCRIPTION = "A Maildir directory (cur/, new/, tmp/), one message a file"
PATTERNS = ("Maildir", "*.maildir")
EXAMPLE = "Maildir/{cur,new,tmp}/1709719200.M1P2.host:2,S"
FORMATS = (
    Format(
        NAME, "email", DESCRIPTION, PATTERNS, sniff, read, EXAMPLE, directory=True, fields=FIELDS
    ),
)
