"""Write the query fields' table of docs/query.md from the code (`make docs` runs this).

The table between ``<!-- fields:start -->`` and ``<!-- fields:end -->`` is
``convo.query.field_table.markdown_table()``; tests/query/test_plan.py fails when the
page differs from it. ``--check`` only says whether the page is current (exit 1 if not).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from convo.query.field_table import markdown_table

PAGE = Path(__file__).resolve().parent.parent / "docs" / "query.md"
TABLE = re.compile(r"(<!-- fields:start -->\n)(.*?)(\n<!-- fields:end -->)", re.S)


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    if not TABLE.search(text):
        print(f"{PAGE}: no <!-- fields:start --> ... <!-- fields:end --> block", file=sys.stderr)
        return 2
    new = TABLE.sub(lambda m: m[1] + markdown_table() + m[3], text)
    if new == text:
        return 0
    if "--check" in argv:
        print(f"{PAGE}: the fields table is stale; run make docs", file=sys.stderr)
        return 1
    PAGE.write_text(new, encoding="utf-8")
    print(f"{PAGE}: fields table written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
