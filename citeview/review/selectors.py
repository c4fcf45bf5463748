"""Reads: a dump's items (``dump_check_items``, the dumps' own) and who checked what."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Least

from citeview.accounts import roles
from citeview.core.review.items import CheckItem
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.selectors import HEAVY_FIELDS
from citeview.dumps.selectors import dump_check_items as dump_check_items  # review's pages read items here
from citeview.review.models import FINISHED, Check, CheckRevision, Comment, ItemState


def item_version(dump: Dump, key: str) -> int:
    return ItemState.objects.filter(dump=dump, key=key).values_list("version", flat=True).first() or 0


def item_versions(dump: Dump, keys: list[str]) -> dict[str, int]:
    """The versions of several items in one query (an item never saved is at 0)."""
    states = ItemState.objects.filter(dump=dump, key__in=keys).values_list("key", "version")
    return {key: 0 for key in keys} | dict(states)


def visible_verdicts(dump: Dump, user: Any) -> dict[str, set[str]]:
    """Per item, the verdicts of its checks that ``user`` may read (blind first: for an editor, their
    own, and others' on items they have checked)."""
    checks = checks_visible_to(user, Check.objects.filter(dump=dump, kind="citation", is_item=True).exclude(verdict=""))
    verdicts: dict[str, set[str]] = defaultdict(set)
    for key, verdict in checks.values_list("item_key", "verdict"):
        verdicts[key].add(verdict)
    return verdicts


def finished_by_anyone(dump: Dump) -> set[str]:
    """The items someone has finished checking (what a reviewer's "not checked" leaves out)."""
    return set(Check.objects.filter(FINISHED, dump=dump, is_item=True).values_list("item_key", flat=True))


def work_queue(user: Any) -> QuerySet[Dump]:
    """The dumps assigned to ``user`` that they have not finished checking, the longest waiting first,
    each with ``mine``: how many of its items they have finished. In one query, however many dumps."""
    mine = (
        Check.objects.filter(FINISHED, dump=OuterRef("pk"), editor=user, is_item=True)
        .order_by()
        .values("dump")
        .annotate(n=Count("id"))
        .values("n")
    )
    checkable = Least(F("item_count"), Value(settings.CITEVIEW_MAX_ITEMS_PER_DUMP))  # as Dump.checkable_item_count
    return (
        Dump.objects.filter(assignee=user, read_state=ReadState.READY, item_count__gt=0)
        .defer(*HEAVY_FIELDS)
        .annotate(mine=Coalesce(Subquery(mine, output_field=IntegerField()), 0), checkable=checkable)
        .filter(mine__lt=F("checkable"))
        .prefetch_related("tags")
        .order_by("created_at", "id")
    )


def assigned_unread(user: Any) -> QuerySet[Dump]:
    """The dumps assigned to ``user`` that a worker has still to read, or could not: nothing to check
    yet, but theirs (the work queue lists them apart, with how reading stands)."""
    dumps = Dump.objects.filter(assignee=user).exclude(read_state=ReadState.READY).defer(*HEAVY_FIELDS)
    return dumps.order_by("created_at", "id")


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
    """Every save of the checks of the item that ``user`` may read, newest first."""
    checks = checks_visible_to(user, Check.objects.filter(dump=dump, item_key__in={item.key, item.statement_key}))
    revisions = CheckRevision.objects.filter(check_record__in=checks)
    return list(revisions.select_related("editor", "check_record").order_by("-created_at", "-id"))


def dump_settlements(dump: Dump) -> dict[str, Check]:
    """The dump's settled items: item key → the lead's settlement (its verdict, reason in ``note``).
    Settlements are shown to everyone who may read the dump: they are given only where editors
    disagree, so every editor who checked the item has given their own verdict already."""
    return {check.item_key: check for check in Check.settlements.filter(dump=dump).select_related("editor")}


def dump_comments(dump: Dump) -> list[Comment]:
    return list(Comment.objects.filter(dump=dump).select_related("author"))


def checks_visible_to(user: Any, checks: QuerySet[Check]) -> QuerySet[Check]:
    """Blind first, for every reader: the checks of ``checks`` that ``user`` may read.

    An editor reads their own checks, and another editor's check of an item only once their own check of
    that item is finished; a statement's shared answers (worthy, supported together) once they have
    finished any item of that statement, as they have then given their own. Judging after seeing
    another's answer anchors the judgement (``../shared/docs/evidence-review.md``). Reviewers record
    nothing, so they read everything. Every page, API view, export, report and figure that shows
    checks reads them through here, so no reader can forget the rule.
    """
    if not roles.can_record(user):
        return checks
    finished = Check.objects.filter(FINISHED, editor=user, is_item=True, dump=OuterRef("dump"))
    return checks.filter(
        Q(editor=user)
        | Exists(finished.filter(item_key=OuterRef("item_key")))
        | Exists(finished.filter(statement_key=OuterRef("item_key")))
    )


def hidden_check_count(user: Any, checks: QuerySet[Check]) -> int:
    """How many of ``checks`` blind first keeps from ``user``: readers say so rather than cut silently."""
    if not roles.can_record(user):
        return 0
    return checks.count() - checks_visible_to(user, checks).count()
