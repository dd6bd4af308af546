"""TypeAgent's own SQLite conversation database, built offline from convo records
(Python >= 3.12 with the ``typeagent`` package; ``convo.typeagent.run`` drives it from
any Python).

``build(records, db, name=...)`` creates the database (or opens it) with convo's default
embedder (``convo.embed.make()``, offline) as TypeAgent's embedding model and convo's
knowledge as its knowledge extractor (``convo.typeagent.adapters``), then adds the
records TypeAgent has not ingested yet through ``add_messages_with_indexing`` in batches
of ``BATCH``, each one transaction: Messages, SemanticRefs, SemanticRefIndex,
PropertyIndex, MessageTextIndex, RelatedTermsFuzzy, the timestamps and IngestedSources.
A message's key in IngestedSources is convo's record ``id`` (unique, stable across
re-ingests), not its ``source_id`` (a file and locator, which two messages can share), so
a re-run adds only records it has not seen. The knowledge is computed over all the
records given (key phrases rank against the whole selection, as ``convo knowledge``
does). ``open(db)`` opens such a database as a TypeAgent conversation with the same
embedder, so ``search_conversation`` and message-text similarity work without an API key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from convo.analysis.knowledge.extract import plain_all
from convo.analysis.knowledge.metadata import typeagent_knowledge
from convo.embed.protocol import Embedder
from convo.typeagent.adapters import (
    KnowledgeTable,
    TypeAgentEmbedder,
    content_only,
    embedded_texts,
    settings,
)

BATCH = 100
Plain = dict[str, Any]
Refine = Callable[[Plain, Plain], Plain]


@dataclass
class Built:
    """What one ``build`` did: records given, added and already there; semantic refs
    added; messages in the database after."""

    given: int = 0
    added: int = 0
    known: int = 0
    semrefs: int = 0
    messages: int = 0


def _embedder(embedder: Embedder | None) -> Embedder:
    if embedder is not None:
        return embedder
    from convo.embed.registry import make

    return make()


async def open(db: str, embedder: Embedder | None = None) -> Any:
    """The TypeAgent conversation in database ``db``, with convo's default embedder (or
    ``embedder``: it must be the model the database was built with; TypeAgent says so
    otherwise). Knowledge extraction is off: adding messages adds their metadata
    knowledge only (``build`` adds convo's)."""
    from typeagent import create_conversation
    from typeagent.knowpro.universal_message import ConversationMessage

    s = settings(TypeAgentEmbedder(_embedder(embedder)))
    return await create_conversation(db, ConversationMessage, settings=s)


async def _new_records(conv: Any, records: Sequence[Plain]) -> list[Plain]:
    storage = await conv.settings.get_storage_provider()
    seen: set[str] = set()
    new = []
    for r in records:
        rid = r["id"]
        if rid in seen or await storage.is_source_ingested(rid):
            continue
        seen.add(rid)
        new.append(r)
    return new


def knowledge_table(
    records: Sequence[Plain], new: Sequence[Plain], refine: Refine | None = None
) -> KnowledgeTable:
    """convo's content knowledge of the ``new`` records, with the statistics of all;
    ``refine(record, knowledge)`` (``llm.Refiner``) gives each one's from convo's."""
    wanted = {r["id"] for r in new}
    return KnowledgeTable(
        (
            record["textChunks"],
            content_only(
                refine(record, plain) if refine is not None else plain,
                typeagent_knowledge(record).to_dict(),
            ),
        )
        for record, plain in plain_all(list(records))
        if record["id"] in wanted
    )


async def build(
    records: Sequence[Plain],
    db: str,
    *,
    name: str = "convo",
    embedder: Embedder | None = None,
    on_batch: Callable[[int, int], None] | None = None,
    refine: Refine | None = None,
) -> Built:
    """Add the ``records`` (convo records, validated) TypeAgent has not ingested to the
    database ``db`` (module docstring); ``on_batch(done, new)`` after each batch."""
    from typeagent import create_conversation
    from typeagent.knowpro.universal_message import ConversationMessage

    model = TypeAgentEmbedder(_embedder(embedder))
    s = settings(model)
    conv = await create_conversation(db, ConversationMessage, name=name, settings=s)
    try:
        new = await _new_records(conv, records)
        out = Built(given=len(records), known=len(records) - len(new))
        if new:
            s.semantic_ref_index_settings.knowledge_extractor = knowledge_table(
                records, new, refine
            )
            s.semantic_ref_index_settings.auto_extract_knowledge = True
        for start in range(0, len(new), BATCH):
            part = new[start : start + BATCH]
            model.texts = {
                c: t for r in part for c, t in zip(r["textChunks"], embedded_texts(r), strict=True)
            }
            result = await conv.add_messages_with_indexing(
                [ConversationMessage.deserialize(r) for r in part],
                source_ids=[r["id"] for r in part],
            )
            out.added += result.messages_added
            out.semrefs += result.semrefs_added
            if on_batch is not None:
                on_batch(start + len(part), len(new))
        out.messages = await conv.messages.size()
        return out
    finally:
        await s.storage_provider.close()
