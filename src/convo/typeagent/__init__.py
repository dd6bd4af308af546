"""TypeAgent end to end: TypeAgent's own conversation database, built offline from convo.

A layer beside ``convo.output``, under the command line: it uses ``convo.analysis``
(knowledge) and ``convo.embed`` (the embedder), and imports the ``typeagent`` package
only in the modules that run under it (Python >= 3.12, the ``[typeagent]`` extra).

- ``pythons``: where a Python >= 3.12 is, and which one has TypeAgent (any Python)
- ``run``: ``export_database``, the database built by that Python (any Python)
- ``adapters``: convo's embedder as TypeAgent's ``IEmbedder``, convo's knowledge as its
  knowledge extractor, the ``ConversationSettings`` (Python >= 3.12)
- ``database``: ``build`` and ``open`` (Python >= 3.12)
- ``child``: ``python -m convo.typeagent.child``, what ``run`` starts

From Python >= 3.12 with TypeAgent: ``conv = await convo.typeagent.open("conv.db")``.
"""

from __future__ import annotations

from typing import Any


async def open(db: str, embedder: Any = None) -> Any:
    """The TypeAgent conversation in ``db`` with convo's embedder
    (``convo.typeagent.database.open``)."""
    from convo.typeagent.database import open as open_db

    return await open_db(db, embedder)


__all__ = ["open"]
