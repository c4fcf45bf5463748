"""The team's figures from recorded checks (``../shared/docs/evidence-review.md``), sliced by provider,
API, model and tag over a date range; the formulas are in :mod:`citeview.core.checking.metrics`."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, cast

from django import forms
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from citeview.core.checking.final import final_verdict
from citeview.core.checking.metrics import (
    FigureScope,
    Ratings,
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
from citeview.core.detection import registry
from citeview.core.rendering.plain import plain_text
from citeview.dumps.models import Dump, ReadState
from citeview.review.citation_evidence import evidence_counts
from citeview.review.figure_scope import HiddenItem, ReaderScope
from citeview.review.models import Check
from citeview.review.selectors import checks_visible_to, hidden_check_count, progress_per_editor


class FigureFilterForm(forms.Form):
    provider = forms.ChoiceField(label=_("Provider"), required=False)
    api = forms.ChoiceField(label=_("API"), required=False)
    model = forms.CharField(label=_("Model"), required=False, max_length=100)
    tag = forms.CharField(label=_("Tag"), required=False, max_length=50)
    since = forms.DateField(label=_("Stored from"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("Stored until"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["provider"]).choices = [
            ("", _("any")),
            *((p, p) for p in registry.provider_names()),
        ]
        cast(forms.ChoiceField, self.fields["api"]).choices = [
            ("", _("any")),
            *((api.name, api.label) for api in registry.api_formats()),
        ]

    def filters(self) -> dict[str, Any]:
        """The valid, non-empty filters; an invalid one is left out (the form shows why)."""
        self.is_valid()
        return {name: value for name, value in getattr(self, "cleaned_data", {}).items() if value}


@dataclass(frozen=True)
class Slice:
    """One row of a breakdown: the dumps' own figures and the figures of the checks on them."""

    label: str
    checks: list[Check]  # the editors' own checks that the reader may read
    dumps: list[Dump]
    evidence: dict[int, dict[str, int]]  # per dump: evidence_counts
    settlements: list[Check]  # the settled verdicts on the slice's items
    scope: FigureScope  # what its figures of checks count: every item of its dumps, or those visible


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
    fields = (
        "providers",
        "apis",
        "model_names",
        "citation_count",
        "unresolved_count",
        "response_count",
        "item_count",  # the items a figure's scope counts (``citeview.review.figure_scope``)
        "response_items",  # and of part of a dump, its responses' items
    )
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
    ``hidden_until_you_check`` says how many checks, and ``scope`` (overall and in each slice) on how
    many of the dumps' items each figure of checks is computed."""
    dumps = list(selected_dumps(filters).prefetch_related("tags"))
    chosen = Check.objects.filter(dump__in=[d.pk for d in dumps])
    # A dump can hold responses of several APIs: the checks are narrowed to the responses asked for.
    for name in ("provider", "api", "model"):
        if filters.get(name):
            chosen = chosen.filter(**{name: filters[name]})
    hidden = hidden_check_count(user, chosen)
    reader = ReaderScope(user, chosen)
    settled = Check.settlements.filter(dump__in=[d.pk for d in dumps])
    for name in ("provider", "api", "model"):
        if filters.get(name):
            settled = settled.filter(**{name: filters[name]})
    settlements = list(checks_visible_to(user, settled).order_by("dump_id", "id"))
    checks = list(checks_visible_to(user, chosen).select_related("editor").order_by("dump_id", "id"))
    evidence = {dump.pk: evidence_counts(dump) for dump in dumps}
    overall = Slice(str(_("All")), checks, dumps, evidence, settlements, reader.of(dumps))

    def slices(keys_of: Any, dimension: str) -> list[Slice]:
        return _slices(dumps, checks, settlements, evidence, keys_of, dimension, reader)

    titles = {dump.pk: dump.display_title for dump in dumps}
    return {
        "filters": {k: v.isoformat() if isinstance(v, date) else v for k, v in filters.items()},
        "hidden_until_you_check": hidden,
        "scope": overall.scope.to_json(),
        "overall": slice_figures(overall),
        "unsettled": _unsettled_json(final_judgements(checks, settlements).unsettled, titles),
        # On the editors' own verdicts: a settlement is no editor's, and would make them agree by decree.
        "agreement": {"verdicts": agreement(_ratings(checks)), "collapsed": agreement(_ratings(checks), collapse=True)},
        "by_provider": [slice_figures(s) for s in slices(lambda d: _split(d.providers), "provider")],
        "by_api": [slice_figures(s) for s in slices(lambda d: _split(d.apis), "api")],
        "by_model": [slice_figures(s) for s in slices(lambda d: _split(d.model_names), "model")],
        "by_tag": [slice_figures(s) for s in slices(lambda d: [t.name for t in d.tags.all()], "tag")],
        "by_uploader": [slice_figures(s) for s in slices(_uploader, "uploader")],
        # Each editor's assigned, checked and remaining items (an editor reads their own).
        "by_editor": [progress.to_json() for progress in progress_per_editor(user, selected_dumps(filters))],
    }


