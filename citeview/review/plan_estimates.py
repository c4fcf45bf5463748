"""A check plan's estimates for its whole scope: citation precision, citation recall (statement plans
only) and the share of each verdict, each with its interval, n checked and N in scope, from the final
verdicts of the plan's drawn items (settled, or agreed: :func:`citeview.core.checking.final.final_verdict`).

What each drawn unit gives each estimate is :mod:`citeview.core.checking.plan_units`; the interval is
:func:`citeview.core.checking.sampling.estimate`, stratified as the plan was drawn. The page, the report,
the API and the exports all read :func:`plan_estimates`, so they give the same figures.

Blind first holds here as on every figure: an editor's estimate reads only the checks they may read
(``checks_visible_to``), and says how many of the plan's items it leaves out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from citeview.accounts import roles
from citeview.core.checking.final import FinalVerdict, final_verdict, needed_final_verdict
from citeview.core.checking.items import citation_item_key, statement_item_key
from citeview.core.checking.metrics import StatementJudgement
from citeview.core.checking.plan_units import (
    PRECISION,
    RECALL,
    RECALL_NOT_ESTIMATED,
    VERDICT_SHARES,
    citation_units,
    statement_units,
)
from citeview.core.checking.sampling import Estimate, StratumSample, Unit, estimate
from citeview.core.checking.statements import Statement, statements
from citeview.dumps.models import Dump, DumpResponse
from citeview.review.models import RECORDED, Check, CheckPlan, PlanItem, PlanUnit, stratum_label
from citeview.review.selectors import checks_visible_to, is_independent

# The estimates a plan gives, in the order every reader shows them.
ESTIMATES = (PRECISION, RECALL, *VERDICT_SHARES)


@dataclass(frozen=True)
class _Answers:
    """What the readable checks say of a plan's dumps: each citation's final verdict, each statement's
    final answers (worthy, supported together)."""

    verdicts: dict[tuple[int, str], FinalVerdict]
    worthy: dict[tuple[int, str], FinalVerdict]
    together: dict[tuple[int, str], FinalVerdict]
    statement_of: dict[tuple[int, str], str]  # an item's statement key, as its checks recorded it
    unresolved: dict[tuple[int, str], int]  # a statement's markers that cite nothing

    def statement(self, dump_id: int, statement_key: str, verdicts: list[str | None]) -> StatementJudgement | None:
        """The statement's final judgement with ``verdicts``; None while its answers are disputed."""
        worthy = self.worthy.get((dump_id, statement_key), final_verdict(()))
        together = self.together.get((dump_id, statement_key), final_verdict(()))
        if worthy.unsettled or together.unsettled:
            return None
        return StatementJudgement(
            f"{dump_id}/{statement_key}",
            {"yes": True, "no": False}.get(worthy.verdict or ""),
            together.verdict,
            verdicts,
            self.unresolved.get((dump_id, statement_key), 0),
        )

    def verdict(self, dump_id: int, item_key: str) -> str | None:
        final = self.verdicts.get((dump_id, item_key))
        return final.verdict if final else None


def plan_estimates(plan: CheckPlan, user: Any) -> dict[str, Any]:
    """Every estimate of ``plan`` as ``user`` may read it, with what it was drawn from (scope, seed,
    strata, n, N), as JSON: what the page, the report, the API and the exports give."""
    items = list(plan.items.order_by("position"))
    dump_ids = sorted({item.dump_id for item in items})
    checks = Check.objects.filter(dump__in=dump_ids)
    answers = _answers(
        checks_visible_to(user, checks),
        checks_visible_to(user, Check.settlements.filter(dump__in=dump_ids)),
        plan.checks_needed,
    )
    if plan.unit == PlanUnit.STATEMENT:
        units = _statement_plan_units(items, answers)
    else:
        units = _citation_plan_units(items, answers)
    strata = plan.strata or {}
    estimates = [_estimate_json(name, _estimate(name, strata, items, units), plan) for name in ESTIMATES]
    checked = sum(1 for item in items if _fully_checked(units.get((item.dump_id, item.item_key), {}), plan))
    return {
        "plan": plan_json(plan),
        "items": len(items),
        "items_checked": checked,  # with every estimate's answers final
        "complete": bool(items) and checked == len(items),
        "hidden_until_you_check": _hidden_items(user, checks, items),
        "estimates": estimates,
    }


