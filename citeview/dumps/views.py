"""A dump's own pages: importing many at once, its raw bytes, and what the team adds to it (its title and
tags; its editors are assigned on review's pages). The list and the viewer, which show a dump with its
review, are composed in ``citeview.pages``."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from citeview.accounts import roles
from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase_text
from citeview.dumps.bulk import import_counts, import_progress, import_queue
from citeview.dumps.forms import DumpDetailsForm, ImportForm
from citeview.dumps.http_status import form_error_status, status_for
from citeview.dumps.models import Dump, Import, ImportedEntry
from citeview.dumps.reading import dump_retry_read
from citeview.dumps.selectors import dump_get, dump_read_pending, dump_read_status, import_get
from citeview.dumps.services import can_retry_read, dump_organise, tags_named


@require_http_methods(["GET", "POST"])
@permission_required(roles.STORE, raise_exception=True)
def bulk_import(request: HttpRequest) -> HttpResponse:
    """Many dumps at once: the file is stored and workers store its dumps; its page shows them as they are."""
    if request.method == "GET":
        return import_page(request, ImportForm())
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return import_page(request, form, status=form_error_status(form))
    upload = form.cleaned_data["file"]
    try:
        batch = import_queue(
            name=upload.name, data=upload.read(), uploaded_by=request.user, tags=tags_named(form.cleaned_data["tags"])
        )
    except DumpError as error:
        form.add_error("file", error.phrase.text(gettext))
        return import_page(request, form, status=status_for(error))
    return redirect(batch)


def import_page(
    request: HttpRequest, form: ImportForm, status: int = 200, page_error: str | None = None
) -> HttpResponse:
    context = {"form": form, "page_error": page_error, **_import_limits()}
    return render(request, "dumps/import.html", context, status=status)


def _import_limits() -> dict[str, float | str]:
    mib = 1024 * 1024
    return {
        "import_mib": round(settings.CITEVIEW_MAX_IMPORT_BYTES / mib, 1),
        "dump_mib": round(settings.CITEVIEW_MAX_DUMP_BYTES / mib, 1),
        "import_dumps": f"{settings.CITEVIEW_MAX_IMPORT_ENTRIES:,}",
        "unpacked_mib": round(settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES / mib, 1),
    }


@require_GET
@permission_required(roles.READ, raise_exception=True)
def import_progress_page(request: HttpRequest, pk: int) -> HttpResponse:
    """An import's dumps as far as workers have stored them; refreshes itself (static/citeview/progress.js).
    For the editor who imported them, staff and reviewers (``imports_visible_to``)."""
    batch = import_get(pk=pk, user=request.user)
    entries = import_progress(batch)
    done = len(entries) == batch.total
    context = {
        "batch": batch,
        "total": batch.total,
        "rows": [{"entry": entry, "message": _entry_error(entry)} for entry in entries],
        "done": done,
        "counts": import_counts(batch) if done else {},
        **_import_limits(),
    }
    return render(request, "dumps/import.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def import_progress_rows(request: HttpRequest, pk: int) -> JsonResponse:
    """The rows stored since the ``after``-th, for the import page to add: for whom the page is."""
    batch = import_get(pk=pk, user=request.user)
    try:
        after = max(int(request.GET.get("after", "0")), 0)
    except ValueError:
        after = 0
    entries = import_progress(batch, after)
    done = after + len(entries) >= batch.total
    return JsonResponse(
        {
            "rows_html": _import_rows(entries, batch.total),
            "shown": after + len(entries),
            "done": done,
            "summary_html": _import_summary(batch) if done else "",
        }
    )


def _import_rows(entries: list[ImportedEntry], total: int) -> str:
    """The rows as the page's template writes them (everything in them escaped), for the script to add."""
    return "".join(
        render_to_string(
            "dumps/_import_row.html",
            {"result": entry, "message": _entry_error(entry), "number": entry.number, "total": total},
        )
        for entry in entries
    )


def _entry_error(entry: ImportedEntry) -> str:
    return phrase_text(entry.error["phrase"], gettext) if entry.error else ""


def _import_summary(batch: Import) -> str:
    return render_to_string("dumps/_import_summary.html", {"counts": import_counts(batch), "total": batch.total})


@require_GET
@permission_required(roles.READ, raise_exception=True)
def dump_reading(request: HttpRequest, pk: int) -> JsonResponse:
    """How far reading a dump has come, for the viewer's status panel (static/citeview/reading.js)."""
    return JsonResponse(
        dump_read_status(dump_get(pk=pk, heavy=False), gettext), json_dumps_params={"ensure_ascii": False}
    )


@require_POST
@permission_required(roles.STORE, raise_exception=True)
def dump_read_again(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue a dump that could not be read (or whose reading was lost) again: its uploader or staff
    alone, and only while no read of it is waiting or running."""
    dump = dump_get(pk=pk, heavy=False)
    if not can_retry_read(request.user, dump):
        raise PermissionDenied("Only the dump's uploader or staff may have it read again.")
    if dump_read_pending(dump):
        messages.info(request, _("The dump is queued to be read already: it opens here once a worker has read it."))
    elif not dump.is_ready:
        dump_retry_read(dump=dump)
        messages.info(request, _("The dump is queued to be read again."))
    return redirect(dump)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def dump_raw(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
    # Served as a download, never rendered: the bytes are untrusted.
    response = HttpResponse(bytes(dump.raw), content_type="application/octet-stream")
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}-raw.{_raw_suffix(dump)}"'
    return response


@require_POST
@permission_required(roles.ORGANISE, raise_exception=True)
def dump_details(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
    form = DumpDetailsForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        messages.error(request, _("The details were not saved: %(errors)s") % {"errors": errors})
        return redirect(dump)
    dump_organise(dump=dump, title=form.cleaned_data["title"], tag_names=form.cleaned_data["tags"])
    messages.success(request, _("The details were saved."))
    return redirect(dump)


def _raw_suffix(dump: Dump) -> str:
    return {"sse": "sse", "jsonl": "jsonl", "eventstream": "eventstream"}.get(dump.framing, "json")
