"""The Search Suggestions document answers only inside the viewer's frame, never as a page of its own.

Served as a top-level page, Google's unsanitised HTML would be content on citeview's origin that
anyone could link to. Browsers say where a document is going to be shown (Fetch Metadata).
"""

from __future__ import annotations

import json

import pytest

from citeview.dumps.models import Dump
from tests.core.parsing.providers.test_gemini import body

pytestmark = pytest.mark.django_db

SNIPPET = '<div class="container"><a class="chip" href="https://www.google.com/search?q=x">東京 人口</a></div>'
IN_OUR_FRAME = {
    "HTTP_SEC_FETCH_DEST": "iframe",
    "HTTP_SEC_FETCH_SITE": "same-origin",
    "HTTP_SEC_FETCH_MODE": "navigate",
}


@pytest.fixture
def suggestions_url(editor_client):
    editor_client.post(
        "/", {"text": json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET}))}
    )
    return f"/dumps/{Dump.objects.get().pk}/responses/0/search-suggestions"


def test_the_viewers_own_frame_gets_the_suggestions(editor_client, suggestions_url):
    response = editor_client.get(suggestions_url, **IN_OUR_FRAME)
    assert response.status_code == 200 and SNIPPET in response.content.decode()
    assert "frame-ancestors 'self'" in response["Content-Security-Policy"]


def test_opening_the_suggestions_as_a_page_is_refused_with_a_plain_explanation(editor_client, suggestions_url):
    top_level = {"HTTP_SEC_FETCH_DEST": "document", "HTTP_SEC_FETCH_SITE": "none", "HTTP_SEC_FETCH_MODE": "navigate"}
    response = editor_client.get(suggestions_url, **top_level)
    text = response.content.decode()
    assert response.status_code == 403 and response["Content-Type"] == "text/plain; charset=utf-8"
    assert SNIPPET not in text and "東京" not in text
    viewer = suggestions_url.split("responses/")[0]
    assert f"shown only in a frame of the dump's viewer: open {viewer}" in text


def test_a_link_from_another_site_to_the_suggestions_is_refused(editor_client, suggestions_url):
    linked = {"HTTP_SEC_FETCH_DEST": "document", "HTTP_SEC_FETCH_SITE": "cross-site", "HTTP_SEC_FETCH_MODE": "navigate"}
    assert editor_client.get(suggestions_url, **linked).status_code == 403


def test_another_sites_frame_is_refused(editor_client, suggestions_url):
    for site in ("cross-site", "same-site", "none"):
        framed = {**IN_OUR_FRAME, "HTTP_SEC_FETCH_SITE": site}
        response = editor_client.get(suggestions_url, **framed)
        assert response.status_code == 403 and SNIPPET not in response.content.decode(), site


@pytest.mark.parametrize("destination", ["document", "frame", "embed", "object", "empty", "script", "style"])
def test_every_destination_but_an_iframe_is_refused(editor_client, suggestions_url, destination):
    asked = {**IN_OUR_FRAME, "HTTP_SEC_FETCH_DEST": destination}
    assert editor_client.get(suggestions_url, **asked).status_code == 403


def test_a_request_that_says_nothing_of_where_it_goes_is_refused(editor_client, suggestions_url):
    response = editor_client.get(suggestions_url)  # a script, or a browser without Fetch Metadata
    assert response.status_code == 403 and SNIPPET not in response.content.decode()


def test_the_refusal_keeps_the_strict_policy_and_says_it_depends_on_the_fetch_headers(editor_client, suggestions_url):
    response = editor_client.get(suggestions_url)
    csp = response["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'self'" in csp
    assert {"sec-fetch-dest", "sec-fetch-site"} <= {v.strip().lower() for v in response["Vary"].split(",")}


def test_the_refusal_is_in_the_readers_language(editor_client, suggestions_url):
    response = editor_client.get(suggestions_url, HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 403 and "Google 検索候補は" in response.content.decode()
