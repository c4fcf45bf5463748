"""Reads: a dump's items (``dump_check_items``, the dumps' own) and who checked what."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db.models import Count, Exists, F, IntegerField, Max, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Least

from citeview.accounts import roles
from citeview.core.checking.items import CheckItem
from citeview.dumps.models import Assignment, Dump, ReadState
from citeview.dumps.selectors import HEAVY_FIELDS
from citeview.dumps.selectors import dump_check_items as dump_check_items  # review's pages read items here
from citeview.review.models import (
    FINISHED,
    RECORDED,
    Check,
    CheckRevision,
    Comment,
    ItemState,
    PlanEditor,
    PlanItem,
)


def item_version(dump: Dump, key: str) -> int:
    return ItemState.objects.filter(dump=dump, key=key).values_list("version", flat=True).first() or 0


def item_versions(dump: Dump, keys: list[str]) -> dict[str, int]:
    """The versions of several items in one query (an item never saved is at 0)."""
    states = ItemState.objects.filter(dump=dump, key__in=keys).values_list("key", "version")
    return {key: 0 for key in keys} | dict(states)


def visible_item_verdicts(dump: Dump, user: Any) -> dict[str, list[tuple[str, str]]]:
    """Per citation item, each editor's verdict that ``user`` may read, by editor name (blind first: for an
    editor, their own, and others' on items they have checked). One query for the whole dump."""
    checks = checks_visible_to(user, Check.objects.filter(dump=dump, kind="citation", is_item=True).exclude(verdict=""))
    verdicts: dict[str, list[tuple[str, str]]] = defaultdict(list)
    rows = checks.order_by("editor__username").values_list("item_key", "editor__username", "verdict")
    for key, editor, verdict in rows:
        verdicts[key].append((editor, verdict))
    return verdicts


def visible_settlements(dump: Dump, user: Any) -> dict[str, Check]:
    """The dump's settlements that ``user`` may read: blind first holds for them as for any check (an
    editor who has not checked an item does not learn its final verdict either)."""
    settled = checks_visible_to(user, Check.settlements.filter(dump=dump)).select_related("editor")
    return {check.item_key: check for check in settled}


def finished_by_anyone(dump: Dump) -> set[str]:
    """The items someone has finished checking (what a reviewer's "not checked" leaves out)."""
    return set(Check.objects.filter(FINISHED, dump=dump, is_item=True).values_list("item_key", flat=True))


@dataclass(frozen=True)
class QueueEntry:
    """A dump assigned to an editor that has items waiting for them: items they have not checked that
    still lack the independent checks they need (``Dump.checks_needed``). ``waiting_second``: of those,
    the items another editor has checked already, waiting for a second check."""

    dump: Dump
    mine: int  # items of the dump the editor has checked
    waiting: int  # items waiting for the editor
    waiting_second: int  # of those, how many another editor has checked


def independent_checks() -> QuerySet[Check]:
    """The editors' finished checks of items that count as independent: none of them given while its
    editor could already read another's verdict on the item (``CheckRevision.not_blind``). What an
    item's ``Dump.checks_needed`` counts."""
    given_not_blind = CheckRevision.objects.filter(check_record=OuterRef("pk"), not_blind=True)
    return Check.objects.filter(FINISHED, is_item=True).exclude(Exists(given_not_blind))


def is_independent() -> Any:
    """Whether a check (annotated on it) is independent: none of it given while its editor could read
    another's answer (as :func:`independent_checks`, and for a statement's shared answers, not items)."""
    return ~Exists(CheckRevision.objects.filter(check_record=OuterRef("pk"), not_blind=True))


