"""Maildir with its other mailboxes (``convo.importers.email.maildir``).

The layouts mail tools write: Maildir++ (Courier, Dovecot's default, offlineimap,
mbsync) keeps each other mailbox in a dot-folder beside ``cur/`` (``.Sent``,
``.Lists.dev`` for a sub-mailbox), Dovecot's ``LAYOUT=fs`` nests plain folders
(``Sent/cur``); file names carry the info suffix ``:2,FLAGS`` (``S`` seen, ``R``
replied, ``T`` trashed), and ``tmp/`` holds deliveries still being written. The trees
are built here, one hand-written message a file.
"""

from __future__ import annotations

from pathlib import Path

from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest


def _mail(frm: str, subject: str, mid: str, day: int) -> bytes:
    return (
        f"From: {frm}\nTo: team@example.org\nSubject: {subject}\n"
        f"Date: Mon, {day} Mar 2024 10:00:00 +0000\nMessage-ID: <{mid}@example.org>\n\nbody {mid}\n"
    ).encode()


def _box(path: Path) -> Path:
    for sub in ("cur", "new", "tmp"):
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


def _read(path: Path) -> list:
    return list(Ingest(on_warning=lambda *_: None).messages([str(path)]))


def test_maildir_plus_plus_folders_are_read(tmp_path):
    root = _box(tmp_path / "Maildir")
    (root / "cur" / "1709287200.M1P7.host,S=120:2,S").write_bytes(
        _mail("Ann <a@x.org>", "hi", "a", 1)
    )
    (root / "new" / "1709373600.M2P7.host").write_bytes(_mail("Bo <b@x.org>", "new", "b", 2))
    (root / "tmp" / "1709373700.M3P7.host").write_bytes(b"From: half")  # being delivered
    sent = _box(root / ".Sent")
    (sent / "cur" / "1709460000.M4P7.host:2,RS").write_bytes(_mail("Me <m@x.org>", "re", "c", 3))
    dev = _box(root / ".Lists.dev")
    (dev / "cur" / "1709546400.M5P7.host:2,ST").write_bytes(_mail("Cy <c@x.org>", "ml", "d", 4))
    assert registry.detect(Source(root)).name == "maildir"
    recs = _read(root)
    boxes = {m.id: m.extra["maildir"] for m in recs}
    assert boxes == {
        "<b@example.org>": {"mailbox": "INBOX", "folder": "new", "flags": ""},
        "<a@example.org>": {"mailbox": "INBOX", "folder": "cur", "flags": "S"},
        "<d@example.org>": {"mailbox": "Lists.dev", "folder": "cur", "flags": "ST"},
        "<c@example.org>": {"mailbox": "Sent", "folder": "cur", "flags": "RS"},
    }


def test_nested_folders_are_read_once(tmp_path):
    """Dovecot's ``LAYOUT=fs``: a mailbox in a plain folder, read with its Maildir and
    not again when the folder above is ingested."""
    root = _box(tmp_path / "Mail")
    (root / "cur" / "1709287200.M1P7.host:2,S").write_bytes(_mail("Ann <a@x.org>", "hi", "a", 1))
    sent = _box(root / "Sent")
    (sent / "cur" / "1709460000.M4P7.host:2,S").write_bytes(_mail("Me <m@x.org>", "re", "c", 3))
    assert sorted(m.extra["maildir"]["mailbox"] for m in _read(root)) == ["INBOX", "Sent"]
    assert len(_read(tmp_path)) == 2


def test_account_of_side_by_side_maildirs_names_each_mailbox(tmp_path):
    """offlineimap (``localfolders``, ``sep = .``) and mbsync (``SubFolders Verbatim``)
    write an account as one Maildir a mailbox side by side, with their own file names
    (``,U=42,FMD5=...`` / ``_1.host,U=42``) and state files; ingesting the account
    folder named every mailbox ``INBOX``."""
    acct = tmp_path / "mail" / "work"
    inbox = _box(acct / "INBOX")
    (
        inbox / "cur" / "1709287200_0.4242.host,U=42,FMD5=7e33429f656f1e6e9d79b29c3f82c57e:2,RS"
    ).write_bytes(_mail("Ann <a@x.org>", "hi", "a", 1))
    (inbox / ".uidvalidity").write_text("1\n")  # mbsync's state beside cur/
    (inbox / ".mbsyncstate").write_text("FarUidValidity 1\n")
    sent = _box(acct / "Sent")
    (sent / "cur" / "1709460000.12345_1.host,U=7:2,S").write_bytes(
        _mail("Me <m@x.org>", "re", "c", 3)
    )
    lists = _box(acct / "INBOX.Lists")
    (lists / "new" / "1709546400.M5P7.host").write_bytes(_mail("Cy <c@x.org>", "ml", "d", 4))
    boxes = {m.id: m.extra["maildir"]["mailbox"] for m in _read(acct)}
    assert boxes == {
        "<a@example.org>": "INBOX",
        "<c@example.org>": "Sent",
        "<d@example.org>": "INBOX.Lists",
    }
    assert {m.extra["maildir"]["mailbox"] for m in _read(sent)} == {"Sent"}


def test_windows_compatible_info_separators(tmp_path):
    """``:`` cannot be in a Windows file name: offlineimap's
    ``maildir-windows-compatible`` writes ``!2,FLAGS``, other writers ``;2,FLAGS``."""
    root = _box(tmp_path / "Maildir")
    (root / "cur" / "1709287200_0.1.host,U=1,FMD5=ab!2,FS").write_bytes(
        _mail("A <a@x.org>", "s", "a", 1)
    )
    (root / "cur" / "1709287300.M2P7.host;2,RS").write_bytes(_mail("B <b@x.org>", "s", "b", 2))
    (root / "cur" / "1709287400.M3P7.host:2,Sa").write_bytes(_mail("C <c@x.org>", "s", "c", 3))
    (root / "new" / "1709287500.M4P7.host").write_bytes(_mail("D <d@x.org>", "s", "d", 4))
    got = {m.id: m.extra["maildir"]["flags"] for m in _read(root)}
    assert got == {
        "<a@example.org>": "FS",
        "<b@example.org>": "RS",
        "<c@example.org>": "Sa",  # a Dovecot keyword letter is kept
        "<d@example.org>": "",
    }
