"""Document exporters: Markdown, CSV, HTML, WebVTT and SRT for people and spreadsheets.

Untrusted text is escaped through ``convo.core.text.markup`` only. Subtitles are written
with webvtt-py (``webvtt.Caption`` checks and formats each cue's timings; its VTT cue
block and SRT layout); convo keeps its own streaming reader for *parsing* VTT, because
webvtt-py reads a whole file into memory and raises on the first malformed cue, where
convo must stream large files and reject a hostile cue with its line number.
SRT has no escape syntax, so its cue text uses the WebVTT escaping (``&lt;`` shows as
written rather than opening a ``<font>`` or ``<i>`` tag).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator
from typing import Any

from webvtt import Caption
from webvtt.vtt import WebVTTCueBlock

from convo.core import fields
from convo.core.fields import NO_SPEAKER, conversation, undated_offset
from convo.core.record import ConversationMessage
from convo.core.text.markup import (
    csv_cell,
    html_text,
    markdown_inline,
    markdown_text,
    srt_text,
    vtt_text,
)
from convo.core.timestamps import CUE_HOUR_DIGITS, is_undated, offset_text, record_datetime
from convo.output.exporters.common import (
    EPOCH,
    Record,
    as_record,
    extra_of,
    listeners,
    role,
    speaker,
    text,
    timestamp,
)

# text documents --------------------------------------------------------------------------


def _human_time(rec: Record) -> str:
    """The time a document shows: none when unknown, ``+HH:MM:SS`` in a transcript
    without a start date (its first cue's ``+00:00:00`` too), else the UTC time."""
    offset = undated_offset(rec)
    if offset is not None:
        return offset_text(offset)
    ts = timestamp(rec)
    if ts == EPOCH or ts.startswith("1970-01-01T"):
        return ""
    return f"{ts[:10]} {ts[11:19]} UTC"


def _with_threads(
    messages: Iterable[ConversationMessage | Record],
) -> Iterator[tuple[Record, str | None]]:
    """Each record, with its thread when a new thread starts there (else None): the
    pull-side twin of ``_ThreadStarts``, for the documents that are generators."""
    starts = _ThreadStarts()
    for m in messages:
        yield from starts.feed(as_record(m))
    yield from starts.finish()


class _ThreadStarts:
    """Records in, ``(record, new thread or None)`` out, one record behind: a record
    without a ``thread`` whose id the next record's ``thread`` names is that thread's
    root (a root often carries no thread field: docs/library.md's example)."""

    def __init__(self) -> None:
        self.thread: Any = None
        self.held: Record | None = None

    def feed(self, rec: Record) -> Iterator[tuple[Record, str | None]]:
        if self.held is not None:
            yield self._settle(self.held, rec)
        self.held = rec

    def finish(self) -> Iterator[tuple[Record, str | None]]:
        if self.held is not None:
            yield self._settle(self.held, None)
            self.held = None

    def _settle(self, rec: Record, after: Record | None) -> tuple[Record, str | None]:
        t = rec.get("thread")
        if not t and after is not None and rec.get("id") and after.get("thread") == rec.get("id"):
            t = rec.get("id")
        new = str(t) if t and t != self.thread else None
        self.thread = t
        return rec, new


class Document:
    """A text document written as records arrive: ``start()``, ``feed(record)`` for each,
    ``finish()``; each returns the text that is ready. One class per document format is
    both ``convo export --to NAME``'s stream (``pieces``) and ``-f NAME``'s writer
    (``output.writers.document``), so the two can never differ."""

    def start(self) -> str:
        return ""

    def feed(self, rec: Record) -> str:
        raise NotImplementedError

    def finish(self) -> str:
        return ""


def pieces(document: Document, messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    """The document's text, piece by piece, for ``messages``."""
    yield document.start()
    for m in messages:
        yield document.feed(as_record(m))
    yield document.finish()


class MarkdownDocument(Document):
    """A Markdown transcript. A thread that starts at its root is headed by the root (its
    subject, else who wrote it), the root's text right under that heading and each reply
    under its own; a thread whose root is not in the selection is headed
    ``Thread <id>``. Times are UTC."""

    def __init__(self) -> None:
        self.starts = _ThreadStarts()

    def start(self) -> str:
        return "# Conversation\n"

    def feed(self, rec: Record) -> str:
        return "".join(self._message(r, new) for r, new in self.starts.feed(rec))

    def finish(self) -> str:
        return "".join(self._message(r, new) for r, new in self.starts.finish())

    @staticmethod
    def _message(rec: Record, new_thread: str | None) -> str:
        head = f"**{markdown_inline(speaker(rec) or role(rec) or NO_SPEAKER)}**"
        if listeners(rec):
            head += " → " + markdown_inline(", ".join(listeners(rec)))
        when = _human_time(rec)
        if when:
            head += f" · {when}"
        subject = str(rec["subject"]) if rec.get("subject") else ""
        out = []
        if new_thread is not None and new_thread == rec.get("id"):  # the root
            out.append(f"\n## {markdown_inline(subject) if subject else head}\n")
            out.append(f"\n{head}\n" if subject else "")
        else:
            if new_thread is not None:
                out.append(f"\n## Thread {markdown_inline(new_thread)}\n")
            out.append(f"\n### {head}\n")
            if subject:
                out.append(f"\n*{markdown_inline(subject)}*\n")
        body = markdown_text(text(rec)).replace("\n", "  \n")
        out.append(f"\n{body}\n")
        return "".join(out)


def iter_markdown(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    """``MarkdownDocument``'s pieces for ``messages``."""
    return pieces(MarkdownDocument(), messages)


def to_markdown(messages: Iterable[ConversationMessage | Record]) -> str:
    """A Markdown transcript: a heading per message (speaker → listeners · time)."""
    return "".join(iter_markdown(messages))


# The one CSV of a record: ``-f csv`` and ``convo export --to csv`` write these columns.
CSV_COLUMNS = ("timestamp", "speaker", "role", "listeners", "tags", "thread", "subject",
               "text", "id", "source_id", "format")  # fmt: skip


def csv_row(record: Record) -> list[str]:
    """The CSV cells of a record, in ``CSV_COLUMNS`` order, not yet escaped."""
    return [
        fields.timestamp(record),
        fields.speaker(record) or "",
        fields.role(record) if record.get("role") else "",
        "; ".join(fields.listeners(record)),
        "; ".join(fields.tags(record)),
        fields.string(record, "thread") or "",
        fields.string(record, "subject") or "",
        fields.text(record),
        fields.record_id(record) or "",
        fields.string(record, "source_id") or "",
        fields.string(record, "format") or "",
    ]


class CsvDocument(Document):
    """CSV with a header row: lists joined with ``; ``, text chunks with newlines (quoted
    by the csv module), times UTC, and no cell can start a formula (``csv_cell``:
    ``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``)."""

    def __init__(self) -> None:
        self.buf = io.StringIO()
        self.csv = csv.writer(self.buf, lineterminator="\n")

    def _taken(self) -> str:
        out = self.buf.getvalue()
        self.buf.seek(0)
        self.buf.truncate()
        return out

    def start(self) -> str:
        self.csv.writerow(CSV_COLUMNS)
        return self._taken()

    def feed(self, rec: Record) -> str:
        self.csv.writerow([csv_cell(c) for c in csv_row(rec)])
        return self._taken()


def iter_csv(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    """``CsvDocument``'s pieces for ``messages``."""
    return pieces(CsvDocument(), messages)


def to_csv(messages: Iterable[ConversationMessage | Record]) -> str:
    """CSV with a header row; lists joined with ``; ``."""
    return "".join(iter_csv(messages))


_HTML_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; max-width: 50em; margin: 2em auto; padding: 0 1em; color: #222; }}
h2 {{ font-size: 1.1em; border-bottom: 1px solid #ccc; margin-top: 2em; }}
article {{ margin: 1em 0; padding: .5em .8em; border-left: 3px solid #ddd; }}
article.reply {{ margin-left: 2em; }}
.role-assistant {{ border-color: #6a9; }} .role-system {{ border-color: #999; background: #f6f6f6; }}
.role-tool {{ border-color: #c93; }}
header {{ color: #555; font-size: .9em; }} .speaker {{ font-weight: bold; color: #222; }}
.subject {{ font-style: italic; }}
.text {{ white-space: pre-wrap; overflow-wrap: anywhere; margin: .3em 0 0; }}
</style>
</head>
<body>
<h1>{title}</h1>
"""


def _html_header(rec: Record, r: str) -> str:
    esc = html_text
    parts = [f'<header><span class="speaker">{esc(speaker(rec) or r or NO_SPEAKER)}</span>']
    if r and speaker(rec) != r:
        parts.append(f' <span class="role">({esc(r)})</span>')
    if listeners(rec):
        parts.append(" → " + esc(", ".join(listeners(rec))))
    when = _human_time(rec)
    if when:
        ts = timestamp(rec)
        parts.append(f' · <time datetime="{esc(ts)}">{esc(when)}</time>')
    parts.append("</header>\n")
    return "".join(parts)


def _html_article(rec: Record, seen: set[str]) -> str:
    """One message as an ``<article>``; a reply to a message above is indented."""
    esc = html_text
    r = role(rec) if rec.get("role") else ""
    reply = rec.get("replyTo") in seen
    classes = " ".join(c for c in ("reply" if reply else "", f"role-{r}" if r else "") if c)
    rid = str(rec.get("id") or "")
    seen.add(rid)
    parts = [f'<article{f" class={chr(34)}{classes}{chr(34)}" if classes else ""} '
             f'id="{esc(rid)}">\n', _html_header(rec, r)]  # fmt: skip
    if rec.get("subject"):
        parts.append(f'<div class="subject">{esc(str(rec["subject"]))}</div>\n')
    parts.append(f'<p class="text">{esc(text(rec))}</p>\n</article>\n')
    return "".join(parts)


def iter_html(
    messages: Iterable[ConversationMessage | Record], *, title: str = "Conversation"
) -> Iterator[str]:
    yield _HTML_HEAD.format(title=html_text(title))
    seen: set[str] = set()
    for rec, new_thread in _with_threads(messages):
        if new_thread is not None:
            yield f'<h2 class="thread">Thread {html_text(new_thread)}</h2>\n'
        yield _html_article(rec, seen)
    yield "</body>\n</html>\n"


def to_html(
    messages: Iterable[ConversationMessage | Record], *, title: str = "Conversation"
) -> str:
    """A standalone HTML page (no scripts, no remote loads); replies indented."""
    return "".join(iter_html(messages, title=title))


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            parts = [float(p) for p in value.replace(",", ".").split(":")]
        except ValueError:
            return None
        total = 0.0
        for p in parts:
            total = total * 60 + p
        return total
    return None


def _epoch_seconds(ts: str) -> float:
    try:
        return record_datetime(ts).timestamp()
    except ValueError:
        return 0.0


def one_line(s: str) -> str:
    return " ".join(str(s).split())


# Cue times beyond the hours convo reads back (``CUE_HOUR_DIGITS``: 999,999:59:59.999),
# or not numbers, are clamped.
_MAX_SECONDS = 10**CUE_HOUR_DIGITS * 3600.0 - 0.001


def _vtt_time(s: float) -> str:
    s = min(max(s, 0.0), _MAX_SECONDS) if math.isfinite(s) else 0.0
    ms = round(s * 1000)
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    sec, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{sec:02d}.{ms:03d}"


Timed = tuple[float, float | None, Record]
MIN_CUE = 2.0  # seconds: the shortest cue whose end is guessed


def _raw_times(
    messages: Iterable[ConversationMessage | Record],
) -> Iterator[tuple[float, float | None, Record, str]]:
    """Each record with its start/end seconds as written: ``extra`` start/end, else the
    timestamp relative to the first one of its clock; and that clock: ``cue`` (a
    transcript's own offsets), ``undated`` (the epoch sentinel, or epoch + an offset) or
    ``dated`` (an undated time is decades before any dated one: neither is the other's
    first)."""
    first: dict[str, float] = {}
    for m in messages:
        rec = as_record(m)
        extra = extra_of(rec)
        start = _seconds(extra.get("start"))
        end = _seconds(extra.get("end"))
        if start is None:
            ts = timestamp(rec)
            t = _epoch_seconds(ts)
            clock = "undated" if is_undated(ts) else "dated"
            yield t - first.setdefault(clock, t), end, rec, clock
        else:
            yield start, end, rec, "cue"


def _guess_end(start: float, rec: Record) -> float:
    return start + max(MIN_CUE, 0.4 * len(text(rec).split()))


def _timed(messages: Iterable[ConversationMessage | Record]) -> Iterator[Timed]:
    """Each record with its cue's start and end seconds, on one timeline that never goes
    back: a record that would start before, or with, the cue before it (another
    conversation, an undated message) starts where that cue ends, and the records after
    it keep their spacing. So does a dated record after an undated one (or the reverse:
    their times are decades apart, and a store that mixes them would add those decades
    at every switch). A cue of the same transcript as the cue before that starts with it
    or while it lasts keeps its time (two voices at once: WebVTT and SRT allow cues to
    overlap), so the cues after it stay in step with the recording. A cue without an end
    lasts until the next one, at least ``MIN_CUE`` seconds (longer for long text)."""
    shift = 0.0
    pending: Timed | None = None
    p_clock = ""
    for raw_start, raw_end, rec, clock in _raw_times(messages):
        start = raw_start + shift
        if pending is not None:
            p_start, p_end, p_rec = pending
            other = clock != p_clock and "undated" in (clock, p_clock)
            if p_end is None or p_end <= p_start:
                p_end = start if start > p_start and not other else _guess_end(p_start, p_rec)
            yield p_start, p_end, p_rec
            if other or _goes_back(start, p_start, p_rec, rec):  # after the cue before
                shift += p_end - start
                start = p_end
        end = None if raw_end is None else raw_end + (start - raw_start)
        pending = (start, end, rec)
        p_clock = clock
    if pending is not None:
        p_start, p_end, p_rec = pending
        if p_end is None or p_end <= p_start:
            p_end = _guess_end(p_start, p_rec)
        yield p_start, p_end, p_rec


def _goes_back(start: float, p_start: float, before: Record, rec: Record) -> bool:
    """Whether ``rec``, at ``start``, goes back from the cue before (at ``p_start``):
    before it, or with it unless both are cues of one transcript (their own ``extra``
    start and end, one conversation: two voices at once)."""
    if start != p_start:
        return start < p_start
    if any(_seconds(extra_of(r).get(k)) is None for r in (before, rec) for k in ("start", "end")):
        return True
    return conversation(before) != conversation(rec)


def _caption(n: int, item: Timed, *, voice: bool) -> Caption:
    start, end, rec = item
    escape = vtt_text if voice else srt_text
    lines = [ln for ln in (escape(x.strip()) for x in text(rec).splitlines()) if ln] or ["…"]
    who = speaker(rec)
    if who:
        name = escape(one_line(who))
        lines[0] = f"<v {name}>{lines[0]}" if voice else f"{name}: {lines[0]}"
    return Caption(_vtt_time(start), _vtt_time(end or start), lines, identifier=str(n))


def iter_vtt(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    yield "WEBVTT\n"
    for n, item in enumerate(_timed(messages), 1):
        caption = _caption(n, item, voice=True)
        yield "\n".join(WebVTTCueBlock.format_lines(caption)) + "\n"


def to_vtt(messages: Iterable[ConversationMessage | Record]) -> str:
    """WebVTT cues: times from ``extra`` start/end, else relative to the first timestamp."""
    return "".join(iter_vtt(messages))


def iter_srt(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    for n, item in enumerate(_timed(messages), 1):
        c = _caption(n, item, voice=False)
        timing = f"{c.start.replace('.', ',')} --> {c.end.replace('.', ',')}"
        yield "\n".join([c.identifier or str(n), timing, *c.lines]) + "\n\n"


def to_srt(messages: Iterable[ConversationMessage | Record]) -> str:
    """SubRip cues (``Speaker: text``), timed as ``to_vtt``."""
    return "".join(iter_srt(messages))
