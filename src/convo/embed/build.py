"""``embed_store``: embed the store's messages that have no current vectors.

Incremental: a message whose id has vectors of the same text (``chunks.digest``) is
skipped, so a run after an ingest embeds only what is new (and reads only the lines
appended since the last run, when that is all that changed); a message whose text changed
is embedded again and its old rows zeroed; a message that left the store (``rm``,
``compact``) has its rows zeroed and its entry removed. The first run records the model
and its dimensions; a later run with another model is one ``UsageError`` with the fix
(the model that made them, or ``--rebuild``). The store is read as it stands when the
run starts; lines appended meanwhile are embedded by the next run. Lines that are not
records with an id, later records of an id (its first counts, as ``--check`` reads it)
and a torn last line are passed over and counted (``EmbedResult``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from convo.core.errors import InputError, NoStore
from convo.embed import chunks as chunking
from convo.embed.protocol import Embedder
from convo.embed.vectors import VectorFile, Writer, mismatch, recorded_choice
from convo.embed.vectors import drop as drop_vectors

Progress = chunking.Progress


@dataclass
class EmbedResult:
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    model: str = ""
    dims: int = 0
    not_records: int = 0  # lines read and passed over: not records, or without an id
    repeated: int = 0  # later records of an id: the first counts, embedded once
    torn: bool = False  # the store ends in a line without its newline (not read)


def resolve(embedder: Embedder | str | None) -> tuple[Embedder, str]:
    """The embedder and the choice that makes it again (``""`` for an object given)."""
    if embedder is None or isinstance(embedder, str):
        from convo.embed.registry import make, split

        name, option = split(embedder)
        return make(embedder), f"{name}:{option}" if option else name
    return embedder, ""


def embed_on_save(
    store_path: str | os.PathLike[str], progress: Progress | None = None
) -> EmbedResult | None:
    """After a save: embed what is new when the store is set to (``convo embed
    --on-save``), with the model its vectors were made with; None when it is not."""
    vf = VectorFile.existing(store_path)
    if vf is None:
        return None
    try:
        wanted = vf.meta.get("on_save") == "1"
    finally:
        vf.close()
    return embed_store(store_path, None, progress) if wanted else None


def embed_store(
    store_path: str | os.PathLike[str],
    embedder: Embedder | str | None = None,
    progress: Progress | None = None,
    *,
    rebuild: bool = False,
    on_save: bool | None = None,
) -> EmbedResult:
    """Embed the messages of the store at ``store_path`` that have no current vectors.

    ``embedder``: an object, or a ``--model`` choice (``NAME[:OPTION]``); None is the
    model the vectors were made with, else the default. A choice is recorded with the
    vectors, so that search makes the same embedder again; an object records none, and
    search then needs it passed. ``on_save`` True or False records whether a save to the
    store embeds what it added (``embed_on_save``); None leaves that as it was."""
    store = Path(store_path)
    if not store.exists():
        raise NoStore(str(store))
    if rebuild:
        drop_vectors(store)
    elif embedder is None:
        embedder = recorded_choice(store)
    model, choice = resolve(embedder)
    vf = VectorFile(store, write=True)
    try:
        with _located_writes(vf):
            result = _embed_store(store, vf, model, choice, on_save, progress)
    finally:
        vf.close()
    prepare = getattr(model, "prepare_query", None)
    if prepare is not None:  # what a search needs made once (the default model's tables)
        prepare()
    return result


@contextlib.contextmanager
def _located_writes(vf: VectorFile) -> Iterator[None]:
    """A full disk (or a file-size limit) met writing the vectors is one located line: the
    rows committed so far are kept, the rest cut off by the next run (``embed.vectors``)."""
    import sqlite3

    from convo.core.io import WRITE_ERRNOS, os_error

    hint = "what was embedded is kept; free some space and run `convo embed` again"
    try:
        yield
    except OSError as e:
        if e.errno not in WRITE_ERRNOS:
            raise
        raise os_error(e, str(vf.matrix_path), hint) from None
    except sqlite3.OperationalError as e:
        if str(e) not in ("disk I/O error", "database or disk is full"):
            raise
        raise InputError(f"cannot write ({e})", where=str(vf.catalogue_path), hint=hint) from None


def _embed_store(
    store: Path,
    vf: VectorFile,
    model: Embedder,
    choice: str,
    on_save: bool | None,
    progress: Progress | None,
) -> EmbedResult:
    """``embed_store``'s work on the open vectors (see there)."""
    writer = Writer(vf)  # holds the lock; meta is read again under it
    try:
        if not vf.model:
            vf.set_meta(model=model.model_name, dims=model.dims, choice=choice, rows=0)
        elif vf.model != model.model_name:
            raise mismatch(vf, model.model_name, None, store)
        if on_save is not None:
            vf.set_meta(on_save=int(on_save))
        result = _run(store, vf, writer, model, progress)
    finally:
        writer.close()
    return result


