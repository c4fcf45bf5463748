"""The JSON API: ``POST /api/dumps`` stores a dump, ``GET /api/dumps/<id>`` reads one.

Authentication is the browser session for now (send the CSRF token as ``X-CSRFToken``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as default_csrf_failure

from citeview.core.errors import DumpError, too_large_error
from citeview.dumps.http_status import status_for
from citeview.dumps.middleware import declared_body_size
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get
from citeview.dumps.services import dump_ingest
from citeview.review import roles

# What a dump may be sent as; form encodings are refused so a body is never half-parsed as a form.
ACCEPTED_CONTENT_TYPES = {
    "",
    "application/json",
    "application/x-ndjson",
    "application/jsonl",
    "application/json-seq",
    "text/event-stream",
    "text/plain",
    "application/octet-stream",
}


@login_not_required  # answers 401 as JSON instead of redirecting to the login page
def dumps_collection(request: HttpRequest) -> JsonResponse:
    if not request.user.is_authenticated:
        return _error(401, "not_authenticated", "Log in first: the API uses the browser session for now.")
    if request.method != "POST":
        return _error(405, "method_not_allowed", "Use POST with the raw dump as the request body.", allow="POST")
    if not request.user.has_perm(roles.STORE):
        return _error(403, "forbidden", "Only editors store dumps.")
    content_type = request.content_type or ""
    if content_type not in ACCEPTED_CONTENT_TYPES:
        return _error(
            415,
            "unsupported_media_type",
            f"Send the raw dump as the body (for example application/json or text/event-stream), not {content_type}.",
        )
    limit = settings.CITEVIEW_MAX_DUMP_BYTES
    declared = declared_body_size(request)
    if declared > limit:
        return _dump_error(too_large_error(declared, limit))
    raw = request.read(limit + 1)
    try:
        dump, created = dump_ingest(raw=raw, uploaded_by=request.user, filename=request.headers.get("X-Filename", ""))
    except DumpError as error:
        return _dump_error(error)
    return JsonResponse(
        _dump_json(request, dump), status=201 if created else 200, json_dumps_params={"ensure_ascii": False}
    )


@login_not_required
def dump_item(request: HttpRequest, pk: int) -> JsonResponse:
    if not request.user.is_authenticated:
        return _error(401, "not_authenticated", "Log in first: the API uses the browser session for now.")
    if request.method != "GET":
        return _error(405, "method_not_allowed", "Use GET.", allow="GET")
    if not request.user.has_perm(roles.READ):
        return _error(403, "forbidden", "This account has no role yet: ask staff to make it a reviewer or an editor.")
    try:
        dump = dump_get(pk=pk)
    except Http404:
        return _error(404, "not_found", f"There is no dump {pk}.")
    return JsonResponse(_dump_json(request, dump), json_dumps_params={"ensure_ascii": False})


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The API answers a CSRF failure in its own JSON shape; pages keep Django's page."""
    if request.path.startswith("/api/"):
        return _error(
            403, "csrf_failed", f"CSRF check failed ({reason}): send the csrftoken cookie's value as X-CSRFToken."
        )
    return default_csrf_failure(request, reason)


def _dump_json(request: HttpRequest, dump: Dump) -> dict[str, Any]:
    return {**dump.result, "id": dump.pk, "url": request.build_absolute_uri(dump.get_absolute_url())}


def _dump_error(error: DumpError) -> JsonResponse:
    return JsonResponse(error.to_json(), status=status_for(error))


def _error(status: int, code: str, message: str, allow: str | None = None) -> JsonResponse:
    response = JsonResponse({"error": {"code": code, "message": message}}, status=status)
    if allow:
        response["Allow"] = allow
    return response
