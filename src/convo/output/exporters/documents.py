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

from convo.core.fields import NO_SPEAKER
from convo.core.record import ConversationMessage
from convo.core.text.markup import (
    csv_cell,
    html_text,
    markdown_inline,
    markdown_text,
    srt_text,
    vtt_text,
)
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


def _human_time(ts: str) -> str:
    if ts == EPOCH:
        return ""
    if ts.startswith("1970-01-01T"):
        return "+" + ts[11:19]
    return f"{ts[:10]} {ts[11:19]} UTC"


def _with_threads(
    messages: Iterable[ConversationMessage | Record],
) -> Iterator[tuple[Record, str | None]]:
    """Each record, with its thread when a new thread starts there (else None). A record
    without a ``thread`` whose id the next record's ``thread`` names is that thread's
    root (a root often carries no thread field: docs/library.md's example)."""
    thread: Any = None
    records = (as_record(m) for m in messages)
    rec = next(records, None)
    while rec is not None:
        after = next(records, None)
        t = rec.get("thread")
        if not t and after is not None and rec.get("id") and after.get("thread") == rec.get("id"):
            t = rec.get("id")
        yield rec, (str(t) if t and t != thread else None)
        thread, rec = t, after


def iter_markdown(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    """A thread that starts at its root is headed by the root (its subject, else who
    wrote it), the root's text right under that heading and each reply under its own;
    a thread whose root is not in the selection is headed ``Thread <id>``."""
    yield "# Conversation\n"
    for rec, new_thread in _with_threads(messages):
        head = f"**{markdown_inline(speaker(rec) or role(rec) or NO_SPEAKER)}**"
        if listeners(rec):
            head += " → " + markdown_inline(", ".join(listeners(rec)))
        when = _human_time(timestamp(rec))
        if when:
            head += f" · {when}"
        subject = str(rec["subject"]) if rec.get("subject") else ""
        if new_thread is not None and new_thread == rec.get("id"):  # the root
            yield f"\n## {markdown_inline(subject) if subject else head}\n"
            yield f"\n{head}\n" if subject else ""
        else:
            if new_thread is not None:
                yield f"\n## Thread {markdown_inline(new_thread)}\n"
            yield f"\n### {head}\n"
            if subject:
                yield f"\n*{markdown_inline(subject)}*\n"
        body = markdown_text(text(rec)).replace("\n", "  \n")
        yield f"\n{body}\n"


def to_markdown(messages: Iterable[ConversationMessage | Record]) -> str:
    """A Markdown transcript: a heading per message (speaker → listeners · time)."""
    return "".join(iter_markdown(messages))


def iter_csv(messages: Iterable[ConversationMessage | Record]) -> Iterator[str]:
    """The records as ``-f csv`` writes them (``output.writers.csv``: one set of columns)."""
    from convo.output.writers.csv import COLUMNS, row

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for m in messages:
        w.writerow([csv_cell(c) for c in row(as_record(m))])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue()


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
    ts = timestamp(rec)
    if ts != EPOCH:
        parts.append(f' · <time datetime="{esc(ts)}">{esc(_human_time(ts))}</time>')
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
    from datetime import datetime

    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def one_line(s: str) -> str:
    return " ".join(str(s).split())


# Cue times beyond webvtt-py's limit (ten-digit hours), or not numbers, are clamped.
_MAX_SECONDS = 9_999_999_999 * 3600.0


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
) -> Iterator[Timed]:
    """Each record with its start/end seconds as written: ``extra`` start/end, else the
    timestamp relative to the first one."""
    first: float | None = None
    for m in messages:
        rec = as_record(m)
        extra = extra_of(rec)
        start = _seconds(extra.get("start"))
        end = _seconds(extra.get("end"))
        if start is None:
            t = _epoch_seconds(timestamp(rec))
            first = t if first is None else first
            start = t - first
        yield start, end, rec


def _guess_end(start: float, rec: Record) -> float:
    return start + max(MIN_CUE, 0.4 * len(text(rec).split()))


def _timed(messages: Iterable[ConversationMessage | Record]) -> Iterator[Timed]:
    """Each record with its cue's start and end seconds, on one timeline that never goes
    back: a record that would start before, or with, the cue before it (another
    conversation, an undated message) starts where that cue ends, and the records after
    it keep their spacing. A cue without an end lasts until the next one, at least
    ``MIN_CUE`` seconds (longer for long text)."""
    shift = 0.0
    pending: Timed | None = None
    for raw_start, raw_end, rec in _raw_times(messages):
        start = raw_start + shift
        if pending is not None:
            p_start, p_end, p_rec = pending
            if p_end is None or p_end <= p_start:
                p_end = start if start > p_start else _guess_end(p_start, p_rec)
            yield p_start, p_end, p_rec
            if start <= p_start:  # back in time: continue after the cue before
                shift += p_end - start
                start = p_end
        end = None if raw_end is None else raw_end + (start - raw_start)
        pending = (start, end, rec)
    if pending is not None:
        p_start, p_end, p_rec = pending
        if p_end is None or p_end <= p_start:
            p_end = _guess_end(p_start, p_rec)
        yield p_start, p_end, p_rec


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
