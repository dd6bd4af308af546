"""What an ingest says of its sources in words: the warnings of ids a source repeats or
an earlier source gave (``pipeline.ingest.Finisher``, ``core.stamps.RunIds``), and of a
folder that gave nothing to read. Their one home, for the one-process, ``--jobs`` and
Spark runs alike."""

from __future__ import annotations

from convo.core.plural import counted, plural


def clash_warning(clashes: int) -> str:
    """The warning of a source whose reader gave ``clashes`` messages an id another had."""
    return (
        f"{counted(clashes, 'message')} {plural(clashes, 'repeats', 'repeat')} the id of another "
        f"message (other text, speaker or time): given {plural(clashes, 'its', 'their')} content "
        "hash"
    )


def crossed_warning(crossed: int) -> str:
    """The warning of a source that gave ``crossed`` messages an id an earlier source of
    the run gave another message."""
    return (
        f"{counted(crossed, 'message')} {plural(crossed, 'gives', 'give')} an id an earlier input "
        f"gave another message (of another time and text): given {plural(crossed, 'its', 'their')} "
        "content hash"
    )


def nothing_found(folder: str, entries: int) -> str:
    """The warning of a folder named on the command line that gave no source to read: an
    empty folder (hidden files are skipped), or one whose ``entries`` no format claims
    (each reported above it). Nothing was rejected, so the exit code stays 0, as for an
    empty file (docs/cli.md, "Errors and exit codes")."""
    if not entries:
        return (
            f"{folder}: nothing to import: the folder holds no files (hidden ones are "
            "skipped); check the path"
        )
    which = "its one file is in no" if entries == 1 else f"none of its {entries} files is in a"
    return (
        f"{folder}: nothing to import: {which} format convo reads (listed above); check "
        "the path, or name the format with --from FORMAT (see `convo formats`)"
    )
