"""Writes: recording a check (with optimistic versioning and its revision), comments, and a dump's result
rebuilt with its checks recounted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from citeview.core.review.items import CheckItem, check_items
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_result_is_current, dumps_outdated
from citeview.dumps.services import dump_refresh_result
from citeview.review.models import FINISHED, Check, CheckRevision, Comment, ItemState

STATEMENT_ANSWERS = ("verification_worthy", "supported_together")


@dataclass
class CheckConflict(Exception):
    """The item was saved by someone (or in another tab) since the page was loaded."""

    version: int  # the item's version now: a save that has seen the other one sends it
    theirs: CheckRevision | None  # the save that came in between
    theirs_statement: dict[str, str] = field(default_factory=dict)  # that editor's statement-wide answers


def check_save(
    *,
    dump: Dump,
    item: CheckItem,
    editor: Any,
    values: dict[str, str],
    statement_values: dict[str, str],
    seen_version: int,
    seen_statement: dict[str, str] | None = None,
) -> Check:
    """Record ``editor``'s check of ``item`` (and, for a citation, the statement-wide answers).

    Refused with :class:`CheckConflict` when the item's version is no longer ``seen_version``: the
    compare-and-set is one UPDATE, so two saves at the same moment cannot both pass, on SQLite or
    PostgreSQL. The statement-wide answers are shared by the statement's citations, so only those the
    editor changed from what the page showed (``seen_statement``) are written, and only if nobody
    changed them meanwhile. Every save is kept as a revision.
    """
    response = dump.result["responses"][item.response]
    with transaction.atomic():
        Dump.objects.select_for_update().filter(pk=dump.pk).values_list("pk", flat=True).get()  # one save at a time
        state, _ = ItemState.objects.get_or_create(dump=dump, key=item.key)
        moved = ItemState.objects.filter(pk=state.pk, version=seen_version).update(
            version=F("version") + 1, last_editor=editor
        )
        if not moved:
            state.refresh_from_db()
            raise _conflict(dump, item, state.version)
        version = seen_version + 1
        if item.citation is None:
            check = _record(dump, item, editor, response, "statement", item.key, values, version)
        else:
            check = _record(dump, item, editor, response, "citation", item.key, values, version)
            changed = _changed_statement_answers(dump, item, editor, statement_values, seen_statement)
            if changed is None:
                raise _conflict(dump, item, version - 1)  # rolled back: nothing of this save is kept
            if changed:
                _record(dump, item, editor, response, "statement", item.statement_key, changed, version)
        dump_recount(dump=dump)
    return check


def _changed_statement_answers(
    dump: Dump, item: CheckItem, editor: Any, posted: dict[str, str], seen: dict[str, str] | None
) -> dict[str, str] | None:
    """The answers to write; None when one the editor changed was changed meanwhile (another tab)."""
    if seen is None:
        return posted
    stored = Check.objects.filter(dump=dump, item_key=item.statement_key, editor=editor).first()
    changed = {}
    for name, value in posted.items():
        if value == seen.get(name, ""):
            continue  # left as the page showed it
        if stored is not None and getattr(stored, name) != seen.get(name, ""):
            return None
        changed[name] = value
    return changed


def _conflict(dump: Dump, item: CheckItem, version: int) -> CheckConflict:
    theirs = (
        CheckRevision.objects.filter(check_record__dump=dump, check_record__item_key=item.key)
        .select_related("editor", "check_record")
        .order_by("-created_at", "-id")
        .first()
    )
    statement = {}
    if theirs is not None:
        answers = Check.objects.filter(dump=dump, item_key=item.statement_key, editor=theirs.editor).first()
        statement = {name: getattr(answers, name) for name in STATEMENT_ANSWERS} if answers else {}
    return CheckConflict(version, theirs, statement)


def _record(
    dump: Dump,
    item: CheckItem,
    editor: Any,
    response: dict[str, Any],
    kind: str,
    key: str,
    values: dict[str, str],
    version: int,
) -> Check:
    snapshot = _snapshot(item, response, kind, key)
    check, created = Check.objects.get_or_create(
        dump=dump, item_key=key, editor=editor, defaults={"kind": kind, **snapshot}
    )
    before = {} if created else check.values()
    for name, value in {**snapshot, **values}.items():
        setattr(check, name, value)  # what was judged is copied again: a rebuilt result may say it better
    after = check.values()
    check.save()
    if created or after != before:
        CheckRevision.objects.create(
            check_record=check, editor=editor, item_version=version, before=before, after=after
        )
    return check


def _snapshot(item: CheckItem, response: dict[str, Any], kind: str, key: str) -> dict[str, Any]:
    """What was judged, copied into the check so exports keep it whatever happens to the result."""
    snapshot: dict[str, Any] = {
        "response_index": item.response,
        "statement_key": item.statement_key,
        "statement_text": item.statement.text,
        "unresolved_count": len(item.statement.unresolved),
        "provider": response["provider"],
        "api": response["api"],
        "model": response["model"] or "",
        "is_item": key == item.key,
    }
    if kind == "citation" and item.citation is not None:
        citation = response["citations"][item.citation]
        source = next((s for s in response["sources"] if s["key"] == item.source_key), None) or {}
        snapshot.update(
            citation_index=item.citation,
            marker=citation["marker"] or "",
            source_key=source.get("key") or "",
            source_url=source.get("url") or "",
            source_title=source.get("title") or "",
        )
    return snapshot


def dump_recount(*, dump: Dump) -> None:
    """Items of the current result with at least one finished check (checks of keys a rebuilt
    result no longer has stay in the reports, but do not count)."""
    limit = settings.CITEVIEW_MAX_ITEMS_PER_DUMP
    keys = {item.key for item in check_items(dump.result["responses"], limit=limit)}
    finished = Check.objects.filter(FINISHED, dump=dump, is_item=True).values_list("item_key", flat=True)
    Dump.objects.filter(pk=dump.pk).update(checked_item_count=len(keys & set(finished)))


def dump_refresh(*, dump: Dump) -> Dump:
    """Rebuild a dump's result from its bytes, and recount its checked items: a rebuilt result may have
    other items."""
    dump = dump_refresh_result(dump=dump)
    dump_recount(dump=dump)
    return dump


def dump_refresh_if_stale(*, dump: Dump) -> Dump:
    """The dump with the result the running code makes of it: rebuilt now if older code made the stored one.

    Every page, API view and export that shows a dump's result calls this after reading the dump, so the
    first view after a deploy shows what ``refresh_dumps`` has not rebuilt yet. The list shows what is stored.
    """
    return dump if dump_result_is_current(dump) else dump_refresh(dump=dump)


def dump_refresh_outdated(*, everything: bool = False) -> int:
    """Rebuild every dump whose result older code made (or ``everything``); returns how many were rebuilt."""
    outdated = Dump.objects.all() if everything else dumps_outdated()
    count = 0
    for dump in outdated.iterator():
        dump_refresh(dump=dump)
        count += 1
    return count


def comment_add(*, dump: Dump, author: Any, text: str, item_key: str = "") -> Comment:
    return Comment.objects.create(dump=dump, author=author, text=text, item_key=item_key)
