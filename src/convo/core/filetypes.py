"""The file name suffixes of conversation files: one home for the two rules that use them.

``CONVERSATION_SUFFIXES``: files a folder walk expects to hold conversations (one of
these that no format recognises is counted as rejected, ``pipeline.ingest``).
``INPUT_SUFFIXES``: those and the other files convo reads that a person names on the
command line (a database, a Word or Outlook file, a CSV or HTML export, Parquet); a word
ending in one reads as an input, so a missing file is an error, not a search for its
name (``cli.words``). ``COMPRESSED``: the suffixes read through a decompressor, judged by
the name inside (``chat.json.gz``). Plain tuples: the read path imports this and nothing.
"""

from __future__ import annotations

CONVERSATION_SUFFIXES = frozenset(
    (".json", ".jsonl", ".ndjson", ".txt", ".xml", ".vtt", ".srt", ".sbv", ".mbox",
     ".eml", ".emlx", ".zip", ".log", ".ass", ".ssa", ".ttml", ".dfxp", ".json3", ".srv1",
     ".srv2", ".srv3", ".traj")
)  # fmt: skip
INPUT_SUFFIXES = CONVERSATION_SUFFIXES | frozenset(
    (".csv", ".tsv", ".html", ".parquet", ".msg", ".docx", ".db", ".sqlite", ".tar")
)
COMPRESSED = (".gz", ".zst")

# Files a mail client keeps beside its mailboxes, holding no message: Apple Mail's
# ``Name.mbox`` folder (an export has ``mbox`` and ``table_of_contents``; Mail's own
# store ``Info.plist`` too, and ``Messages/*.emlx``). A folder walk passes over them, as
# over hidden files, rather than listing them as files it could not read.
APPLE_MAIL_SIDECARS = frozenset(("table_of_contents", "Info.plist"))


def is_mail_sidecar(parts: tuple[str, ...]) -> bool:
    """``parts`` (a path's) name a file Apple Mail keeps in a ``.mbox`` folder beside
    the messages (``APPLE_MAIL_SIDECARS``), or an attachment it stored apart from its
    ``.partial.emlx`` (``…/Data/N/Attachments/<message>/<part>/<file>``, listed by the
    message as ``stored_apart``)."""
    boxes = [i for i, p in enumerate(parts[:-1]) if p.lower().endswith(".mbox")]
    if not boxes:
        return False
    return parts[-1] in APPLE_MAIL_SIDECARS or "Attachments" in parts[boxes[0] + 1 : -1]
