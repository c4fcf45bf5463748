"""A large dump whose result older code made is read again by a worker, not in the first request that
shows it: that request answers at once with the progress page, and the viewer follows once it is read."""

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


def test_its_first_view_queues_the_rebuild_and_shows_the_progress(editor_client, stale_large_dump):
    dump = stale_large_dump
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert 'class="cv-card cv-reading"' in page and "waiting for a worker" in page
    stored = Dump.objects.get(pk=dump.pk)
    assert stored.headline == "older code" and stored.read_state == "queued"  # nothing rebuilt in the request
    assert editor_client.get(f"/dumps/{dump.pk}/reading").json()["state"] == "queued"
    run_the_queue()
    rebuilt = Dump.objects.get(pk=dump.pk)
    assert rebuilt.read_state == "ready" and rebuilt.result_version == result_version()
    assert rebuilt.headline != "older code" and rebuilt.checked_item_count == 1  # its checks recounted
    assert ANSWER.removesuffix("[1]") in editor_client.get(dump.get_absolute_url()).content.decode()


def test_its_check_panel_and_report_wait_for_the_rebuild_too(editor_client, stale_large_dump):
    dump = stale_large_dump
    for address in [reverse("review:start", args=[dump.pk]), reverse("review:report", args=[dump.pk])]:
        response = editor_client.get(address)
        assert response.status_code == 302 and response["Location"] == dump.get_absolute_url(), address
    assert Dump.objects.get(pk=dump.pk).headline == "older code"
    run_the_queue()
    assert editor_client.get(reverse("review:report", args=[dump.pk])).status_code == 200


def test_the_api_answers_202_while_it_is_read_again(editor_api, stale_large_dump):
    dump = stale_large_dump
    response = editor_api.get(f"/api/dumps/{dump.pk}")
    assert response.status_code == 202 and response.json()["state"] == "queued"
    run_the_queue()
    assert editor_api.get(f"/api/dumps/{dump.pk}").json()["responses"][0]["text"].startswith("タスク")


def test_a_stale_small_dump_is_still_rebuilt_in_the_request(editor_client, stale_large_dump, settings):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 10 * 1024 * 1024
    page = editor_client.get(stale_large_dump.get_absolute_url()).content.decode()
    assert ANSWER.removesuffix("[1]") in page and Dump.objects.get().result_version == result_version()
