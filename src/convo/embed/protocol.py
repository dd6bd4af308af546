"""What an embedder is: TypeAgent's embedding-model shape, synchronous.

An embedder has a ``model_name`` (recorded with the vectors it made, so that a store is
never searched with vectors of another model), its ``dims``, and turns one text
(``embed``) or a batch (``embed_batch``) into float32 vectors of unit length, one row per
text. TypeAgent's embedding model has the same parts (a model name, an embedding size,
one embedding and a batch of them, normalised), so the vectors convo keeps can later
build a TypeAgent database with the same model.

``EmbedderSpec`` is the registry's item (``convo.embed.registry``): a name people type
(``--model NAME``), a description, and a factory taking the optional model option
(``NAME:OPTION``, the remote model for the OpenAI-compatible client) that imports the
model's package only when called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    Vectors = Any  # numpy is imported only by what embeds or ranks


@runtime_checkable
class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def dims(self) -> int: ...

    def embed(self, text: str) -> Vectors:
        """One unit-length float32 vector of ``dims`` values."""
        ...

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """A ``(len(texts), dims)`` float32 array of unit-length rows."""
        ...


@dataclass(frozen=True)
class EmbedderSpec:
    """One registered embedder: ``factory(option)`` makes it (``option`` is the text after
    ``NAME:`` in ``--model NAME:OPTION``, or None); ``needs`` says what to install when
    the factory cannot import its package."""

    name: str
    description: str
    factory: Callable[[str | None], Embedder]
    needs: str = "embed"  # the extra to install (core.extras.install_hint says how)


def normalised(vectors: Vectors) -> Vectors:
    """``vectors`` as float32 rows of unit length (a zero row stays zero)."""
    import numpy as np

    out = np.asarray(vectors, dtype=np.float32)
    if out.ndim == 1:
        out = out.reshape(1, -1)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)
