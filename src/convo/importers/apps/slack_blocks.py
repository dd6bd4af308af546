"""The text of a Slack message's Block Kit ``blocks``, for a message whose ``text`` is
empty: bots, workflows and the e-mail integration may post their whole content as
blocks (``section``, ``header``, ``context``, ``rich_text``) and leave ``text`` blank,
as users of Slack's API report (korotovsky/slack-mcp-server issue 186 and pull request
190; hfaran/slack-export-viewer pull request 225 reads blocks for the same reason).

The text is written as Slack's own mrkdwn (``<@U1>``, ``<#C1>``, ``<url|label>``, and
``&``, ``<``, ``>`` escaped in rich text), so ``slack_names.render_mrkdwn`` makes it
readable and finds its mentions as it does for ``text``.
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def blocks_text(blocks: Any) -> str:
    """The blocks' text, one block a paragraph ('' when they hold none)."""
    parts = (_block(as_dict(b)) for b in as_list(blocks))
    return "\n".join(p for p in parts if p.strip())


def _block(block: dict[str, Any]) -> str:
    kind = as_str(block.get("type"))
    if kind == "rich_text":
        return "\n".join(_rich(as_dict(e)) for e in as_list(block.get("elements")))
    if kind == "context":
        return " ".join(_object_text(as_dict(e)) for e in as_list(block.get("elements"))).strip()
    if kind in ("section", "header", "markdown"):
        lines = [_object_text(as_dict(block.get("text"))) or as_str(block.get("text"))]
        lines += [_object_text(as_dict(f)) for f in as_list(block.get("fields"))]
        return "\n".join(x for x in lines if x)
    return ""


def _object_text(obj: dict[str, Any]) -> str:
    """A text object: ``mrkdwn`` as written; ``plain_text`` escaped as mrkdwn."""
    text = as_str(obj.get("text"))
    return text if as_str(obj.get("type")) == "mrkdwn" else text.translate(_ESCAPES)


def _rich(element: dict[str, Any]) -> str:
    """One element of a ``rich_text`` block: a section, a list, a quote or code."""
    kind = as_str(element.get("type"))
    inner = [as_dict(e) for e in as_list(element.get("elements"))]
    if kind == "rich_text_list":
        ordered = as_str(element.get("style")) == "ordered"
        return "\n".join(
            f"{f'{i}.' if ordered else '-'} {_rich(item)}" for i, item in enumerate(inner, 1)
        )
    text = "".join(_inline(e) for e in inner)
    if kind == "rich_text_quote":
        return "\n".join(f"> {line}" for line in text.split("\n"))
    if kind == "rich_text_preformatted":
        return f"```\n{text}\n```"
    return text


def _inline(e: dict[str, Any]) -> str:
    """A run of a rich text section, as mrkdwn."""
    kind = as_str(e.get("type"))
    if kind == "text":
        return as_str(e.get("text")).translate(_ESCAPES)
    if kind == "user":
        return f"<@{as_str(e.get('user_id'))}>"
    if kind == "channel":
        return f"<#{as_str(e.get('channel_id'))}>"
    if kind == "usergroup":
        return f"<!subteam^{as_str(e.get('usergroup_id'))}>"
    if kind == "broadcast":
        return f"<!{as_str(e.get('range'))}>"
    if kind == "link":
        url, label = as_str(e.get("url")), as_str(e.get("text"))
        return f"<{url}|{label.translate(_ESCAPES)}>" if label else f"<{url}>"
    if kind == "emoji":
        return f":{as_str(e.get('name'))}:"  # as Slack writes emoji in ``text``
    if kind == "date":
        return as_str(e.get("fallback")).translate(_ESCAPES)
    return as_str(e.get("text")).translate(_ESCAPES)
