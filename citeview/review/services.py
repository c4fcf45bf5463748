"""Writes: recording a check (with optimistic versioning and its revision), comments, assignments, and
the counts of a dump's checked items (recounted by every save, and when dumps rebuilds a result:
``citeview.review.receivers``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F

from citeview.accounts import roles
from citeview.core.checking.items import CheckItem, check_items
from citeview.dumps.models import Assignment, Dump
from citeview.dumps.services import dump_assignments_set, dump_changed
from citeview.review.models import FINISHED, Check, CheckRevision, Comment, ItemState
from citeview.review.selectors import (
    disputed_items,
    editor_since,
    finished_by_anyone,
    independent_checks,
    reads_every_verdict,
    settle_refusal,
)
from citeview.review.signals import check_saved, disagreement_settled, dump_fully_checked

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
    """Record ``editor``'s check of ``item`` (and, for a citation or a marker without a source, the
    statement-wide answers).

    Refused with :class:`CheckConflict` when the item's version is no longer ``seen_version``: the
    compare-and-set is one UPDATE, so two saves at the same moment cannot both pass, on SQLite or
    PostgreSQL. The statement-wide answers are shared by the statement's items, so only those the
    editor changed from what the page showed (``seen_statement``) are written, and only if nobody
    changed them meanwhile. Every save is kept as a revision.
    """
    with transaction.atomic():
        _lock(dump)
        check = _save_item(dump, item, editor, values, statement_values, seen_version, seen_statement, _new_save())
        checks_recount(dump=dump)
        _on_commit_check_saved(dump.pk, item.key, editor.pk, check.pk)
    return check


def _on_commit_check_saved(pk: int, item_key: str, editor: int, check: int) -> None:
    transaction.on_commit(lambda: check_saved.send(sender=Check, pk=pk, item_key=item_key, editor=editor, check=check))


@dataclass(frozen=True)
class ItemToSave:
    item: CheckItem
    seen_version: int


def checks_mark_not_claims(*, dump: Dump, editor: Any, items: list[ItemToSave]) -> tuple[list[str], list[str]]:
    """Record several statements that cite nothing as no claim about the world (not verification-
    worthy), as one save: each item as :func:`check_save` would, with its version compared and a revision
    kept, and all of them undone together. An item saved meanwhile is left as it is (its page says why).
    Returns the keys saved and the keys left."""
    saved, left = [], []
    save = _new_save()
    with transaction.atomic():
        _lock(dump)
        for entry in items:
            if entry.item.kind != "statement":
                raise ValueError(f"{entry.item.key} cites something: only a statement that cites nothing is marked")
            try:
                with transaction.atomic():
                    values = {"verification_worthy": "no"}
                    check = _save_item(dump, entry.item, editor, values, {}, entry.seen_version, None, save)
            except CheckConflict:
                left.append(entry.item.key)
            else:
                saved.append(entry.item.key)
                _on_commit_check_saved(dump.pk, entry.item.key, editor.pk, check.pk)
        checks_recount(dump=dump)
    return saved, left


def _lock(dump: Dump) -> None:
    Dump.objects.select_for_update().filter(pk=dump.pk).values_list("pk", flat=True).get()  # one save at a time


def _new_save() -> str:
    return uuid.uuid4().hex


def _save_item(
    dump: Dump,
    item: CheckItem,
    editor: Any,
    values: dict[str, str],
    statement_values: dict[str, str],
    seen_version: int,
    seen_statement: dict[str, str] | None,
    save: str,
) -> Check:
    response = dump.result["responses"][item.response]
    version = _move_version(dump, item, editor, seen_version)
    write = _Write(dump, item, editor, response, version, save)
    if item.kind == "statement":
        return write.record("statement", item.key, values)
    if item.kind == "unresolved":
        # A marker without a source is judged by its statement's answers: they are shared with the
        # statement's citations, and the item's own check carries them too (figures read either).
        statement_values = {**{k: v for k, v in values.items() if k in STATEMENT_ANSWERS}, **statement_values}
        values = {k: v for k, v in values.items() if k not in STATEMENT_ANSWERS}
    changed = _changed_statement_answers(dump, item, editor, statement_values, seen_statement)
    if changed is None:
        raise _conflict(dump, item, version - 1)  # rolled back: nothing of this save is kept
    if changed:
        write.record("statement", item.statement_key, changed)
        _mirror_statement_answers(dump, editor, item.statement_key)
    if item.kind == "citation":
        return write.record("citation", item.key, values)
    answers = Check.objects.filter(dump=dump, item_key=item.statement_key, editor=editor).first()
    shared = {name: getattr(answers, name) for name in STATEMENT_ANSWERS} if answers else {}
    return write.record("statement", item.key, {**values, **shared})


def _move_version(dump: Dump, item: CheckItem, editor: Any, seen_version: int) -> int:
    """The item's version moved on from ``seen_version`` (one UPDATE: compare and set), or
    :class:`CheckConflict` when someone saved it since."""
    state, _ = ItemState.objects.get_or_create(dump=dump, key=item.key)
    moved = ItemState.objects.filter(pk=state.pk, version=seen_version).update(
        version=F("version") + 1, last_editor=editor
    )
    if not moved:
        state.refresh_from_db()
        raise _conflict(dump, item, state.version)
    return seen_version + 1


class NothingToSettle(Exception):
    """The item is not one where editors disagree: there is nothing to settle."""


@dataclass
class SettleRefused(Exception):
    """The settler may not settle this item (``selectors.settle_refusal`` says why): they gave a verdict
    on it, or they are assigned to the dump as an editor and blind to the others' verdicts."""

    reason: str


