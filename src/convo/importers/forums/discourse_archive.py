"""A Discourse user's own archive (``discourse-archive``): Preferences → Account →
"Download All" mails a zip, ``user_archive-<username>-<YYMMDD-HHMMSS>-<id>.zip``, whose
``user_archive.csv`` holds every post the user wrote (deleted ones too).

Shape (discourse/discourse ``app/jobs/regular/export_user_archive.rb``): a CSV with the
header ``topic_title,categories,is_pm,post_raw,post_cooked,like_count,reply_count,url,
created_at``; ``categories`` the category and its parents joined by ``|``; ``is_pm``
``Yes``/``No`` (a private message); ``url`` ``<base>/t/<slug>/<topic id>/<post
number>``; ``created_at`` Ruby's ``2024-03-01 10:00:00 UTC``. Beside it
``preferences.json`` (the user, as ``UserSerializer`` writes it: ``{"user": {"id",
"username", ...}}``), ``user_archive_profile.csv``, ``bookmarks.csv``, ``likes.csv``,
``visits.csv``... (no messages). ``preferences.json`` is recognised (no message: said
once when ``user_archive.csv`` is not beside it); the CSVs hold no conversation.

Decisions:
- speaker = the archive's user: ``preferences.json``'s ``username`` beside the file,
  else the name in the folder or zip (``user_archive-<username>-<date>-<time>``), else
  none (one warning); listeners the ``@`` mentions.
- text = ``post_raw`` (the author's markdown), else ``post_cooked`` as text; the topic's
  title is the subject of its first post (``post_number`` 1); ``is_pm`` posts tagged
  ``private-message``; ``categories``, ``like_count``, ``reply_count``, ``url`` in
  ``extra``.
- thread = ``discourse:<host>:<topic id>`` (the ``discourse`` format's thread of the same
  topic); id ``discourse:<host>:<topic id>/<post number>`` (the archive names no post
  id, so the same post read from a topic's JSON has another id: docs/ids.md); no
  replyTo (the archive does not say what a post answers).
- A row without a readable URL or time is rejected with its line.

Ids and their scope (docs/ids.md): the host in each post's URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import csv_rows
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.forums.common import message
from convo.importers.jsoninput import as_dict, as_str
from convo.importers.registry import Format

NAME = "discourse-archive"
FMT = "discourse"
HEADER = ("topic_title", "categories", "is_pm", "post_raw", "post_cooked", "like_count",
          "reply_count", "url", "created_at")  # fmt: skip
_URL = re.compile(r"^(https?://([^/]+)(?:/[^/]+)*?)/t/[^/]+/(\d+)/(\d+)/?$")
_FOLDER = re.compile(r"^user_archive-(.+)-\d{6}-\d{6}(?:-\d+)?(?:\.zip)?$")
_YES = {"yes", "true", "1", "oui", "ja", "sí", "si", "да"}


# The archive's preferences.json: the user as ``UserSerializer`` writes it.
_PREFERENCES = re.compile(
    r'\A\s*\{\s*"user"\s*:\s*\{[^{}]*"username"\s*:[^{}]*"avatar_template"\s*:'
)


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff")
    first = text.split("\n", 1)[0].rstrip("\r")
    cols = tuple(c.strip().strip('"') for c in first.split(","))
    if cols[: len(HEADER)] == HEADER:
        return 90
    return 60 if _PREFERENCES.match(text) else 0


def _user(source: Source) -> str | None:
    """The archive's user: preferences.json beside the file, else the folder's name."""
    if source.path is None or source.is_stdin:
        return None
    prefs = source.path.with_name("preferences.json")
    if prefs.is_file():
        try:
            name = as_str(as_dict(as_dict(load_json(Source(prefs))).get("user")).get("username"))
        except InputError:
            name = ""
        if name:
            return name
    for part in (source.path.parent.name, *(p.name for p in source.path.parents)):
        m = _FOLDER.match(part)
        if m:
            return m[1]
    return None


def _rows(source: Source, ctx: ImportContext) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row by column) for every data row; a cell's line breaks joined (a row the
    csv module cannot read stops the file with its line: ``apps.common.csv_rows``)."""
    cols: list[str] = []
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    hint = "download the archive again from your Discourse profile"
    for n, row in csv_rows(source, decode, "Discourse's user archive", hint, header=cols):
        yield n, dict(zip(cols, row, strict=False))


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if _PREFERENCES.match(source.head_text().lstrip("\ufeff")):
        beside = source.path is not None and source.path.with_name("user_archive.csv").is_file()
        if not beside:
            ctx.warn(
                source.name,
                "a Discourse archive's preferences.json holds no messages (the user's "
                "settings): the posts are in user_archive.csv",
            )
        return
    user = _user(source)
    if user is None:
        ctx.warn(
            source.name,
            "no preferences.json or user_archive-<username>-... folder: the posts' author "
            "is unknown",
        )
    for line, row in _rows(source, ctx):
        where = ctx.loc(line)
        m = _URL.match((row.get("url") or "").strip())
        when = iso_ts((row.get("created_at") or "").strip())
        if m is None or when is None:
            what = "URL" if m is None else "time"
            ctx.reject(where, f"Discourse archive row without a readable {what}", row)
            continue
        yield _post(row, m, when, user, where)


