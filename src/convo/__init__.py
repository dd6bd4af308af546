"""convo: conversations from anywhere as TypeAgent ConversationMessage records.

The library works without the command line::

    import convo
    for msg in convo.read_messages("standup.vtt"):
        print(msg.speaker, msg.timestamp, msg.text)

Heavy modules load on first use, so ``import convo`` (and ``convo --help``) stay fast.
"""

from __future__ import annotations

from convo.core.lazy import lazy_attributes

__version__ = "0.1.0"

_LAZY = {
    "ConversationMessage": "convo.core.record",
    "ConversationMessageMeta": "convo.core.record",
    "TranscriptMessage": "convo.core.record",
    "TranscriptMessageMeta": "convo.core.record",
    "UNIX_EPOCH": "convo.core.timestamps",
    "format_timestamp_utc": "convo.core.timestamps",
    "read_messages": "convo.pipeline.ingest",
    "ImportOptions": "convo.importers.context",
    "Filters": "convo.query.filters",
    "select": "convo.query.scan",
    "Store": "convo.store.api",
    "Query": "convo.query.model",
}

__all__ = ["__version__", *_LAZY]

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.core.record import (
        ConversationMessage,
        ConversationMessageMeta,
        TranscriptMessage,
        TranscriptMessageMeta,
    )
    from convo.core.timestamps import UNIX_EPOCH, format_timestamp_utc
    from convo.importers.context import ImportOptions
    from convo.pipeline.ingest import read_messages
    from convo.query.filters import Filters
    from convo.query.model import Query
    from convo.query.scan import select
    from convo.store.api import Store


__getattr__ = lazy_attributes("convo", _LAZY, globals())


def __dir__() -> list[str]:
    """The public API (``__all__``, the lazily loaded names included), not the helpers
    this module imports for itself."""
    return sorted(__all__)
