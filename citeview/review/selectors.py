"""Reads: a dump's items and who checked what."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Count

from citeview.core.review.items import CheckItem, check_items
from citeview.dumps.models import Dump
from citeview.review import roles
from citeview.review.models import FINISHED, Check, CheckRevision, Comment, ItemState


def dump_check_items(dump: Dump) -> list[CheckItem]:
    return check_items(dump.result["responses"])


def item_version(dump: Dump, key: str) -> int:
    return ItemState.objects.filter(dump=dump, key=key).values_list("version", flat=True).first() or 0


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


def item_checks(dump: Dump, item: CheckItem) -> list[Check]:
    """Every editor's check of the item, with their statement-wide answers for a citation."""
    keys = {item.key, item.statement_key}
    checks = Check.objects.filter(dump=dump, item_key__in=keys).select_related("editor").order_by("editor__username")
    return list(checks)


def item_history(dump: Dump, item: CheckItem) -> list[CheckRevision]:
    keys = {item.key, item.statement_key}
    revisions = CheckRevision.objects.filter(check_record__dump=dump, check_record__item_key__in=keys)
    return list(revisions.select_related("editor", "check_record").order_by("-created_at", "-id"))


def dump_comments(dump: Dump) -> list[Comment]:
    return list(Comment.objects.filter(dump=dump).select_related("author"))


def blind_keys(user: Any, dump_ids: list[int] | None = None) -> set[tuple[int, str]] | None:
    """For an editor, the (dump, key) pairs whose other checks they may see: the items they have
    finished and those items' statements. None for everyone else (reviewers see every check)."""
    if not roles.can_record(user):
        return None
    mine = Check.objects.filter(FINISHED, editor=user, is_item=True)
    if dump_ids is not None:
        mine = mine.filter(dump_id__in=dump_ids)
    keys: set[tuple[int, str]] = set()
    for dump_id, item_key, statement_key in mine.values_list("dump_id", "item_key", "statement_key"):
        keys.update({(dump_id, item_key), (dump_id, statement_key)})
    return keys
