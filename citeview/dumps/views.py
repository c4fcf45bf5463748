"""A dump's own pages: importing many at once, its raw bytes, and what the team adds to it (title, tags,
assignee). The list and the viewer, which show a dump with its review, are composed in ``citeview.pages``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from citeview.accounts import roles
from citeview.core.bulk import ImportEntries
from citeview.core.errors import DumpError
from citeview.dumps.bulk import import_entries, import_results
from citeview.dumps.forms import DumpDetailsForm, ImportForm
from citeview.dumps.http_status import form_error_status, status_for
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get
from citeview.dumps.services import dump_organise, tags_named

# Where the import page's streamed rows and summary go (see ``_import_progress``).
IMPORT_ROWS_PLACE = "<!--import-rows-->"
IMPORT_SUMMARY_PLACE = "<!--import-summary-->"


@require_http_methods(["GET", "POST"])
@permission_required(roles.STORE, raise_exception=True)
def bulk_import(request: HttpRequest) -> HttpResponse:
    """Many dumps at once. The result page is sent as each dump is stored, so it shows the progress."""
    if request.method == "GET":
        return import_page(request, ImportForm())
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return import_page(request, form, status=form_error_status(form))
    upload = form.cleaned_data["file"]
    try:
        entries = import_entries(upload.name, upload.read())
    except DumpError as error:
        form.add_error("file", error.phrase.text(gettext))
        return import_page(request, form, status=status_for(error))
    # The page around the rows is rendered now, within the request: its messages are then used up.
    page = render_to_string("dumps/import.html", {"total": len(entries), **_import_limits()}, request)
    progress = _import_progress(request, entries, page, form.cleaned_data["tags"])
    response = StreamingHttpResponse(progress, content_type="text/html; charset=utf-8")
    response["X-Accel-Buffering"] = "no"  # a proxy must pass each row on, not wait for the end
    return response


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


def _import_progress(request: HttpRequest, entries: ImportEntries, page: str, tags: list[str]) -> Iterator[str]:
    """The page up to its list, a row per dump as it is stored, then the summary and the rest."""
    language = translation.get_language()
    head, rest = page.split(IMPORT_ROWS_PLACE)
    middle, end = rest.split(IMPORT_SUMMARY_PLACE)
    yield head
    counts: Counter[str] = Counter()
    with translation.override(language):  # the rows are written after the view has returned
        for number, result in enumerate(import_results(entries, uploaded_by=request.user, tags=tags_named(tags)), 1):
            counts[result.outcome] += 1
            message = result.error.phrase.text(gettext) if result.error else ""
            row = {"result": result, "message": message, "number": number, "total": len(entries)}
            yield render_to_string("dumps/_import_row.html", row)
        yield middle
        yield render_to_string("dumps/_import_summary.html", {"counts": counts, "total": len(entries)})
    yield end


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
    dump_organise(
        dump=dump,
        title=form.cleaned_data["title"],
        tag_names=form.cleaned_data["tags"],
        assignee=form.cleaned_data["assignee"],
    )
    messages.success(request, _("The details were saved."))
    return redirect(dump)


def _raw_suffix(dump: Dump) -> str:
    return {"sse": "sse", "jsonl": "jsonl", "eventstream": "eventstream"}.get(dump.framing, "json")