def work_queue(user: Any, limit: int = 200, *, besides: int | None = None) -> list[QueueEntry]:
    """The dumps assigned to ``user`` with items waiting for them, the longest waiting first (at most
    ``limit``; ``besides`` a dump's id to leave out). An item waits for the user when they have not
    checked it and it lacks the independent checks it needs. Counted in the database, per dump: two
    queries (the dumps, their tags), however many dumps, items and checks."""
    mine = _count_per_dump(Check.objects.filter(FINISHED, dump=OuterRef("pk"), editor=user, is_item=True))
    own = Check.objects.filter(
        FINISHED, is_item=True, dump=OuterRef("dump"), item_key=OuterRef("item_key"), editor=user
    )
    by_others = independent_checks().exclude(editor=user)
    others = by_others.filter(dump=OuterRef("dump"), item_key=OuterRef("item_key")).order_by()
    others_per_item = others.values("item_key").annotate(n=Count("id")).values("n")
    # The items others have checked and the user has not, each with how many others checked it.
    theirs = by_others.filter(dump=OuterRef("pk")).exclude(Exists(own)).annotate(others=Subquery(others_per_item))
    complete = _count_per_dump(theirs.filter(others__gte=OuterRef("checks_needed")), distinct="item_key")
    second = _count_per_dump(theirs.filter(others__lt=OuterRef("checks_needed")), distinct="item_key")
    checkable = Least(F("item_count"), Value(settings.CITEVIEW_MAX_ITEMS_PER_DUMP))  # as Dump.checkable_item_count
    dumps = (
        Dump.objects.filter(assignments__editor=user, read_state=ReadState.READY, item_count__gt=0)
        .exclude(pk__in=[besides] if besides is not None else [])
        .defer(*HEAVY_FIELDS)
        .annotate(checkable=checkable, mine=mine, complete_without_user=complete, waiting_second=second)
        .annotate(waiting=F("checkable") - F("mine") - F("complete_without_user"))
        .filter(waiting__gt=0)
        .prefetch_related("tags")
        .order_by("created_at", "id")
    )
    return [QueueEntry(dump, dump.mine, dump.waiting, dump.waiting_second) for dump in dumps[:limit]]


def _count_per_dump(checks: QuerySet[Check], distinct: str = "") -> Coalesce:
    """How many of ``checks`` (correlated to the outer dump) there are, or how many ``distinct`` values
    they hold: 0 where none."""
    counted = Count(distinct, distinct=True) if distinct else Count("id")
    rows = checks.order_by().values("dump").annotate(n=counted).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def assigned_unread(user: Any) -> QuerySet[Dump]:
    """The dumps assigned to ``user`` that a worker has still to read, or could not: nothing to check
    yet, but theirs (the work queue lists them apart, with how reading stands)."""
    dumps = Dump.objects.filter(assignments__editor=user).exclude(read_state=ReadState.READY).defer(*HEAVY_FIELDS)
    return dumps.order_by("created_at", "id")


def assignments_on(dump: Dump) -> list[Assignment]:
    """The dump's assignments, by the editor's name, with the editors."""
    return list(Assignment.objects.filter(dump=dump).select_related("editor", "assigned_by"))


def is_assigned(user: Any, dump: Dump) -> bool:
    """Whether ``user`` checks ``dump`` as one of its editors: assigned to it, or an editor of a check
    plan with items in it (``PlanEditor``). The one rule of who checks a dump blind and may not settle
    it; every reader asks here or through :func:`checks_as_editor`, its SQL form."""
    return Dump.objects.filter(checks_as_editor(user.pk, "pk"), pk=dump.pk).exists()


def checks_as_editor(user_id: Any, dump: str) -> Q:
    """:func:`is_assigned` in SQL, for the dump whose id the outer query holds at ``dump``."""
    in_plan = PlanItem.objects.filter(dump_id=OuterRef(dump), plan__plan_editors__editor_id=user_id)
    return Q(Exists(Assignment.objects.filter(dump_id=OuterRef(dump), editor_id=user_id))) | Q(Exists(in_plan))


def editor_since(user: Any, dump: Dump) -> Any:
    """When ``user`` became one of the dump's editors (:func:`is_assigned`): the earliest of their
    assignment and their joining a plan with items in it; None when they are not one."""
    times = [
        Assignment.objects.filter(dump=dump, editor_id=user.pk).values_list("assigned_at", flat=True).first(),
        PlanEditor.objects.filter(editor_id=user.pk, plan__items__dump=dump)
        .order_by("added_at")
        .values_list("added_at", flat=True)
        .first(),
    ]
    return min((time for time in times if time is not None), default=None)


