"""ChatGPT messages that are not plain turns, as real exports hold them.

- A reasoning model's thinking written as a tool's message (o1, o3-mini and the pro
  mode, 2024-2025): ``author`` ``{"role": "tool", "name": "a8km123"}``, the reasoning
  summary in ``parts``, ``metadata.initial_text`` ("Reasoning") and
  ``finished_text`` ("Reasoned for 16 seconds"). It is the assistant's private
  reasoning, read as a ``thoughts`` message is: ``as_reasoning`` turns it into one.
- The custom instructions and the model's memory the app puts before a conversation,
  hidden from it: ``user_editable_context`` (``user_profile``, ``user_instructions``) and
  ``model_editable_context`` (``model_set_context``). They are no turn of the
  conversation; ``editable_context`` gives what they hold, kept in the next message's
  ``extra.context``.
- A ``tether_quote`` (a quote from a page or an uploaded file: ``title``, ``url``,
  ``domain``), a ``sonic_webpage`` (a page the search read, the same keys) and a
  ``system_error`` (``name``): ``content_extras``.
- Contents without text: the agent's browser (``computer_output``: a screenshot and the
  page's ``state``) and the desktop app's paired windows (``app_pairing_content``:
  ``workspaces`` and ``context_parts``) read as what they show: ``kind_chunks``.
- Files the user uploaded (``metadata.attachments``: ``id``, ``name``, ``mime_type``,
  ``size``) are ``[file NAME]`` chunks, but for images the message's parts already
  show: ``attachments``.
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict, as_list, as_str

REASONING_TOOL = "a8km123"
# What a reasoning message's metadata carries besides its two texts (pro mode, async).
_REASONING_KEYS = ("finished_duration_sec", "async_task_type", "cot_version")
CONTEXT_TYPES = {
    "user_editable_context": ("user_profile", "user_instructions"),
    "model_editable_context": ("model_set_context", "repo_summary", "structured_context"),
}


def is_reasoning(msg: dict[str, Any]) -> bool:
    """Whether a message is a reasoning model's thinking written as a tool's message."""
    author = as_dict(msg.get("author"))
    if author.get("role") != "tool":
        return False
    if author.get("name") == REASONING_TOOL:
        return True
    meta = as_dict(msg.get("metadata"))
    return bool(
        meta.get("initial_text")
        and meta.get("finished_text")
        and any(k in meta for k in _REASONING_KEYS)
    )


def as_reasoning(msg: dict[str, Any]) -> dict[str, Any]:
    """The message as the assistant's ``thoughts`` (its text the thought, the
    ``finished_text`` its summary), the tool's name kept as ``author_name``."""
    content = as_dict(msg.get("content"))
    text = "\n\n".join(x for x in as_list(content.get("parts")) if isinstance(x, str))
    text = text or as_str(content.get("text"))
    thought = {
        "summary": as_str(as_dict(msg.get("metadata")).get("finished_text")),
        "content": text,
    }
    return {
        **msg,
        "author": {"role": "assistant", "name": None},
        "recipient": "all",
        "content": {"content_type": as_str(content.get("content_type")), "thoughts": [thought]},
        "author_name": as_str(as_dict(msg.get("author")).get("name")),
    }


def editable_context(msg: dict[str, Any]) -> dict[str, Any] | None:
    """What a custom-instructions or memory message holds (``{content_type, KEY:
    value}``, empty when it holds nothing), or None for any other message."""
    content = as_dict(msg.get("content"))
    kind = as_str(content.get("content_type"))
    keys = CONTEXT_TYPES.get(kind)
    if keys is None:
        return None
    held = {k: content[k] for k in keys if content.get(k) and content[k] != {}}
    return {"content_type": kind, **held} if held else {}


def content_extras(content: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A quote's source (``quote``: title, url, domain) and an error's name (``error``,
    tagged ``error``)."""
    kind = content.get("content_type")
    if kind in ("tether_quote", "sonic_webpage"):
        quote = {
            k: as_str(content.get(k)) for k in ("title", "url", "domain") if as_str(content.get(k))
        }
        return ({"quote": quote} if quote else {}), []
    if kind == "system_error":
        return {"error": as_str(content.get("name")) or None}, ["error"]
    return {}, []


def media_ref(part: dict[str, Any]) -> tuple[str, str]:
    """An object part's kind and where its file is: a voice-mode recording
    (``real_time_user_audio_video_asset_pointer``) names its audio's (and video's)
    pointer."""
    kind = as_str(part.get("content_type")) or "part"
    if kind == "real_time_user_audio_video_asset_pointer":
        refs = [
            as_str(as_dict(part.get(k)).get("asset_pointer"))
            for k in ("audio_asset_pointer", "video_container_asset_pointer")
        ]
        frames = len(as_list(part.get("frames_asset_pointers")))
        shown = " ".join(r for r in refs if r) + (f" ({frames} frames)" if frames else "")
        return ("video" if refs[1] or frames else "audio"), shown
    ref = as_str(part.get("asset_pointer")) or as_str(part.get("name")) or as_str(part.get("url"))
    return kind.replace("_asset_pointer", ""), ref


def kind_chunks(content: dict[str, Any]) -> list[str]:
    """The chunks of a content that has no text: a browser's page and screenshot, a
    paired app's windows and the text it gave."""
    kind = content.get("content_type")
    if kind == "computer_output":
        state = as_dict(content.get("state"))
        shot = as_str(as_dict(content.get("screenshot")).get("asset_pointer"))
        page = " ".join(x for x in (as_str(state.get("title")), as_str(state.get("url"))) if x)
        return [
            x
            for x in (f"[page] {page}" if page else "", f"[screenshot] {shot}" if shot else "")
            if x
        ]
    if kind == "app_pairing_content":
        windows = [
            f"[app {as_str(w.get('app_name')) or 'window'}] {as_str(w.get('title'))}".rstrip()
            for w in map(as_dict, as_list(content.get("workspaces")))
        ]
        texts = [as_str(as_dict(p).get("text")) for p in as_list(content.get("context_parts"))]
        return windows + [t for t in texts if t.strip()]
    return []


def attachments(meta: dict[str, Any], parts: list[Any]) -> tuple[list[str], list[Any]]:
    """``[file NAME]`` chunks for the files a message's ``metadata.attachments`` lists
    that its parts do not show, and the list kept as it is."""
    listed = [a for a in as_list(meta.get("attachments")) if isinstance(a, dict)]
    shown = " ".join(as_str(as_dict(p).get("asset_pointer")) for p in parts)
    chunks = [
        f"[file {as_str(a.get('name')) or as_str(a.get('id'))}]"
        for a in listed
        if not (as_str(a.get("id")) and as_str(a.get("id")) in shown)
    ]
    return [c for c in chunks if c != "[file ]"], listed