def check_settle(*, dump: Dump, item: CheckItem, settler: Any, verdict: str, reason: str, seen_version: int) -> Check:
    """Record the final verdict of an item where editors disagree, with the settler's reason (kept in
    ``note``). A settlement is a save like any other: the item's version is compared and moved on and
    the change is kept as a revision. Only another settlement changes it (undo does not), and a settler
    never settles an item they gave a verdict on or check as an editor (:class:`SettleRefused`). It is
    never an editor's check (``Check.objects`` leaves it out), so progress and agreement (κ, α) do not
    count it."""
    with transaction.atomic():
        _lock(dump)
        if (refusal := settle_refusal(settler, dump, item.key)) is not None:
            raise SettleRefused(refusal)
        judged = Check.objects.filter(dump=dump, item_key=item.key, kind="citation", is_item=True).exclude(verdict="")
        if item.kind != "citation" or judged.values("verdict").distinct().count() < 2:
            raise NothingToSettle(item.key)
        version = _move_version(dump, item, settler, seen_version)
        response = dump.result["responses"][item.response]
        settlement = _Write(dump, item, settler, response, version, _new_save()).settle(verdict, reason)
        checks_recount(dump=dump)  # one disagreement fewer to settle
        pk, key, by, settled = dump.pk, item.key, settler.pk, settlement.pk
        transaction.on_commit(
            lambda: disagreement_settled.send(sender=Check, pk=pk, item_key=key, settler=by, check=settled)
        )
    return settlement


def _mirror_statement_answers(dump: Dump, editor: Any, statement_key: str) -> None:
    """The editor's checks of the statement's markers without a source carry the statement's answers
    as they now are."""
    answers = Check.objects.filter(dump=dump, item_key=statement_key, editor=editor).first()
    values = (
        {name: getattr(answers, name) for name in STATEMENT_ANSWERS}
        if answers
        else dict.fromkeys(STATEMENT_ANSWERS, "")
    )
    Check.objects.filter(dump=dump, editor=editor, statement_key=statement_key, is_item=True, kind="statement").exclude(
        item_key=statement_key
    ).update(**values)


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


