"""Which agent format a source holds: by content, the first lines or the whole head parsed.

The rules are in ``convo.importers.agents.reader``'s docstring (Detection).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from convo.core.io import Source, decode_text
from convo.importers.agents.blocks import ANTHROPIC_BLOCKS
from convo.importers.agents.classify import AUTOGEN_TYPES, batch_request, classify, is_container
from convo.importers.agents.samples import leading_elements

__all__ = ["sniff_for"]

_SCORES = {
    "autogen": 88,
    "agentscope": 86,
    "jianmu": 84,
    "langmem": 84,
    "anthropic": 82,
    "openai": 75,
}
# Most specific first: one such message in the sample decides the file.
_PRIORITY = ("autogen", "agentscope", "jianmu", "langmem", "anthropic", "openai")
_ROLE = re.compile(r'"role"\s*:\s*"(system|user|assistant|tool|developer|function|model)"')
_AUTOGEN = re.compile(r'"type"\s*:\s*"(' + "|".join(sorted(AUTOGEN_TYPES)) + r')"')
_ANTHROPIC = re.compile(r'"type"\s*:\s*"(' + "|".join(sorted(ANTHROPIC_BLOCKS)) + r')"')
_AS_TIME = re.compile(r'"timestamp"\s*:\s*"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d')
_cache: tuple[bytes, dict[str, int]] | None = None


def _guess(source: Source) -> dict[str, int]:
    """Scores of the agent formats for this source (computed once per head)."""
    global _cache
    if _cache is not None and _cache[0] is source.head:
        return _cache[1]
    result = _guess_text(decode_text(source.head, errors="replace"))
    _cache = (source.head, result)
    return result


def _guess_text(text: str) -> dict[str, int]:
    text = text.lstrip("\ufeff \t\r\n")
    if not text or text[0] not in "[{":
        return {}
    first = text.split("\n", 1)[0]
    if '"textChunks"' in first or '"text_chunks"' in first or '"mapping"' in text[:4096]:
        return {}
    values = _sample_values(text)
    if values is None:
        return _guess_markers(text)
    found, total = _count_formats(values)
    if not found:
        return {}
    best = next(f for f in _PRIORITY if f in found)
    share = sum(found.values()) / max(total, 1)
    return {best: _SCORES[best] if share >= 0.5 else 40}


def _count_formats(values: list[Any]) -> tuple[dict[str, int], int]:
    """How many sampled messages each format claims, and how many were sampled."""
    found: dict[str, int] = {}
    total = 0
    for obj, container in _candidates(values):
        total += 1
        fmt = classify(obj)
        if fmt == "openai" and container is not None and _langmem_thread(container):
            fmt = "langmem"
        if fmt == "openai" and container is not None and "params" in (container.get("batch") or ()):
            fmt = "anthropic"  # an Anthropic batch request: its API's, plain text or not
        if fmt:
            found[fmt] = found.get(fmt, 0) + 1
    return found, total


def _langmem_thread(container: dict[str, Any]) -> bool:
    return "id" in container and isinstance(container.get("metadata"), dict)


def _sample_values(text: str) -> list[Any] | None:
    """Parsed values from the head: the first JSONL lines, or the whole document."""
    lines = text.split("\n")
    try:
        first = orjson.loads(lines[0])
    except orjson.JSONDecodeError:
        try:
            return [orjson.loads(text)]
        except orjson.JSONDecodeError:
            # an array the head cut: its complete first elements, else the markers
            return [leading] if (leading := leading_elements(text)) else None
    values = [first]
    for line in lines[1:40]:
        if line.strip():
            try:
                values.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue  # a bad line, or the last one cut by the head limit
    return values


def _candidates(values: list[Any]) -> Iterator[tuple[Any, dict[str, Any] | None]]:
    n = 0
    for value in map(batch_request, values):
        items: list[tuple[Any, dict[str, Any] | None]]
        if is_container(value):
            items = [(m, value) for m in value["messages"]]
        elif isinstance(value, list):
            items = []
            for v in value:
                items.extend([(m, v) for m in v["messages"]] if is_container(v) else [(v, None)])
        else:
            items = [(value, None)]
        for item in items:
            yield item
            n += 1
            if n >= 60:
                return


# Distinctive key patterns in a head cut inside one large document, most specific first;
# the first group needs no role, the second only counts once a role is seen.
_ENVELOPE_MARKERS: tuple[tuple[Callable[[str], bool], str, int], ...] = (
    (lambda t: '"sessionId"' in t and '"parentUuid"' in t, "anthropic", 80),
    (lambda t: '"session_id"' in t and '"parent_tool_use_id"' in t, "anthropic", 80),
    (lambda t: _AUTOGEN.search(t) is not None and '"source"' in t, "autogen", 80),
    (lambda t: re.search(r'"__module__"\s*:\s*"agentscope', t) is not None, "agentscope", 85),
)
_ROLE_MARKERS: tuple[tuple[Callable[[str], bool], str, int], ...] = (
    (lambda t: '"invocation_id"' in t or _AS_TIME.search(t) is not None, "agentscope", 75),
    (lambda t: re.search(r'(?<!\\)"tool"\s*:', t) is not None, "jianmu", 70),
    (lambda t: '"user_id"' in t and '"metadata"' in t, "langmem", 70),
    (lambda t: _ANTHROPIC.search(t) is not None, "anthropic", 70),
)


def _guess_markers(text: str) -> dict[str, int]:
    """A head cut inside one large JSON document: decide on distinctive keys."""
    if '"mapping"' in text or ('"author"' in text and '"content_type"' in text):
        return {}  # a ChatGPT export: its messages carry "author": {"role": ...}
    for test, fmt, score in _ENVELOPE_MARKERS:
        if test(text):
            return {fmt: score}
    if not _ROLE.search(text):
        return {}
    for test, fmt, score in _ROLE_MARKERS:
        if test(text):
            return {fmt: score}
    return {"openai": 65}


def sniff_for(name: str, source: Source) -> int:
    return _guess(source).get(name, 0)
