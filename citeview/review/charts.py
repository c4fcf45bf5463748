"""Bar charts of the figures, as numbers an SVG template draws (no chart library, no script)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from citeview.review.models import VERDICTS

VERDICT_LABELS = dict(VERDICTS)

WIDTH = 640  # the chart's own units; the SVG scales to the page
BAR_HEIGHT = 22
GAP = 8
LABEL_WIDTH = 230  # room for the labels, left of the bars
VALUE_WIDTH = 110  # room for the figure, right of the longest bar


def bar_chart(title: str, rows: list[tuple[str, float | None, str]]) -> dict[str, Any]:
    """``rows``: (label, share from 0 to 1 or None, the figure as text). Bars scale to the chart."""
    bars = []
    for index, (label, share, text) in enumerate(rows):
        width = 0.0 if share is None else round(max(0.0, min(1.0, share)) * (WIDTH - LABEL_WIDTH - VALUE_WIDTH), 1)
        y = index * (BAR_HEIGHT + GAP)
        bars.append(
            {
                "label": label,
                "text": text,
                "x": LABEL_WIDTH,
                "y": y,
                "text_y": y + 16,
                "width": width,
                "text_x": LABEL_WIDTH + width + 6,
            }
        )
    return {
        "title": title,
        "bars": bars,
        "width": WIDTH,
        "height": max(1, len(bars) * (BAR_HEIGHT + GAP)),
        "bar_height": BAR_HEIGHT,
        "label_x": LABEL_WIDTH - 8,
    }


def figure_charts(figures: dict[str, Any]) -> list[dict[str, Any]]:
    overall = figures["overall"]
    verdicts = overall["verdicts"]
    total = sum(verdicts.values())
    distribution = bar_chart(
        _("Verdicts"),
        [
            (
                str(VERDICT_LABELS[name]),
                count / total if total else None,
                f"{count} ({_percent(count / total if total else None)})",
            )
            for name, count in verdicts.items()
        ],
    )
    ratios = []
    for part in figures["by_provider"] or [overall]:
        for name, key in ((_("recall"), "citation_recall"), (_("precision"), "citation_precision")):
            value = part[key]["value"]
            ratios.append((f"{part['label']} · {name}", value, _percent(value)))
    return [distribution, bar_chart(_("Citation recall and precision by provider"), ratios)]


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"
