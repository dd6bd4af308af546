"""Slack's names: users and bots, conversations, and mrkdwn references made readable
with them (the rules are in ``convo.importers.apps.slack``'s docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str


@dataclass
class Conv:
    id: str
    name: str
    kind: str  # channel | group | dm | mpim
    members: list[str] = field(default_factory=list)


def user_names(data: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for u in as_list(data):
        u = as_dict(u)
        uid = as_str(u.get("id"))
        if uid:
            out[uid] = display_name(u) or uid
    return out


def display_name(u: dict[str, Any]) -> str:
    p = as_dict(u.get("profile"))
    for v in (
        p.get("display_name"),
        p.get("real_name"),
        u.get("display_name"),
        u.get("real_name"),
        u.get("name"),
    ):
        if isinstance(v, str) and v.strip():
            return v.strip()
    return ""


_ANGLE = re.compile(r"<([^<>\n]{1,2000})>")


def render_mrkdwn(
    text: str, users: dict[str, str], convs: dict[str, Conv]
) -> tuple[str, list[str]]:
    """Slack's escaped references made readable; returns the text and the mentioned names."""
    if "<" not in text and "&" not in text:
        return text, []
    mentioned: list[str] = []

    def sub(m: re.Match[str]) -> str:
        body = m.group(1)
        target, _, label = body.partition("|")
        if target.startswith("@"):
            uid = target[1:]
            name = users.get(uid) or label.lstrip("@") or uid
            mentioned.append(name)
            return "@" + name
        if target.startswith("#"):
            cid = target[1:]
            conv = convs.get(cid)
            return "#" + (label or (conv.name if conv else cid))
        if target.startswith("!"):
            word = target[1:]
            if word in ("here", "channel", "everyone"):
                return "@" + word
            if label:
                return label
            kind, _, ident = word.partition("^")
            return "@" + (ident or kind)
        if label and label != target and not target.endswith(label):
            return f"{label} ({target})"
        return label if label and target.startswith("mailto:") else target

    out = _ANGLE.sub(sub, text)
    out = out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return out, mentioned
