"""Check plans: making one (the scope's units, the stratified random draw with its recorded seed), and
reading where a plan stands (its progress, the dumps added to its scope since, the walk through its
items). The statistics are :mod:`citeview.core.checking.sampling`'s; who may read whose checks is
``citeview.review.selectors``' (a plan's editors check its items as the dump's assigned editors do)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db import transaction
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse

from citeview.core.checking import sampling
from citeview.core.checking.final import needed_final_verdict
from citeview.core.checking.items import CheckItem
from citeview.dumps.models import Dump, ReadState, Tag
from citeview.dumps.selectors import HEAVY_FIELDS, dump_check_items
from citeview.review.models import (
    FINISHED,
    Check,
    CheckPlan,
    PlanEditor,
    PlanItem,
    PlanScopeKind,
    PlanUnit,
    stratum_label,
)
from citeview.review.selectors import independent_checks, is_independent

# A stratum is "provider · model" of the unit's response; a response that names no model reads so.
STRATUM_JOIN = " · "
NO_MODEL = "?"
# The kinds of item that are a citation plan's units: a citation (statement × source), and a marker that
# cites no source, which is a citation that supports nothing (``../shared/docs/evidence-review.md``).
CITATION_KINDS = frozenset({"citation", "unresolved"})
# A plan's size: enough for any margin worth asking (±1 point at 95% needs 9,604), and a bound on the
# rows one draw writes. A margin that asks more (±0.5 needs 38,416) is drawn at this size.
MAX_PLAN_SIZE = 20_000


class EmptyScope(Exception):
    """The scope holds no unit to draw: no dump of it is read and has items of the plan's unit."""


@dataclass(frozen=True)
class PlanScope:
    """Which dumps a plan draws from: ``kind`` says which of the other fields counts."""

    kind: str
    dump: Dump | None = None
    tag: Tag | None = None
    provider: str = ""
    date_from: date | None = None
    date_to: date | None = None

    def dumps(self) -> QuerySet[Dump]:
        """The scope's dumps now: read, with items to check, oldest first."""
        dumps = Dump.objects.filter(read_state=ReadState.READY, item_count__gt=0)
        return dumps.filter(self._condition()).distinct().order_by("created_at", "id")

    def _condition(self) -> Q:
        if self.kind == PlanScopeKind.BATCH:
            return Q(pk=self.dump.pk if self.dump else None)
        if self.kind == PlanScopeKind.TAG:
            return Q(tags=self.tag)
        if self.kind == PlanScopeKind.PROVIDER:
            return Q(providers__contains=self.provider)
        condition = Q()
        if self.date_from:
            condition &= Q(created_at__date__gte=self.date_from)
        if self.date_to:
            condition &= Q(created_at__date__lte=self.date_to)
        return condition

    def holds_response(self, response: dict[str, Any]) -> bool:
        """A provider's scope holds that provider's responses alone (a batch may mix providers)."""
        return self.kind != PlanScopeKind.PROVIDER or response.get("provider") == self.provider

    @classmethod
    def of(cls, plan: CheckPlan) -> PlanScope:
        return cls(
            plan.scope_kind, plan.scope_dump, plan.scope_tag, plan.scope_provider, plan.scope_from, plan.scope_to
        )


@dataclass(frozen=True)
class ScopeUnit:
    dump_id: int
    item_key: str
    response: int
    stratum: str

    @property
    def key(self) -> str:
        """The unit's name in the draw (``sampling.draw`` sorts by it)."""
        return f"{self.dump_id}:{self.item_key}"


def stratum_of(response: dict[str, Any]) -> str:
    return f"{response.get('provider') or NO_MODEL}{STRATUM_JOIN}{response.get('model') or NO_MODEL}"


def scope_units(scope: PlanScope, unit: str, dumps: Iterable[Dump]) -> list[ScopeUnit]:
    """Every unit of ``dumps`` a plan of ``unit`` can draw: the items editors can check (the check
    page's own, ``dump_check_items``), a statement once however many items it has."""
    found = []
    for dump in dumps:
        responses = dump.result["responses"]
        seen: set[str] = set()
        for item in dump_check_items(dump):
            response = responses[item.response]
            if not scope.holds_response(response):
                continue
            key = _unit_key(item, unit)
            if key is None or key in seen:
                continue
            seen.add(key)
            found.append(ScopeUnit(dump.pk, key, item.response, stratum_of(response)))
    return found


