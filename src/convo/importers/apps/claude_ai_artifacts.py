"""claude.ai artifacts: the assistant writes an artifact by a ``tool_use`` block of the
tool ``artifacts``, its ``input`` ``{"id", "type", "title", "command": "create",
"content", "language"}`` (``"rewrite"`` the same), ``{"id", "command": "update",
"old_str", "new_str"}`` for an edit.

As text, the call reads as the artifact panel shows it: ``[artifact TITLE]`` and the
content whole (not shortened as other tool calls are), ``[artifact update ID]`` and the
new text; the block stays in ``extra.blocks``. Any other call is left to the shared block
chunks.
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict, as_str


def artifact_text(block: dict[str, Any]) -> str | None:
    """The chunk of an ``artifacts`` call as the panel shows it, or None for any other
    block (or a call without text)."""
    if block.get("name") != "artifacts":
        return None
    call = as_dict(block.get("input"))
    name = as_str(call.get("title")) or as_str(call.get("id"))
    command = as_str(call.get("command"))
    if command == "update" and as_str(call.get("new_str")):
        return f"[artifact update {name}]".replace(" ]", "]") + "\n" + as_str(call["new_str"])
    if as_str(call.get("content")):
        return f"[artifact {name}]".replace(" ]", "]") + "\n" + as_str(call["content"])
    return None