def finished_keys(dump: Dump, editor: Any) -> set[str]:
    """The items ``editor`` has finished checking."""
    return set(
        Check.objects.filter(FINISHED, dump=dump, editor=editor, is_item=True).values_list("item_key", flat=True)
    )


def editor_progress(dump_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Per dump, each editor's finished items, in one query for a whole page of dumps."""
    rows = (
        Check.objects.filter(FINISHED, dump_id__in=dump_ids, is_item=True)
        .values("dump_id", "editor__username")
        .annotate(checked=Count("id"))
        .order_by("dump_id", "editor__username")
    )
    progress: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        progress[row["dump_id"]].append({"editor": row["editor__username"], "checked": row["checked"]})
    return progress


def item_checks(dump: Dump, item: CheckItem, user: Any) -> list[Check]:
    """The checks of the item (and, for a citation, the statement-wide answers) that ``user`` may read."""
    checks = Check.objects.filter(dump=dump, item_key__in={item.key, item.statement_key})
    return list(checks_visible_to(user, checks).select_related("editor").order_by("editor__username"))


def item_history(dump: Dump, item: CheckItem, user: Any) -> list[CheckRevision]:
    """Every save of the checks of the item that ``user`` may read, its settlement's too, newest first."""
    rows = Check.rows.filter(dump=dump, item_key__in={item.key, item.statement_key})
    checks = checks_visible_to(user, rows, emptied=True)
    revisions = CheckRevision.objects.filter(check_record__in=checks)
    return list(revisions.select_related("editor", "check_record").order_by("-created_at", "-id"))


@dataclass(frozen=True)
class Dispute:
    """An item whose editors gave different verdicts and that nobody has settled yet."""

    dump: Dump
    item_key: str
    statement_text: str
    marker: str
    source_title: str
    since: Any  # when the last of its verdicts was first saved: how long it has waited
    verdicts: list[tuple[str, str]]  # (editor, verdict), by editor


def disputes_waiting(user: Any, limit: int = 200) -> tuple[list[Dispute], int]:
    """The disagreements ``user`` may settle that nobody has settled, the longest waiting first (at most
    ``limit``), and how many there are in all: none for one who may not settle, and never an item the
    user gave a verdict on or one of a dump they are assigned to (``settle_refusal``). Three queries."""
    if not roles.can_settle(user):
        return [], 0
    own = _verdicts_given_by(user).filter(
        check_record__dump_id=OuterRef("dump_id"), check_record__item_key=OuterRef("item_key")
    )
    waiting = (
        _verdict_checks()
        # Only the dumps with a dispute, looked up by their index (kept by every save: checks_recount).
        .filter(dump_id__in=Dump.objects.filter(disputed_item_count__gt=0).values("pk"))
        .values("dump_id", "item_key")
        .annotate(verdicts=Count("verdict", distinct=True), since=Max("created_at"))
        .filter(verdicts__gt=1)
        .exclude(Exists(Check.settlements.filter(dump_id=OuterRef("dump_id"), item_key=OuterRef("item_key"))))
        .exclude(Exists(own))
        .exclude(checks_as_editor(user.pk, "dump_id"))
        .order_by("since", "dump_id", "item_key")
    )
    total = waiting.count()
    rows = list(waiting[:limit])
    if not rows:
        return [], total
    pairs = {(row["dump_id"], row["item_key"]) for row in rows}
    checks: dict[tuple[int, str], list[Check]] = defaultdict(list)
    candidates = _verdict_checks().filter(
        dump_id__in={dump for dump, _key in pairs}, item_key__in={key for _dump, key in pairs}
    )
    for check in candidates.select_related("editor").order_by("editor__username"):
        if (check.dump_id, check.item_key) in pairs:
            checks[(check.dump_id, check.item_key)].append(check)
    dumps = Dump.objects.defer(*HEAVY_FIELDS).in_bulk({dump for dump, _key in pairs})
    disputes = []
    for row in rows:
        found = checks[(row["dump_id"], row["item_key"])]
        first = found[0]
        disputes.append(
            Dispute(
                dumps[row["dump_id"]],
                row["item_key"],
                first.statement_text,
                first.marker,
                first.source_title or first.source_url,
                row["since"],
                [(check.editor.get_username(), check.verdict) for check in found],
            )
        )
    return disputes, total


def disputed_items(dump: Dump) -> set[str]:
    """The items of ``dump`` whose editors gave different verdicts and that nobody has settled."""
    differing = (
        _verdict_checks()
        .filter(dump=dump)
        .values("item_key")
        .annotate(verdicts=Count("verdict", distinct=True))
        .filter(verdicts__gt=1)
        .values_list("item_key", flat=True)
    )
    settled = Check.settlements.filter(dump=dump).exclude(verdict="").values_list("item_key", flat=True)
    return set(differing) - set(settled)


def settle_waiting_count(user: Any) -> int:
    """How many disagreements ``user`` may settle are waiting (the header's link): no query for one who
    may not settle."""
    return disputes_waiting(user, limit=0)[1] if roles.can_settle(user) else 0


# Why a user may not settle an item (``settle_refusal``).
SETTLE_NOT_SETTLER = "not_settler"  # only a lead or staff settle
SETTLE_ASSIGNED = "assigned"  # assigned to the dump as an editor: blind first holds for them
SETTLE_TOOK_PART = "took_part"  # they gave a verdict on the item: another lead or staff settles it


def settle_refusal(user: Any, dump: Dump, item_key: str) -> str | None:
    """Why ``user`` may not settle the item ``item_key`` of ``dump``, or None if they may. A settler
    judges the editors' verdicts, so never one they gave a verdict on (even one they undid), and reads
    them all, so is not assigned to check the dump blind.
    ``disputes_waiting`` lists by the same rule."""
    if not roles.can_settle(user):
        return SETTLE_NOT_SETTLER
    if _verdicts_given_by(user).filter(check_record__dump=dump, check_record__item_key=item_key).exists():
        return SETTLE_TOOK_PART
    if is_assigned(user, dump):
        return SETTLE_ASSIGNED
    return None


def _verdicts_given_by(user: Any) -> QuerySet[CheckRevision]:
    """The saves in which ``user`` gave an item a verdict of their own, kept whatever came after: a
    verdict undone was given all the same (the history is append-only), and its editor read the others'."""
    return CheckRevision.objects.filter(
        check_record__editor_id=user.pk, check_record__is_settlement=False, after__has_key="verdict"
    ).exclude(after__verdict="")


def _verdict_checks() -> QuerySet[Check]:
    """The editors' verdicts on citation items."""
    return Check.objects.filter(kind="citation", is_item=True).exclude(verdict="")


def unassigned_unchecked() -> QuerySet[Dump]:
    """Dumps assigned to nobody that nobody has started checking (the list's "nobody", "not started")."""
    return (
        Dump.objects.filter(read_state=ReadState.READY, item_count__gt=0, checked_item_count=0)
        .exclude(Exists(Assignment.objects.filter(dump=OuterRef("pk"))))
        .defer(*HEAVY_FIELDS)
    )


def comments_on(dump: Dump) -> list[Comment]:
    return list(Comment.objects.filter(dump=dump).select_related("author"))


def checks_visible_to(user: Any, checks: QuerySet[Check], *, emptied: bool = False) -> QuerySet[Check]:
    """Blind first, for every reader: the checks of ``checks`` that ``user`` may read (and that record
    something: a check emptied by an undo is read only by the history, which asks with ``emptied``).

    An editor reads their own checks, and another editor's check of an item only once their own check of
    that item is finished; a statement's shared answers (worthy, supported together) once they have
    finished any item of that statement, as they have then given their own. Judging after seeing
    another's answer anchors the judgement (``../shared/docs/evidence-review.md``). Reviewers record
    nothing, so they read everything. A settler (a lead, or staff) reads every check of a dump they are
    not assigned to, as a reviewer does: settling and the report need them. Assigned to it as an
    editor, or an editor of a check plan with items in it (:func:`is_assigned`), they are blind first
    like any editor (one who read the verdicts before being assigned
    checks not blind, and the history says so: ``CheckRevision.not_blind``). The same rule holds for
    settlements (``Check.rows``, ``Check.settlements``): an editor reads an item's final verdict once
    they have given their own. Every page, API view, export, report and figure that shows checks reads
    them through here, so no reader can forget the rule.
    """
    if not emptied:
        checks = checks.filter(RECORDED)
    if not roles.can_record(user):
        return checks
    finished = Check.objects.filter(FINISHED, editor=user, is_item=True, dump=OuterRef("dump"))
    readable = (
        Q(editor=user)
        | Exists(finished.filter(item_key=OuterRef("item_key")))
        | Exists(finished.filter(statement_key=OuterRef("item_key")))
    )
    if roles.can_settle(user):
        readable |= ~checks_as_editor(user.pk, "dump")
    return checks.filter(readable)


def reads_every_verdict(user: Any, dump: Dump) -> bool:
    """Whether blind first hides nothing of ``dump`` from ``user`` (as ``checks_visible_to`` decides): a
    reviewer, or a lead or staff not assigned to it."""
    if not roles.can_record(user):
        return True
    return roles.can_settle(user) and not is_assigned(user, dump)


def hidden_check_count(user: Any, checks: QuerySet[Check]) -> int:
    """How many of ``checks`` blind first keeps from ``user``: readers say so rather than cut silently."""
    if not roles.can_record(user):
        return 0
    recorded = checks.filter(RECORDED)
    return recorded.count() - checks_visible_to(user, recorded).count()


def check_visible_to(user: Any, check: Check) -> bool:
    """Whether blind first lets ``user`` read ``check`` (``checks_visible_to``)."""
    return checks_visible_to(user, Check.rows.filter(pk=check.pk), emptied=True).exists()


def own_checks(dump: Dump, user: Any, keys: set[str]) -> QuerySet[Check]:
    """``user``'s own checks of the items (and statements) ``keys`` of ``dump``."""
    return Check.objects.filter(dump=dump, editor=user, item_key__in=keys)


def others_checks_of_item(dump: Dump, key: str, user: Any) -> QuerySet[Check]:
    """Every other editor's checks of one item, read or not: what ``hidden_check_count`` counts from."""
    return Check.objects.filter(dump=dump, item_key=key).exclude(editor=user)


def item_comments(dump: Dump, key: str) -> list[Comment]:
    """The comments on one item, oldest first, with their authors."""
    return list(dump.comments.filter(item_key=key).select_related("author"))


def checked_items_per_response(dump: Dump) -> dict[int, int]:
    """How many items of each of a dump's responses have a finished check, by the response's index."""
    finished = Check.objects.filter(FINISHED, dump=dump, is_item=True)
    rows = finished.values("response_index").annotate(checked=Count("item_key", distinct=True)).order_by()
    return {row["response_index"]: row["checked"] for row in rows}


@dataclass(frozen=True)
class EditorProgress:
    """One editor's work: the items of the dumps assigned to them (read, with items to check), how
    many of those they have checked, and of all their checks, how many were of items editors
    disagreed on and a lead later settled."""

    editor: str
    assigned_dumps: int
    assigned_items: int
    checked_items: int
    checks: int
    settled_checks: int

    @property
    def remaining_items(self) -> int:
        return max(self.assigned_items - self.checked_items, 0)

    @property
    def settled_share(self) -> float | None:
        return self.settled_checks / self.checks if self.checks else None

    def to_json(self) -> dict[str, Any]:
        return {
            "editor": self.editor,
            "assigned_dumps": self.assigned_dumps,
            "assigned_items": self.assigned_items,
            "checked_items": self.checked_items,
            "remaining_items": self.remaining_items,
            "checks": self.checks,
            "settled_checks": self.settled_checks,
            "settled_share": self.settled_share,
        }


def sees_own_progress_only(user: Any) -> bool:
    """An editor sees their own progress; a lead, staff or a reviewer (who records nothing) the team's."""
    return roles.can_record(user) and not roles.can_settle(user)


def progress_per_editor(user: Any, dumps: QuerySet[Dump] | None = None) -> list[EditorProgress]:
    """Each editor's progress over ``dumps`` (every dump when None), by name, as ``user`` may read it:
    an editor their own, a lead, staff or a reviewer the whole team's. An editor's checked items are
    their own checks on the dumps assigned to them, however many others are assigned too. Three
    queries, however many editors and dumps."""
    chosen = Dump.objects.all() if dumps is None else dumps
    ready = chosen.filter(read_state=ReadState.READY, item_count__gt=0).order_by()
    # As Dump.checkable_item_count.
    checkable = Least(F("dump__item_count"), Value(settings.CITEVIEW_MAX_ITEMS_PER_DUMP))
    assigned = Assignment.objects.filter(dump__in=ready.values("pk"))
    checks = Check.objects.filter(FINISHED, is_item=True, dump__in=ready.values("pk"))
    if sees_own_progress_only(user):
        assigned, checks = assigned.filter(editor=user), checks.filter(editor=user)
    settled = Check.settlements.filter(dump=OuterRef("dump"), item_key=OuterRef("item_key"))
    on_assigned = Assignment.objects.filter(dump=OuterRef("dump"), editor=OuterRef("editor"))
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for assignment in assigned.values("editor__username").annotate(dumps=Count("id"), items=Sum(checkable)):
        rows[assignment["editor__username"]].update(
            assigned_dumps=assignment["dumps"], assigned_items=assignment["items"] or 0
        )
    per_editor = (
        checks.annotate(was_settled=Exists(settled), on_assigned=Exists(on_assigned))
        .values("editor__username")
        .annotate(
            checks=Count("id"),
            settled=Count("id", filter=Q(was_settled=True)),
            checked=Count("id", filter=Q(on_assigned=True)),
        )
    )
    for counted in per_editor:
        entry = rows[counted["editor__username"]]
        entry.update(checks=counted["checks"], settled_checks=counted["settled"], checked_items=counted["checked"])
    return [
        EditorProgress(
            editor=name,
            assigned_dumps=entry["assigned_dumps"],
            assigned_items=entry["assigned_items"],
            checked_items=entry["checked_items"],
            checks=entry["checks"],
            settled_checks=entry["settled_checks"],
        )
        for name, entry in sorted(rows.items())
    ]


@dataclass(frozen=True)
class AssignableEditor:
    """An editor the dump's page offers to assign, and what assigning them means for blind first."""

    pk: int
    username: str
    assigned: bool
    # Not assigned, a lead or staff, and other editors have judged items of the dump: they can read
    # those verdicts now, so their checks of those items will not be blind.
    reads_verdicts: bool


def assignable_editors_of(dump: Dump) -> list[AssignableEditor]:
    """The active editors and leads, by name, each with whether they are assigned to ``dump`` and whether
    they can already read its verdicts. Three queries, however many editors."""
    users = get_user_model().objects.filter(groups__name__in=[roles.EDITOR, roles.LEAD], is_active=True)
    editors = (
        users.distinct().annotate(settles=_settles()).order_by("username").values_list("pk", "username", "settles")
    )
    assigned = set(Assignment.objects.filter(dump=dump).values_list("editor_id", flat=True))
    judges = set(Check.objects.filter(FINISHED, dump=dump, is_item=True).values_list("editor_id", flat=True))
    return [
        AssignableEditor(pk, name, pk in assigned, settles and pk not in assigned and bool(judges - {pk}))
        for pk, name, settles in editors
    ]


def _settles() -> Q:
    """Whether a user may settle (``roles.can_settle``), in SQL: staff, or the settle permission given to
    them or to a group of theirs (what ``has_perm`` reads for an active user)."""
    app_label, codename = roles.SETTLE.split(".")
    permission = {"codename": codename, "content_type__app_label": app_label}
    by_group = Group.objects.filter(user=OuterRef("pk"), permissions__in=Permission.objects.filter(**permission))
    by_user = Permission.objects.filter(user=OuterRef("pk"), **permission)
    return Q(is_staff=True) | Q(is_superuser=True) | Q(Exists(by_group)) | Q(Exists(by_user))
