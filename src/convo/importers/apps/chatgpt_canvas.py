"""ChatGPT canvas: the assistant writes a canvas document by a call to the ``canmore``
tool, its text the call's JSON (``recipient`` ``canmore.create_textdoc``: ``{"name",
"type", "content"}``; ``canmore.update_textdoc``: ``{"updates": [{"pattern",
"replacement"}]}``; ``canmore.comment_textdoc``: ``{"comments": [{"pattern",
"comment"}]}``).

As text, the call reads as what the canvas shows: ``[canvas NAME]`` and the document,
``[canvas update]`` and the new text, ``[canvas comments]`` and the comments; the call's
JSON is kept in ``extra.raw_text``. A call that is not such JSON stays as written.
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.importers.jsoninput import as_dict, as_list, as_str


def canvas_text(recipient: str, chunks: list[str]) -> tuple[list[str], dict[str, Any]]:
    """The chunks of a message to ``canmore`` as the canvas shows them, and the extras
    keeping the call; anything else unchanged."""
    if not recipient.startswith("canmore.") or len(chunks) != 1:
        return chunks, {}
    try:
        call = orjson.loads(chunks[0])
    except orjson.JSONDecodeError:
        return chunks, {}
    if not isinstance(call, dict):
        return chunks, {}
    shown = _shown(recipient.removeprefix("canmore."), call)
    return ([shown], {"raw_text": chunks}) if shown else (chunks, {})


def _shown(action: str, call: dict[str, Any]) -> str:
    if action == "create_textdoc":
        return f"[canvas {as_str(call.get('name'))}]\n{as_str(call.get('content'))}".strip()
    if action == "update_textdoc":
        new = [as_str(as_dict(u).get("replacement")) for u in as_list(call.get("updates"))]
        return "[canvas update]\n" + "\n".join(x for x in new if x) if new else ""
    if action == "comment_textdoc":
        notes = [as_str(as_dict(c).get("comment")) for c in as_list(call.get("comments"))]
        return "[canvas comments]\n" + "\n".join(x for x in notes if x) if notes else ""
    return ""