def _unit_key(item: CheckItem, unit: str) -> str | None:
    if unit == PlanUnit.STATEMENT:
        return item.statement_key
    return item.key if item.kind in CITATION_KINDS else None


@dataclass(frozen=True)
class PlanDraft:
    """What a lead asks for: a size, or a margin (0.05 for ±5 points) from which the size is computed."""

    name: str
    unit: str
    scope: PlanScope
    size: int | None
    margin: float | None
    editors: list[Any]
    checks_needed: int
    confidence: float = 0.95


def plan_make(*, draft: PlanDraft, by: Any) -> CheckPlan:
    """Draw the plan's sample and store it: the scope's units, stratified by "provider · model" and
    drawn in proportion with a fresh seed that is recorded, so the same draw can be made again
    (:func:`plan_redraw`). A size over the scope's units takes them all (``plan.size`` says how many).
    :class:`EmptyScope` when there is nothing to draw."""
    dumps = list(draft.scope.dumps())
    units = scope_units(draft.scope, draft.unit, dumps)
    if not units:
        raise EmptyScope()
    by_stratum = _by_stratum(units)
    population = {stratum: len(keys) for stratum, keys in by_stratum.items()}
    size = draft.size if draft.size is not None else _size_for(draft, population)
    seed = sampling.new_seed()
    drawn = sampling.draw(by_stratum, size, seed)
    named = {unit.key: unit for unit in units}
    drawn_per_stratum = defaultdict(int, ((stratum, 0) for stratum in population))
    for stratum, _key in drawn:
        drawn_per_stratum[stratum] += 1
    with transaction.atomic():
        plan = CheckPlan.objects.create(
            name=draft.name,
            unit=draft.unit,
            scope_kind=draft.scope.kind,
            scope_dump=draft.scope.dump if draft.scope.kind == PlanScopeKind.BATCH else None,
            scope_tag=draft.scope.tag if draft.scope.kind == PlanScopeKind.TAG else None,
            scope_provider=draft.scope.provider if draft.scope.kind == PlanScopeKind.PROVIDER else "",
            scope_from=draft.scope.date_from if draft.scope.kind == PlanScopeKind.DATES else None,
            scope_to=draft.scope.date_to if draft.scope.kind == PlanScopeKind.DATES else None,
            requested_size=draft.size,
            target_margin=draft.margin if draft.size is None else None,
            confidence=draft.confidence,
            size=len(drawn),
            population=len(units),
            seed=seed,
            strata={
                stratum: {"population": population[stratum], "drawn": drawn_per_stratum[stratum]}
                for stratum in sorted(population)
            },
            scope_dump_ids=[dump.pk for dump in dumps],
            checks_needed=draft.checks_needed,
            made_by=by,
        )
        PlanEditor.objects.bulk_create([PlanEditor(plan=plan, editor=editor, added_by=by) for editor in draft.editors])
        PlanItem.objects.bulk_create(
            [
                PlanItem(
                    plan=plan,
                    dump_id=named[key].dump_id,
                    item_key=named[key].item_key,
                    response_index=named[key].response,
                    stratum=stratum_label(stratum),
                    position=position,
                )
                for position, (stratum, key) in enumerate(drawn)
            ],
            batch_size=500,
        )
    return plan


