"""A check plan's estimates to take away: its report (Markdown for people, JSON for tools) and the
estimates alone as CSV or JSON. Every one reads :func:`plan_estimates`, as the pages do, so each gives
the same figures, with their intervals, n, N, the seed and the strata."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from citeview.accounts import roles
from citeview.core.checking.report import markdown_line
from citeview.review.exports import FORMULA_STARTS, report_language, shown_time
from citeview.review.models import CheckPlan, PlanUnit
from citeview.review.plan_estimates import plan_estimates
from citeview.review.plan_figures import estimate_name, estimate_text, plan_why_not

ESTIMATE_COLUMNS = (
    "plan_id",
    "plan_name",
    "unit",
    "seed",
    "estimate",
    "value",
    "low",
    "high",
    "checked",
    "drawn",
    "population",
    "confidence",
    "complete",
    "method",
    "not_estimated_because",
)
JSON_PARAMS = {"ensure_ascii": False, "indent": 2}


def plan_get(pk: int) -> CheckPlan:
    plan: CheckPlan = get_object_or_404(CheckPlan.objects.select_related("made_by", "scope_tag"), pk=pk)
    return plan


def plan_report(plan: CheckPlan, user: Any) -> dict[str, Any]:
    """The plan's report for tools: its estimates as ``user`` may read them, and when it was made."""
    return {"generated_at": timezone.now().isoformat(), **plan_estimates(plan, user)}


def plan_report_markdown(report: dict[str, Any]) -> str:
    """The plan's report for people, in the active language: scope, seed, strata, n, N and each
    estimate with its interval. Names from the plan, its dumps and its users (its name, strata, maker)
    are escaped: the report quotes them, it does not format with them."""
    plan = report["plan"]
    lines = ["# " + _("Check plan report: %(name)s") % {"name": _one_line(plan["name"])}, ""]
    lines.append(
        "- "
        + _("Plan %(id)s, made by %(user)s on %(time)s")
        % {
            "id": plan["id"],
            "user": _one_line(plan["made_by"]),
            "time": shown_time(plan["made_at"]),
        }
    )
    lines.append("- " + _("Scope: %(scope)s") % {"scope": _scope_text(plan["scope"])})
    drawn = {"size": plan["size"], "population": plan["population"]}
    if plan["unit"] == PlanUnit.STATEMENT:
        lines.append("- " + _("Drawn: %(size)s of %(population)s statements in scope") % drawn)
    else:
        lines.append("- " + _("Drawn: %(size)s of %(population)s citations in scope") % drawn)
    lines.append("- " + _("Seed: %(seed)s") % {"seed": plan["seed"]})
    if not report["complete"]:
        lines.append(
            "- "
            + ngettext(
                "Not finished: the estimates cover the %(checked)s of %(items)s drawn item checked so far",
                "Not finished: the estimates cover the %(checked)s of %(items)s drawn items checked so far",
                report["items"],
            )
            % {"checked": report["items_checked"], "items": report["items"]}
        )
    if report["hidden_until_you_check"]:
        lines.append(
            "- "
            + _("Other editors' verdicts stay hidden until you check: %(n)s (blind first)")
            % {"n": report["hidden_until_you_check"]}
        )
    lines += ["", "## " + _("Strata (provider · model)"), ""]
    lines += [f"| {_('Stratum')} | {_('In scope (N)')} | {_('Drawn (n)')} |", "|---|---:|---:|"]
    lines += [f"| {_cell(s['stratum'])} | {s['population']} | {s['drawn']} |" for s in plan["strata"]]
    lines += ["", "## " + _("Estimates for the whole scope, with their 95% intervals"), ""]
    for estimate in report["estimates"]:
        why = plan_why_not(estimate["not_estimated_because"])
        lines.append(f"- {estimate_name(estimate['name'])}: {why or estimate_text(estimate, plan['unit'])}")
    methods = sorted({e["method"] for e in report["estimates"] if e.get("method")})
    if methods:
        lines += ["", _("Interval: %(method)s.") % {"method": ", ".join(methods)}]
    return "\n".join(lines).rstrip() + "\n"


def _scope_text(scope: dict[str, Any]) -> str:
    kind = scope["kind"]
    if kind == "batch":
        return _("the batch, dump %(id)s") % {"id": scope["dump"]}
    if kind == "tag":
        return _("the dumps tagged %(tag)s") % {"tag": _one_line(scope["tag"] or "")}
    if kind == "provider":
        return _("the dumps of %(provider)s") % {"provider": _one_line(scope["provider"])}
    return _("the dumps stored from %(start)s to %(end)s") % {"start": scope["from"] or "…", "end": scope["to"] or "…"}


def _one_line(text: str) -> str:
    """Text from a dump or a user (a stratum's model name, a username) on one line, its Markdown escaped
    as the dump's report escapes it: a viewer must not turn it into links, images or HTML."""
    return markdown_line(text)


def _cell(text: str) -> str:
    """Text in a Markdown table cell: one line, its pipes escaped (with the rest of its Markdown)."""
    return _one_line(text)


def estimate_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per estimate, with the plan it belongs to: the CSV's rows."""
    plan = report["plan"]
    return [
        {
            "plan_id": plan["id"],
            "plan_name": plan["name"],
            "unit": plan["unit"],
            "seed": plan["seed"],
            "estimate": estimate["name"],
            **{name: estimate.get(name) for name in ESTIMATE_COLUMNS[5:]},
        }
        for estimate in report["estimates"]
    ]


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_report_md(request: HttpRequest, pk: int) -> HttpResponse:
    plan = plan_get(pk)
    with translation.override(report_language(request)):
        text = plan_report_markdown(plan_report(plan, request.user))
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="citeview-plan-{plan.pk}-report.md"'
    return response


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_report_json(request: HttpRequest, pk: int) -> JsonResponse:
    plan = plan_get(pk)
    response = JsonResponse(plan_report(plan, request.user), json_dumps_params=JSON_PARAMS)
    response["Content-Disposition"] = f'attachment; filename="citeview-plan-{plan.pk}-report.json"'
    return response


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_estimates_json(request: HttpRequest, pk: int) -> JsonResponse:
    plan = plan_get(pk)
    response = JsonResponse(plan_estimates(plan, request.user), json_dumps_params=JSON_PARAMS)
    response["Content-Disposition"] = f'attachment; filename="citeview-plan-{plan.pk}-estimates.json"'
    return response


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_estimates_csv(request: HttpRequest, pk: int) -> HttpResponse:
    plan = plan_get(pk)
    out = io.StringIO()
    out.write("\ufeff")  # so spreadsheet programs read the Japanese as UTF-8
    writer = csv.DictWriter(out, fieldnames=ESTIMATE_COLUMNS)
    writer.writeheader()
    for row in estimate_rows(plan_estimates(plan, request.user)):
        # A plan's name is typed by a lead: never a formula in a spreadsheet.
        name = row["plan_name"]
        row["plan_name"] = "'" + name if name.startswith(FORMULA_STARTS) else name
        writer.writerow(row)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="citeview-plan-{plan.pk}-estimates.csv"'
    return response
