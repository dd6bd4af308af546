"""A Discourse topic as its raw Markdown (``discourse-raw``): ``/raw/TOPIC_ID`` (100 posts
a page, ``?page=2``), the plain text people save a topic as (forum archives kept in
public repositories, a topic fed to a language model).

Shape (discourse/discourse ``app/controllers/posts_controller.rb``, ``markdown_num``):
each post is a header line ``username | 2024-04-27 06:54:29 UTC | #2`` (the author, the
post's ``updated_at`` as Ruby writes a time, its number), a blank line, the post's raw
Markdown, a blank line, a rule of 25 dashes, a blank line. A quote is written
``[quote="name, post:1, topic:839"]`` ... ``[/quote]``.

Decisions:

- speaker = the header's username (none when the header has none: a deleted user);
  listeners the ``@`` mentions, else the author of the post it quotes (as the
  ``discourse`` reader's ``reply_to_user``).
- time = the header's time, which is the post's last edit (Discourse writes
  ``updated_at``; the file holds no creation time).
- replyTo = the first post it quotes from this topic, when that post is in the file,
  else the file's first post (a post that names none answers the topic); thread = the
  file's first post. Ids are content hashes (the file names no site nor post id).
- text = the raw Markdown; a quote block becomes ``name:`` and its lines under ``> ``,
  as the ``discourse`` reader renders a cooked quote.
- A line that looks like a rule inside a post stays its text unless a header line
  follows it. A line before the first header is rejected with its line.

Ids and their scope (docs/ids.md): content hashes, scoped by the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.apps.common import numbered_lines
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.forums.common import Tally, message
from convo.importers.registry import Format, head_lines

NAME = "discourse-raw"
FMT = "discourse"
HEADER = re.compile(
    r"(?:(?P<user>[^|\s]+) )?\| (?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: UTC| [+-]\d{4})) "
    r"\| #(?P<n>\d+)"
)
RULE = "-" * 25
_QUOTE = re.compile(
    r'^\[quote(?:="(?P<name>[^",\]]*)(?:, *post:(?P<post>\d+))?(?:, *topic:\d+)?[^"\]]*")?\]'
    r"\n?(?P<body>.*?)\n?\[/quote\]$",
    re.M | re.S,
)


def sniff_discourse_raw(source: Source) -> int:
    lines = head_lines(source, 40)
    if not lines or HEADER.fullmatch(lines[0].strip()) is None:
        return 0
    more = (
        any(x.strip() == RULE for x in lines)
        or sum(HEADER.fullmatch(x.strip()) is not None for x in lines) > 1
    )
    return 85 if more else 60


def _quotes(text: str) -> tuple[str, list[int]]:
    """The text with its quote blocks as ``name:`` and ``> `` lines, and the post numbers
    they quote."""
    quoted: list[int] = []

    def render(m: re.Match[str]) -> str:
        if m["post"]:
            quoted.append(int(m["post"]))
        body = "\n".join(f"> {line}" if line else ">" for line in m["body"].split("\n"))
        return f"{m['name']}:\n\n{body}" if m["name"] else body

    return _QUOTE.sub(render, text), quoted


class _Topic:
    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.tally = Tally(ctx)
        self.ids: dict[int, str] = {}  # post number -> id
        self.authors: dict[int, str] = {}
        self.first: str | None = None

    def post(self, line: int, head: re.Match[str], lines: list[str]) -> ConversationMessage:
        text, quoted = _quotes("\n".join(lines).strip("\n"))
        number, user = int(head["n"]), head["user"] or None
        target = next((n for n in quoted if n in self.ids and n != number), None)
        reply_to = self.ids[target] if target is not None else self.first
        msg = message(
            FMT,
            text,
            self.tally.speaker(user),
            timestamp=self.tally.iso(head["time"]),
            source_id=self.ctx.loc(line),
            thread=self.first,
            reply_to=reply_to,
            extra={"post_number": number, "time_source": "updated_at"},
        )
        heard = self.authors.get(target or 0)
        if not msg.metadata.recipients and heard and heard != user:
            msg.metadata.recipients = [heard]
        ident = self.tally.ensure_id(msg)
        if self.first is None:
            self.first = msg.thread = ident
        self.ids[number] = ident
        if user:
            self.authors[number] = user
        return msg


def read_discourse_raw(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    topic = _Topic(ctx)
    cur: tuple[int, re.Match[str]] | None = None
    lines: list[str] = []
    held: list[str] = []  # a rule and the blank lines after it: the post's end, or its text
    for n, raw in numbered_lines(source, ctx.text_decoder()):
        stripped = raw.strip()
        head = HEADER.fullmatch(stripped) if (held or cur is None) else None
        if head is not None:
            if cur is not None:
                yield topic.post(*cur, lines)
            cur, lines, held = (n, head), [], []
        elif cur is None:
            if stripped:
                ctx.reject(ctx.loc(n), "text before the first Discourse post header", raw)
        elif stripped == RULE:
            lines.extend(held)  # a rule held before this one was the post's own
            held = [raw]
        elif held and not stripped:
            held.append(raw)
        else:
            lines.extend(held)
            lines.append(raw)
            held = []
    if cur is not None:
        yield topic.post(*cur, lines)
    topic.tally.finish()
    if cur is None:
        ctx.warn(source.name, "no Discourse post headers; nothing imported")


DESCRIPTION = "Discourse topic as raw Markdown (`/raw/TOPIC_ID`: `user | time UTC | #N` posts)"
PATTERNS = ("*.md", "*.txt")
EXAMPLE = "alice | 2024-03-01 10:00:00 UTC | #1\n\nHello!\n\n-------------------------\n\n"
FIELDS = Fields(
    speaker="the username on the post's header line",
    listeners="the `@` mentions, else the author of the post it quotes",
    time="the header's time, the post's `updated_at` (its last edit), in UTC",
    zone="UTC (`UTC` or the offset Ruby wrote)",
    thread="the file's first post",
    id=CONTENT_HASH,
    scope="the file's name (the topic)",
    reply_to="the first post of the topic it quotes that is in the file, else the file's "
    "first post",
    extra="`post_number`, `time_source` (`updated_at`)",
)
FORMATS = (
    Format(NAME, "forum", DESCRIPTION, PATTERNS, sniff_discourse_raw, read_discourse_raw,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
