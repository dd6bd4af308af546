"""Dataset-style documents: one sample object, a JSON array of samples, or JSONL.

Shared by the dataset readers (ShareGPT, Hugging Face chat...). Each sample (any JSON
value; readers reject what they cannot use) is yielded with its locator: ``line-N`` (JSONL), ``item-N`` (array, streamed one sample at a time) or
``doc`` (one object, read whole). A JSONL line that is not JSON is rejected with its
location (the torn last line of an interrupted write says so); the reader carries on.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from convo.core import scratch
from convo.core.errors import RecordError
from convo.core.io import Source, load_json
from convo.core.jsonl import iter_lines, parse_line
from convo.importers.context import ImportContext
from convo.importers.jsoninput import StreamedDoc, json_head


def is_jsonl(text: str) -> bool:
    """The head's first line is a whole JSON value and another line follows."""
    first, _, rest = text.partition("\n")
    if not rest.strip():
        return False
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return True


def iter_samples(source: Source, ctx: ImportContext) -> Iterator[tuple[Any, str]]:
    """Each top-level sample of ``source`` with its locator."""
    head = json_head(source)
    if is_jsonl(head):
        with source.open() as stream:
            for line in iter_lines(stream):
                try:
                    value = orjson.loads(line.raw)
                except orjson.JSONDecodeError:
                    try:
                        parse_line(line, source.name)  # raises the located error
                    except RecordError as e:
                        ctx.reject_error(e, line.raw)
                    continue
                yield value, f"line-{line.number}"
    elif head.startswith("["):
        doc = StreamedDoc(source, ())
        doc.expect("expected a JSON array of samples")
        for n, item in enumerate(doc.values(), 1):
            yield item, f"item-{n}"
    else:
        yield load_json(source), "doc"


def sample_values(text: str) -> list[Any]:
    """Parsed samples from a sniffing head: JSONL lines, the whole (complete) head, or
    the complete first elements of an array the head cut."""
    text = text.lstrip("\ufeff \t\r\n")
    if not text.startswith(("[", "{")):
        return []
    if is_jsonl(text):
        out = []
        for line in text.split("\n")[:40]:
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
        return out
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        # an array larger than the head: its complete first elements (a file of any
        # size is sniffed by its first messages, whatever its name)
        return leading_elements(text)
    return value if isinstance(value, list) else [value]


def leading_elements(text: str, limit: int = 40) -> list[Any]:
    """The complete elements at the start of a JSON array whose head the sniffing limit
    cut (``sample_values`` parses only a whole head): up to ``limit``, the cut one left
    out; none when ``text`` does not open an array."""
    text = text.lstrip("\ufeff \t\r\n")
    if not text.startswith("["):
        return []
    decoder = json.JSONDecoder()
    out: list[Any] = []
    i, n = 1, len(text)
    while len(out) < limit:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            break
        try:
            value, i = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):  # a head of 60,000 "[": no sample
            break
        out.append(value)
    return out


def messages_of(value: Any) -> list[Any]:
    """The messages of a sample: a ``{"messages": [...]}`` object's list, a list itself,
    else the value alone."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return value["messages"]
    return value if isinstance(value, list) else [value]


def key_pattern(key: str, values: tuple[str, ...]) -> re.Pattern[str]:
    """``"key": "one of values"`` in JSON text."""
    alts = "|".join(re.escape(v) for v in values)
    return re.compile(r'"' + re.escape(key) + r'"\s*:\s*"(?:' + alts + r')"')


def sub(ctx: ImportContext, where: str, part: str) -> str:
    """The locator of ``part`` inside ``where`` (``FILE#part`` when ``where`` is the file)."""
    return ctx.loc(part) if where == ctx.source.name else f"{where}.{part}"


def spool_stdin(head: bytes, lines: Iterator[Any]) -> Path:
    """Standard input's document (its first line already read) in a temporary file."""
    fd, tmp = scratch.file(None, kind="spool", tail="-stdin.json")
    with os.fdopen(fd, "wb") as out:
        out.write(head)
        for line in lines:
            out.write(b"\n" + line.raw)
    return Path(tmp)
