"""A tag's name as a user types it for ``tag add|rm`` and ``ingest --tag``.

notmuch and mu users write ``+inbox`` and ``-spam``; in convo the command says add or
remove, and a tag named ``+foo`` would only ever be found as ``+foo``. So a leading
``+`` or ``-`` is taken for that syntax: it is dropped and the command says so on
stderr; a name that is empty then (or blank) is refused.
"""

from __future__ import annotations

from convo.core.errors import UsageError


def tag_name(value: str) -> tuple[str, str | None]:
    """(the tag, a note for stderr when the value was changed)."""
    name = value.strip()
    note = None
    if name[:1] in ("+", "-"):
        name = name[1:].strip()
        sign = value.strip()[0]
        note = f"tag {value!r}: a leading {sign} is not part of a name; using {name!r}"
    if not name:
        raise UsageError(f"empty tag name {value!r}", hint="give a name such as inbox")
    return name, note