@dataclass(frozen=True)
class _Write:
    """One save's writes: each check it records, with what was judged copied in and a revision."""

    dump: Dump
    item: CheckItem
    editor: Any
    response: dict[str, Any]
    version: int
    save: str

    def record(self, kind: str, key: str, values: dict[str, str]) -> Check:
        snapshot = _snapshot(self.item, self.response, kind, key)
        check, created = Check.objects.get_or_create(
            dump=self.dump, item_key=key, editor=self.editor, defaults={"kind": kind, **snapshot}
        )
        before = {} if created else check.values()
        was_finished = not created and check.finished
        for name, value in {**snapshot, **values}.items():
            setattr(check, name, value)  # what was judged is copied again: a rebuilt result may say it better
        after = check.values()
        check.save()
        if created or after != before:
            judged = key == self.item.key and check.finished and not was_finished
            CheckRevision.objects.create(
                check_record=check,
                editor=self.editor,
                item_version=self.version,
                before=before,
                after=after,
                save_id=self.save,
                not_blind=judged and _could_read_others(self.dump, check),
            )
        return check

    def settle(self, verdict: str, reason: str) -> Check:
        """The item's settlement, made or changed, by this save's editor (the settler)."""
        snapshot = _snapshot(self.item, self.response, "citation", self.item.key)
        check, created = Check.settlements.get_or_create(
            dump=self.dump,
            item_key=self.item.key,
            defaults={"kind": "citation", "editor": self.editor, "is_settlement": True, **snapshot},
        )
        before = {} if created else check.values()
        for name, value in {**snapshot, "editor": self.editor, "verdict": verdict, "note": reason}.items():
            setattr(check, name, value)
        check.save()
        CheckRevision.objects.create(
            check_record=check,
            editor=self.editor,
            item_version=self.version,
            before=before,
            after=check.values(),
            save_id=self.save,
        )
        return check


def _could_read_others(dump: Dump, check: Check) -> bool:
    """Whether the editor of ``check``, giving it its verdict now, could already read another editor's
    verdict on the item: they read every verdict of the dump (a lead not assigned to it), or they read
    them before they were assigned (a lead assigned after others had judged the item), or their own
    check of it was finished before (blind first then showed them the others') and was undone."""
    others = Check.objects.filter(FINISHED, dump=dump, item_key=check.item_key, is_item=True).exclude(
        editor_id=check.editor_id
    )
    if not others.exists():
        return False
    if reads_every_verdict(check.editor, dump):
        return True
    # Assigned (or made a plan's editor) after reading every verdict as a lead or staff: what was judged
    # before was readable.
    since = editor_since(check.editor, dump)
    if roles.can_settle(check.editor) and since is not None and others.filter(created_at__lt=since).exists():
        return True
    return any(_finished_values(check.kind, revision.after) for revision in check.revisions.all())


def _finished_values(kind: str, values: dict[str, str]) -> bool:
    """Whether a check with these values counts as done (as ``Check.finished``)."""
    return bool(values.get("verdict" if kind == "citation" else "verification_worthy"))


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
    elif key == item.key and item.unresolved is not None:
        snapshot["marker"] = response["unresolved"][item.unresolved]["marker"]  # the number with no source
    return snapshot


@dataclass(frozen=True)
class Undone:
    """What an undo put back: the items whose own checks it changed, and the statements whose shared
    answers it changed (a save can change only those)."""

    item_keys: list[str]
    statement_keys: list[str]


def last_save(dump: Dump, editor: Any) -> list[CheckRevision]:
    """The revisions of ``editor``'s last save of their own checks in ``dump`` that has not been undone
    (an undo is no save to undo: pressing undo again goes further back). A settlement is not undone:
    only another settlement changes it."""
    undone = CheckRevision.objects.filter(check_record__dump=dump, editor=editor, is_undo=True).values("undoes")
    mine = (
        CheckRevision.objects.filter(
            check_record__dump=dump, check_record__is_settlement=False, editor=editor, is_undo=False
        )
        .exclude(save_id="")
        .exclude(save_id__in=undone)
    )
    latest = mine.order_by("-created_at", "-id").values_list("save_id", flat=True).first()
    if latest is None:
        return []
    return list(mine.filter(save_id=latest).select_related("check_record").order_by("id"))


