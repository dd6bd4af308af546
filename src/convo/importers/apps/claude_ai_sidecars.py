"""The files a claude.ai export holds beside ``conversations.json``: ``users.json`` (the
account: ``uuid``, ``full_name``, ``email_address``, ``verified_phone_number``),
``projects.json`` (each project's ``name``, ``prompt_template`` and ``docs``) and
``memories.json`` (``conversations_memory``, ``project_memories``).

They hold no conversation. Ingesting the export folder recognises them (so the run does
not count them as unreadable files and exit 1, and ``users.json`` is not taken for a
Slack export's) and reads no message from them; what the user wrote in projects and
memories is named in a warning, not dropped unsaid.
"""

from __future__ import annotations

from convo.core.io import Source, load_json
from convo.core.plural import counted
from convo.importers.context import ImportContext
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head_with

USERS, PROJECTS, MEMORIES = "users.json", "projects.json", "memories.json"
# The keys every such file has (by name), as claude.ai writes them.
_KEYS = {
    USERS: ("email_address", "full_name"),
    PROJECTS: ("prompt_template", "is_starter_project"),
    MEMORIES: ("conversations_memory",),
}


def sidecar(source: Source) -> str:
    """``users.json``, ``projects.json`` or ``memories.json`` when ``source`` is one of a
    claude.ai export (its name and keys); "" otherwise."""
    keys = _KEYS.get(source.match_name)
    if not keys:
        return ""
    text = json_head_with(source, key=keys[0])
    return source.match_name if text and all(has_key(text, k) for k in keys) else ""


def report(source: Source, kind: str, ctx: ImportContext) -> None:
    """No messages; a warning names the projects' instructions and documents, or the
    memories, that a conversation import does not read."""
    if kind == USERS:
        return
    data = load_json(source)
    items = [as_dict(x) for x in (data if isinstance(data, list) else [data])]
    if kind == PROJECTS:
        docs = sum(len(as_list(p.get("docs"))) for p in items)
        prompts = sum(1 for p in items if as_str(p.get("prompt_template")).strip())
        what = f"{counted(len(items), 'project')}, {prompts} with instructions, {counted(docs, 'document')}"
    else:
        what = "the memory claude.ai keeps of your conversations and projects"
    ctx.warn(source.name, f"claude.ai {kind} holds {what}, no conversation; not read")
