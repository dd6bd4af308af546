"""Inline SVG charts for ``convo report``: a line chart of series, a weekday x hour heatmap,
horizontal bars. Plain strings, deterministic (fixed palette, rounded coordinates), every
label escaped through ``convo.core.text.markup.html_text``; no style attributes (the
report's Content-Security-Policy allows only its one hashed style sheet), only SVG
presentation attributes."""

from __future__ import annotations

from collections.abc import Sequence

from convo.core.text.markup import html_text

PALETTE = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2",
           "#97bbf5", "#9c6b4e", "#9498a0")  # fmt: skip
LEGEND_COLUMNS, LEGEND_WIDTH = 4, 170
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def lines(keys: Sequence[str], series: Sequence[tuple[str, Sequence[int]]], title: str) -> str:
    """One polyline per series over the ``keys`` (timeline buckets), with a legend."""
    width, height, left, top, bottom = 720, 220, 40, 10, 30
    peak = max((max(v) for _, v in series if v), default=0) or 1
    step = (width - left - 10) / max(1, len(keys) - 1)
    scale = (height - top - bottom) / peak
    rows = -(-len(series) // LEGEND_COLUMNS)
    out = [f'<svg class="chart" viewBox="0 0 {width} {height + 20 * rows}" '
           f'role="img" aria-label="{html_text(title)}">']  # fmt: skip
    base = height - bottom
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#999"/>')
    out.append(f'<text x="2" y="{top + 10}" font-size="10">{peak}</text>')
    if keys:
        out.append(f'<text x="{left}" y="{base + 14}" font-size="10">{html_text(keys[0])}</text>')
        out.append(f'<text x="{width - 10}" y="{base + 14}" font-size="10" '
                   f'text-anchor="end">{html_text(keys[-1])}</text>')  # fmt: skip
    for i, (name, values) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        points = " ".join(
            f"{_n(left + j * step)},{_n(base - v * scale)}" for j, v in enumerate(values)
        )
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'points="{points}"><title>{html_text(name[:300])}</title></polyline>')  # fmt: skip
        x, y = left + LEGEND_WIDTH * (i % LEGEND_COLUMNS), height + 20 * (i // LEGEND_COLUMNS) + 12
        shown = name if len(name) <= 24 else name[:23] + "…"
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 16}" y="{y}" font-size="12">{html_text(shown)}</text>')
    out.append("</svg>")
    return "".join(out)


def heatmap(grid: Sequence[Sequence[int]], zone: str) -> str:
    """A weekday (rows, Monday first) x hour (columns) grid; darker is more messages."""
    cell, left, top = 24, 40, 20
    peak = max((max(row) for row in grid), default=0) or 1
    out = [f'<svg class="chart" viewBox="0 0 {left + 24 * cell + 10} {top + 7 * cell + 10}" '
           f'role="img" aria-label="messages by weekday and hour, {html_text(zone)}">']  # fmt: skip
    for h in range(0, 24, 3):
        out.append(f'<text x="{left + h * cell + 2}" y="{top - 6}" font-size="10">{h:02d}</text>')
    for d, row in enumerate(grid):
        y = top + d * cell
        out.append(f'<text x="2" y="{y + 16}" font-size="11">{WEEKDAYS[d]}</text>')
        for h, n in enumerate(row):
            shade = _n(0.06 + 0.94 * n / peak) if n else "0.03"
            out.append(f'<rect x="{left + h * cell}" y="{y}" width="{cell - 2}" '
                       f'height="{cell - 2}" fill="#4269d0" fill-opacity="{shade}">'
                       f"<title>{WEEKDAYS[d]} {h:02d}:00 {n}</title></rect>")  # fmt: skip
    out.append("</svg>")
    return "".join(out)


def bars(rows: Sequence[tuple[str, int]], title: str) -> str:
    """Horizontal bars, one a row, labelled with the name and the count."""
    width, label, bar_h = 720, 200, 18
    peak = max((n for _, n in rows), default=0) or 1
    out = [f'<svg class="chart" viewBox="0 0 {width} {bar_h * len(rows) + 4}" role="img" '
           f'aria-label="{html_text(title)}">']  # fmt: skip
    for i, (name, n) in enumerate(rows):
        y = i * bar_h + 2
        w = _n((width - label - 60) * n / peak)
        shown = name if len(name) <= 30 else name[:29] + "…"
        out.append(f'<text x="0" y="{y + 13}" font-size="12">{html_text(shown)}</text>')
        out.append(f'<rect x="{label}" y="{y}" width="{w}" height="{bar_h - 4}" '
                   f'fill="{PALETTE[0]}"/>')  # fmt: skip
        out.append(f'<text x="{label + float(w) + 4}" y="{y + 13}" font-size="12">{n}</text>')
    out.append("</svg>")
    return "".join(out)
