"""``convo report``: one self-contained HTML page of analytics over any mix of platforms.

``report_of_parts(parts, filters, zone=..., zone_name=...)`` reads the selection three
times (each pass on every core for a large file): ``convo.analysis.stats`` (the same call as ``convo stats``, so the totals, the
speaker, tag and format tables and the timeline are ``convo stats -f json``'s numbers),
``convo.analysis.knowledge`` (``convo knowledge``'s summary: who talks to whom, each
speaker's topics) and ``convo.analysis.activity`` (the weekday x hour grid in ``zone``,
series per person and per format, response times, busiest threads). Each pass keeps its
bounded summaries only, so memory does not grow with the store.

``report_of_records(records, zone=..., zone_name=...)`` makes the same page in one read of
records already selected (the store's index answered the query: ``convo report id:X``
read the whole store three times before): the three analyses take each record as it
passes (``activity.DailyActivity``: the series by day, folded into the timeline's unit at
the end). Its memory is not the scan's bounded summaries: a count for every speaker and
day of the selection (never one per message), since the busiest speakers are known only
at the end.

The page: inline SVG charts (``convo.web.svg``) and tables, one ``<style>`` allowed by its
hash in a Content-Security-Policy that forbids everything else (no script, no image, no
font, no request of any kind); every name, topic and subject is escaped. The same input
and zone give the same bytes: no generation time, every list in a fixed order.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence
from datetime import tzinfo
from typing import Any

from convo.analysis.activity import RESPONSE_BANDS, Activity, DailyActivity, activity
from convo.analysis.parallel import selected
from convo.analysis.stats import Stats, bucket_of, stats_of_parts
from convo.core.text.markup import html_text
from convo.web import svg

SERIES = 8  # people drawn over time: the busiest
TOP = 15

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.15em .7em;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}tr:nth-child(even){background:#f5f5f5}
.chart{width:100%;height:auto}.meta{color:#666}
"""


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def _table(name: str, head: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    cells = "".join(
        f'<th class="n">{html_text(h)}</th>' if i else f"<th>{html_text(h)}</th>"
        for i, h in enumerate(head)
    )
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="n">{v}</td>' if isinstance(v, int) else f"<td>{html_text(_cell(v))}</td>"
            for v in row
        )
        body.append(f"<tr>{tds}</tr>")
    return (
        f'<table id="{name}"><thead><tr>{cells}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


# A name or topic of a megabyte (a base64 data URL read as one entity) made a report of
# that size: a cell longer than this is cut, an ellipsis saying so.
CELL = 300


def _cell(value: Any) -> str:
    text = str(value)
    return text if len(text) <= CELL else text[:CELL] + "…"


def _tally_rows(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["name"], r["messages"], r["words"], r["first"] or "", r["last"] or "") for r in rows]


def _over_time(stats: dict[str, Any], act: Activity) -> str:
    keys = [b["start"] for b in stats["timeline"]["buckets"]]
    people = [r["name"] for r in stats["speakers"] if r["name"] in act.per_speaker][:SERIES]
    formats = [r["name"] for r in stats["formats"] if r["name"] in act.per_format][:SERIES]

    def series(table: dict[str, dict[str, int]], names: list[str]) -> list[tuple[str, list[int]]]:
        return [(n, [table[n].get(k, 0) for k in keys]) for n in names]

    unit = stats["timeline"]["unit"]
    return (
        f"<h2>Messages over time</h2><p class=meta>per {unit}; all messages, then the "
        f"busiest people, then each source format</p>"
        + svg.lines(keys, [("all", [b["messages"] for b in stats["timeline"]["buckets"]])],
                    "all messages over time")
        + svg.lines(keys, series(act.per_speaker, people), "messages per person over time")
        + svg.lines(keys, series(act.per_format, formats), "messages per format over time")
    )  # fmt: skip


def _responses(act: Activity) -> str:
    head = ["responder", *(b for b, _ in RESPONSE_BANDS), "replies"]
    ordered = sorted(act.responses.items(), key=lambda kv: (-sum(kv[1]), kv[0]))[:TOP]
    rows = [(name, *bands, sum(bands)) for name, bands in ordered]
    rows.insert(0, ("everyone", *act.overall, sum(act.overall)))
    return (
        "<h2>Response times</h2><p class=meta>time from a message to the next one in its "
        "thread by someone else</p>" + _table("responses", head, rows)
    )