def _run(
    store: Path, vf: VectorFile, writer: Writer, model: Embedder, progress: Progress | None
) -> EmbedResult:
    """Read what the vectors have not seen of the store: nothing when it is as the last
    run left it, the appended lines when it only grew (``index.state.freshness``, the index's
    own test), else all of it, comparing digests and dropping what left."""
    from convo.index.rows import end_of_whole_lines
    from convo.index.schema import SCHEMA_VERSION
    from convo.index.state import freshness, store_meta

    result = EmbedResult(model=model.model_name, dims=vf.dims)
    with open(store, "rb") as f:
        end = end_of_whole_lines(f, os.fstat(f.fileno()).st_size, 0)
        stamp = store_meta(f, end)
        state = freshness({**vf.meta, "schema_version": SCHEMA_VERSION}, f)[0]
        if "store_ino" not in vf.meta:
            state = "rebuild"
        if state == "fresh":
            result.unchanged = _count(vf)
        elif state == "append":
            before = _count(vf)
            _read(f, int(vf.meta["indexed_bytes"]), vf, writer, model, progress, result)
            result.unchanged += before
        else:
            _read(f, 0, vf, writer, model, progress, result, whole=True)
            result.removed = _drop_gone(vf, writer)
        f.seek(end)
        result.torn = bool(f.read(1 << 16).strip())
    vf.set_meta(**stamp)
    return result


def _count(vf: VectorFile) -> int:
    return int(vf.conn.execute("SELECT count(*) FROM messages").fetchone()[0])


def _read(
    f: IO[bytes], start: int, vf: VectorFile, writer: Writer, model: Embedder,
    progress: Progress | None, result: EmbedResult, *, whole: bool = False,
) -> None:  # fmt: skip
    """Embed the messages of ``f`` from ``start`` that have no vectors of their text.

    ``whole``: the whole store is read, so a message with vectors of another text was
    changed (``rm``, ``tag`` and ``compact`` rewrite the file). Else only lines appended
    to a store as the last run left it are read: an id with vectors already is a later
    record of an id the store holds before (repeated: its first record counts, as when
    the whole store is read), not a change."""
    conn = vf.conn
    passed = chunking.PassedOver()
    for batch in chunking.texts_of(f, start, progress, seen=conn, passed=passed):
        known = vf.known([i for i, _ in batch])
        todo = []
        for ident, text in batch:
            dig = chunking.digest(text)
            old = known.get(ident)
            if old is not None and not whole:
                passed.repeated += 1
                continue
            if old is not None and old[0] == dig:
                result.unchanged += 1
                continue
            if old is not None:
                writer.retire([(old[1], old[2])])
                result.changed += 1
            else:
                result.added += 1
            todo.append((ident, dig, chunking.chunks(text)))
        if todo:
            result.chunks += _embed(vf, writer, model, todo, f.name)
    result.not_records += passed.not_records
    result.repeated += passed.repeated


def _drop_gone(vf: VectorFile, writer: Writer) -> int:
    """Zero and forget the vectors of messages the whole read did not see."""
    conn = vf.conn
    gone = conn.execute(
        "SELECT id, row, nrows FROM messages WHERE id NOT IN (SELECT id FROM temp.seen)"
    ).fetchall()
    if gone:
        writer.retire([(row, n) for _, row, n in gone])
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("DELETE FROM messages WHERE id = ?", [(i,) for i, _, _ in gone])
        conn.execute("COMMIT")
    return len(gone)


def _embed(
    vf: VectorFile, writer: Writer, model: Embedder,
    todo: list[tuple[str, bytes, list[str]]], store: str,
) -> int:  # fmt: skip
    texts = [c for _, _, parts in todo for c in parts]
    vectors = model.embed_batch(texts)
    if texts and vectors.shape != (len(texts), vf.dims):
        raise mismatch(vf, model.model_name, int(vectors.shape[-1]), Path(store))
    writer.append([(i, d, len(parts)) for i, d, parts in todo], vectors)
    return len(texts)
