"""The order group of ``list``, ``query`` and ``show`` (``--sort``, ``--latest``,
``--count``): its options, declared once as ``cli.options.Spec`` like every other group,
and the ``OrderArgs`` they make."""

from __future__ import annotations

from typing import Any

from convo.cli.choices import Choices
from convo.cli.options import S, Spec, with_params
from convo.core.slotted import Slotted


class OrderArgs(Slotted):
    """The order group (``--sort``, ``--latest``, ``--count``) of list, query and show."""

    __slots__ = ("count", "latest", "sort")
    sort: str | None
    latest: int | None
    count: bool

    def __init__(self, sort: str | None = None, latest: int | None = None, count: bool = False):
        self.sort = sort
        self.latest = latest
        self.count = count


def order_options(func):
    """Add ``--sort time|-time``, ``--latest N`` and ``--count``; call ``func(order: OrderArgs, ...)``.

    Served by the store's index when it is fresh, else in flat memory (see
    ``convo.store.select``)."""
    return with_params(func, ORDER_SPECS, order_args)


ORDER_SPECS = (
    Spec("sort", S, None, ("--sort",), "Order by time (-time: newest first). Default: input order.", None, Choices(("time", "-time"), "--sort")),
    Spec("latest", int | None, None, ("--latest",), "Only the N most recent messages, shown oldest first.", "N"),
    Spec("count", bool, False, ("--count",), "Print how many messages match, not the messages."),
)  # fmt: skip


def order_args(kw: dict[str, Any]) -> dict[str, OrderArgs]:
    """``{"order": OrderArgs}`` from the values of ``ORDER_SPECS`` (popped from ``kw``)."""
    return {"order": OrderArgs(**{s.name: kw.pop(s.name) for s in ORDER_SPECS})}
