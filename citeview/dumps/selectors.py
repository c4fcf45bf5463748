"""Reads: the dumps a page or the API shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, F, OuterRef, Prefetch, Q, QuerySet, Value
from django.db.models.functions import Least
from django.shortcuts import get_object_or_404

from citeview.accounts.roles import EDITOR, LEAD, REVIEWER, role_name
from citeview.core.checking.items import CheckItem, check_items
from citeview.core.common.phrases import phrase_text
from citeview.dumps.derived import result_version
from citeview.dumps.heartbeat import task_is_pending
from citeview.dumps.models import Assignment, Dump, Import, ReadState

UNASSIGNED = "-"  # the assignee filter's value for dumps assigned to nobody
# Read only where needed (the bytes themselves are in the blob storage: dumps.blobs).
HEAVY_FIELDS = ("result", "rendered", "search_text", "cited_url_hashes")


def assignees_prefetched() -> Prefetch[Any]:
    """A dump's assigned editors, by name, read with it in one more query however many dumps."""
    return Prefetch("assignees", queryset=get_user_model().objects.order_by("username"))


def dump_list(filters: dict[str, str] | None = None, *, tags: bool = True) -> QuerySet[Dump]:
    """The newest dumps first, filtered as the list's form asks, without their heavy fields; with their
    tags unless the caller reads them only for some (the list page's rows not kept yet)."""
    dumps = Dump.objects.defer(*HEAVY_FIELDS).select_related("uploaded_by").prefetch_related(assignees_prefetched())
    dumps = dumps.prefetch_related("tags") if tags else dumps
    return dumps.filter(_conditions(filters or {})).distinct() if filters else dumps


def _conditions(filters: dict[str, str]) -> Q:
    condition = Q()
    if query := filters.get("q"):
        condition &= (
            Q(title__icontains=query)
            | Q(headline__icontains=query)
            | Q(filename__icontains=query)
            | Q(search_text__icontains=query)
        )
    if provider := filters.get("provider"):
        condition &= Q(providers__contains=provider)
    if status := filters.get("status"):
        condition &= Q(status=status)
    if tag := filters.get("tag"):
        condition &= Q(tags__name=tag)
    if assignee := filters.get("assignee"):
        assigned = Assignment.objects.filter(dump=OuterRef("pk"))
        by_editor = Exists(assigned.filter(editor__username=assignee))
        condition &= Q(~Exists(assigned)) if assignee == UNASSIGNED else Q(by_editor)
    progress = filters.get("progress")
    checkable = Least(F("item_count"), Value(settings.CITEVIEW_MAX_ITEMS_PER_DUMP))  # as Dump.checkable_item_count
    # "done": every item has the independent checks it needs; "not started": no item has a check.
    if progress == "unchecked":
        condition &= Q(checked_item_count=0, item_count__gt=0)
    elif progress == "in_progress":
        condition &= Q(checked_item_count__gt=0, complete_item_count__lt=checkable)
    elif progress == "done":
        condition &= Q(complete_item_count__gte=checkable, item_count__gt=0)
    return condition


def dump_get(*, pk: int, heavy: bool = True) -> Dump:
    """A dump as stored; without ``heavy``, its bytes, result and renderings are read only when something
    uses them. Its result may be one older code made: a view that shows it queues its rebuild with
    ``citeview.dumps.reading.dump_queue_rebuild`` and shows it as stored meanwhile."""
    dumps = Dump.objects.select_related("uploaded_by").prefetch_related("tags")
    return get_object_or_404(dumps if heavy else dumps.defer(*HEAVY_FIELDS), pk=pk)


def imports_visible_to(user: Any) -> QuerySet[Import]:
    """The imports whose page ``user`` may follow: their own, and every one for staff and reviewers,
    who oversee the team's work. Another editor's is not theirs to read (its files' names, its errors)."""
    if not user.is_authenticated:
        return Import.objects.none()
    if user.is_staff or role_name(user) == REVIEWER:
        return Import.objects.all()
    return Import.objects.filter(uploaded_by_id=user.pk)


def import_get(*, pk: int, user: Any) -> Import:
    """An import ``user`` may follow; any other is not found, as if it did not exist."""
    return get_object_or_404(imports_visible_to(user), pk=pk)


# What the viewer reads of a dump on every view (``citeview.dumps.viewer_body.dump_viewed``): what its kept
# pieces are keyed by (``dumps.kept_fragments``), whether its result is current, and its title.
VIEWED_FIELDS = (
    "derived_at",
    "page_version",
    "evidence_version",
    "read_state",
    "result_version",
    "size",
    "title",
    "headline",
    "filename",
    "sha256",
    "response_count",  # a batch is browsed one response at a time (``citeview.dumps.batches``)
)


def dump_result_is_current(dump: Dump) -> bool:
    """Whether the dump's stored result is what the running code would make of its bytes."""
    return not dump.is_ready or dump.result_version == result_version()  # an unread dump has none yet


def dumps_outdated() -> QuerySet[Dump]:
    """The dumps whose stored result older code made."""
    return Dump.objects.filter(read_state=ReadState.READY).exclude(result_version=result_version())


def dump_read_status(dump: Dump, gettext: Callable[[str], str]) -> dict[str, Any]:
    """Where reading a dump stands, as the viewer's status panel and the API show it: its state, the
    error in the reader's language when it failed, and whether it is lost (waiting for a read whose
    task is gone or whose worker stopped: ``citeview.dumps.lost_work`` will queue it again, or its uploader can)."""
    error = dump.read_error or {}
    return {
        "id": dump.pk,
        "state": dump.read_state,
        "label": str(ReadState(dump.read_state).label),
        "error": {"code": error["code"], "message": phrase_text(error["phrase"], gettext)} if error else None,
        "attempts": dump.read_attempts,
        "lost": dump_read_waiting(dump) and not dump_read_pending(dump),
    }


def dump_read_waiting(dump: Dump) -> bool:
    """Whether the dump is queued or being read (neither read nor failed)."""
    return dump.read_state in (ReadState.QUEUED, ReadState.READING)


def dump_read_pending(dump: Dump) -> bool:
    """Whether the dump waits for a read that will still run: queued or being read, by a task that is
    waiting for a worker or running on one that is alive (``citeview.dumps.heartbeat``). A read that
    runs long is pending as long as its worker lives."""
    return dump_read_waiting(dump) and task_is_pending(dump.read_task_id)


class Editor(NamedTuple):
    pk: int
    username: str
    is_active: bool  # only an active editor can be assigned a dump; the list filters by any


def team_editors() -> list[Editor]:
    """Every editor, by username: the list's filter offers them, and the viewer's form (and its kept
    fields' key) those who are active."""
    editors = get_user_model().objects.filter(groups__name__in=[EDITOR, LEAD]).distinct().order_by("username", "pk")
    return [Editor(*row) for row in editors.values_list("pk", "username", "is_active")]


def dump_check_items(dump: Dump) -> list[CheckItem]:
    """The items editors can check in the dump: its first CITEVIEW_MAX_ITEMS_PER_DUMP (``Dump.item_count``
    has them all). Every reader of items (review's pages, the passages found in a snapshot) asks here."""
    return check_items(dump.result["responses"], limit=settings.CITEVIEW_MAX_ITEMS_PER_DUMP)