def plan_json(plan: CheckPlan) -> dict[str, Any]:
    """What a plan was drawn from and how: the figures' context, as every reader gives it."""
    return {
        "id": plan.pk,
        "name": plan.name,
        "unit": plan.unit,
        "scope": _scope_json(plan),
        "seed": plan.seed,
        "size": plan.size,
        "population": plan.population,
        "confidence": plan.confidence,
        "requested_size": plan.requested_size,
        "target_margin": plan.target_margin,
        "strata": [
            {"stratum": name, "population": part.get("population", 0), "drawn": part.get("drawn", 0)}
            for name, part in sorted((plan.strata or {}).items())
        ],
        "dumps_in_scope": len(plan.scope_dump_ids or []),
        "made_by": plan.made_by.get_username() if plan.made_by_id else "",
        "made_at": plan.made_at.isoformat(),
    }


def _scope_json(plan: CheckPlan) -> dict[str, Any]:
    return {
        "kind": plan.scope_kind,
        "dump": plan.scope_dump_id,
        "tag": plan.scope_tag.name if plan.scope_tag_id and plan.scope_tag else None,
        "provider": plan.scope_provider or None,
        "from": plan.scope_from.isoformat() if plan.scope_from else None,
        "to": plan.scope_to.isoformat() if plan.scope_to else None,
    }


def _answers(checks: QuerySet[Check], settlements: QuerySet[Check], needed: int) -> _Answers:
    """Final only where ``needed`` independent checks agree (or a settlement): as the walk, which offers
    an item to another editor until it has them (:func:`needed_final_verdict`)."""
    fields = ("dump_id", "item_key", "statement_key", "kind", "verdict", "verification_worthy")
    given: defaultdict[tuple[int, str], list[tuple[str, bool]]] = defaultdict(list)
    worthy: defaultdict[tuple[int, str], list[tuple[str, bool]]] = defaultdict(list)
    together: defaultdict[tuple[int, str], list[tuple[str, bool]]] = defaultdict(list)
    statement_of: dict[tuple[int, str], str] = {}
    unresolved: dict[tuple[int, str], int] = {}
    read = checks.annotate(independent=is_independent()).only(*fields, "supported_together", "unresolved_count")
    for check in read:
        key = (check.dump_id, check.item_key)
        statement_of[key] = check.statement_key
        unresolved[(check.dump_id, check.statement_key)] = check.unresolved_count
        if check.kind == "citation":
            given[key].append((check.verdict, check.independent))
        elif check.item_key == check.statement_key:
            worthy[key].append((check.verification_worthy, check.independent))
            together[key].append((check.supported_together, check.independent))
    settled = {(s.dump_id, s.item_key): s.verdict for s in settlements.only(*fields)}
    return _Answers(
        verdicts={key: needed_final_verdict(found, settled.get(key, ""), needed) for key, found in given.items()},
        worthy={key: needed_final_verdict(found, "", needed) for key, found in worthy.items()},
        together={key: needed_final_verdict(found, "", needed) for key, found in together.items()},
        statement_of=statement_of,
        unresolved=unresolved,
    )


def _citation_plan_units(items: list[PlanItem], answers: _Answers) -> dict[tuple[int, str], dict[str, Unit]]:
    """Each drawn citation's part in each estimate it is checked for. Its statement is known from its
    checks: a citation nobody has checked is in no estimate yet."""
    units = {}
    for item in items:
        key = (item.dump_id, item.item_key)
        statement_key = answers.statement_of.get(key)
        statement = answers.statement(item.dump_id, statement_key, []) if statement_key else None
        unresolved = _is_unresolved_marker(item.item_key)
        units[key] = citation_units(answers.verdict(*key), statement, unresolved)
    return units


def _is_unresolved_marker(item_key: str) -> bool:
    """A marker that cites no source ("r0-u2", :func:`citeview.core.checking.items.unresolved_item_key`)."""
    parts = item_key.split("-")
    return len(parts) == 2 and parts[1].startswith("u")


def _statement_plan_units(items: list[PlanItem], answers: _Answers) -> dict[tuple[int, str], dict[str, Unit]]:
    """Each drawn statement's part in each estimate it is checked for: all its citations (each source
    of each, from the dump's result) must have final verdicts for precision and the verdict shares."""
    citations = _citations_of_statements(items)
    units = {}
    for item in items:
        key = (item.dump_id, item.item_key)
        verdicts = [answers.verdict(item.dump_id, citation) for citation in citations.get(key, [])]
        units[key] = statement_units(answers.statement(item.dump_id, item.item_key, verdicts))
    return units


def _citations_of_statements(items: list[PlanItem]) -> dict[tuple[int, str], list[str]]:
    """The citation item keys of each drawn statement, from its response's normalised JSON: at most
    three queries, however many dumps and responses."""
    wanted: defaultdict[int, set[int]] = defaultdict(set)
    for item in items:
        wanted[item.dump_id].add(item.response_index)
    found: dict[tuple[int, str], list[str]] = {}
    for (dump_id, index), response in _responses(wanted).items():
        for statement in statements(response):
            found[(dump_id, statement_item_key(index, statement))] = _citation_keys(response, index, statement)
    return found


