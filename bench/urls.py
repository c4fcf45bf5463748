"""citeview's pages, plus the trivial page ``make bench`` holds the others against.

``/healthz`` has no session, user or layout: no page that needs a login can come near it. The trivial
page pays what every page pays (the session, the user, the permission check, the site's layout)
and does nothing else, so a page's share of its requests per second measures that page's own work.
"""

from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET

from bench.serving import TRIVIAL_PAGE
from citeview.accounts import roles
from citeview.urls import urlpatterns as citeview_urlpatterns


@require_GET
@permission_required(roles.READ, raise_exception=True)
def trivial_page(request: HttpRequest) -> HttpResponse:
    return render(request, "base.html")


urlpatterns = [path(TRIVIAL_PAGE.removeprefix("/"), trivial_page), *citeview_urlpatterns]
