"""A plan's estimates as the pages show them: each as "estimate (low–high), n of N" with a bar that
draws the interval (an SVG the template draws: no script, no inline style), never as a bare count.
The figures page and the plan's page both include ``review/_plan_estimates.html`` with this."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from citeview.core.checking.plan_units import PRECISION, RECALL, RECALL_NOT_ESTIMATED
from citeview.review.charts import VERDICT_LABELS
from citeview.review.models import CheckPlan, PlanUnit
from citeview.review.plan_estimates import plan_estimates

# Each row of the chart, in CSS pixels as charts.py draws its bars.
ROW_HEIGHT = 40
TEXT_BASELINE = 15
BAR_TOP = 21
BAR_HEIGHT = 14


def plan_figures(plan: CheckPlan, user: Any) -> dict[str, Any]:
    """What ``review/_plan_estimates.html`` shows of ``plan`` for ``user``."""
    found = plan_estimates(plan, user)
    rows = [_row(estimate, plan.unit) for estimate in found["estimates"]]
    chart_rows = [row for row in rows if row["shown"]]
    for number, row in enumerate(chart_rows):
        row["text_y"] = number * ROW_HEIGHT + TEXT_BASELINE
        row["bar_y"] = number * ROW_HEIGHT + BAR_TOP
    return {
        "plan": found["plan"],
        "estimates": found,
        "rows": rows,
        "chart_rows": chart_rows,
        "chart_height": len(chart_rows) * ROW_HEIGHT,
        "bar_height": BAR_HEIGHT,
        "incomplete": None if found["complete"] else _incomplete_text(found),
        "uncovered": _uncovered_text(found),
        "hidden": found["hidden_until_you_check"],
        "recall_not_estimated": any(e["not_estimated_because"] == RECALL_NOT_ESTIMATED for e in found["estimates"]),
    }


def estimate_name(name: str) -> str:
    if name == PRECISION:
        return _("Citation precision")
    if name == RECALL:
        return _("Citation recall")
    verdict = name.removeprefix("verdict_")
    return _("Share “%(verdict)s”") % {"verdict": VERDICT_LABELS.get(verdict, verdict)}


def estimate_text(estimate: dict[str, Any], unit: str) -> str:
    """ "72.4% (65.1–78.8%), 120 of 3,400 citations checked"; or why there is no estimate yet."""
    if estimate["value"] is None:
        return _("no item checked yet")
    values = {
        "value": _percent(estimate["value"]),
        "low": _percent(estimate["low"]),
        "high": _percent(estimate["high"]),
        "n": estimate["checked"],
        "population": estimate["population"],
    }
    if unit == PlanUnit.STATEMENT:
        words = ngettext(
            "%(value)s (%(low)s–%(high)s), %(n)s of %(population)s statement checked",
            "%(value)s (%(low)s–%(high)s), %(n)s of %(population)s statements checked",
            estimate["population"],
        )
    else:
        words = ngettext(
            "%(value)s (%(low)s–%(high)s), %(n)s of %(population)s citation checked",
            "%(value)s (%(low)s–%(high)s), %(n)s of %(population)s citations checked",
            estimate["population"],
        )
    return words % values


def _row(estimate: dict[str, Any], unit: str) -> dict[str, Any]:
    shown = estimate["value"] is not None
    row: dict[str, Any] = {
        "key": estimate["name"],
        "name": estimate_name(estimate["name"]),
        "text": estimate_text(estimate, unit) if not estimate["not_estimated_because"] else "",
        "shown": shown,
        "why_not": plan_why_not(estimate["not_estimated_because"]),
    }
    if shown:
        # The chart's own line: the estimate and its interval, short enough to sit beside its name on a
        # phone; n and N are in the table under it, and in the bar's title.
        row["short"] = f"{_percent(estimate['value'])} ({_percent(estimate['low'])}–{_percent(estimate['high'])})"
        low, high, value = estimate["low"] or 0.0, estimate["high"] or 0.0, estimate["value"]
        row.update(
            low_x=_svg_percent(low), interval_width=_svg_percent(max(high - low, 0.0)), value_x=_svg_percent(value)
        )
    return row


def plan_why_not(code: str | None) -> str:
    if code == RECALL_NOT_ESTIMATED:
        return _(
            "A citation plan cannot estimate recall: its statements are drawn in proportion to their citations, "
            "and a statement that cites nothing is never drawn. Make a statement plan to estimate recall."
        )
    return ""


def _incomplete_text(found: dict[str, Any]) -> str:
    return ngettext(
        "This plan is not finished: the estimates cover the %(checked)s of %(items)s drawn item checked so far.",
        "This plan is not finished: the estimates cover the %(checked)s of %(items)s drawn items checked so far.",
        found["items"],
    ) % {"checked": found["items_checked"], "items": found["items"]}


def _uncovered_text(found: dict[str, Any]) -> str | None:
    """Said when a stratum has nothing checked yet: the estimates are of the strata checked, not of the
    whole scope (a plan smaller than its strata draws none from the smallest)."""
    uncovered = max((estimate.get("uncovered") or 0 for estimate in found["estimates"]), default=0)
    if not uncovered:
        return None
    return ngettext(
        "%(n)s unit in scope is in strata with nothing checked yet: the estimates leave it out.",
        "%(n)s units in scope are in strata with nothing checked yet: the estimates leave them out.",
        uncovered,
    ) % {"n": uncovered}


def _percent(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.1f}%"


def _svg_percent(share: float) -> str:
    """A share as an SVG length, so the bar follows the page's width (no scaling of its words)."""
    return f"{min(max(share, 0.0), 1.0) * 100:.2f}%"


class PlanChoiceForm(forms.Form):
    """The figures page's choice of a plan whose estimates it shows (``?plan=<id>``)."""

    plan = forms.ModelChoiceField(
        label=gettext_lazy("Check plan"),
        queryset=CheckPlan.objects.all(),
        required=False,
        empty_label=gettext_lazy("none: the figures of what was checked"),
    )

    def chosen(self) -> CheckPlan | None:
        if not self.is_valid():
            return None
        plan: CheckPlan | None = self.cleaned_data.get("plan")
        return plan
