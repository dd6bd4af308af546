"""Slack's names: users and bots (a message's speaker), conversations (a DM's thread),
and mrkdwn references made readable with them (the rules are in
``convo.importers.apps.slack``'s docstring)."""

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


def _person_username(m: dict[str, Any], uid: str) -> str:
    """A person's name on an older export's file share (``"user": "U6006P1CN",
    "username": "k._"``), learnt as that user's name from here on, so the user has one
    name (and the share's "<@U6006P1CN> uploaded a file" no self-listener); "" for a
    bot's (``bot_id``, ``bot_message``) or none."""
    name = as_str(m.get("username")).strip()
    if uid and name and not m.get("bot_id") and m.get("subtype") != "bot_message":
        return name
    return ""


def speaker_name(m: dict[str, Any], users: dict[str, str], uid: str) -> str | None:
    """The speaker of message ``m`` by user id ``uid`` when ``users`` does not name it
    (``users`` learns a name its ``user_profile`` gives)."""
    if uid and uid in users:
        return users[uid]
    prof = (
        display_name({"profile": m.get("user_profile")})
        if isinstance(m.get("user_profile"), dict)
        else ""
    )
    if prof:
        if uid:
            users[uid] = prof
        return prof
    if uid == "USLACKBOT":
        return "Slackbot"
    bot_id = as_str(m.get("bot_id"))
    name = _person_username(m, uid)
    if name:
        users[uid] = name
        return name
    for v in (m.get("username"), as_dict(m.get("bot_profile")).get("name"), users.get(bot_id)):
        if isinstance(v, str) and v.strip():
            return v.strip()
    return uid or bot_id or None


def dm_label(conv: Conv, users: dict[str, str]) -> str:
    """A DM's thread: its members' names (``users`` may learn them as the day is read)."""
    names = [users.get(u, u) for u in conv.members if u]
    return "dm:" + ",".join(names) if names else f"dm:{conv.id}"


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
