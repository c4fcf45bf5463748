"""Gemini on the page: Search Suggestions isolated in their own sandboxed document."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.models import Dump
from tests.core.parsing.providers.test_gemini import body
from tests.dumps.test_suggestions_frame import IN_OUR_FRAME

pytestmark = pytest.mark.django_db

SNIPPET = '<style>.chip{color:rgb(1, 2, 3)}</style><div class="container"><a class="chip" href="https://www.google.com/search?q=x">東京 人口</a></div><script>document.title="ran"</script>'


@pytest.fixture
def gemini_dump(editor_client):
    editor_client.post(
        "/", {"text": json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET}))}
    )
    return Dump.objects.get()


def test_the_viewer_embeds_the_suggestions_in_a_sandboxed_frame(editor_client, gemini_dump):
    page = editor_client.get(gemini_dump.get_absolute_url()).content.decode()
    assert f'src="/dumps/{gemini_dump.pk}/responses/0/search-suggestions"' in page
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in page and 'referrerpolicy="no-referrer"' in page
    assert "<script>document.title" not in page  # the snippet is never inlined into the page
    assert "Google redirect" in page


def test_the_suggestions_document_is_served_as_provided_under_its_own_strict_policy(editor_client, gemini_dump):
    response = editor_client.get(f"/dumps/{gemini_dump.pk}/responses/0/search-suggestions", **IN_OUR_FRAME)
    assert response.status_code == 200 and SNIPPET in response.content.decode()
    csp = response["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "style-src 'unsafe-inline'" in csp and "script-src" not in csp
    assert "sandbox allow-popups allow-popups-to-escape-sandbox" in csp and "frame-ancestors 'self'" in csp
    assert response["X-Frame-Options"] == "SAMEORIGIN"


def test_a_response_without_suggestions_has_no_suggestions_document(editor_client):
    editor_client.post("/", {"text": json.dumps(body("x", []))})
    dump = Dump.objects.get()
    assert editor_client.get(f"/dumps/{dump.pk}/responses/0/search-suggestions", **IN_OUR_FRAME).status_code == 404
    assert editor_client.get(f"/dumps/{dump.pk}/responses/5/search-suggestions", **IN_OUR_FRAME).status_code == 404


def test_the_suggestions_need_a_login(client, gemini_dump):
    client.logout()
    response = client.get(f"/dumps/{gemini_dump.pk}/responses/0/search-suggestions")
    assert response.status_code == 302


def test_a_url_gemini_could_not_retrieve_is_marked_in_the_source_list(editor_client):
    answer = "気象庁のページを読みました。"
    value = body(answer, [])
    value["candidates"][0]["urlContextMetadata"] = {
        "urlMetadata": [
            {"retrievedUrl": "https://paywalled.example.jp/", "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_PAYWALL"}
        ]
    }
    editor_client.post("/", {"text": json.dumps(value, ensure_ascii=False)})
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert "Not retrieved: the model could not read this page (PAYWALL)." in page
    assert (
        "Gemini could not retrieve 1 of the 1 URL(s) the prompt gave: https://paywalled.example.jp/ (PAYWALL)" in page
    )
    japanese = editor_client.get(Dump.objects.get().get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "未取得：モデルはこのページを読めませんでした（PAYWALL）。" in japanese
