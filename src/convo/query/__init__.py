"""Filtering records: the filters and the byte-prefiltered scan."""

from convo.query.scan import Filters, select

__all__ = ["Filters", "select"]