def check_undo(*, dump: Dump, editor: Any) -> Undone | None:
    """Undo ``editor``'s last save in ``dump``: each check it changed gets its earlier values back, as a
    new revision that names the save it undoes; a check the save made is emptied, never deleted, so its
    history stays whole. Only the editor's own save of their own checks (a settlement is changed only
    by another settlement). The items' versions move on, so a page opened before the undo cannot
    overwrite it unseen. None when there is nothing to undo."""
    with transaction.atomic():
        _lock(dump)
        revisions = last_save(dump, editor)
        if not revisions:
            return None
        save = _new_save()
        items: list[str] = []
        statements: list[str] = []
        for revision in revisions:
            check = revision.check_record
            if check.is_item and check.item_key not in items:
                items.append(check.item_key)
            if check.statement_key not in statements:
                statements.append(check.statement_key)
            current = check.values()
            # A save that made the check had nothing before it: undone, the check is left empty.
            earlier = revision.before or dict.fromkeys(current, "")
            for name, value in earlier.items():
                setattr(check, name, value)
            check.save()
            CheckRevision.objects.create(
                check_record=check,
                editor=editor,
                item_version=revision.item_version,
                before=current,
                after=check.values(),
                save_id=save,
                is_undo=True,
                undoes=revision.save_id,
            )
        for statement_key in statements:
            _mirror_statement_answers(dump, editor, statement_key)
        ItemState.objects.filter(dump=dump, key__in=items).update(version=F("version") + 1, last_editor=editor)
        checks_recount(dump=dump)
    return Undone(items, statements)


def checks_recount(*, dump: Dump) -> None:
    """Items of the current result with at least one finished check, and with the independent checks
    they need (``independent_checks``: a check given not blind is no independent one); checks of keys
    a rebuilt result no longer has stay in the reports, but do not count.
    ``dump.fully_checked`` is sent when the last item gets the checks it needs."""
    limit = settings.CITEVIEW_MAX_ITEMS_PER_DUMP
    keys = {item.key for item in check_items(dump.result["responses"], limit=limit)}
    checked = {key for key in finished_by_anyone(dump) if key in keys}
    independent = independent_checks().filter(dump=dump).values("item_key").annotate(n=Count("id")).order_by()
    stored = Dump.objects.filter(pk=dump.pk).values_list("complete_item_count", "checks_needed").first()
    before, needed = stored if stored is not None else (0, 1)
    complete = sum(1 for key, n in independent.values_list("item_key", "n") if key in keys and n >= needed)
    Dump.objects.filter(pk=dump.pk).update(
        checked_item_count=len(checked), complete_item_count=complete, disputed_item_count=len(disputed_items(dump))
    )
    dump_changed(dump=dump)  # every save and undo of a check comes here
    if keys and complete == len(keys) and before != complete:
        pk = dump.pk
        transaction.on_commit(lambda: dump_fully_checked.send(sender=Dump, pk=pk))


@dataclass(frozen=True)
class AssignmentChange:
    """What ``editors_assign`` changed: the editors added and removed (by name), and of those added, the
    ones who could already read other editors' verdicts on the dump (a lead or staff not assigned to
    it): their checks of items judged before are recorded as not blind."""

    added: list[str]
    removed: list[str]
    read_verdicts_before: list[str]


def editors_assign(
    *, dump: Dump, editors: list[Any], by: Any, checks_needed: int | None = None, keep_others: bool = False
) -> AssignmentChange:
    """Assign ``dump`` to ``editors`` (and, unless ``keep_others``, to no one else), and set how many
    independent checks its items need. Each editor added sees it in their queue; the counts that depend
    on the checks needed are recounted."""
    with transaction.atomic():
        _lock(dump)
        current = {assignment.editor_id for assignment in Assignment.objects.filter(dump=dump)}
        wanted = {editor.pk: editor for editor in editors}
        added = [editor for pk, editor in wanted.items() if pk not in current]
        removed_ids = set() if keep_others else current - set(wanted)
        judged = Check.objects.filter(FINISHED, dump=dump, is_item=True)
        read_before = [e for e in added if reads_every_verdict(e, dump) and judged.exclude(editor=e).exists()]
        removed = dump_assignments_set(dump=dump, add=added, remove=removed_ids, by=by)
        if checks_needed is not None and checks_needed != dump.checks_needed:
            Dump.objects.filter(pk=dump.pk).update(checks_needed=checks_needed)
            dump.checks_needed = checks_needed
            checks_recount(dump=Dump.objects.only("pk", "result").get(pk=dump.pk))
        dump_changed(dump=dump)
    return AssignmentChange(
        added=sorted(e.get_username() for e in added),
        removed=sorted(removed),
        read_verdicts_before=sorted(e.get_username() for e in read_before),
    )


def comment_add(*, dump: Dump, author: Any, text: str, item_key: str = "") -> Comment:
    comment = Comment.objects.create(dump=dump, author=author, text=text, item_key=item_key)
    dump_changed(dump=dump)
    return comment