def _citation_keys(response: dict[str, Any], index: int, statement: Statement) -> list[str]:
    """A statement's citation items: one per citation, or one per source of a citation with several
    (as :func:`citeview.core.checking.items.check_items` keys them)."""
    keys = []
    for citation in statement.citations:
        sources = len(response["citations"][citation]["source_keys"])
        positions = range(1, sources + 1) if sources > 1 else [0]
        keys += [citation_item_key(index, citation, position) for position in positions]
    return keys


def _responses(wanted: dict[int, set[int]]) -> dict[tuple[int, int], dict[str, Any]]:
    """Some responses' normalised JSON, per (dump, index): a batch's own rows where they are made (for
    the dump's current ``derived_at``), else the dump's result, read only for the dumps that lack them."""
    derived = dict(Dump.objects.filter(pk__in=wanted).values_list("pk", "derived_at"))
    current = Q(pk__in=[])
    for dump_id, indices in wanted.items():
        current |= Q(dump_id=dump_id, derived_at=derived.get(dump_id), index__in=sorted(indices))
    rows = DumpResponse.objects.filter(current).only("dump_id", "index", "result")
    found = {(row.dump_id, row.index): dict(row.result) for row in rows}
    lacking = [dump_id for dump_id, indices in wanted.items() if any((dump_id, i) not in found for i in indices)]
    for dump in Dump.objects.filter(pk__in=lacking).only("pk", "result"):
        every = dump.result.get("responses", [])
        found |= {(dump.pk, i): every[i] for i in wanted[dump.pk] if i < len(every)}
    return found


def _estimate(
    name: str, strata: dict[str, Any], items: list[PlanItem], units: dict[tuple[int, str], dict[str, Unit]]
) -> Estimate:
    checked: defaultdict[str, list[Unit]] = defaultdict(list)
    for item in items:
        unit = units.get((item.dump_id, item.item_key), {}).get(name)
        if unit is not None:
            checked[item.stratum].append(unit)
    samples = {
        # The plan keeps each stratum's whole name; its items, the name cut to fit (stratum_label).
        stratum: StratumSample(part.get("population", 0), part.get("drawn", 0), checked.get(stratum_label(stratum), []))
        for stratum, part in strata.items()
    }
    return estimate(samples)


def _estimate_json(name: str, found: Estimate, plan: CheckPlan) -> dict[str, Any]:
    if name == RECALL and plan.unit != PlanUnit.STATEMENT:
        return {"name": name, "value": None, "low": None, "high": None, "not_estimated_because": RECALL_NOT_ESTIMATED}
    return {
        "name": name,
        "value": found.value,
        "low": found.low,
        "high": found.high,
        "checked": found.checked,
        "drawn": found.drawn,
        "population": found.population,
        "confidence": found.confidence,
        "complete": found.complete,
        "uncovered": found.uncovered,
        "method": found.method,
        "not_estimated_because": None,
    }


def _fully_checked(units: dict[str, Unit], plan: CheckPlan) -> bool:
    wanted = set(ESTIMATES) if plan.unit == PlanUnit.STATEMENT else set(ESTIMATES) - {RECALL}
    return wanted <= set(units)


def _hidden_items(user: Any, checks: QuerySet[Check], items: list[PlanItem]) -> int:
    """How many of the plan's items have a check blind first keeps from ``user``: items, not checks,
    each matched in its own dump (two dumps share item keys such as "r0-c0")."""
    if not roles.can_record(user):
        return 0
    recorded = _plan_checks(checks, items).filter(RECORDED)
    hidden = recorded.exclude(pk__in=checks_visible_to(user, recorded).values("pk"))
    drawn = {(item.dump_id, item.item_key) for item in items}
    found = set()
    for dump_id, item_key, statement_key in hidden.values_list("dump_id", "item_key", "statement_key"):
        # A statement plan's item is the statement: its citations' checks are its own.
        place = (dump_id, item_key) if (dump_id, item_key) in drawn else (dump_id, statement_key)
        found.add(place)
    return len(found & drawn)


def _plan_checks(checks: QuerySet[Check], items: Iterable[PlanItem]) -> QuerySet[Check]:
    """The checks of the plan's items, each dump's keys in that dump only."""
    keys: defaultdict[int, set[str]] = defaultdict(set)
    for item in items:
        keys[item.dump_id].add(item.item_key)
    of_items = Q(pk__in=[])
    for dump_id, dump_keys in keys.items():
        of_items |= Q(dump_id=dump_id) & (Q(item_key__in=dump_keys) | Q(statement_key__in=dump_keys))
    return checks.filter(of_items, is_item=True)
