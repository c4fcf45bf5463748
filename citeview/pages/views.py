"""The pages that show dumps together with what the team recorded about them: the list with each dump's
progress, and the viewer with its review panels, its normalised JSON and its Search Suggestions frame.

They are composed here, above dumps and review, because they need both: each dump's progress and
comments are review's. A GET writes nothing: a result older code made is shown as stored while a
worker rebuilds it (``citeview.dumps.reading.dump_queue_rebuild``).
"""

from __future__ import annotations

import functools
import secrets
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.csp import CSP
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET, require_http_methods

from citeview.accounts import roles
from citeview.core.common.errors import DumpError
from citeview.dumps.batches import batch_rows_made, is_batch
from citeview.dumps.forms import DumpFilterForm, DumpForm
from citeview.dumps.http_status import form_error_status, status_for
from citeview.dumps.kept_fragments import DumpVersion
from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_queue_pages_keep, dump_queue_rebuild
from citeview.dumps.selectors import dump_get, dump_list, dump_read_status
from citeview.dumps.services import attachment_kept, can_attach_request, can_retry_read, dump_ingest
from citeview.dumps.viewer_body import batch_body, dump_body, dump_viewed
from citeview.pages.fragments import list_content, viewer_page, with_csrf_token
from citeview.review.decorators import result_required
from citeview.review.selectors import checked_items_per_response
from citeview.review.triage import signal_counts

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
        return home_page(request, form, status=form_error_status(form))
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
        if attached and not attachment_kept(dump, attached):
            messages.warning(request, _request_not_attached(request, dump))
    if request.headers.get(UPLOAD_HEADER):
        return _opened_by_the_upload_script(dump)
    return redirect(dump)


# citeview.js sends a file with XMLHttpRequest to show its progress. XMLHttpRequest follows a redirect
# out of sight, so the dump's page would arrive as text under the form's address: Back would then
# leave it on screen under "/", and its messages would be spent. The script is told where the dump
# is instead, and goes there as a plain form post would.
UPLOAD_HEADER = "X-Citeview-Upload"
LOCATION_HEADER = "X-Citeview-Location"


def _opened_by_the_upload_script(dump: Dump) -> HttpResponse:
    response = HttpResponse(status=204)
    response[LOCATION_HEADER] = dump.get_absolute_url()
    return response


def _request_not_attached(request: HttpRequest, dump: Dump) -> str:
    """Why the request sent with a stored dump's bytes was not attached to it, and who may attach one."""
    if dump.has_attachment or can_attach_request(request.user, dump):
        return _("That dump already has another request attached; it was kept.")
    if dump.uploaded_by is None:
        return _("The request was not attached: only staff may attach a request to this dump.")
    return _(
        "The request was not attached: only %(uploader)s, who stored this dump, or staff may attach a request to it."
    ) % {"uploader": dump.uploaded_by.get_username()}


@require_GET
@permission_required(roles.READ, raise_exception=True)
def dump_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # Only what its kept pieces are keyed by is read; the whole dump only if one of them must be made.
    dump, body = dump_viewed(pk)
    if not dump.is_ready:
        return _reading_page(request, dump_get(pk=pk, heavy=False))
    # A GET writes nothing of the dump: a result older code made is shown as stored, its rebuild queued.
    rebuilding = dump_queue_rebuild(dump=dump)
    whole = functools.cache(lambda: dump_get(pk=pk, heavy=False))
    viewer = viewer_page(dump, request.user, whole)
    context = {
        "viewer": {"title": viewer["title"], "content": with_csrf_token(viewer["content"], request)},
        "rebuilding": rebuilding,
    }
    if is_batch(dump):  # one response at a time, with a navigator: never the whole batch's page
        if not batch_rows_made(dump):  # made by the worker or request that read it (a dump stored before)
            dump_queue_pages_keep(dump=dump)
        body = batch_body(dump, asked=request.GET, checked=checked_items_per_response(dump))
        context["triage"] = {"dump": dump, "counts": list(signal_counts(dump).items())}
    elif body is None:  # none kept for this language and code: made for this view, kept by a task
        dump_queue_pages_keep(dump=dump)
        body = dump_body(whole())
    return _render_around(request, "pages/detail.html", context, "body", body)


def _render_around(
    request: HttpRequest, template: str, context: dict[str, Any], name: str, html: bytes
) -> HttpResponse:
    """``template`` rendered with ``html`` (our own markup, UTF-8) as ``name``, put in once the rest is rendered.

    The viewer's kept body is most of its page (600 KB for a 100 KB dump): through the template it
    would be copied at each level of the layout (every node list joins its parts and makes the result
    a SafeString), which cost more than the rest of the page. A random marker stands in for it, so
    nothing else on the page (a dump's title, a comment) can be taken for its place.

    The page is answered as its three parts, never joined: joining them copied the body once more
    (what that cost: bench/README.md, "Serving"). Its length is set here, so that no
    middleware joins them to count it (``CommonMiddleware``)."""
    marker = f"<!--cv-{secrets.token_hex(16)}-->"
    response = render(request, template, {**context, name: SafeString(marker)})
    head, found, tail = response.content.partition(marker.encode())
    if not found:
        raise RuntimeError(f"{template} does not show {name}")
    response.content = head
    response.write(html)  # appended as it is: HttpResponse.write copies no bytes
    response.write(tail)
    response.headers["Content-Length"] = str(len(head) + len(html) + len(tail))
    return response


def _reading_page(request: HttpRequest, dump: Dump) -> HttpResponse:
    """A dump a worker has still to read (or could not): its state, which refreshes itself, then the viewer."""
    context = {
        "dump": dump,
        "reading": dump_read_status(dump, gettext),
        "can_retry": can_retry_read(request.user, dump),
    }
    return render(request, "pages/reading.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def dump_normalized(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
    response = JsonResponse(dump.result, json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}.json"'
    return response


# Google's Search Suggestions must be shown exactly as provided, so they are isolated instead of
# sanitised: their own document, no script, an opaque origin, and framed only by our own pages.
SUGGESTIONS_CSP: dict[str, list[str]] = {
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
    dump = dump_get(pk=pk)
    dump_queue_rebuild(dump=dump)  # shown as stored meanwhile
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
    viewer = reverse("pages:detail", args=[pk])
    message = _("Google's Search Suggestions are shown only in a frame of the dump's viewer: open %(url)s.")
    response = HttpResponse(message % {"url": viewer} + "\n", status=403, content_type="text/plain; charset=utf-8")
    patch_vary_headers(response, _FRAME_HEADERS)
    return response


def home_page(request: HttpRequest, form: DumpForm, status: int = 200) -> HttpResponse:
    """The intake form and the list of dumps: filtered, searched and paginated in a constant number of queries."""
    query = request.GET.copy()
    query.pop("page", None)
    # A query of nothing but a page has no filter to read: the form is made only to show it.
    filter_form = functools.cache(lambda: DumpFilterForm(request.GET))
    filters = filter_form().filters() if query else {}
    # Only what the rows are kept by is read for the page; a row not kept reads its dump (list_rows).
    versions = dump_list(filters, tags=False).values(*DumpVersion._fields)
    page = Paginator(versions, PAGE_SIZE).get_page(request.GET.get("page"))
    content = list_content(request.user, form, filter_form, page, query.urlencode())
    return render(request, "pages/home.html", {"content": with_csrf_token(content, request)}, status=status)
