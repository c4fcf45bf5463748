"""A dump whose result older code made, large or small, is rebuilt by a worker, never in a request that
shows it: every page shows the stored result meanwhile (the viewer says a newer reading is coming),
and the pages follow once the worker has rebuilt it, its checks recounted."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from citeview.review.selectors import dump_check_items
from tests.tasks.test_reading import ANSWER, big_dump, run_the_queue, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def stale_large_dump(editor_client, settings, database_queue) -> Dump:
    """A large dump read by a worker, one item checked, then its result made "by older code"."""
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    upload(editor_client, big_dump())
    run_the_queue()
    dump = Dump.objects.get()
    key = dump_check_items(dump)[0].key
    editor_client.post(reverse("review:item", args=[dump.pk, key]), {"version": "0", "verdict": "complete"})
    Dump.objects.filter(pk=dump.pk).update(result_version="older code", headline="older code", checked_item_count=0)
    return dump


def test_its_first_view_shows_the_stored_result_and_queues_the_rebuild(editor_client, stale_large_dump):
    dump = stale_large_dump
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "cv-rebuilding" in page and ANSWER.removesuffix("[1]") in page
    stored = Dump.objects.get(pk=dump.pk)
    assert stored.headline == "older code" and stored.read_state == "ready"  # nothing rebuilt in the request
    run_the_queue()
    rebuilt = Dump.objects.get(pk=dump.pk)
    assert rebuilt.read_state == "ready" and rebuilt.result_version == result_version()
    assert rebuilt.headline != "older code" and rebuilt.checked_item_count == 1  # its checks recounted
    assert "cv-rebuilding" not in editor_client.get(dump.get_absolute_url()).content.decode()


def test_its_check_panel_and_report_show_the_stored_result_meanwhile(editor_client, stale_large_dump):
    dump = stale_large_dump
    start = editor_client.get(reverse("review:start", args=[dump.pk]))
    assert start.status_code == 302 and "/check/" in start["Location"]
    assert editor_client.get(reverse("review:report", args=[dump.pk])).status_code == 200
    assert Dump.objects.get(pk=dump.pk).headline == "older code"
    run_the_queue()
    assert Dump.objects.get(pk=dump.pk).result_version == result_version()


def test_the_api_answers_the_stored_result_meanwhile(editor_api, stale_large_dump):
    dump = stale_large_dump
    response = editor_api.get(f"/api/dumps/{dump.pk}")
    assert response.status_code == 200 and response.json()["responses"][0]["text"].startswith("タスク")
    run_the_queue()
    assert Dump.objects.get(pk=dump.pk).result_version == result_version()


def test_a_stale_small_dump_is_not_rebuilt_in_the_request_either(editor_client, stale_large_dump, settings):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 10 * 1024 * 1024
    page = editor_client.get(stale_large_dump.get_absolute_url()).content.decode()
    assert "cv-rebuilding" in page and Dump.objects.get().result_version == "older code"
