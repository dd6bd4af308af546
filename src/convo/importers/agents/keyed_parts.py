"""Content parts told by a key, not a ``type``: Haystack's and Semantic Kernel's.

Each becomes the typed part ``blocks.normalise_block`` reads (``{"type": "tool_use",
...}``), so the one normaliser finishes it.

- Haystack (deepset-ai/haystack ``haystack/dataclasses/chat_message.py``,
  ``ChatMessage.to_dict``): a part is a one-key dict, ``{"text"}``, ``{"tool_call":
  {tool_name, arguments, id}}``, ``{"tool_call_result": {result, origin: <tool_call>,
  error}}``, ``{"reasoning": {reasoning_text}}``, ``{"image": {base64_image, mime_type}}``,
  ``{"file": {base64_data, mime_type, filename}}``. Versions 2.9-2.11 wrote the message's
  own keys with an underscore (``_role``, ``_content``, ``_name``, ``_meta``):
  ``haystack_message`` gives them back without it.
- Semantic Kernel, Python (microsoft/semantic-kernel ``python/semantic_kernel/contents``:
  ``ChatHistory.serialize``, pydantic's dump without the ``None`` fields): a message's
  ``items`` each carry ``content_type`` (``text``, ``function_call`` with ``name``
  (``plugin-function``), ``arguments``, ``id``; ``function_result`` with ``result``,
  ``call_id``/``id``; ``image`` with ``uri``/``data_uri``; ``reasoning``;
  ``file_reference``...). .NET (``JsonSerializer.Serialize(chatHistory)``, as its own
  logs print it): ``{"Role": {"Label": "user"}, "Items": [{"$type": "TextContent",
  "Text"}], "AuthorName", "ModelId", "Metadata": {"CreatedAt"}}``, camelCase with the web
  defaults; ``kernel_message`` gives either as the Python shape's keys.
"""

from __future__ import annotations

from typing import Any

from convo.importers.jsoninput import as_dict

# .NET's content class names to the Python ``content_type``
_DOTNET_TYPES = {
    "TextContent": "text",
    "FunctionCallContent": "function_call",
    "FunctionResultContent": "function_result",
    "ImageContent": "image",
    "AudioContent": "audio",
    "BinaryContent": "binary",
    "FileReferenceContent": "file_reference",
    "AnnotationContent": "annotation",
    "ReasoningContent": "reasoning",
}
_HAYSTACK_KEYS = ("tool_call", "tool_call_result", "reasoning", "image", "file")


def _camel(obj: dict[str, Any]) -> dict[str, Any]:
    """``{"FunctionName": ...}`` and ``{"functionName": ...}`` as ``{"function_name": ...}``."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        snake = "".join("_" + c.lower() if c.isupper() else c for c in key).lstrip("_")
        out[snake] = value
    return out


def kernel_message(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A Semantic Kernel ``ChatMessageContent`` (either language) with the Python keys
    (``role`` a string, ``items`` its parts, ``name``, ``metadata``), else None."""
    if "content" in obj:
        return None
    if isinstance(obj.get("items"), list) and isinstance(obj.get("role"), (str, dict)):
        found = dict(obj)
    elif isinstance(obj.get("Items"), list) and isinstance(obj.get("Role"), dict):
        found = _camel(obj)
    else:
        return None
    role = found.get("role")
    if isinstance(role, dict):  # .NET's AuthorRole: {"Label": "user"}
        role = role.get("Label", role.get("label"))
        found["role"] = role.lower() if isinstance(role, str) else role
    if "author_name" in found and "name" not in found:
        found["name"] = found.pop("author_name")
    return found


def kernel_time(message: dict[str, Any]) -> Any:
    """The time a Semantic Kernel message says it was made: .NET's ``Metadata.CreatedAt``,
    the Python OpenAI connector's ``metadata.created`` (epoch seconds)."""
    meta = message.get("metadata")
    if not isinstance(meta, dict):
        return None
    return meta.get("CreatedAt", meta.get("createdAt", meta.get("created")))


