"""Where a Parquet dataset goes: its partition folders' names and the folder itself.

``partition_name`` is the folder name of a partition value (``format=slack``): see
``convo.output.exporters.parquet``'s docstring for the rule. ``dataset_folder`` is where
the dataset is written: a hidden folder beside the target, renamed to it when complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from convo.core import scratch
from convo.core.errors import InputError, UsageError

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
MAX_PARTITION_NAME = 120  # characters of an encoded value in a folder name
PARTITION_HASH = 32  # hex digits of the hash that ends a cut name


def partition_name(value: str | None) -> str:
    """The folder name of a partition value (see the module docstring): injective, and
    at most ``MAX_PARTITION_NAME`` characters."""
    if not value:
        return NULL_PARTITION
    name = quote(value, safe="").replace("~", "%7E")
    if name == NULL_PARTITION:
        return "%5F" + name[1:]
    if len(name) <= MAX_PARTITION_NAME:
        return name
    cut = name[: MAX_PARTITION_NAME - PARTITION_HASH - 1]
    cut = cut[: cut.rfind("%")] if "%" in cut[-2:] else cut  # not inside an escape
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{cut}~{digest[:PARTITION_HASH]}"


@contextlib.contextmanager
def dataset_folder(out_dir: str | Path) -> Iterator[Path]:
    """A hidden new folder beside ``out_dir`` (which must be new or empty) to write the
    dataset into, renamed to ``out_dir`` when the block ends, removed when it fails."""
    target = empty_folder(out_dir)
    parent = target.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(scratch.folder(parent, target.name, "partial"))
        os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else _new_folder_mode())
    except OSError as e:
        raise _write_error(e, target) from None
    try:
        yield tmp
        os.replace(tmp, target)  # onto a missing or empty folder
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _write_error(e, target) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_error(e: OSError, target: Path) -> InputError:
    """One located line for a failed write of the dataset: a full disk says so in plain
    words (Arrow's own text, "Error writing bytes to file. Detail: [errno 28] ...", names
    the errno only)."""
    from convo.core.io import WRITE_ERRNOS, os_error

    what = os_error(e, str(target)).what if e.errno in WRITE_ERRNOS else e.strerror or str(e)
    return InputError(f"cannot write Parquet ({what})", where=str(target))


def _new_folder_mode() -> int:
    """The mode ``mkdir`` gives a new folder (0o777 less the umask)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o777 & ~umask


def empty_folder(out_dir: str | Path) -> Path:
    """``out_dir`` as a Path, refused unless it is new or an empty folder."""
    target = Path(out_dir)
    if not str(out_dir):
        raise UsageError("-o is empty", hint="name a new folder for the Parquet dataset")
    if target.exists() and not target.is_dir():
        raise InputError(
            "is a file; a Parquet dataset is a folder",
            where=str(target),
            hint="name a new or empty folder",
        )
    if target.exists() and any(target.iterdir()):
        raise InputError(
            "not an empty folder", where=str(target), hint="write a Parquet dataset to a new folder"
        )
    return target
