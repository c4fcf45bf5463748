"""The check panel's snapshot of a citation's source: taking one (upload, paste, Fetch), and how the
newest request for it stands. Thin: what the panel shows is built by ``citeview.review.snapshot_panel``,
and the work is in ``citeview.snapshots``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from citeview.accounts import roles
from citeview.core.checking.items import CheckItem
from citeview.core.evidence.extract import ExtractionError
from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_queue_rebuild
from citeview.dumps.selectors import dump_get
from citeview.review.forms import SnapshotPasteForm, SnapshotUploadForm
from citeview.review.selectors import dump_check_items
from citeview.review.snapshot_panel import fetch_lost, item_source_url, kept_passage, provenance_text
from citeview.snapshots.models import FetchState, SnapshotFetch
from citeview.snapshots.selectors import newest_fetch, newest_snapshot
from citeview.snapshots.services import (
    FetchingDisabled,
    FetchLimitReached,
    snapshot_fetch_request,
    snapshot_paste,
    snapshot_upload,
)


def _item(pk: int, key: str) -> tuple[Dump, CheckItem, str]:
    dump = dump_get(pk=pk)
    dump_queue_rebuild(dump=dump)  # shown as stored meanwhile
    item = next((i for i in dump_check_items(dump) if i.key == key), None)
    url = item_source_url(dump, item) if item is not None else None
    if item is None or url is None:
        raise Http404("This dump has no such item, or its source has no web address.")
    return dump, item, url


@require_POST
@permission_required(roles.RECORD, raise_exception=True)
def snapshot_take(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    """Take a snapshot of the item's source: ``take`` says how (``upload``, ``paste`` or ``fetch``).
    It records no verdict: the editor reads the passage and decides."""
    dump, item, url = _item(pk, key)
    back = reverse("review:item", args=[dump.pk, item.key]) + "#cv-snapshot"
    how = request.POST.get("take", "")
    try:
        if how == "upload":
            upload = SnapshotUploadForm(request.POST, request.FILES)
            if not upload.is_valid():
                messages.error(request, _("Choose a saved page to upload."))
                return redirect(back)
            taken = snapshot_upload(url=url, upload=upload.cleaned_data["page"], taken_by=request.user)
            _say_taken(request, taken, _("Snapshot kept: the saved page's text is compared with the claim."))
        elif how == "paste":
            paste = SnapshotPasteForm(request.POST)
            if not paste.is_valid() or not paste.cleaned_data["text"].strip():
                messages.error(request, _("Paste the page's text first (at most 2,000,000 characters)."))
                return redirect(back)
            taken = snapshot_paste(url=url, text=paste.cleaned_data["text"], taken_by=request.user)
            _say_taken(request, taken, _("Snapshot kept: the pasted text is compared with the claim."))
        elif how == "fetch":
            snapshot_fetch_request(url=url, requested_by=request.user)
        else:
            messages.error(request, _("Choose how to take the snapshot."))
    except ExtractionError as error:
        messages.error(request, _("The snapshot was not kept: %(reason)s") % {"reason": error.phrase.text(_)})
    except FetchingDisabled:
        messages.error(request, _("This deployment does not fetch pages (CITEVIEW_SNAPSHOT_FETCH is off): upload or paste the page instead."))  # fmt: skip
    except FetchLimitReached as limit:
        messages.error(request, _fetch_limit_message(limit, how))
    return redirect(back)


def _say_taken(request: HttpRequest, taken: SnapshotFetch, kept_now: str) -> None:
    """What the editor is told of an upload or a paste once queued. Its reading (in a worker) is said
    by the panel, which waits for it and then shows the passage or why it was refused; only what is
    known already is said here: the snapshot kept (a worker that was quick, or tests' tasks run at
    once), or the same bytes kept before."""
    snapshot = taken.snapshot
    if taken.state != FetchState.DONE or snapshot is None:
        return
    if snapshot.taken_at >= taken.requested_at:
        messages.success(request, kept_now)
        return
    messages.info(
        request,
        _("This page's snapshot holds exactly this already (%(taken)s): it is kept once.")
        % {"taken": provenance_text(snapshot)},
    )


def _fetch_limit_message(limit: FetchLimitReached, how: str) -> str:
    """Fetches, uploads and pastes share the cap, so the message names pages to fetch or read; only a
    Fetch press is offered the other ways to take the page."""
    if limit.per_user:
        text = ngettext(
            "The page was not queued: you have %(limit)d page waiting to be fetched or read already, the most one editor may have. Wait for it to finish.",
            "The page was not queued: you have %(limit)d pages waiting to be fetched or read already, the most one editor may have. Wait for one to finish.",
            limit.limit,
        )  # fmt: skip
    else:
        text = ngettext(
            "The page was not queued: %(limit)d page is waiting to be fetched or read already, the most citeview queues for everyone at once. Wait a little.",
            "The page was not queued: %(limit)d pages are waiting to be fetched or read already, the most citeview queues for everyone at once. Wait a little.",
            limit.limit,
        )  # fmt: skip
    said = text % {"limit": limit.limit}
    if how == "fetch":
        return f"{said} {_('Or upload or paste the page instead.')}"
    return said


@require_GET
@permission_required(roles.READ, raise_exception=True)
def snapshot_status(request: HttpRequest, pk: int, key: str) -> JsonResponse:
    """How the newest request for the item's source (a fetch, an upload or a paste being read) stands,
    for the page that waits for it."""
    _dump, item, url = _item(pk, key)
    fetch = newest_fetch(url)
    if fetch is not None and fetch_lost(fetch, url):
        return JsonResponse({"state": "refused", "pending": False, "label": str(FetchState.REFUSED.label)})
    if fetch is not None and fetch.pending:
        return JsonResponse({"state": fetch.state, "pending": True, "label": str(fetch.get_state_display())})
    snapshot = newest_snapshot(url)
    if snapshot is not None and kept_passage(snapshot, item) is None:
        return JsonResponse({"state": "finding", "pending": True, "label": _("looking for the passage")})
    if fetch is None:
        return JsonResponse({"state": "none", "pending": False, "label": ""})
    return JsonResponse({"state": fetch.state, "pending": False, "label": str(fetch.get_state_display())})
