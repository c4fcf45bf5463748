"""A dump above CITEVIEW_READ_IN_TASK_ABOVE is stored at once and read by a worker: what the viewer,
the API, the list and the queue show meanwhile, a failure and its retry."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from citeview.dumps.models import Dump
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

ANSWER = "タスクで読んだ回答です[1]"


def big_dump(text: str = ANSWER) -> bytes:
    return json.dumps(sonar_object(text, ["https://example.jp/a"]), ensure_ascii=False).encode()


@pytest.fixture(autouse=True)
def read_in_task(settings):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100  # every dump of these tests goes to a worker


def upload(client, raw: bytes, **extra):
    return client.post("/", {"file": SimpleUploadedFile("big.json", raw)}, **extra)


def run_the_queue() -> None:
    """What a worker does, in the test's own connection (a worker process is tests/tasks/test_workers.py)."""
    while DBTaskResult.objects.ready().exists():
        worker_run_one()


def worker_run_one() -> None:
    """One task, the one a worker takes next (by priority, then by age)."""
    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="in-test",
        excluded_queue_names=[],
    )
    result = DBTaskResult.objects.ready().first()
    assert result is not None
    result.claim("in-test")
    worker.run_task(result)


def test_a_large_dump_opens_as_its_viewer_once_the_task_has_read_it(editor_client):
    response = upload(editor_client, big_dump(), follow=True)
    dump = Dump.objects.get()
    assert dump.read_state == "ready" and dump.read_attempts == 1
    assert ANSWER.removesuffix("[1]") in response.content.decode()


def test_a_small_dump_is_still_read_in_the_request(editor_client, settings, database_queue):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 10 * 1024 * 1024
    upload(editor_client, big_dump())
    assert Dump.objects.get().read_state == "ready"


def test_while_it_waits_the_page_shows_progress_then_the_viewer(editor_client, database_queue):
    upload(editor_client, big_dump())
    dump = Dump.objects.get()
    assert dump.read_state == "queued" and dump.read_task_id
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "waiting for a worker" in page and ANSWER.removesuffix("[1]") not in page
    assert f'href="{dump.get_absolute_url()}"' in page  # the reload link works without JavaScript
    assert re.search(r'<script src="[^"]*progress\.js"', page) and "<script>" not in page
    status = editor_client.get(f"/dumps/{dump.pk}/reading").json()
    assert status["state"] == "queued" and status["error"] is None
    run_the_queue()
    assert editor_client.get(f"/dumps/{dump.pk}/reading").json()["state"] == "ready"
    assert ANSWER.removesuffix("[1]") in editor_client.get(dump.get_absolute_url()).content.decode()


def test_the_list_queue_figures_and_exports_cope_with_a_dump_not_read_yet(editor_client, database_queue):
    upload(editor_client, big_dump())
    dump = Dump.objects.get()
    listing = editor_client.get("/").content.decode()
    assert dump.get_absolute_url() in listing
    for address in ["/figures/", f"/dumps/{dump.pk}/normalized.json"]:
        assert editor_client.get(address).status_code < 500, address


def test_an_unreadable_large_dump_shows_its_error_and_can_be_tried_again(editor_client, database_queue):
    upload(editor_client, b'{"choices": [' + b" " * 200)
    dump = Dump.objects.get()
    run_the_queue()
    dump.refresh_from_db()
    assert dump.read_state == "failed" and dump.read_error["code"]
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "could not be read" in page and f'action="/dumps/{dump.pk}/read-again"' in page
    japanese = editor_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "読み込めませんでした" in japanese
    response = editor_client.post(f"/dumps/{dump.pk}/read-again")
    dump.refresh_from_db()
    assert response.status_code == 302 and dump.read_state == "queued" and dump.read_error is None
    run_the_queue()
    dump.refresh_from_db()
    assert dump.read_state == "failed" and dump.read_attempts == 2


def test_reviewers_cannot_retry(client, reviewer, editor_client, database_queue):
    upload(editor_client, b'{"choices": [' + b" " * 200)
    run_the_queue()
    dump = Dump.objects.get()
    client.force_login(reviewer)
    assert "read-again" not in client.get(dump.get_absolute_url()).content.decode()
    assert client.post(f"/dumps/{dump.pk}/read-again").status_code == 403


def test_the_api_answers_202_with_the_url_and_a_status_link(editor_api, database_queue):
    response = editor_api.generic("POST", "/api/dumps", big_dump(), content_type="application/json")
    assert response.status_code == 202
    body = response.json()
    dump = Dump.objects.get()
    assert body["state"] == "queued" and body["url"].endswith(dump.get_absolute_url())
    assert editor_api.get(body["status"]).json()["state"] == "queued"
    assert editor_api.get(f"/api/dumps/{dump.pk}").status_code == 202
    not_ready = editor_api.get(f"/api/dumps/{dump.pk}/checks")
    assert not_ready.status_code == 409 and not_ready.json()["error"]["code"] == "not_ready"
    listed = editor_api.get("/api/dumps").json()["results"][0]
    assert listed["state"] == "queued" and listed["item_count"] == 0
    run_the_queue()
    assert editor_api.get(body["status"]).json()["state"] == "ready"
    assert editor_api.get(f"/api/dumps/{dump.pk}").json()["responses"][0]["text"].startswith("タスク")


