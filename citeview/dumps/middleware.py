"""Refusing an oversized request body before anything reads it."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext

from citeview.core.common.errors import too_large_error

# A form post carries the dump plus a few small fields and the multipart framing.
FORM_OVERHEAD_BYTES = 64 * 1024


@functools.cache
def import_paths() -> tuple[str, ...]:
    """Where bulk imports are posted: they have their own, larger limit."""
    return (reverse("dumps:import"), reverse("api:imports"))


def declared_body_size(request: HttpRequest) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


class DumpSizeLimitMiddleware:
    """``FILE_UPLOAD_MAX_MEMORY_SIZE`` is no cap and ``DATA_UPLOAD_MAX_MEMORY_SIZE`` fails as a bare 400,
    so a declared body far over the dump limit is answered here, unread, with a message that names the limit.

    This runs before any view's login and permission checks, so its answer holds nothing but the
    message: no page of the app, nothing read from the database (a page rendered here once listed every
    dump to an account with no role).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = declared_body_size(request)
        is_import = request.path in import_paths()
        if is_import:
            limit = settings.CITEVIEW_MAX_IMPORT_BYTES
            allowed = limit + FORM_OVERHEAD_BYTES
        else:
            limit = settings.CITEVIEW_MAX_DUMP_BYTES
            # Up to twice the limit the form still reads the body, refuses it and keeps the paste in the box.
            allowed = 2 * limit + FORM_OVERHEAD_BYTES
        if declared <= allowed:
            return self.get_response(request)
        error = too_large_error(declared, limit)
        if request.path.startswith("/api/"):
            return JsonResponse(error.to_json(), status=413)
        context = {
            "message": error.phrase.text(gettext),
            "back": reverse("dumps:import") if is_import else reverse("pages:home"),
        }
        return HttpResponse(render_to_string("413.html", context), status=413)
