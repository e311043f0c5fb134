"""Template filters and tags of the console: estimates, charts, revision diffs."""

from __future__ import annotations

import difflib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.timesince import timesince

from memoryadmin.console.queries import Activity, Estimate

register = template.Library()

CHART_WIDTH = 600
CHART_HEIGHT = 120


@register.filter
def approx(value: Estimate | int | None) -> str:
    """1,234 when exact; ≈ 1.2M when it is the planner's estimate."""
    if isinstance(value, int):
        return f"{value:,}"
    if not isinstance(value, Estimate):
        return "–"
    if value.exact:
        return f"{value.value:,}"
    n = value.value
    if n >= 1_000_000:
        return f"≈ {n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"≈ {n / 1000:.0f}k"
    return f"≈ {round(n, -2):,}"


def _bars(values: list[list[int]], peak: int, classes: list[str], labels: list[str]) -> list[dict[str, Any]]:
    """Geometry of grouped bars: one group per day, one bar per series, scaled to the peak."""
    slot = CHART_WIDTH / max(len(values), 1)
    width = max((slot - 2) / len(classes), 1)
    bars = []
    for i, group in enumerate(values):
        for j, value in enumerate(group):
            height = 0 if peak == 0 else round(value / peak * (CHART_HEIGHT - 4), 1)
            bars.append(
                {
                    "x": round(i * slot + 1 + j * width, 1),
                    "y": round(CHART_HEIGHT - height, 1),
                    "width": round(width, 1),
                    "height": height,
                    "css": classes[j],
                    "label": labels[i].format(value=value, series=classes[j]),
                }
            )
    return bars


@dataclass(frozen=True)
class Chart:
    title: str
    # Each series by name (also its bar's CSS class), with the field of a Day that it counts.
    series: dict[str, str]
    # The field of Activity holding the highest count of any series on any day: the bars' scale.
    peak: str
    # Describes a bar, with {value} and {series} left for each.
    label: str


CHARTS = {
    "memories": Chart(
        "Memories created and forgotten per day",
        {"created": "created", "forgotten": "forgotten"},
        peak="peak_memories",
        label="{value} {series}",
    ),
    "runs": Chart(
        "Extraction runs per day",
        {"succeeded": "runs_succeeded", "failed": "runs_failed"},
        peak="peak_runs",
        label="{value} runs {series}",
    ),
}


@register.inclusion_tag("console/_chart.html")
def activity_chart(data: Activity, name: str) -> dict[str, Any]:
    """The context of `_chart.html` for the chart `name` of CHARTS: one group of bars per day of `data`,
    one bar per series."""
    chart = CHARTS[name]
    series = list(chart.series)
    values = [[getattr(d, field) for field in chart.series.values()] for d in data.days]
    peak = getattr(data, chart.peak)
    labels = [f"{d.day:%b %d}: {chart.label}" for d in data.days]
    return {
        "bars": _bars(values, peak, series, labels),
        "peak": peak,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "title": chart.title,
        "series": series,
        "first": data.days[0].day if data.days else None,
        "last": data.days[-1].day if data.days else None,
    }


# Words, runs of punctuation and runs of space are tokens of their own: adding ", especially bebop"
# after "jazz" inserts those words and leaves "jazz" equal, instead of replacing "jazz" by "jazz,".
DIFF_TOKENS = re.compile(r"\w+|\s+|[^\w\s]+")


@register.simple_tag
def word_diff(before: str, after: str) -> SafeString:
    """The change from one revision's text to the next, as <del>/<ins> over words."""
    old, new = DIFF_TOKENS.findall(before), DIFF_TOKENS.findall(after)
    chunks: list[tuple[str, str, str]] = []  # (op, old text, new text)
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        removed, added = "".join(old[i1:i2]), "".join(new[j1:j2])
        if op != "equal" and chunks and chunks[-1][0] != "equal":
            # Two changes side by side read as one.
            _, was_removed, was_added = chunks.pop()
            removed, added = was_removed + removed, was_added + added
        elif op != "equal" and len(chunks) >= 2 and chunks[-1][0] == "equal" and chunks[-1][1].isspace():
            # A lone space between two changes is part of the change, not a match worth showing.
            space = chunks.pop()[1]
            _, was_removed, was_added = chunks.pop()
            removed = was_removed + space + removed if was_removed and removed else was_removed + removed
            added = was_added + space + added if was_added and added else was_added + added
        chunks.append(("equal" if op == "equal" else "change", removed, added))
    parts: list[SafeString] = []
    for op, removed, added in chunks:
        if op == "equal":
            parts.append(format_html("{}", removed))
            continue
        if removed and added:
            parts.append(format_html("<del>{}</del> <ins>{}</ins>", removed, added))
        elif removed:
            parts.append(format_html("<del>{}</del>", removed))
        else:
            parts.append(format_html("<ins>{}</ins>", added))
    return format_html_join("", "{}", ((part,) for part in parts))


@register.filter
def ago(value: datetime | None) -> str:
    """How long ago, in words: "3 hours ago", and "just now" within a minute (not "0 minutes ago")."""
    if value is None:
        return ""
    if timezone.now() - value < timedelta(minutes=1):
        return "just now"
    return f"{timesince(value)} ago"


@register.filter
def is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


@register.filter
def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, default=str)
