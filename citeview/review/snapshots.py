"""The check panel's snapshot of a citation's source: taking one (upload, paste, Fetch) and what it
shows beside the claim. Thin, as the panel's views are: the work is in ``citeview.snapshots``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from citeview.accounts import roles
from citeview.core.evidence.extract import ExtractionError
from citeview.core.evidence.found import PassageFound, passage_for_claim
from citeview.core.evidence.passages import passage_fragment_url
from citeview.core.links import is_safe_http_url
from citeview.core.phrases import phrase_text
from citeview.core.rendering.evidence import claim_words
from citeview.core.review.items import CheckItem
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get
from citeview.review.forms import SnapshotPasteForm, SnapshotUploadForm
from citeview.review.selectors import dump_check_items
from citeview.review.services import dump_refresh_if_stale
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.selectors import newest_fetch, newest_snapshot, snapshot_count
from citeview.snapshots.services import (
    FetchingDisabled,
    fetching_allowed,
    snapshot_fetch_request,
    snapshot_paste,
    snapshot_upload,
)

# The hints beside the panel's questions: (what the comparison calls them, how the panel heads them).
_HINT_GROUPS = ("time", "figures", "conditions")


def item_source_url(dump: Dump, item: CheckItem) -> str | None:
    """The http(s) URL of the item's source, the one its snapshots belong to; None for an item with no
    such source (a file, a marker without a source, a statement)."""
    if item.citation is None or item.source_key is None:
        return None
    response = dump.result["responses"][item.response]
    source = next((s for s in response["sources"] if s["key"] == item.source_key), None)
    # As the panel links it: only an explicit http(s) URL with a host (core.links).
    return source["url"] if source is not None and is_safe_http_url(source["url"]) else None


def snapshot_panel(request: HttpRequest, dump: Dump, item: CheckItem, url: str) -> dict[str, Any]:
    """What the check panel shows of the source's snapshot: the passage found for the claim beside it,
    with its score, page, a link to it on the live page and what differs marked; the forms to take one;
    the newest fetch when it is waiting, or was refused after the newest snapshot."""
    snapshot = newest_snapshot(url)
    fetch = newest_fetch(url)
    panel: dict[str, Any] = {
        "url": url,
        "snapshot": snapshot,
        "count": snapshot_count(url) if snapshot else 0,
        "fetch_allowed": fetching_allowed(),
        "fetch": _fetch_view(fetch, snapshot),
        "status_url": reverse("review:snapshot_status", args=[dump.pk, item.key]),
        "action_url": reverse("review:snapshot", args=[dump.pk, item.key]),
        "upload_form": SnapshotUploadForm(auto_id="cv-snapshot-%s"),
        "paste_form": SnapshotPasteForm(auto_id="cv-snapshot-%s"),
    }
    if snapshot is not None:
        panel.update(passage_view(item.statement.text, snapshot, url))
    return panel


def passage_view(statement: str, snapshot: Snapshot, url: str) -> dict[str, Any]:
    found = passage_for_claim(claim_words(statement), snapshot.text, snapshot.pages)
    return {
        "found": found,
        # Both are the texts escaped by mark_findings, with our own <mark>s only: safe as built.
        "claim_html": found.claim_html(),
        "passage_html": found.passage_html(),
        "fragment_url": passage_fragment_url(url, found.passage.text) if found.passage else None,
        "hints": _hints(found),
        "notes": [phrase_text(note, _) for note in snapshot.notes],
    }


def _hints(found: PassageFound) -> list[dict[str, Any]]:
    if found.comparison is None:
        return []
    hints = found.comparison.hints()
    labels = {"time": _("Time: dates"), "figures": _("Figures"), "conditions": _("Conditions: qualifiers, negations")}
    rows = []
    for name in _HINT_GROUPS:
        claim = [f.text for f in hints[name]["claim"]]
        passage = [f.text for f in hints[name]["passage"]]
        if claim or passage:
            rows.append({"label": labels[name], "claim": claim, "passage": passage})
    return rows


def _fetch_view(fetch: SnapshotFetch | None, snapshot: Snapshot | None) -> dict[str, Any] | None:
    """The newest fetch, when the panel has something to say of it: waiting or running, or refused
    after the newest snapshot was taken (a refusal before it is old news)."""
    if fetch is None:
        return None
    if fetch.pending:
        return {"pending": True, "state": fetch.state, "label": fetch.get_state_display()}
    if fetch.state == "refused" and (snapshot is None or fetch.requested_at > snapshot.taken_at):
        return {
            "refused": True,
            "reason": phrase_text(fetch.error, _),
            "code": fetch.error_code,
            "at": fetch.requested_at,
        }
    return None


def _item(pk: int, key: str) -> tuple[Dump, CheckItem, str]:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
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
            snapshot_upload(url=url, upload=upload.cleaned_data["page"], taken_by=request.user)
            messages.success(request, _("Snapshot kept: the saved page's text is compared with the claim."))
        elif how == "paste":
            paste = SnapshotPasteForm(request.POST)
            if not paste.is_valid() or not paste.cleaned_data["text"].strip():
                messages.error(request, _("Paste the page's text first (at most 2,000,000 characters)."))
                return redirect(back)
            snapshot_paste(url=url, text=paste.cleaned_data["text"], taken_by=request.user)
            messages.success(request, _("Snapshot kept: the pasted text is compared with the claim."))
        elif how == "fetch":
            snapshot_fetch_request(url=url, requested_by=request.user)
        else:
            messages.error(request, _("Choose how to take the snapshot."))
    except ExtractionError as error:
        messages.error(request, _("The snapshot was not kept: %(reason)s") % {"reason": error.phrase.text(_)})
    except FetchingDisabled:
        messages.error(request, _("This deployment does not fetch pages (CITEVIEW_SNAPSHOT_FETCH is off): upload or paste the page instead."))  # fmt: skip
    return redirect(back)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def snapshot_status(request: HttpRequest, pk: int, key: str) -> JsonResponse:
    """How the newest fetch of the item's source stands, for the page that waits for it."""
    url = _item(pk, key)[2]
    fetch = newest_fetch(url)
    if fetch is None:
        return JsonResponse({"state": "none", "pending": False, "label": ""})
    return JsonResponse({"state": fetch.state, "pending": fetch.pending, "label": str(fetch.get_state_display())})
