"""The Gemini app's history from Google Takeout's "My Activity" (``gemini-activity``).

Shape (Takeout → My Activity, filtered to "Gemini Apps", JSON: ``My Activity.json`` or
``MyActivity.json``; read from users' analyses of real exports found with the code
search): a JSON array, newest first, of activity entries ``{header: "Gemini Apps",
title, time (ISO, UTC), products: ["Gemini Apps"], activityControls: ["Gemini Apps
Activity"], safeHtmlItem?: [{html}, ...], subtitles?: [{name, url?}], imageFile?,
attachedFiles?}``. ``title`` is what was done: ``Prompted <the prompt>``, ``Created
...`` (a canvas), ``Used ...``, ``Selected preferred draft``, ``Gave feedback: ...``.
Each ``safeHtmlItem`` is one answer, in HTML (several when the answer was regenerated).

Decisions:
- An entry with a prompt is the user's message (speaker ``user``, role ``user``, the
  prompt without ``Prompted``; a title in another language, which has no such word, is
  the prompt when the entry has an answer), then one message per answer (speaker
  ``Gemini``, role ``assistant``, the HTML as text; a regenerated answer has
  ``extra.regenerated``), each replying to the prompt; each party is the other's listener.
- Other entries (feedback, drafts chosen, canvases, extensions used) are the user's
  actions: the title as text, tag ``system``, their answers as above.
- An attached image is an ``[image FILE]`` chunk; ``subtitles`` (the Gem used, the
  files attached) go to ``extra.subtitles``.
- The export holds no conversations, only entries: thread = ``gemini-apps:<time>``, one
  entry with its answers. timestamp = ``time`` for the prompt and its answers.
- id = ``gemini-apps:<time>:<hash of the title>`` and ``...:answer-<k>``: the entry's
  millisecond time within the account, made unique across accounts by its text; a later
  Takeout of the same account gives the same ids, so a store keeps each entry once (an
  entry repeated within one file gets ``-1``, ``-2``... and is kept each time).
- Read oldest first: the array, newest first, is loaded whole (memory grows with the
  file; the map of ids already given, for ``-1``, has one short entry per entry). An entry that is not an object, or has no title, is rejected with
  its location; the rest of the file is read.
- Detection: a JSON array of My Activity entries (``header``, ``title``, ``time``,
  ``products``) of the Gemini Apps product. Other products' activity is not a
  conversation and is not claimed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "gemini-activity"
USER, GEMINI = "user", "Gemini"
_PROMPTED = "Prompted "
_ACTIONS = ("Created ", "Used ", "Selected ", "Gave feedback", "Shared ", "Deleted ")


def sniff(source: Source) -> int:
    text = json_head_with(source, '"header"', opens="[")
    if not text or "Gemini" not in text:
        return 0
    keys = ("title", "time", "products")
    return 90 if all(has_key(text, k) for k in keys) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    entries = as_list(load_json(source))
    seen: dict[str, int] = {}
    for n in range(len(entries), 0, -1):  # the export is newest first
        entry = entries[n - 1]
        where = ctx.loc(f"entry-{n}")
        if not isinstance(entry, dict) or not as_str(entry.get("title")).strip():
            ctx.reject(where, "not a My Activity entry (no title)", entry)
            continue
        yield from _entry(entry, where, seen)


def _key(time: str, title: str, seen: dict[str, int]) -> str:
    """The entry's id; the same entry twice in one file stays twice (``-1``...)."""
    key = f"gemini-apps:{time}:{hashlib.sha1(title.encode()).hexdigest()[:10]}"
    repeats = seen.get(key, 0)
    seen[key] = repeats + 1
    return f"{key}-{repeats}" if repeats else key


def _entry(
    entry: dict[str, Any], where: str, seen: dict[str, int]
) -> Iterator[ConversationMessage]:
    title = as_str(entry.get("title")).strip()
    answers = [
        html_to_text(as_str(as_dict(h).get("html"))) for h in as_list(entry.get("safeHtmlItem"))
    ]
    prompted = title.startswith(_PROMPTED)
    action = title.startswith(_ACTIONS) or (not prompted and not answers)
    text = title[len(_PROMPTED) :] if prompted else title
    time = as_str(entry.get("time"))
    key = _key(time, title, seen)
    chunks = [text]
    image = as_str(entry.get("imageFile"))
    if image:
        chunks.append(f"[image {image}]")
    subtitles = [as_str(as_dict(s).get("name")) for s in as_list(entry.get("subtitles"))]
    thread = f"gemini-apps:{time}"
    timestamp = iso_ts(time)
    asked = message(
        chunks,
        speaker=USER,
        listeners=[GEMINI],
        timestamp=timestamp,
        id=key,
        source_id=where,
        format=NAME,
        thread=thread,
        role="user",
        tags=[SYSTEM_TAG] if action else [],
        extra={
            "subtitles": [s for s in subtitles if s] or None,
            "title": None if prompted else title,
        },
    )
    yield asked
    for k, answer in enumerate(answers, 1):
        if not answer.strip():
            continue
        yield message(
            answer,
            speaker=GEMINI,
            listeners=[USER],
            timestamp=timestamp,
            id=f"{key}:answer-{k}",
            source_id=f"{where}.answer-{k}",
            format=NAME,
            thread=thread,
            reply_to=key,
            role="assistant",
            extra={"regenerated": True if k > 1 else None},
        )


DESCRIPTION = 'Gemini app history from Google Takeout "My Activity" (My Activity.json)'
EXAMPLE = (
    '[{"header": "Gemini Apps", "title": "Prompted What is a monad?", "time": '
    '"2025-05-02T14:30:05.123Z", "products": ["Gemini Apps"], "safeHtmlItem": '
    '[{"html": "<p>A monoid in the category of endofunctors.</p>"}]}]'
)
FIELDS = Fields(
    speaker="the prompt: `user`; an answer: `Gemini`",
    listeners="prompt ↔ answer: each the other's",
    time="the entry's `time`, for the prompt and its answers",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="`gemini-apps:<time>`: one entry with its answers",
    id="`gemini-apps:<time>:<hash>` (a hash of the title) and `...:answer-<k>`",
    scope="the account's millisecond time, made unique across accounts by the title",
    reply_to="an answer: its prompt",
    tags="`system` on actions that are not prompts (feedback, drafts, canvases)",
    extra="`regenerated`, `subtitles` (the Gem, the files attached), `title` (an action's title)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.json",), sniff, read, EXAMPLE, fields=FIELDS),)
