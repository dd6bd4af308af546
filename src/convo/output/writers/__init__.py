"""The streaming writers of the read commands (``-f/--format``).

The formats themselves live in the one output registry (``convo.output.exporters.
registry``): the views (table, text, jsonl, json) are declared there with their writer
factories, and every document format with a ``Document`` (markdown, csv) gets a
``DocumentWriter`` over the same object ``convo export --to`` streams. Each writer's
module is imported when it is made.
"""

from __future__ import annotations

from datetime import tzinfo

from convo.core.slotted import Frozen

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.output.env import Environment
    from convo.output.writers.base import RecordWriter


class WriteOptions(Frozen):
    """What a writer may need besides the stream: the zone times are shown in."""

    __slots__ = ("columns", "utc", "zone")
    utc: bool
    zone: tzinfo | None  # None: local time (or UTC with ``utc``)
    columns: tuple[str, ...] | None  # the table's (``writers.columns``); None: default

    def __init__(
        self,
        utc: bool = False,
        zone: tzinfo | None = None,
        columns: tuple[str, ...] | None = None,
    ) -> None:
        self._set(utc=utc, zone=zone, columns=columns)


def make_writer(name: str, env: Environment, options: WriteOptions) -> RecordWriter:
    """The streaming writer of the format ``name`` (``-f name``)."""
    from convo.output.exporters.registry import registry

    factory = registry.get_shown(name).writer
    assert factory is not None
    return factory(env, options)


def is_raw(name: str) -> bool:
    """``-f name`` passes the selected lines through as they are."""
    from convo.output.exporters.registry import registry

    return registry.get_shown(name).raw
