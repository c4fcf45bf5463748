"""The team's figures from recorded checks (``../shared/docs/evidence-review.md``), sliced by provider,
API, model and tag over a date range; the formulas are in :mod:`citeview.core.review.metrics`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django import forms
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from citeview.core import registry
from citeview.core.review.metrics import (
    StatementJudgement,
    agreement,
    citation_precision,
    citation_recall,
    macro_precision,
    macro_recall,
    percent,
    precision_empty_because,
    recall_empty_because,
    verdict_distribution,
)
from citeview.dumps.models import Dump, ReadState
from citeview.review.evidence import evidence_counts
from citeview.review.models import Check
from citeview.review.selectors import checks_visible_to, hidden_check_count


class FigureFilterForm(forms.Form):
    provider = forms.ChoiceField(label=_("Provider"), required=False)
    api = forms.ChoiceField(label=_("API"), required=False)
    model = forms.CharField(label=_("Model"), required=False, max_length=100)
    tag = forms.CharField(label=_("Tag"), required=False, max_length=50)
    since = forms.DateField(label=_("Stored from"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("Stored until"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["provider"].choices = [("", _("any")), *((p, p) for p in registry.provider_names())]
        self.fields["api"].choices = [("", _("any")), *((api.name, api.label) for api in registry.api_formats())]

    def filters(self) -> dict[str, Any]:
        """The valid, non-empty filters; an invalid one is left out (the form shows why)."""
        self.is_valid()
        return {name: value for name, value in getattr(self, "cleaned_data", {}).items() if value}


@dataclass(frozen=True)
class Slice:
    """One row of a breakdown: the dumps' own figures and the figures of the checks on them."""

    label: str
    checks: list[Check]
    dumps: list[Dump]
    evidence: dict[int, dict[str, int]] = field(default_factory=dict)  # per dump: evidence_counts


def selected_dumps(filters: dict[str, Any]) -> QuerySet[Dump]:
    condition = Q()
    if provider := filters.get("provider"):
        condition &= Q(providers__contains=provider)
    if api := filters.get("api"):
        condition &= Q(apis__contains=api)
    if model := filters.get("model"):
        condition &= Q(model_names__contains=model)
    if tag := filters.get("tag"):
        condition &= Q(tags__name=tag)
    if since := filters.get("since"):
        condition &= Q(created_at__date__gte=since)
    if until := filters.get("until"):
        condition &= Q(created_at__date__lte=until)
    fields = ("providers", "apis", "model_names", "citation_count", "unresolved_count", "response_count")
    # A dump not read yet has no figures of its own: it is counted nowhere until it has.
    dumps = Dump.objects.filter(condition, read_state=ReadState.READY).distinct().select_related("uploaded_by")
    # What keys the kept evidence counts; the result is read only when they are not kept.
    kept = (
        "incomplete_response_count",
        "created_at",
        "uploaded_by__username",
        "sha256",
        "derived_at",
        "evidence_version",
    )
    return dumps.only(*fields, *kept)


def team_figures(filters: dict[str, Any], user: Any) -> dict[str, Any]:
    """Every figure for the dumps the filters select, overall and per provider, API, model, tag and
    uploader, from the checks ``user`` may read: for an editor, other editors' verdicts on items they
    have not checked yet are left out (blind first; a narrow filter would otherwise give them away),
    and ``hidden_until_you_check`` says how many."""
    dumps = list(selected_dumps(filters).prefetch_related("tags"))
    checks = Check.objects.filter(dump__in=[d.pk for d in dumps])
    # A dump can hold responses of several APIs: the checks are narrowed to the responses asked for.
    for name in ("provider", "api", "model"):
        if filters.get(name):
            checks = checks.filter(**{name: filters[name]})
    hidden = hidden_check_count(user, checks)
    checks = list(checks_visible_to(user, checks).select_related("editor").order_by("dump_id", "id"))
    evidence = {dump.pk: evidence_counts(dump) for dump in dumps}
    overall = Slice(str(_("All")), checks, dumps, evidence)
    return {
        "filters": {k: v.isoformat() if isinstance(v, date) else v for k, v in filters.items()},
        "hidden_until_you_check": hidden,
        "overall": slice_figures(overall),
        "agreement": {"verdicts": agreement(_ratings(checks)), "collapsed": agreement(_ratings(checks), collapse=True)},
        "by_provider": [
            slice_figures(s) for s in _slices(dumps, checks, evidence, lambda d: _split(d.providers), "provider")
        ],
        "by_api": [slice_figures(s) for s in _slices(dumps, checks, evidence, lambda d: _split(d.apis), "api")],
        "by_model": [
            slice_figures(s) for s in _slices(dumps, checks, evidence, lambda d: _split(d.model_names), "model")
        ],
        "by_tag": [
            slice_figures(s) for s in _slices(dumps, checks, evidence, lambda d: [t.name for t in d.tags.all()], "tag")
        ],
        "by_uploader": [slice_figures(s) for s in _slices(dumps, checks, evidence, _uploader, "uploader")],
    }


