"""Mailboxes in a zip (``convo.importers.email.mbox_zip``): a groups.io group's archive
(``messages.mbox`` in a zip, as chaoss/grimoirelab-perceval's groups.io backend downloads
it and tests it with ``tests/data/groupsio/messages.zip``)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import detect

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "email"


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _read(path: Path):
    source = Source(path)
    rejects, warnings = [], []
    ctx = ImportContext(
        source, ImportOptions(), on_reject=rejects.append, on_warning=warnings.append
    )
    fmt = detect(source)
    return fmt.name, list(fmt.read(source, ctx)), rejects, warnings


def test_a_groups_io_archive_is_its_mailbox(tmp_path):
    mbox = (FIXTURES / "gmail-takeout-threads.mbox").read_bytes()
    path = _zip(tmp_path / "archive.zip", {"messages.mbox": mbox})
    name, msgs, rejects, warnings = _read(path)
    assert name == "mbox" and not rejects and not warnings
    assert [m.id for m in msgs] == [
        "<dinner-1@example.org>", "<CAgmail-2@mail.gmail.com>", "<no-refs-3@example.org>",
        "<wine-4@example.org>",
    ]  # fmt: skip
    assert msgs[0].source_id == f"{path}#messages.mbox#msg-1"


def test_other_members_are_named_in_a_warning_and_a_zip_without_mailboxes_is_not_mail(tmp_path):
    mbox = (FIXTURES / "mboxcl2-dovecot.mbox").read_bytes()
    path = _zip(
        tmp_path / "export.zip", {"Inbox.mbox/mbox": mbox, "Inbox.mbox/table_of_contents": b"\0"}
    )
    name, msgs, _, warnings = _read(path)
    assert name == "mbox" and len(msgs) == 4
    assert warnings == [
        f"{path}: 1 zip member not a mailbox, not read (Inbox.mbox/table_of_contents)"
    ]
    other = _zip(tmp_path / "other.zip", {"notes.txt": b"hello"})
    from convo.importers.email import mbox as mbox_format

    assert mbox_format.sniff(Source(other)) == 0


def test_a_mailbox_may_be_larger_than_a_member_read_whole(tmp_path, monkeypatch):
    """A mailbox is streamed a message at a time: the cap of members read whole (a
    Takeout mailbox is often over it) is not its cap."""
    from convo.importers import archives

    monkeypatch.setattr(archives, "MEMBER_CAP", 64)
    mbox = (FIXTURES / "gmail-takeout-threads.mbox").read_bytes()
    path = _zip(
        tmp_path / "takeout.zip", {"Takeout/Mail/All mail Including Spam and Trash.mbox": mbox}
    )
    name, msgs, rejects, _ = _read(path)
    assert name == "mbox" and len(msgs) == 4 and not rejects
    refused: list = []
    source = Source(path)
    ctx = ImportContext(source, ImportOptions(), on_reject=refused.append)
    with zipfile.ZipFile(path) as zf:
        assert archives.safe_members(zf, str(path), ctx, "a zip") == {}  # read whole: refused
    assert refused and "too large" in refused[0].reason
