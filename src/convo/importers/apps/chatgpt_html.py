"""ChatGPT's ``chat.html``: the data export's offline viewer. It holds the conversations of
``conversations.json`` as a script's one-line assignment ``var jsonData = [...];``
(then ``var assetsJson = {...};`` and the code that draws them), as the export's
readers in public repositories find it.

Decisions:
- Beside a ``conversations.json`` (or ``conversations-000.json``...) it holds the same
  conversations: recognised, not read, said in one warning (reading both would give every
  message twice).
- Alone (the file users keep, as its viewer opens it), its array is streamed as
  ``conversations.json``'s is, one conversation at a time, and read by the same reader:
  the same records and ids.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.jsonstream import JsonArray

_ASSIGNMENT = re.compile(rb"\bvar\s+jsonData\s*=\s*")
_OPENS = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<")
_SIBLINGS = re.compile(r"conversations(?:-\d+)?\.json")


def is_chat_html(source: Source) -> bool:
    """An HTML page whose head assigns ``jsonData`` (the export's ``chat.html``)."""
    head = source.head
    return _OPENS.match(head) is not None and _ASSIGNMENT.search(head) is not None


def beside_conversations(source: Source) -> bool:
    """Whether the export's ``conversations.json`` sits in the same folder."""
    if source.is_stdin or source.path is None:
        return False
    folder = os.path.dirname(os.path.abspath(source.path))
    try:
        return any(_SIBLINGS.fullmatch(name) for name in os.listdir(folder))
    except OSError:
        return False


def conversations(source: Source) -> Iterator[Any]:
    """The conversations of the ``jsonData`` array, one at a time."""
    with source.open() as raw:
        found = _ASSIGNMENT.search(source.head)
        assert found is not None  # is_chat_html
        raw.read(found.end())  # the page before the array (within the head)
        arr = JsonArray(raw, (), where=source.name, embedded=True)
        for conv, _line in arr:
            yield conv
