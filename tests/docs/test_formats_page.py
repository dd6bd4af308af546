"""docs/formats.md's table has a row, with its mapping, for every format `convo formats` lists."""

from __future__ import annotations

import re

from conftest import ROOT
from convo.importers.registry import registry


def test_every_format_has_a_row_in_the_formats_page():
    page = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    rows = {m[1]: m[0] for m in re.finditer(r"^\| `([a-z0-9-]+)` \|.*$", page, re.M)}
    missing = [f.name for f in registry.formats() if f.name not in rows]
    assert missing == []
    for name in (f.name for f in registry.formats()):
        assert rows[name].count(" | ") >= 5, name  # reads, speaker, thread, also