def _by_stratum(units: Iterable[ScopeUnit]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for unit in units:
        grouped[unit.stratum].append(unit.key)
    return dict(grouped)


def _size_for(draft: PlanDraft, population: dict[str, int]) -> int:
    if draft.margin is None:
        raise ValueError("A plan needs a size or a margin.")
    return min(sampling.sample_size_for_margin(draft.margin, population, draft.confidence), MAX_PLAN_SIZE)


def size_capped(plan: CheckPlan) -> bool:
    """Whether the plan's margin asked for more units than a plan draws (:data:`MAX_PLAN_SIZE`)."""
    return plan.target_margin is not None and plan.size == MAX_PLAN_SIZE and plan.population > MAX_PLAN_SIZE


def plan_redraw(plan: CheckPlan) -> list[tuple[str, str]]:
    """The draw made again from the plan's seed over the dumps that were in its scope: the same
    (stratum, "dump:item") pairs in the same order as its items, while those dumps' items are read as
    they were."""
    dumps = Dump.objects.filter(pk__in=plan.scope_dump_ids).order_by("created_at", "id")
    units = scope_units(PlanScope.of(plan), plan.unit, dumps)
    return [(stratum_label(stratum), key) for stratum, key in sampling.draw(_by_stratum(units), plan.size, plan.seed)]


def dumps_added_since(plan: CheckPlan) -> QuerySet[Dump]:
    """The dumps in the plan's scope now that were not when it was drawn: none of their units is in it."""
    return PlanScope.of(plan).dumps().exclude(pk__in=plan.scope_dump_ids).defer(*HEAVY_FIELDS)


def plans_of_editor(user: Any) -> QuerySet[CheckPlan]:
    return CheckPlan.objects.filter(plan_editors__editor_id=user.pk).order_by("made_at", "id")


@dataclass(frozen=True)
class PlanQueueEntry:
    """A plan of the editor's with items waiting for them."""

    plan: CheckPlan
    waiting: int
    first_url: str


def plan_queue(user: Any) -> list[PlanQueueEntry]:
    """The plans ``user`` is an editor of that have items waiting for them, the oldest plan first."""
    entries = []
    for plan in _plans_not_finished(plans_of_editor(user)):
        walk = plan_walk(plan, user)
        if walk.waiting_count:
            entries.append(PlanQueueEntry(plan, walk.waiting_count, reverse("review:plan_check", args=[plan.pk])))
    return entries


def _plans_not_finished(plans: QuerySet[CheckPlan]) -> QuerySet[CheckPlan]:
    """``plans`` less the citation plans whose every item has the independent checks it needs: they wait
    for nobody, so the queue need not walk them (one query for all). A statement plan's items are its
    statements' items, known only from the dump's result: those are walked."""
    given = (
        independent_checks()
        .filter(dump=OuterRef("dump"), item_key=OuterRef("item_key"))
        .order_by()
        .values("item_key")
        .annotate(n=Count("id"))
        .values("n")
    )
    short = PlanItem.objects.annotate(given=Coalesce(Subquery(given, output_field=IntegerField()), 0)).filter(
        plan=OuterRef("pk"), given__lt=F("plan__checks_needed")
    )
    return plans.filter(Q(unit=PlanUnit.STATEMENT) | Q(Exists(short)))


def is_plan_editor(user: Any, plan: CheckPlan) -> bool:
    return PlanEditor.objects.filter(plan=plan, editor_id=user.pk).exists()


# The walk through a plan's items ------------------------------------------------------------------


@dataclass(frozen=True)
class PlanStop:
    """One of a plan's items as the check page opens it: a dump's item (for a statement unit, the
    statement's first item the editor has not finished, else its first)."""

    dump_id: int
    item_key: str

    @property
    def url(self) -> str:
        return reverse("review:item", args=[self.dump_id, self.item_key])


@dataclass
class PlanWalk:
    """Where each of a plan's items stands for one editor, in the plan's random order."""

    plan: CheckPlan
    stops: list[PlanStop] = field(default_factory=list)  # per plan item, in order
    item_keys: list[list[str]] = field(default_factory=list)  # per plan item: the check items it covers
    waiting: list[bool] = field(default_factory=list)  # per plan item: waiting for this editor

    @property
    def waiting_count(self) -> int:
        return sum(self.waiting)

    def next_waiting(self, after: tuple[int, str] | None = None) -> PlanStop | None:
        """The first item waiting for the editor after the one at ``after`` (dump, check item key),
        then from the start."""
        start = self._position_of(after) + 1 if after else 0
        order = list(range(start, len(self.stops))) + list(range(start))
        return next((self.stops[i] for i in order if self.waiting[i]), None)

    def position_of(self, dump_id: int, item_key: str) -> int | None:
        """The 0-based place in the plan of the item that covers this check item, or None."""
        found = self._position_of((dump_id, item_key))
        return None if found < 0 else found

    def _position_of(self, at: tuple[int, str]) -> int:
        dump_id, item_key = at
        return next(
            (i for i, stop in enumerate(self.stops) if stop.dump_id == dump_id and item_key in self.item_keys[i]), -1
        )


def plan_walk(plan: CheckPlan, user: Any) -> PlanWalk:
    """Every item of the plan with whether it waits for ``user``: they have not finished it and it
    lacks the independent checks the plan needs (``checks_needed``: as for a dump). A statement waits
    while any of its items does. Reads each dump's items once (kept), and the checks in two queries."""
    items = list(plan.items.order_by("position").values_list("dump_id", "item_key"))
    dump_ids = {dump_id for dump_id, _key in items}
    covered = _covered_items(plan, dump_ids)
    mine = set(
        Check.objects.filter(FINISHED, dump_id__in=dump_ids, editor=user, is_item=True).values_list(
            "dump_id", "item_key"
        )
    )
    others: dict[tuple[int, str], int] = defaultdict(int)
    independent = independent_checks().filter(dump_id__in=dump_ids).exclude(editor=user)
    for dump_id, key in independent.values_list("dump_id", "item_key"):
        others[(dump_id, key)] += 1
    walk = PlanWalk(plan)
    for dump_id, key in items:
        keys = covered.get((dump_id, key)) or [key]
        waits = [k for k in keys if (dump_id, k) not in mine and others[(dump_id, k)] < plan.checks_needed]
        walk.stops.append(PlanStop(dump_id, (waits or keys)[0]))
        walk.item_keys.append(keys)
        walk.waiting.append(bool(waits))
    return walk


def _covered_items(plan: CheckPlan, dump_ids: set[int]) -> dict[tuple[int, str], list[str]]:
    """Per plan item of a statement plan, the check items of its statement; a citation plan's item
    covers itself (an empty map)."""
    if plan.unit != PlanUnit.STATEMENT:
        return {}
    covered: dict[tuple[int, str], list[str]] = defaultdict(list)
    # The result alone: the renderings and the search text are as heavy and not read here.
    for dump in Dump.objects.filter(pk__in=dump_ids).only("pk", "result"):
        for item in dump_check_items(dump):
            covered[(dump.pk, item.statement_key)].append(item.key)
    return covered


# Progress -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanProgress:
    final: int  # plan items with a final answer (settled, or agreed by every editor who judged them)
    drawn: int

    @property
    def complete(self) -> bool:
        return self.final >= self.drawn


def plan_progress(plan: CheckPlan) -> PlanProgress:
    """How many of the plan's items have a final answer: a citation its final verdict (a settlement,
    else the verdict every editor who judged it gave), a marker without a source or a statement its
    final answer to "verification-worthy", and, for a statement unit, every citation of it its final
    verdict. Counts only: no verdict is shown, so blind first holds for whoever reads it."""
    items = list(plan.items.values_list("dump_id", "item_key"))
    dump_ids = {dump_id for dump_id, _key in items}
    answers = _final_answers(dump_ids, plan.checks_needed)
    if plan.unit != PlanUnit.STATEMENT:
        return PlanProgress(sum(1 for item in items if answers.get(item)), len(items))
    covered = _covered_items(plan, dump_ids)
    final = 0
    for dump_id, key in items:
        keys = [key, *(k for k in covered.get((dump_id, key), []) if k != key)]
        final += all(answers.get((dump_id, k)) for k in keys)
    return PlanProgress(final, len(items))


def _final_answers(dump_ids: set[int], needed: int) -> dict[tuple[int, str], bool]:
    """Per checked item (and statement) of the dumps: whether it has its final answer, by the rule the
    estimates count (:func:`needed_final_verdict`: ``needed`` independent checks agree, or a settlement)."""
    given: dict[tuple[int, str], list[tuple[str, bool]]] = defaultdict(list)
    settled: dict[tuple[int, str], str] = {}
    rows = (
        Check.rows.filter(dump_id__in=dump_ids)
        .annotate(independent=is_independent())
        .values_list("dump_id", "item_key", "kind", "verdict", "verification_worthy", "is_settlement", "independent")
    )
    for dump_id, key, kind, verdict, worthy, is_settlement, independent in _iterate(rows):
        answer = verdict if kind == "citation" else worthy
        if is_settlement:
            settled[(dump_id, key)] = answer
        else:
            given[(dump_id, key)].append((answer, independent))
    return {
        place: needed_final_verdict(answers, settled.get(place, ""), needed).verdict is not None
        for place, answers in (given | {place: given.get(place, []) for place in settled}).items()
    }


def _iterate(rows: Any) -> Iterator[tuple[int, str, str, str, str, bool, bool]]:
    yield from rows.iterator(chunk_size=2000)