def _kernel_item(part: dict[str, Any]) -> dict[str, Any] | None:
    kind = part.get("content_type")
    if isinstance(part.get("$type"), str):
        kind = _DOTNET_TYPES.get(part["$type"], part["$type"])
        part = _camel({k: v for k, v in part.items() if k != "$type"})
    if not isinstance(kind, str):
        return None
    if kind in ("text", "reasoning"):
        key = "text" if kind == "text" else "thinking"
        return {"type": key, key: part.get("text")}
    if kind == "function_call":
        return {"type": "tool_use", "id": part.get("id", part.get("call_id")),
                "name": _function_name(part), "input": part.get("arguments")}  # fmt: skip
    if kind == "function_result":
        return {"type": "tool_result", "tool_use_id": part.get("call_id", part.get("id")),
                "name": _function_name(part), "content": part.get("result")}  # fmt: skip
    if kind in ("image", "audio", "binary"):
        return _kernel_media("image" if kind == "image" else "file", part)
    if kind == "file_reference":
        return {"type": "file", "file_id": part.get("file_id")}
    return {"type": kind, **{k: v for k, v in part.items() if k != "content_type"}}


def _kernel_media(kind: str, part: dict[str, Any]) -> dict[str, Any]:
    """A media item by its ``uri``, else its ``data_uri`` (``data:TYPE;base64,...``)."""
    media: dict[str, Any] = {"type": kind}
    uri, data = part.get("uri"), part.get("data_uri")
    if isinstance(uri, str):
        media["url"] = uri
    elif isinstance(data, str) and kind == "image":
        media["source"] = data  # the normaliser splits a data URL
    elif isinstance(data, str):
        media["data"] = data.partition(",")[2] or data
    if isinstance(part.get("mime_type"), str):
        media["media_type"] = part["mime_type"]
    return media


def _function_name(part: dict[str, Any]) -> Any:
    """The tool's name as the model saw it: ``plugin-function`` (Python's ``name``)."""
    if isinstance(part.get("name"), str):
        return part["name"]
    plugin, function = part.get("plugin_name"), part.get("function_name")
    return f"{plugin}-{function}" if plugin and function else function


def _haystack_part(part: dict[str, Any]) -> dict[str, Any] | None:
    if len(part) != 1:
        return None
    key, body = next(iter(part.items()))
    if key not in _HAYSTACK_KEYS or not isinstance(body, dict):
        return None
    if key == "tool_call":
        return {"type": "tool_use", "id": body.get("id"), "name": body.get("tool_name"),
                "input": body.get("arguments")}  # fmt: skip
    if key == "tool_call_result":
        origin = as_dict(body.get("origin"))
        return {"type": "tool_result", "tool_use_id": origin.get("id"),
                "name": origin.get("tool_name"), "content": body.get("result"),
                "is_error": bool(body.get("error"))}  # fmt: skip
    if key == "reasoning":
        return {"type": "thinking", "thinking": body.get("reasoning_text")}
    data = body.get("base64_image", body.get("base64_data"))
    if key == "image":
        return {"type": "image", "source": {"media_type": body.get("mime_type"), "data": data}}
    return {"type": "file", "media_type": body.get("mime_type"), "data": data,
            "filename": body.get("filename")}  # fmt: skip


def keyed_part(part: dict[str, Any]) -> dict[str, Any] | None:
    """A part without a ``type`` as the typed part it stands for, else None."""
    if "content_type" in part or "$type" in part:
        return _kernel_item(part)
    return _haystack_part(part)


def haystack_message(obj: dict[str, Any]) -> dict[str, Any]:
    """Haystack 2.9-2.11's ``{"_role", "_content", "_name", "_meta"}`` as the later keys;
    any other object as it is."""
    if "role" in obj or "_role" not in obj or "_content" not in obj:
        return obj
    return {k[1:] if k in ("_role", "_content", "_name", "_meta") else k: v for k, v in obj.items()}
