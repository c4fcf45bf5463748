"""Check plans' pages: the list, making one (a lead's), a plan's own page, and the start of its walk.
Thin: the draw and the reads are in ``citeview.review.plans``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from citeview.accounts import roles
from citeview.dumps.http_status import form_error_status
from citeview.review.check_page import plan_item_url
from citeview.review.forms import PlanForm
from citeview.review.models import CheckPlan
from citeview.review.plan_figures import plan_figures
from citeview.review.plans import (
    EmptyScope,
    dumps_added_since,
    is_plan_editor,
    plan_make,
    plan_progress,
    plan_walk,
    size_capped,
)

# The dumps added to a plan's scope since it was drawn that its page names (it says how many in all).
ADDED_SHOWN = 50


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_list(request: HttpRequest) -> HttpResponse:
    """Every check plan, the newest first (a plan is never deleted)."""
    plans = CheckPlan.objects.select_related("made_by", "scope_dump", "scope_tag").prefetch_related("editors")
    context = {"plans": list(plans[:500]), "can_make": roles.can_assign(request.user)}
    return render(request, "review/plan_list.html", context)


@require_http_methods(["GET", "POST"])
@permission_required(roles.READ, raise_exception=True)
def plan_new(request: HttpRequest) -> HttpResponse:
    """A lead's (or staff's) new plan: as assigning, choosing who checks what is theirs. On an error the
    form comes back with what was typed."""
    if not roles.can_assign(request.user):
        raise PermissionDenied("Only a lead or staff make check plans.")
    if request.method == "GET":
        initial: dict[str, Any] = {}
        if (dump := request.GET.get("dump", "")).isdigit():
            initial = {"scope_kind": "batch", "scope_dump": int(dump)}
        return render(request, "review/plan_new.html", {"form": PlanForm(initial=initial)})
    form = PlanForm(request.POST)
    if not form.is_valid():
        return render(request, "review/plan_new.html", {"form": form}, status=form_error_status(form))
    try:
        plan = plan_make(draft=form.draft(), by=request.user)
    except EmptyScope:
        form.add_error(
            None,
            _(
                "The scope holds nothing to draw: no dump in it is read and has items of this kind. "
                "Choose another scope."
            ),
        )
        return render(request, "review/plan_new.html", {"form": form}, status=400)
    _say_drawn(request, plan)
    return redirect("review:plan", pk=plan.pk)


def _say_drawn(request: HttpRequest, plan: CheckPlan) -> None:
    asked = plan.requested_size
    if asked is not None and asked > plan.population:
        messages.warning(
            request,
            ngettext(
                "The scope holds only %(n)d unit, fewer than the %(asked)d asked for: the plan takes it.",
                "The scope holds only %(n)d units, fewer than the %(asked)d asked for: the plan takes them all.",
                plan.population,
            )
            % {"n": plan.population, "asked": asked},
        )
        return
    messages.success(
        request,
        ngettext("Drawn: %(n)d unit of %(total)d.", "Drawn: %(n)d units of %(total)d.", plan.size)
        % {"n": plan.size, "total": plan.population},
    )


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """What the plan is and how far its checking has come. Counts only: no verdict shows here."""
    plan = get_object_or_404(CheckPlan.objects.select_related("made_by", "scope_dump", "scope_tag"), pk=pk)
    added = dumps_added_since(plan)
    editor = roles.can_record(request.user) and is_plan_editor(request.user, plan)
    context = {
        "plan": plan,
        "strata": [{"name": name, **counts} for name, counts in plan.strata.items()],
        "editors": list(plan.plan_editors.select_related("editor").order_by("editor__username")),
        "progress": plan_progress(plan),
        "added": list(added[:ADDED_SHOWN]),
        "added_count": added.count(),
        "is_plan_editor": editor,
        "waiting": plan_walk(plan, request.user).waiting_count if editor else 0,
        "margin_points": plan.target_margin * 100 if plan.target_margin else None,
        "size_capped": size_capped(plan),
        "pf": plan_figures(plan, request.user),  # its estimates, as the figures page shows them
    }
    return render(request, "review/plan.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def plan_check_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The plan's first item waiting for the user, in the plan's random order; the plan's page when
    none is."""
    plan = get_object_or_404(CheckPlan, pk=pk)
    stop = plan_walk(plan, request.user).next_waiting()
    if stop is None:
        messages.info(request, _("No item of this plan is waiting for you."))
        return redirect("review:plan", pk=plan.pk)
    return redirect(plan_item_url(plan, stop))
