from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.csp import CSP
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from citeview.accounts import roles
from citeview.core.bulk import ImportEntries
from citeview.core.errors import DumpError
from citeview.dumps.bulk import import_entries, import_results
from citeview.dumps.forms import DumpDetailsForm, DumpFilterForm, DumpForm, ImportForm
from citeview.dumps.http_status import status_for
from citeview.dumps.models import Dump
from citeview.dumps.pages import dump_body
from citeview.dumps.selectors import dump_get, dump_list
from citeview.dumps.services import can_attach_request, dump_ingest, dump_organise, tags_named
from citeview.review.forms import CommentForm
from citeview.review.selectors import dump_comments, editor_progress
from citeview.review.services import dump_refresh_if_stale

_FORM_ERROR_STATUS = {"too_large": 413, "unsupported_media_type": 415}


PAGE_SIZE = 25


@require_http_methods(["GET", "POST"])
@permission_required(roles.READ, raise_exception=True)
def home(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return home_page(request, DumpForm())
    if not request.user.has_perm(roles.STORE):
        raise PermissionDenied("Only editors store dumps.")
    form = DumpForm(request.POST, request.FILES)
    if not form.is_valid():
        return home_page(request, form, status=_form_error_status(form))
    try:
        dump, created = dump_ingest(
            raw=form.cleaned_data["raw"],
            uploaded_by=request.user,
            filename=form.cleaned_data["filename"],
            request=form.cleaned_data["request"],
        )
    except DumpError as error:
        form.add_dump_error(error)
        return home_page(request, form, status=status_for(error))
    if not created:
        messages.info(request, _("These exact bytes were stored already; here is that dump."))
        attached = form.cleaned_data["request"]
        if attached and bytes(dump.request_raw or b"") != attached:
            messages.warning(request, _request_not_attached(request, dump))
    return redirect(dump)


def _request_not_attached(request: HttpRequest, dump: Dump) -> str:
    """Why the request sent with a stored dump's bytes was not attached to it, and who may attach one."""
    if dump.request_raw or can_attach_request(request.user, dump):
        return _("That dump already has another request attached; it was kept.")
    if dump.uploaded_by is None:
        return _("The request was not attached: only staff may attach a request to this dump.")
    return _(
        "The request was not attached: only %(uploader)s, who stored this dump, or staff may attach a request to it."
    ) % {"uploader": dump.uploaded_by.get_username()}


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
        return import_page(request, form, status=_form_error_status(form))
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
def dump_detail(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk, heavy=False))
    context = {
        "dump": dump,
        "progress": editor_progress([dump.pk]).get(dump.pk, []),
        "details_form": _details_form(dump) if request.user.has_perm(roles.ORGANISE) else None,
        "comments": dump_comments(dump),
        "comment_form": CommentForm() if roles.can_comment(request.user) else None,
        "body": dump_body(dump),
    }
    return render(request, "dumps/detail.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def dump_normalized(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    response = JsonResponse(dump.result, json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}.json"'
    return response


@require_GET
@permission_required(roles.READ, raise_exception=True)
def dump_raw(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
    # Served as a download, never rendered: the bytes are untrusted.
    response = HttpResponse(bytes(dump.raw), content_type="application/octet-stream")
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}-raw.{_raw_suffix(dump)}"'
    return response


# Google's Search Suggestions must be shown exactly as provided, so they are isolated instead of
# sanitised: their own document, no script, an opaque origin, and framed only by our own pages.
SUGGESTIONS_CSP = {
    "default-src": [CSP.NONE],
    "style-src": [CSP.UNSAFE_INLINE],
    "img-src": ["data:"],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.NONE],
    "frame-ancestors": [CSP.SELF],
    "sandbox": ["allow-popups", "allow-popups-to-escape-sandbox"],
}


@require_GET
@permission_required(roles.READ, raise_exception=True)
@xframe_options_sameorigin
@csp_override(SUGGESTIONS_CSP)
def dump_suggestions(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    if not _framed_by_our_page(request):
        return _suggestions_outside_their_frame(pk)
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    responses = dump.result["responses"]
    snippet = responses[index].get("search_suggestions") if index < len(responses) else None
    if not snippet:
        raise Http404("This response has no Search Suggestions.")
    # Links open outside the sandboxed frame; the snippet itself is served byte for byte.
    document = '<!doctype html><meta charset="utf-8"><base target="_blank">' + snippet
    response = HttpResponse(document, content_type="text/html; charset=utf-8")
    response["Referrer-Policy"] = "no-referrer"
    patch_vary_headers(response, _FRAME_HEADERS)
    return response


_FRAME_HEADERS = ("Sec-Fetch-Dest", "Sec-Fetch-Site")


def _framed_by_our_page(request: HttpRequest) -> bool:
    """Whether the browser says this document is loading into an iframe of one of our own pages.

    Opened as a page, Google's unsanitised HTML would be content on our origin that anyone could
    link to; ``frame-ancestors 'self'`` stops only other sites' frames. Browsers send these Fetch
    Metadata headers with every request; one that does not send them is refused too (it would
    show the snippet as a page as well).
    """
    return request.headers.get("Sec-Fetch-Dest") == "iframe" and request.headers.get("Sec-Fetch-Site") == "same-origin"


def _suggestions_outside_their_frame(pk: int) -> HttpResponse:
    # 403, not 404: the document exists and the reader may see it, only not here. Plain text, so
    # nothing in the answer can be taken for the snippet or for one of our pages.
    viewer = reverse("dumps:detail", args=[pk])
    message = _("Google's Search Suggestions are shown only in a frame of the dump's viewer: open %(url)s.")
    response = HttpResponse(message % {"url": viewer} + "\n", status=403, content_type="text/plain; charset=utf-8")
    patch_vary_headers(response, _FRAME_HEADERS)
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


def home_page(request: HttpRequest, form: DumpForm, status: int = 200) -> HttpResponse:
    """The intake form and the list of dumps: filtered, searched and paginated in a constant number of queries."""
    filter_form = DumpFilterForm(request.GET)
    page = Paginator(dump_list(filter_form.filters()), PAGE_SIZE).get_page(request.GET.get("page"))
    progress = editor_progress([dump.pk for dump in page])
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "can_store": request.user.has_perm(roles.STORE),
        "filter_form": filter_form,
        "filtered": bool(filter_form.filters()),
        "page": page,
        "page_query": query.urlencode(),
        "rows": [{"dump": dump, "editors": progress.get(dump.pk, [])} for dump in page],
        "max_dump_bytes": settings.CITEVIEW_MAX_DUMP_BYTES,
        "max_dump_mib": round(settings.CITEVIEW_MAX_DUMP_BYTES / (1024 * 1024), 1),
    }
    return render(request, "dumps/home.html", context, status=status)


def _details_form(dump: Dump) -> DumpDetailsForm:
    tags = ", ".join(tag.name for tag in dump.tags.all())
    return DumpDetailsForm(initial={"title": dump.title, "tags": tags, "assignee": dump.assignee})


def _form_error_status(form: DumpForm) -> int:
    codes = [error.code for errors in form.errors.as_data().values() for error in errors]
    return next((_FORM_ERROR_STATUS[c] for c in codes if c in _FORM_ERROR_STATUS), 400)


def _raw_suffix(dump: Dump) -> str:
    return {"sse": "sse", "jsonl": "jsonl"}.get(dump.framing, "json")
