"""Continue's shared sessions (``convo.importers.agents.continue_md``): ``/share``'s
Markdown in both layouts continuedev/continue ``core/commands/slash/share.ts`` wrote, as
users commit them (a pasted CRLF text whose quoted lines end in ``> ``; a heading inside
a fence of the 2024 layout). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import continue_md
from convo.importers.registry import registry

DIR = FIXTURES / "continue_md"


def test_quoted_layout():
    path = DIR / "session.md"
    assert registry.detect(Source(path)).name == "continue-md"
    recs, rejects, warnings = run(continue_md.read, path)
    assert not rejects
    assert warnings == ["session.md: skipped 1 empty message"]
    assert [(r["role"], r["metadata"]["listeners"], r["textChunks"]) for r in recs] == [
        ("user", ["assistant"], ["```cpp\n// cpp kettle/thermo.cpp (1-4)\n#include <iostream>\n\n"
                                 "int cutoff() { return 90; }\n```\nwhy does it click off early?"]),
        ("assistant", ["user"], ["The cutoff is 90 C; raise it:\n\n```cpp\nint cutoff() { return 100; }\n```"]),
        ("user", ["assistant"], ["thanks"]),
    ]  # fmt: skip
    assert {r["timestamp"] for r in recs} == {"2025-11-05T16:32:53Z"}
    assert {r["thread"] for r in recs} == {"continue-md:session.md"}


def test_2024_layout():
    path = DIR / "20240219T113846_session.md"
    assert registry.detect(Source(path)).name == "continue-md"
    recs, rejects, _ = run(continue_md.read, path)
    assert not rejects
    assert [(r["role"], r["textChunks"], r["timestamp"]) for r in recs] == [
        ("user", ["build a script to filter a data frame"], "2024-02-19T11:38:46Z"),
        (
            "assistant",
            ["```\n## User\nimport pandas as pd\n```\nUse `df.query`."],
            "2024-02-19T11:38:46Z",
        ),
    ]
    assert recs[1]["extra"] == {"original_role": "Continue"}
