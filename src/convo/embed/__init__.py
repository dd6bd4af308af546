"""Search by meaning: embedders, the store's vectors, semantic search and fusion.

A layer between ``convo.index`` and ``convo.query | convo.pipeline``: it imports
``convo.core`` and ``convo.index`` (the store's lines, ``index.rows``), and numpy and the
model's package only when a function needs them (the ``[embed]`` extra); the query
planner and the store call it.

- ``protocol``: ``Embedder`` (TypeAgent's embedding-model shape) and ``EmbedderSpec``
- ``registry``: embedders by name (built-ins and the ``convo.embedders`` entry points)
- ``wordllama`` (the default, offline) and ``remote`` (an OpenAI-compatible server)
- ``chunks``: what of a message is embedded; long messages in chunks
- ``vectors``: ``<store>.vectors`` (raw float32 rows) and its catalogue
- ``quantized``: ``<store>.vectors.q8``, the int8 copy a search scans, rescored exactly
- ``blas``: numpy's BLAS on one thread in a search process
- ``build``: ``embed_store``, incremental
- ``nearest``: ``semantic`` and ``similar``, among candidates or all
- ``fusion``: reciprocal rank fusion and the keyword queries of a question
- ``check``: the vectors against the store
- ``serve``: an embedder behind an OpenAI-compatible ``/v1/embeddings`` endpoint
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo.core.lazy import lazy_attributes

_LAZY = {
    "embed_store": "build", "EmbedResult": "build", "embed_on_save": "build",
    "semantic": "nearest", "similar": "nearest", "Scored": "nearest",
    "fuse": "fusion", "hybrid": "fusion", "Fused": "fusion",
    "embedders": "registry", "make": "registry", "unavailable": "registry",
    "Embedder": "protocol", "EmbedderSpec": "protocol",
    "check_vectors": "check",
}  # fmt: skip

if TYPE_CHECKING:
    from convo.embed.build import EmbedResult, embed_on_save, embed_store
    from convo.embed.check import check_vectors
    from convo.embed.fusion import Fused, fuse, hybrid
    from convo.embed.nearest import Scored, semantic, similar
    from convo.embed.protocol import Embedder, EmbedderSpec
    from convo.embed.registry import embedders, make, unavailable


__getattr__ = lazy_attributes(
    "convo.embed", {name: f"convo.embed.{module}" for name, module in _LAZY.items()}, globals()
)


__all__ = [
    "EmbedResult", "Embedder", "EmbedderSpec", "Fused", "Scored", "check_vectors",
    "embed_on_save", "embed_store", "embedders", "fuse", "hybrid", "make", "semantic", "similar", "unavailable",
]  # fmt: skip