def slice_figures(part: Slice) -> dict[str, Any]:
    """The slice's figures. Each rate keeps its numerator and denominator (its n), its percentage,
    and when there is nothing to divide by, ``empty_because``: why (a code the page says in words).
    Recall and precision are the dumps' final figures: each statement counted once, with its settled
    verdicts and the ones its editors agree on (``final_judgements``); an item still disputed is left
    out, as an item not judged yet is, and ``unsettled`` counts them."""
    final = final_judgements(part.checks, part.settlements)
    judgements = final.judgements
    citations = sum(d.citation_count for d in part.dumps)
    unresolved = sum(d.unresolved_count for d in part.dumps)
    responses = sum(d.response_count for d in part.dumps)
    incomplete = sum(d.incomplete_response_count for d in part.dumps)
    recall_gap, precision_gap = recall_empty_because(judgements), precision_empty_because(judgements)
    no_dumps = NO_DUMPS if not part.dumps else None
    return {
        "label": part.label,
        # On how many of the slice's items its figures of checks are computed (blind first).
        "scope": part.scope.to_json(),
        "dumps": len(part.dumps),
        "checks": sum(1 for c in part.checks if c.kind == "citation" and c.verdict),
        "editors": len({c.editor_id for c in part.checks}),
        "citation_recall": {**citation_recall(judgements).to_json(), "empty_because": recall_gap},
        "citation_precision": {**citation_precision(judgements).to_json(), "empty_because": precision_gap},
        "macro_recall": {**macro_recall(judgements).to_json(), "empty_because": recall_gap},
        "macro_precision": {**macro_precision(judgements).to_json(), "empty_because": precision_gap},
        "unsettled": len(final.unsettled),
        # Each citation's final verdict (settled, else agreed), as recall and precision count it; the
        # citations editors disagree on and nobody has settled are left out, and counted apart.
        "final_verdicts": verdict_distribution(final.verdicts),
        "final_verdicts_left_out": final.disputed_citations,
        # Every editor's own verdict: a citation two editors judged counts twice.
        "editor_verdicts": verdict_distribution(c.verdict for c in part.checks if c.kind == "citation" and c.verdict),
        "unresolved_marker_rate": _ratio(unresolved, citations + unresolved, no_dumps or NO_CITATIONS),
        "incomplete_response_share": _ratio(incomplete, responses, no_dumps or NO_RESPONSES),
        **_evidence_rates(part, no_dumps),
    }


def _evidence_rates(part: Slice, no_dumps: str | None) -> dict[str, dict[str, Any]]:
    """What lies behind the slice's citations (citation × source, as editors check them): evidence text
    the dump holds, a snapshot of the source, a passage found in it, and of those a figure or date
    the passage does not say. A dump counts whole in every slice it is in, as its markers do."""
    total: defaultdict[str, int] = defaultdict(int)
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


@dataclass(frozen=True)
class UnsettledItem:
    """An item (or a statement's answers) the editors disagree on and no one has settled."""

    dump_id: int
    item_key: str  # the item to open: the disputed citation, or the statement's first item
    statement_text: str
    marker: str
    why: str  # VERDICTS_DIFFER or ANSWERS_DIFFER


VERDICTS_DIFFER = "verdicts_differ"  # the editors gave the citation different verdicts
ANSWERS_DIFFER = "answers_differ"  # they answered "a claim?" or "supported together?" differently


