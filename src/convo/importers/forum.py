"""The forum importers (not written yet)."""

from __future__ import annotations


def register(registry) -> None:
    """Register this family's formats (none yet)."""
