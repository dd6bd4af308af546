"""convo: conversations from anywhere as TypeAgent ConversationMessage records.

The library works without the command line::

    import convo
    for msg in convo.read_messages("standup.vtt"):
        print(msg.speaker, msg.timestamp, msg.text)

Heavy modules load on first use, so ``import convo`` (and ``convo --help``) stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "ConversationMessage": ".model",
    "ConversationMessageMeta": ".model",
    "TranscriptMessage": ".model",
    "TranscriptMessageMeta": ".model",
    "UNIX_EPOCH": ".timestamps",
    "format_timestamp_utc": ".timestamps",
    "read_messages": ".ingest",
    "ImportOptions": ".importers.base",
    "Filters": ".query",
    "select": ".query",
    "Store": ".store",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:
    from .importers.base import ImportOptions
    from .ingest import read_messages
    from .model import (
        ConversationMessage,
        ConversationMessageMeta,
        TranscriptMessage,
        TranscriptMessageMeta,
    )
    from .query import Filters, select
    from .store import Store
    from .timestamps import UNIX_EPOCH, format_timestamp_utc


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'convo' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
