"""convo's embedder and convo's knowledge in the shapes TypeAgent takes (Python >= 3.12).

- ``TypeAgentEmbedder``: a ``convo.embed`` embedder as TypeAgent's ``IEmbedder``
  (``model_name``, ``get_embedding_nocache``, ``get_embeddings_nocache``), wrapped by
  TypeAgent's ``CachingEmbeddingModel`` in ``settings``. TypeAgent records the model's
  name in the database and refuses to open it with another model, so a database built
  here opens only with the same convo embedder (``convo.typeagent.database.open``).
  ``texts`` maps a text TypeAgent asks for to the text embedded instead: ``build`` fills
  it for each batch with its messages' chunks, so that TypeAgent's message-text index
  holds what convo embeds for search by meaning (``embedded_texts``: the speaker's name
  before the text, the subject with a one-chunk message, ``convo.embed.chunks``), and
  similarity through TypeAgent ranks as ``convo.embed.semantic`` does; queries are
  embedded as they are, in both. Two chunks of one text by different speakers share one
  entry (the later one's) within a batch.
- ``KnowledgeTable``: TypeAgent's knowledge extractor (``async extract(text)`` returning
  ``typechat.Success(KnowledgeResponse)``), answering from knowledge convo computed
  beforehand. TypeAgent calls it once per chunk with the chunk's text only and adds the
  speaker/listener entities and "say" actions from the metadata itself, so the table holds
  convo's knowledge without what TypeAgent's metadata knowledge already gives
  (``content_only``), under the text of each message's first chunk (later chunks get
  none: convo's knowledge is per message). Two messages with the same first chunk share
  their knowledge, merged. A text not in the table gets empty knowledge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from convo.embed.protocol import Embedder

Plain = dict[str, Any]
# TypeAgent's message-text similarity keeps scores >= 0.7 (its 0..1 scale is (1 + cos) / 2,
# so cosine >= 0.4), tuned for OpenAI's models. WordLlama's cosines run lower: the best
# message for five questions on the shared corpus scored cosine 0.23 to 0.46, so 0.7 left
# three of them with no match at all. 0.6 (cosine >= 0.2) keeps them.
MESSAGE_MIN_SCORE = 0.6
KINDS = ("entities", "actions", "inverse_actions", "topics")


class TypeAgentEmbedder:
    """A convo embedder as TypeAgent's ``IEmbedder``."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.texts: dict[str, str] = {}

    @property
    def model_name(self) -> str:
        return self._embedder.model_name

    async def get_embedding_nocache(self, input: str) -> Any:
        return self._embedder.embed(self.texts.get(input, input))

    async def get_embeddings_nocache(self, input: list[str]) -> Any:
        if not input:
            raise ValueError("Cannot embed an empty list")
        return self._embedder.embed_batch([self.texts.get(t, t) for t in input])


def embedded_texts(record: Plain) -> list[str]:
    """What convo embeds for each of ``record``'s chunks (``TypeAgentEmbedder.texts``):
    a one-chunk message as ``convo.embed.chunks.message_text``, the chunks of a longer
    one each after the speaker's name."""
    from convo.core import fields
    from convo.embed.chunks import message_text

    chunks = record["textChunks"]
    if len(chunks) == 1:
        return [message_text(record) or chunks[0]]
    speaker = fields.speaker(record)
    return [f"{speaker}: {c}" if speaker and c.strip() else c for c in chunks]


def content_only(knowledge: Plain, metadata: Plain) -> Plain:
    """``knowledge`` without the entities and actions that ``metadata`` (TypeAgent's
    metadata knowledge of the same message) already has."""
    out = dict(knowledge)
    for kind in ("entities", "actions"):
        known = metadata.get(kind) or []
        out[kind] = [x for x in knowledge.get(kind) or [] if x not in known]
    return out


def _merged(a: Plain, b: Plain) -> Plain:
    return {k: a.get(k, []) + [x for x in b.get(k, []) if x not in a.get(k, [])] for k in KINDS}


class KnowledgeTable:
    """TypeAgent's knowledge extractor over knowledge convo computed (module docstring)."""

    def __init__(self, items: Iterable[tuple[Sequence[str], Plain]]) -> None:
        from pydantic import TypeAdapter
        from typeagent.knowpro.knowledge_schema import KnowledgeResponse

        self._adapter: Any = TypeAdapter(KnowledgeResponse)
        self._table: dict[str, Plain] = {}
        for chunks, knowledge in items:
            if chunks:
                old = self._table.get(chunks[0])
                self._table[chunks[0]] = knowledge if old is None else _merged(old, knowledge)

    async def extract(self, text: str) -> Any:
        import typechat

        plain = self._table.get(text) or {k: [] for k in KINDS}
        return typechat.Success(self._adapter.validate_python(plain))


def settings(embedder: TypeAgentEmbedder, extractor: Any = None) -> Any:
    """TypeAgent ``ConversationSettings`` with ``embedder`` as its model (and
    ``extractor`` as its knowledge extractor; without one, no knowledge is extracted
    beyond the metadata's)."""
    from typeagent.aitools.embeddings import CachingEmbeddingModel
    from typeagent.knowpro.convsettings import ConversationSettings

    s = ConversationSettings(model=CachingEmbeddingModel(embedder))
    s.message_text_index_settings.embedding_index_settings.min_score = MESSAGE_MIN_SCORE
    s.semantic_ref_index_settings.knowledge_extractor = extractor
    s.semantic_ref_index_settings.auto_extract_knowledge = extractor is not None
    return s
