"""Writes: recording a check (with optimistic versioning and its revision), comments, a dump's details."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F

from citeview.core.review.items import CheckItem
from citeview.dumps.models import Dump, Tag
from citeview.review.models import FINISHED, Check, CheckRevision, Comment, ItemState


@dataclass
class CheckConflict(Exception):
    """The item was saved by someone (or in another tab) since the page was loaded."""

    version: int  # the item's version now: a save that has seen the other one sends it
    theirs: CheckRevision | None  # the save that came in between


def check_save(
    *,
    dump: Dump,
    item: CheckItem,
    editor: Any,
    values: dict[str, str],
    statement_values: dict[str, str],
    seen_version: int,
) -> Check:
    """Record ``editor``'s check of ``item`` (and, for a citation, the statement-wide answers).

    Refused with :class:`CheckConflict` when the item's version is no longer ``seen_version``: the
    compare-and-set is one UPDATE, so two saves at the same moment cannot both pass, on SQLite or
    PostgreSQL. Every save is kept as a revision.
    """
    response = dump.result["responses"][item.response]
    with transaction.atomic():
        state, _ = ItemState.objects.get_or_create(dump=dump, key=item.key)
        moved = ItemState.objects.filter(pk=state.pk, version=seen_version).update(
            version=F("version") + 1, last_editor=editor
        )
        if not moved:
            state.refresh_from_db()
            raise CheckConflict(state.version, _latest_revision(dump, item.key, exclude_editor=None))
        version = seen_version + 1
        if item.citation is None:
            check = _record(dump, item, editor, response, "statement", item.key, values, version)
        else:
            check = _record(dump, item, editor, response, "citation", item.key, values, version)
            _record(dump, item, editor, response, "statement", item.statement_key, statement_values, version)
        _count_checked_items(dump)
    return check


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
    check, created = Check.objects.get_or_create(
        dump=dump, item_key=key, editor=editor, defaults={"kind": kind, **_snapshot(item, response, kind, key)}
    )
    before = {} if created else check.values()
    for name, value in values.items():
        setattr(check, name, value)
    after = check.values()
    if not created and after == before:
        return check
    check.save()
    CheckRevision.objects.create(check_record=check, editor=editor, item_version=version, before=before, after=after)
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
        sources = {s["key"]: s for s in response["sources"]}
        source = sources.get(citation["source_keys"][0]) if citation["source_keys"] else None
        snapshot.update(
            citation_index=item.citation,
            marker=citation["marker"] or "",
            source_key=(source or {}).get("key") or "",
            source_url=(source or {}).get("url") or "",
            source_title=(source or {}).get("title") or "",
        )
    return snapshot


def _latest_revision(dump: Dump, key: str, exclude_editor: Any) -> CheckRevision | None:
    revisions = CheckRevision.objects.filter(check_record__dump=dump, check_record__item_key=key)
    if exclude_editor is not None:
        revisions = revisions.exclude(editor=exclude_editor)
    return revisions.select_related("editor", "check_record").order_by("-created_at", "-id").first()


def _count_checked_items(dump: Dump) -> None:
    checked = Check.objects.filter(FINISHED, dump=dump, is_item=True).values("item_key").distinct().count()
    Dump.objects.filter(pk=dump.pk).update(checked_item_count=checked)


def comment_add(*, dump: Dump, author: Any, text: str, item_key: str = "") -> Comment:
    return Comment.objects.create(dump=dump, author=author, text=text, item_key=item_key)


def dump_organise(*, dump: Dump, title: str, tag_names: list[str], assignee: Any) -> Dump:
    """Set a dump's title, tags (made as needed) and assigned editor."""
    with transaction.atomic():
        dump.title = title
        dump.assignee = assignee
        dump.save(update_fields=["title", "assignee"])
        tags = [Tag.objects.get_or_create(name=name)[0] for name in dict.fromkeys(tag_names)]
        dump.tags.set(tags)
    return dump
