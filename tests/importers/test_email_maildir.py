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
