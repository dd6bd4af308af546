"""The order group of ``list``, ``query`` and ``show`` (``--sort``, ``--latest``,
``--count``): its options, declared once as ``cli.options.Spec`` like every other group,
and the ``OrderArgs`` (``cli/read_args.py``) they make."""

from __future__ import annotations

from convo.cli.choices import Choices
from convo.cli.options import S, Spec, with_params
from convo.cli.read_args import OrderArgs

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any


def order_options(func):
    """Add ``--sort time|-time``, ``--latest N`` and ``--count``; call ``func(order: OrderArgs, ...)``.

    Served by the store's index when it is fresh, else in flat memory (see
    ``convo.store.select``)."""
    return with_params(func, ORDER_SPECS, order_args)


ORDER_SPECS = (
    Spec("sort", S, None, ("--sort",), "Order by time (-time: newest first). Default: -time in a table on a terminal, else input order (the config file's sort replaces both); show's conversation: time.", None, Choices(("time", "-time"), "--sort")),
    Spec("latest", int | None, None, ("--latest",), "Only the N most recent messages, shown oldest first.", "N"),
    Spec("count", bool, False, ("--count",), "Print how many messages match, not the messages."),
)  # fmt: skip


def order_args(kw: dict[str, Any]) -> dict[str, OrderArgs]:
    """``{"order": OrderArgs}`` from the values of ``ORDER_SPECS`` (popped from ``kw``)."""
    return {"order": OrderArgs(**{s.name: kw.pop(s.name) for s in ORDER_SPECS})}