def _knowledge(k: dict[str, Any]) -> str:
    pairs = [(p["speaker"], p["listener"], p["messages"]) for p in k.get("pairs", [])]
    topics = [
        (s["speaker"], ", ".join(f"{t['topic']} ({t['messages']})" for t in s["topics"]))
        for s in k.get("speaker_topics", [])
    ]
    return (
        "<h2>Who talks to whom</h2>"
        + _table("pairs", ["speaker", "listener", "messages"], pairs)
        + "<h2>Top topics per person</h2>"
        + _table("topics", ["person", "topics (messages)"], topics)
    )


def render(
    stats: dict[str, Any], knowledge: dict[str, Any], act: Activity, *, title: str, zone: str
) -> str:
    """The page of the three analyses (see the module docstring)."""
    totals = [("messages", stats["messages"]), ("words", stats["words"]),
              ("undated", stats["undated"]), ("first", stats["first"] or ""),
              ("last", stats["last"] or "")]  # fmt: skip
    formats = [(r["name"], r["messages"]) for r in stats["formats"]]
    threads = act.busiest_threads(TOP)
    parts = [
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>",
        f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{html_text(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html_text(title)}</h1><p class=meta>times in {html_text(zone)}</p>",
        _table("totals", ["", "value"], totals),
        _over_time(stats, act),
        f"<h2>Weekday and hour ({html_text(zone)})</h2>",
        svg.heatmap(act.hours, zone),
        _responses(act),
        _knowledge(knowledge),
        "<h2>Busiest threads</h2>",
        _table("threads", ["thread", "messages", "subject"],
               [(t, n, s) for t, n, s in threads]),
        "<h2>Formats</h2>", svg.bars(formats, "messages per format"),
        _table("formats", ["format", "messages", "words", "first", "last"],
               _tally_rows(stats["formats"])),
        "<h2>People</h2>",
        _table("speakers", ["speaker", "messages", "words", "first", "last"],
               _tally_rows(stats["speakers"])),
        "<h2>Tags</h2>",
        _table("tags", ["tag", "messages", "words", "first", "last"], _tally_rows(stats["tags"])),
        "</body></html>\n",
    ]  # fmt: skip
    return "\n".join(parts)


def report_of_parts(
    parts: Iterable[Any],
    filters: Any,
    *,
    zone: tzinfo,
    zone_name: str,
    title: str = "convo report",
    people: Any = None,
    on_error=None,
    jobs: int | None = None,
) -> str:
    """The report page of the records ``filters`` select in ``parts``
    (``pipeline.inputs.record_parts``), times of day in ``zone``."""
    from convo.analysis.knowledge.ranges import knowledge_of_parts

    parts = list(parts)
    stats = stats_of_parts(parts, filters, on_error=on_error, jobs=jobs, people=people).to_json()
    agg = knowledge_of_parts(parts, filters, summary=True, jobs=jobs, people=people)
    knowledge = agg.to_dict(TOP) if agg is not None else {}
    unit = stats["timeline"]["unit"]
    busiest = [r["name"] for r in stats["speakers"][:SERIES]]
    act = activity(
        selected(parts, filters, None, people), zone, busiest, lambda d: bucket_of(d, unit)
    )
    return render(stats, knowledge, act, title=title, zone=zone_name)


def report_of_records(
    records: Iterable[dict[str, Any]], *, zone: tzinfo, zone_name: str,
    title: str = "convo report",
) -> str:  # fmt: skip
    """The report page of ``records`` (names already their persons'), read once: the
    page ``report_of_parts`` makes of the same selection."""
    from convo.analysis.knowledge.summary import aggregate

    stats, daily = Stats(), DailyActivity(zone)

    def passing() -> Iterable[dict[str, Any]]:
        for record in records:
            stats.add(record)  # before the knowledge pass takes the record's text
            daily.add(record)
            yield record

    knowledge = aggregate(passing()).to_dict(TOP)
    counts = stats.to_json()
    unit = counts["timeline"]["unit"]
    busiest = [r["name"] for r in counts["speakers"][:SERIES]]
    act = daily.finish(lambda d: bucket_of(d, unit), busiest)
    return render(counts, knowledge, act, title=title, zone=zone_name)
