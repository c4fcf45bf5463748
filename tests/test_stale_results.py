"""A result older code made is shown as stored by every page, API view and export, which queues its
rebuild once for a worker; none of them rebuilds it (a GET never writes: ``tests/test_gets_never_write.py``).

The views ask one service, ``citeview.dumps.reading.dump_queue_rebuild``, and this walks every reader of a
dump's result through it.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_rebuild_stored
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from tests.core.parsing.providers.test_gemini import body

pytestmark = pytest.mark.django_db

IN_OUR_FRAME = {"HTTP_SEC_FETCH_DEST": "iframe", "HTTP_SEC_FETCH_SITE": "same-origin"}
SNIPPET = '<div class="container"><a class="chip" href="https://www.google.com/search?q=x">東京 人口</a></div>'
OLD = "made by older parsers"

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


@pytest.fixture(autouse=True)
def nothing_marked_yet() -> None:
    cache.clear()  # the marks that say a rebuild is queued live in the cache


@pytest.fixture
def stale_dump(editor):
    raw = json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET})).encode()
    dump, _created = dump_ingest(raw=raw, uploaded_by=editor)
    key = dump_check_items(dump)[0].key
    Dump.objects.filter(pk=dump.pk).update(result_version=OLD, headline=OLD)
    return dump.pk, key


def rebuilds_queued() -> list[object]:
    """The dumps whose rebuild waits for a worker."""
    return [
        result.args_kwargs["args"][0]
        for result in DBTaskResult.objects.filter(task_path="citeview.dumps.tasks.rebuild_dump")
        if result.status == TaskResultStatus.READY
    ]


def ask(client, reader: str, pk: int, key: str):
    method, address, options = READERS[reader]
    if "data" in options:
        options = {"data": {name: value.format(key=key) for name, value in options["data"].items()}}
    return getattr(client, method)(address.format(pk=pk, key=key), **options)


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_of_a_stale_result_shows_it_as_stored_and_queues_one_rebuild(
    editor_client, stale_dump, database_queue, reader
):
    pk, key = stale_dump
    for _view in range(3):
        assert ask(editor_client, reader, pk, key).status_code in (200, 302)
    stored = Dump.objects.get(pk=pk)
    assert stored.result_version == OLD and stored.headline == OLD
    assert rebuilds_queued() == [pk]


def test_the_queued_rebuild_brings_the_result_up_to_date(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    editor_client.get(f"/dumps/{pk}/")
    (queued,) = rebuilds_queued()
    assert dump_rebuild_stored(pk=queued)
    rebuilt = Dump.objects.get(pk=pk)
    assert rebuilt.result_version == result_version() and rebuilt.headline == "東京は日本の首都です。"
    assert not dump_rebuild_stored(pk=pk)  # run again: a current result is left as it is


def test_the_viewer_of_a_stale_result_says_it_is_being_read_again(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    page = editor_client.get(f"/dumps/{pk}/").content.decode()
    assert "cv-rebuilding" in page and "東京は日本の首都です。" in page


def test_the_viewer_of_a_current_result_says_nothing_of_a_rebuild(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    Dump.objects.filter(pk=pk).update(result_version=result_version())
    assert "cv-rebuilding" not in editor_client.get(f"/dumps/{pk}/").content.decode()
    assert rebuilds_queued() == []


def test_the_apis_answer_for_a_stale_dump_is_the_stored_result(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    Dump.objects.filter(pk=pk).update(result={"citeview": 1, "responses": []})
    assert editor_client.get(f"/api/dumps/{pk}").json()["responses"] == []
    assert rebuilds_queued() == [pk]


def test_storing_the_same_bytes_again_through_the_api_queues_the_rebuild(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    raw = bytes(Dump.objects.get(pk=pk).raw)
    response = editor_client.post("/api/dumps", raw, content_type="application/json")
    assert response.status_code == 200 and rebuilds_queued() == [pk]


def test_with_tasks_run_at_once_the_next_view_shows_the_rebuilt_result(editor_client, stale_dump):
    pk, _key = stale_dump
    editor_client.get(f"/dumps/{pk}/")  # queued, and (the tests' immediate backend) run
    page = editor_client.get(f"/dumps/{pk}/").content.decode()
    assert "cv-rebuilding" not in page and Dump.objects.get(pk=pk).result_version == result_version()


def test_refresh_dumps_queues_each_stale_dump_once_and_the_pages_queue_no_more(
    editor_client, stale_dump, database_queue
):
    pk, _key = stale_dump
    call_command("refresh_dumps", stdout=io.StringIO())
    editor_client.get(f"/dumps/{pk}/")
    assert rebuilds_queued() == [pk]


def test_the_list_shows_what_is_stored_and_rebuilds_nothing(editor_client, stale_dump, database_queue):
    pk, _key = stale_dump
    assert OLD in editor_client.get("/").content.decode()
    assert Dump.objects.get(pk=pk).result_version == OLD and rebuilds_queued() == []
