"""A result older code made is rebuilt by the first page, API view or export that shows it, never by a read.

The selectors only read (``tests/dumps/test_selectors.py``); each view asks the one service,
``dump_refresh_if_stale``, and this walks every reader of a dump's result through it.
"""

from __future__ import annotations

import json

import pytest

from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from tests.core.test_gemini import body

pytestmark = pytest.mark.django_db

IN_OUR_FRAME = {"HTTP_SEC_FETCH_DEST": "iframe", "HTTP_SEC_FETCH_SITE": "same-origin"}
SNIPPET = '<div class="container"><a class="chip" href="https://www.google.com/search?q=x">東京 人口</a></div>'

# Each reader: its method, its address (given the dump and its first item), and what it sends.
READERS = {
    "the viewer": ("get", "/dumps/{pk}/", {}),
    "the normalised JSON": ("get", "/dumps/{pk}/normalized.json", {}),
    "the Search Suggestions frame": ("get", "/dumps/{pk}/responses/0/search-suggestions", IN_OUR_FRAME),
    "the first item to check": ("get", "/dumps/{pk}/check/", {}),
    "an item's check page": ("get", "/dumps/{pk}/check/{key}/", {}),
    "the end of the checks": ("get", "/dumps/{pk}/checked/", {}),
    "a comment on an item": ("post", "/dumps/{pk}/comments/", {"data": {"text": "確認", "item_key": "{key}"}}),
    "the report page": ("get", "/dumps/{pk}/report/", {}),
    "the Markdown report": ("get", "/dumps/{pk}/report.md", {}),
    "the JSON report": ("get", "/dumps/{pk}/report.json", {}),
    "the API's dump": ("get", "/api/dumps/{pk}", {}),
    "the API's checks": ("get", "/api/dumps/{pk}/checks", {}),
    "the API's report": ("get", "/api/dumps/{pk}/report", {}),
    "the API's Markdown report": ("get", "/api/dumps/{pk}/report.md", {}),
}


@pytest.fixture
def stale_dump(editor):
    raw = json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET})).encode()
    dump, _created = dump_ingest(raw=raw, uploaded_by=editor)
    key = dump_check_items(dump)[0].key
    Dump.objects.filter(pk=dump.pk).update(result_version="made by older parsers", headline="made by older parsers")
    return dump.pk, key


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_of_a_stale_result_has_it_rebuilt_first(editor_client, stale_dump, reader):
    pk, key = stale_dump
    method, address, options = READERS[reader]
    if "data" in options:
        options = {"data": {name: value.format(key=key) for name, value in options["data"].items()}}
    response = getattr(editor_client, method)(address.format(pk=pk, key=key), **options)
    assert response.status_code in (200, 302)
    rebuilt = Dump.objects.get(pk=pk)
    assert rebuilt.result_version == result_version() and rebuilt.headline == "東京は日本の首都です。"


def test_the_apis_answer_for_a_stale_dump_is_the_rebuilt_result(editor_client, stale_dump):
    pk, _key = stale_dump
    Dump.objects.filter(pk=pk).update(result={"citeview": 1, "responses": []})
    answer = editor_client.get(f"/api/dumps/{pk}").json()
    assert answer["responses"][0]["text"] == "東京は日本の首都です。"


def test_storing_the_same_bytes_again_through_the_api_answers_the_rebuilt_result(editor_client, stale_dump):
    pk, _key = stale_dump
    raw = bytes(Dump.objects.get(pk=pk).raw)
    Dump.objects.filter(pk=pk).update(result={"citeview": 1, "responses": []})
    response = editor_client.post("/api/dumps", raw, content_type="application/json")
    assert response.status_code == 200 and response.json()["responses"][0]["text"] == "東京は日本の首都です。"


def test_the_list_shows_what_is_stored_and_rebuilds_nothing(editor_client, stale_dump):
    pk, _key = stale_dump
    assert "made by older parsers" in editor_client.get("/").content.decode()
    assert Dump.objects.get(pk=pk).result_version == "made by older parsers"