def test_the_openapi_document_says_a_large_dump_is_answered_202():
    from citeview.api.openapi import openapi_document

    document = openapi_document()
    answers = document["paths"]["/api/dumps"]["post"]["responses"]
    assert answers["202"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ReadStatus"}
    assert "/api/dumps/{id}/status" in document["paths"]


def test_reading_again_makes_the_same_result(editor_client):
    from citeview.dumps.reading import dump_read_stored

    upload(editor_client, big_dump())
    dump = Dump.objects.get()
    before = dump.result
    Dump.objects.filter(pk=dump.pk).update(read_state="reading")
    assert dump_read_stored(pk=dump.pk) == "ready"
    dump.refresh_from_db()
    assert dump.result == before


def test_refresh_dumps_queues_the_rebuilds(editor_client, database_queue, capsys):
    upload(editor_client, big_dump())
    run_the_queue()
    Dump.objects.update(result_version="old", headline="old")
    call_command("refresh_dumps")
    assert "1 dump(s)" in capsys.readouterr().out and Dump.objects.get().headline == "old"
    run_the_queue()
    assert Dump.objects.get().headline != "old"


def test_try_again_while_the_read_is_queued_queues_nothing(editor_client, database_queue):
    upload(editor_client, big_dump())
    dump = Dump.objects.get()
    assert "read-again" not in editor_client.get(dump.get_absolute_url()).content.decode()
    for _ in range(10):
        page = editor_client.post(f"/dumps/{dump.pk}/read-again", follow=True).content.decode()
    assert "queued to be read already" in page
    assert DBTaskResult.objects.count() == 1  # the one read, not eleven


def test_try_again_is_the_uploaders_or_staffs_alone(client, editor_client, second_editor, database_queue):
    upload(editor_client, b'{"choices": [' + b" " * 200)
    run_the_queue()
    dump = Dump.objects.get()
    client.force_login(second_editor)  # another editor: may store dumps, but this one is not theirs
    page = client.get(dump.get_absolute_url()).content.decode()
    assert "read-again" not in page and "Its uploader or staff can have it read again." in page
    assert client.post(f"/dumps/{dump.pk}/read-again").status_code == 403
    assert DBTaskResult.objects.count() == 1 and Dump.objects.get().read_state == "failed"
    second_editor.is_staff = True
    second_editor.save()
    assert "read-again" in client.get(dump.get_absolute_url()).content.decode()


def test_the_uploader_tries_a_failed_read_again_once_however_often_they_press(editor_client, database_queue):
    upload(editor_client, b'{"choices": [' + b" " * 200)
    run_the_queue()
    dump = Dump.objects.get()
    for _ in range(3):
        editor_client.post(f"/dumps/{dump.pk}/read-again")
    assert DBTaskResult.objects.count() == 2 and DBTaskResult.objects.ready().count() == 1
    assert Dump.objects.get().read_state == "queued"


def test_a_read_whose_worker_went_silent_is_lost_and_can_be_tried_again(editor_client, settings, database_queue):
    from datetime import timedelta

    from django.utils import timezone

    from citeview.dumps.models import WorkerHeartbeat

    upload(editor_client, big_dump())
    dump = Dump.objects.get()
    Dump.objects.update(read_state="reading")
    an_hour_ago = timezone.now() - timedelta(hours=1)
    DBTaskResult.objects.update(status="RUNNING", worker_ids=["w1"], started_at=an_hour_ago)
    WorkerHeartbeat.objects.create(worker_id="w1", started_at=an_hour_ago, beat_at=timezone.now())
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "has stopped" not in page and "read-again" not in page  # an hour, but its worker beats
    WorkerHeartbeat.objects.update(beat_at=an_hour_ago)
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "has stopped" in page and "read-again" in page
    editor_client.post(f"/dumps/{dump.pk}/read-again")
    assert DBTaskResult.objects.ready().count() == 1 and Dump.objects.get().read_state == "queued"


def test_a_dump_waiting_to_be_read_goes_before_keeping_another_dumps_pages(editor_client, database_queue):
    from citeview.dumps.models import DumpPage

    upload(editor_client, big_dump("一つ目の回答です[1]"))
    first = Dump.objects.get()
    worker_run_one()  # the first dump read: the keeping of its pages queued behind it
    assert Dump.objects.get(pk=first.pk).read_state == "ready"
    upload(editor_client, big_dump("二つ目の回答です[1]"))
    second = Dump.objects.exclude(pk=first.pk).get()
    worker_run_one()  # the next task the worker takes reads the second dump, not the first's pages
    assert Dump.objects.get(pk=second.pk).read_state == "ready"
    assert not DumpPage.objects.filter(dump=first).exists()
    run_the_queue()
    assert DumpPage.objects.filter(dump=first).exists() and DumpPage.objects.filter(dump=second).exists()
