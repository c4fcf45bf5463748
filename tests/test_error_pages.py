"""With DEBUG off (as `make run` and every deployment serve), a missing page and a server error are
the site's own pages: never Django's technical ones, which list the URL patterns or the code."""

from __future__ import annotations

import pytest
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import path
from django.views.defaults import server_error

from citeview.urls import urlpatterns as site_urlpatterns


@login_not_required
def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug in a view")


urlpatterns = [path("broken-for-the-test", broken), *site_urlpatterns]


@pytest.fixture(autouse=True)
def debug_off(settings):
    settings.DEBUG = False


@pytest.mark.django_db
def test_a_missing_page_for_an_anonymous_visitor_is_the_friendly_page_without_the_url_patterns(client):
    response = client.get("/no/such/page", HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert response.status_code == 404 and "Page not found" in page and 'href="/accounts/login/"' in page
    assert "URLconf" not in page and "admin/" not in page and "api/" not in page


@pytest.mark.django_db
def test_a_missing_page_speaks_the_readers_language_and_leads_an_editor_back(client, editor):
    client.force_login(editor)
    page = client.get("/dumps/999999/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert 'lang="ja"' in page and "ページが見つかりません" in page and "回答一覧に戻る" in page


@pytest.mark.django_db
@pytest.mark.urls("tests.test_error_pages")
def test_a_server_error_is_the_friendly_page_not_the_technical_one():
    response = Client(raise_request_exception=False).get("/broken-for-the-test")
    page = response.content.decode()
    assert response.status_code == 500 and "Server error" in page and "the error is in the server's log" in page
    assert "RuntimeError" not in page and "a bug in a view" not in page and "Traceback" not in page


def test_the_server_error_page_needs_no_request_and_no_database():
    # Not marked django_db: any query here fails the test. Django renders 500.html with no context.
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500 and "citeview.css" in response.content.decode()