def _post(
    row: dict[str, str], m: re.Match[str], when: str, user: str | None, where: str
) -> ConversationMessage:
    host, topic, number = m[2], m[3], int(m[4])
    raw = row.get("post_raw") or ""
    text = raw if raw.strip() else html_to_text(row.get("post_cooked") or "")
    pm = (row.get("is_pm") or "").strip().lower() in _YES
    return message(
        FMT,
        text,
        user,
        timestamp=when,
        source_id=where,
        id=f"discourse:{host}:{topic}/{number}",
        thread=f"discourse:{host}:{topic}",
        subject=(row.get("topic_title") or None) if number == 1 else None,
        tags=["private-message"] if pm else [],
        extra=_extra(row, number),
    )


def _extra(row: dict[str, str], number: int) -> dict[str, Any]:
    out: dict[str, Any] = {"post_number": number, "url": row.get("url")}
    for key in ("like_count", "reply_count"):
        value = (row.get(key) or "").strip()
        if value.isdigit() and value != "0":
            out[key] = int(value)
    if (row.get("categories") or "").strip():
        out["categories"] = row["categories"].split("|")
    if number != 1 and row.get("topic_title"):
        out["topic_title"] = row["topic_title"]
    return out


DESCRIPTION = "Discourse user archive (Download All): user_archive.csv, the user's own posts"
EXAMPLE = (
    "topic_title,categories,is_pm,post_raw,post_cooked,like_count,reply_count,url,created_at\n"
    "Tides,Sea|Coast,No,Low water at 6.,<p>Low water at 6.</p>,2,0,"
    "https://sea.example/t/tides/42/1,2024-03-01 10:00:00 UTC"
)
FIELDS = Fields(
    speaker="the archive's user (`preferences.json` beside the file, else the "
    "`user_archive-<username>-...` folder)",
    listeners="the `@` mentions",
    time="`created_at`",
    zone="UTC (`2024-03-01 10:00:00 UTC`)",
    thread="`discourse:<host>:<topic id>`, from the post's `url`",
    id="`discourse:<host>:<topic id>/<post number>`",
    scope="the host in the post's URL",
    subject="the topic's title, on its first post",
    tags="`private-message` (`is_pm`)",
    extra="`post_number`, `url`, `like_count`, `reply_count`, `categories`, `topic_title`",
)

FORMATS = (
    Format(
        NAME,
        "forum",
        DESCRIPTION,
        ("user_archive*.csv", "preferences.json"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