@dataclass(frozen=True)
class FinalJudgements:
    judgements: list[StatementJudgement]
    unsettled: list[UnsettledItem]
    verdicts: list[str] = field(default_factory=list)  # each citation's final verdict, where it has one

    @property
    def disputed_citations(self) -> int:
        """The citations editors disagree on that nobody has settled: in no final verdict's count."""
        return sum(1 for item in self.unsettled if item.why == VERDICTS_DIFFER)


def final_judgements(checks: Iterable[Check], settlements: Iterable[Check]) -> FinalJudgements:
    """Each statement's final judgement, once however many editors checked it: its citations' final
    verdicts (:func:`final_verdict`: the settlement, else the verdict every editor who judged it gave),
    and its answers (a claim?, supported together?) where its editors give the same. A citation still
    disputed counts as not judged (None) and is named; a statement whose answers differ is left out
    and named, with its citations."""
    statements: dict[tuple[int, int, str], dict[str, Any]] = defaultdict(
        lambda: {"worthy": [], "together": [], "items": {}, "unresolved": 0, "first": None}
    )
    for check in checks:
        entry = statements[(check.dump_id, check.response_index, check.statement_key)]
        entry["unresolved"] = check.unresolved_count
        entry["any"] = check
        if check.is_item and entry["first"] is None:
            entry["first"] = check
        if check.kind == "citation":
            entry["items"].setdefault(check.item_key, []).append(check)
        elif check.item_key == check.statement_key:
            entry["worthy"].append(check.verification_worthy)
            entry["together"].append(check.supported_together)
    settled = {(check.dump_id, check.item_key): check.verdict for check in settlements}
    judgements, unsettled, finals = [], [], []
    for (dump_id, response, _statement), entry in statements.items():
        verdicts = []
        for key, given in entry["items"].items():
            final = final_verdict((check.verdict for check in given), settled.get((dump_id, key), ""))
            if final.unsettled:
                unsettled.append(UnsettledItem(dump_id, key, given[0].statement_text, given[0].marker, VERDICTS_DIFFER))
            verdicts.append(final.verdict)
            if final.verdict:
                finals.append(final.verdict)
        worthy, together = final_verdict(entry["worthy"]), final_verdict(entry["together"])
        if worthy.unsettled or together.unsettled:
            first = entry["first"] or entry["any"]
            unsettled.append(UnsettledItem(dump_id, first.item_key, first.statement_text, "", ANSWERS_DIFFER))
            continue
        judgements.append(
            StatementJudgement(
                f"{dump_id}/{response}",
                {"yes": True, "no": False}.get(worthy.verdict or ""),
                together.verdict,
                verdicts,
                entry["unresolved"],
            )
        )
    return FinalJudgements(judgements, unsettled, finals)


def _unsettled_json(unsettled: list[UnsettledItem], titles: dict[int, str]) -> dict[str, Any]:
    """How many items are left out as unsettled, and the first of them, each with its address."""
    return {
        "count": len(unsettled),
        "items": [
            {
                "dump": item.dump_id,
                "dump_title": titles.get(item.dump_id, ""),
                "item": item.item_key,
                "statement": _short(plain_text(item.statement_text[:200]), 100),
                "marker": item.marker,
                "why": item.why,
                "url": reverse("review:item", args=[item.dump_id, item.item_key]),
            }
            for item in unsettled[:UNSETTLED_LISTED]
        ],
    }


UNSETTLED_LISTED = 100  # the figures name this many unsettled items; the settle queue has every one


def _short(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


def _ratings(checks: Iterable[Check]) -> Ratings:
    ratings: defaultdict[Hashable, dict[Hashable, str | None]] = defaultdict(dict)
    for check in checks:
        if check.kind == "citation" and check.verdict:
            ratings[(check.dump_id, check.item_key)][check.editor_id] = check.verdict
    return ratings


def _slices(
    dumps: list[Dump],
    checks: list[Check],
    settlements: list[Check],
    evidence: dict[int, dict[str, int]],
    keys_of: Any,
    dimension: str,
    reader: ReaderScope,
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
        settled = [c for c in settlements if c.dump_id in ids and _check_matches(c, dimension, value)]
        scope = reader.of(members, functools.partial(_check_matches, dimension=dimension, value=value))
        slices.append(Slice(value, own, members, evidence, settled, scope))
    return slices


def _check_matches(check: Check | HiddenItem, dimension: str, value: str) -> bool:
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