def slice_figures(part: Slice) -> dict[str, Any]:
    """The slice's figures. Each rate keeps its numerator and denominator (its n), its percentage,
    and when there is nothing to divide by, ``empty_because``: why (a code the page says in words)."""
    judgements = statement_judgements(part.checks)
    citations = sum(d.citation_count for d in part.dumps)
    unresolved = sum(d.unresolved_count for d in part.dumps)
    responses = sum(d.response_count for d in part.dumps)
    incomplete = sum(d.incomplete_response_count for d in part.dumps)
    recall_gap, precision_gap = recall_empty_because(judgements), precision_empty_because(judgements)
    no_dumps = NO_DUMPS if not part.dumps else None
    return {
        "label": part.label,
        "dumps": len(part.dumps),
        "checks": sum(1 for c in part.checks if c.kind == "citation" and c.verdict),
        "editors": len({c.editor_id for c in part.checks}),
        "citation_recall": {**citation_recall(judgements).to_json(), "empty_because": recall_gap},
        "citation_precision": {**citation_precision(judgements).to_json(), "empty_because": precision_gap},
        "macro_recall": {**macro_recall(judgements).to_json(), "empty_because": recall_gap},
        "macro_precision": {**macro_precision(judgements).to_json(), "empty_because": precision_gap},
        "verdicts": verdict_distribution(c.verdict for c in part.checks if c.kind == "citation" and c.verdict),
        "unresolved_marker_rate": _ratio(unresolved, citations + unresolved, no_dumps or NO_CITATIONS),
        "incomplete_response_share": _ratio(incomplete, responses, no_dumps or NO_RESPONSES),
        **_evidence_rates(part, no_dumps),
    }


def _evidence_rates(part: Slice, no_dumps: str | None) -> dict[str, dict[str, Any]]:
    """What lies behind the slice's citations (citation × source, as editors check them): evidence text
    the dump holds, a snapshot of the source, a passage found in it, and of those a figure or date
    the passage does not say. A dump counts whole in every slice it is in, as its markers do."""
    total = defaultdict(int)
    for dump in part.dumps:
        for name, count in part.evidence.get(dump.pk, {}).items():
            total[name] += count
    citations = total["citations"]
    return {
        "evidence_text_share": _ratio(total["with_evidence"], citations, no_dumps or NO_CITATIONS),
        "snapshot_share": _ratio(total["with_snapshot"], citations, no_dumps or NO_CITATIONS),
        # A passage still being looked for (a worker finds it) is counted once it is found, or not.
        "passage_found_share": _ratio(
            total["passage_found"], total["with_snapshot"] - total["passage_pending"], no_dumps or NO_SNAPSHOTS
        ),
        "figure_mismatch_share": _ratio(
            total["figure_or_date_differs"], total["passage_found"], no_dumps or NO_PASSAGES
        ),
        "passages_pending": {"count": total["passage_pending"]},
    }


# Why a figure counted from the dumps themselves is empty.
NO_DUMPS = "no_dumps"
NO_CITATIONS = "no_citations"
NO_RESPONSES = "no_responses"
NO_SNAPSHOTS = "no_snapshots"
NO_PASSAGES = "no_passages"


def statement_judgements(checks: Iterable[Check]) -> list[StatementJudgement]:
    """Each editor's judgement of each statement, from their statement check and their citation checks."""
    statements: dict[tuple[int, int, str, int], dict[str, Any]] = defaultdict(
        lambda: {"worthy": None, "together": None, "verdicts": [], "unresolved": 0, "answer": ""}
    )
    for check in checks:
        entry = statements[(check.dump_id, check.response_index, check.statement_key, check.editor_id)]
        entry["answer"] = f"{check.dump_id}/{check.response_index}/{check.editor_id}"
        entry["unresolved"] = check.unresolved_count
        if check.kind == "citation":
            entry["verdicts"].append(check.verdict or None)
        elif check.kind == "statement" and check.item_key == check.statement_key:
            # Only a statement's own answers say whether it is worthy and supported; a check of another
            # kind of item (an unresolved marker's) is counted through the statement's unresolved_count.
            entry["worthy"] = {"yes": True, "no": False}.get(check.verification_worthy)
            entry["together"] = check.supported_together or None
    return [
        StatementJudgement(e["answer"], e["worthy"], e["together"], e["verdicts"], e["unresolved"])
        for e in statements.values()
    ]


def _ratings(checks: Iterable[Check]) -> dict[tuple[int, str], dict[int, str]]:
    ratings: dict[tuple[int, str], dict[int, str]] = defaultdict(dict)
    for check in checks:
        if check.kind == "citation" and check.verdict:
            ratings[(check.dump_id, check.item_key)][check.editor_id] = check.verdict
    return ratings


def _slices(
    dumps: list[Dump], checks: list[Check], evidence: dict[int, dict[str, int]], keys_of: Any, dimension: str
) -> list[Slice]:
    """One slice per value of a dimension. A dump belongs to every value it has (two tags, two APIs);
    model and API slices take each check by its own response's model and API."""
    by_value: dict[str, list[Dump]] = defaultdict(list)
    for dump in dumps:
        for value in keys_of(dump):
            by_value[value].append(dump)
    slices = []
    for value, members in sorted(by_value.items()):
        ids = {d.pk for d in members}
        own = [c for c in checks if c.dump_id in ids and _check_matches(c, dimension, value)]
        slices.append(Slice(value, own, members, evidence))
    return slices


def _check_matches(check: Check, dimension: str, value: str) -> bool:
    if dimension == "api":
        return check.api == value
    if dimension == "model":
        return check.model == value
    if dimension == "provider":
        return check.provider == value
    return True


def _uploader(dump: Dump) -> list[str]:
    return [dump.uploaded_by.get_username()] if dump.uploaded_by else []


def _split(values: str) -> list[str]:
    return [v.strip() for v in values.split(",") if v.strip()]


def _ratio(numerator: int, denominator: int, empty_because: str) -> dict[str, Any]:
    value = numerator / denominator if denominator else None
    return {
        "numerator": numerator,
        "denominator": denominator,
        "value": value,
        "percent": percent(value),
        "empty_because": None if denominator else empty_because,
    }
