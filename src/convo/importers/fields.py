"""What a format makes of its source, field by field: the ``fields`` of its ``Format``.

Each built-in format declares one ``Fields`` beside its registration, short phrases in
Markdown (code in backticks): where the record's speaker, listeners, time, thread, id,
replyTo, subject and tags come from, what goes to ``extra``, and the zone rule of its
times. The format reference (``docs/reference/formats/``, written by
``tools/docs_reference.py``) is made from them, so the mapping is written once, beside
the code that does it; the module docstring says why.

``id`` gives the id's shapes in backticks (``slack:<channel>:<ts>``; ``<...>`` is any
text) or says "content hash" (``h:...``, ``build.ContentIds``); ``scope`` is what makes
it unique (docs/ids.md). A test runs every format on a sample file and checks that the
ids it makes have one of the declared shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CONTENT_HASH", "NAIVE_IN_TZ", "Fields"]

CONTENT_HASH = "the content hash (`h:<hash>`)"
NAIVE_IN_TZ = "naive times are read in `--tz` (default UTC)"


@dataclass(frozen=True)
class Fields:
    """One format's mapping from its source to the record (one phrase a field)."""

    speaker: str
    listeners: str
    time: str
    zone: str  # how the time's zone is known: an offset in the data, UTC by definition, --tz
    thread: str
    id: str
    scope: str
    reply_to: str = "none"
    subject: str = "none"
    tags: str = "none of its own"  # every format also takes ``--tag``
    extra: str = "nothing"
